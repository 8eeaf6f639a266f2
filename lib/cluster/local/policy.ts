// Local (per-replica) scheduling: the order in which a replica admits its waiting requests (§3.5).
// FCFS here; longest-prefix-first (SGLang) and Preble's priority groups plug in through the same interface.
import { checkOneOf } from "../../core/errors";
import type { RequestRecord } from "../record";

/** What a local policy may look at when ordering the queue. */
export interface LocalPolicyContext {
  /** simulated time (s) */
  readonly now: number;
  /** replica index */
  readonly replica: number;
  /** tokens of the request's prompt cached on this replica now (longest prefix; O(segments)) */
  cachedTokens(record: RequestRecord): number;
}

export interface LocalPolicy {
  readonly name: string;
  /** The admission order for this iteration: `waiting` (in dispatch order) reordered, or a subset of it, or
   * null to keep dispatch order. The engine admits from the front while its token budget and KV memory allow,
   * and stops at the first request that does not fit. */
  order(waiting: readonly RequestRecord[], context: LocalPolicyContext): readonly RequestRecord[] | null;
  /** Told about each admitted request (stateful policies, e.g. priority groups, keep their counters here). */
  onAdmit?(record: RequestRecord, context: LocalPolicyContext): void;
}

/** Builds one policy instance per replica. */
export type LocalPolicyFactory = (replica: number) => LocalPolicy;

/** First come, first served (vLLM's default; our baseline engine). */
export function fcfs(): LocalPolicy {
  return { name: "fcfs", order: () => null };
}

const localPolicies = new Map<string, LocalPolicyFactory>([["fcfs", () => fcfs()]]);

/** grows with every registration (see localPolicyRegistrations) */
let registrations = 0;

/** Registers a named local policy (the Preble issue adds "lpf" and "priority"). */
export function registerLocalPolicy(name: string, factory: LocalPolicyFactory): void {
  localPolicies.set(name, factory);
  registrations++;
}

/** How many times a local policy has been registered so far: session memos of runs keyed by policy names put it in
 * their keys, so that a name registered again (a student's own policy under a built-in name) runs anew. */
export function localPolicyRegistrations(): number {
  return registrations;
}

export function localPolicyNames(): string[] {
  return [...localPolicies.keys()];
}

export type LocalPolicySpec = string | LocalPolicyFactory;

export function resolveLocalPolicy(spec: LocalPolicySpec): LocalPolicyFactory {
  if (typeof spec === "function") return spec;
  return localPolicies.get(checkOneOf("localPolicy", spec, localPolicyNames())) as LocalPolicyFactory;
}
