// Named cluster configurations for the §3 comparisons: a router plus a local queue policy per replica.
import { checkOneOf } from "../core/errors";
import type { ClusterOptions } from "./simulate";
import "./preble";
import "./preble-local";

export interface ClusterConfiguration {
  name: string;
  /** one line for tables and the notebook */
  description: string;
  router: string;
  routerOptions: Record<string, unknown>;
  localPolicy: string;
}

const E2_ONLY = { rebalance: false, autoscale: false, pairing: false };

export const CLUSTER_CONFIGURATIONS: Readonly<Record<string, ClusterConfiguration>> = {
  baseline: {
    name: "baseline",
    description: "round robin + longest-prefix-first on every replica (SGLang per replica, Preble's baseline)",
    router: "roundRobin",
    routerOptions: {},
    localPolicy: "lpf",
  },
  cacheAwareGuarded: {
    name: "cacheAwareGuarded",
    description: "SGLang-router-like cache-aware routing with a load guard (§2.5) + FCFS engines, as in §2",
    router: "cacheAwareGuarded",
    routerOptions: {},
    localPolicy: "fcfs",
  },
  e2: {
    name: "e2",
    description: "Preble's E2 with load cost L + M + P only (no rebalancing, autoscaling or pairing) + FCFS",
    router: "preble",
    routerOptions: { ...E2_ONLY },
    localPolicy: "fcfs",
  },
  "e2+rebalance": {
    name: "e2+rebalance",
    description: "E2 + post-assignment rebalancing (Th_bal = 1.5) + FCFS",
    router: "preble",
    routerOptions: { ...E2_ONLY, rebalance: true },
    localPolicy: "fcfs",
  },
  preble: {
    name: "preble",
    description: "full Preble: E2 + rebalancing + autoscaling + prefill/decode pairing + priority groups",
    router: "preble",
    routerOptions: { rebalance: true, autoscale: true, pairing: true },
    localPolicy: "priority",
  },
};

export const CONFIGURATION_NAMES: readonly string[] = Object.keys(CLUSTER_CONFIGURATIONS);

/** The router and local policy of a named configuration, ready to spread into simulateCluster's options;
 * `routerOptions` are merged over the configuration's (e.g. { thBal: 2 }). */
export function configurationOptions(name: string, routerOptions: Record<string, unknown> = {}, localPolicy?: string): Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy"> {
  const c = CLUSTER_CONFIGURATIONS[checkOneOf("configuration", name, CONFIGURATION_NAMES as string[])];
  return { router: { name: c.router, ...c.routerOptions, ...routerOptions }, routerOptions: {}, localPolicy: localPolicy ?? c.localPolicy };
}
