// §1 a dispatch policy the reader writes (notebook 01): a plain function `(servers, rng) => server index`, or an
// object { name, choose } (with an optional time budget). `servers` shows what the lecture says a dispatcher may
// know (§1.2–§1.3): the server count, each server's jobs in system and remaining work — under stale information the
// values of the last snapshot, never the live ones — and the job's index (round robin's counter) and arrival time.
// `rng` is the run's dispatch stream, the very one the built-in policies draw from, so a page policy that draws as a
// built-in does (rng.int for a sample, rng.uniform for a tie) makes the same decisions for the same seed.
//
// Whatever the function does wrong stops the run with one Chinese line naming the job (its index and arrival time)
// and what came back: not a server index, an exception, or more wall time than its budget. The budget is enforced
// by running the whole simulation under node's vm timeout (a watchdog that interrupts any JavaScript, so even a
// `while (true) {}` inside the reader's function stops), at no cost per call.
import { ParameterError, shownValue, UserCodeError } from "../core/errors";
import type { Rng } from "../core/rng";
import { runWithTimeLimit } from "../core/watchdog";
import type { DispatchPolicy } from "./policies";
import type { ServerState } from "./server-state";

/** What a policy may read about the servers when a job arrives. */
export interface DispatchServers {
  /** number of servers N (they are numbered 0 … N−1) */
  readonly count: number;
  /** this job's index in arrival order (0, 1, 2, …): round robin's counter */
  readonly job: number;
  /** this job's arrival time (mean service times) */
  readonly now: number;
  /** true when the dispatcher sees a snapshot refreshed every T (refresh > 0), false for live information */
  readonly stale: boolean;
  /** when the values below were taken: the last refresh (stale), or now */
  readonly snapshotTime: number;
  /** jobs on server s (waiting + in service) */
  queueLength(s: number): number;
  /** the time server s still needs for its jobs (remaining work, mean service times) */
  workLeft(s: number): number;
}

/** The random numbers a policy may draw: the run's dispatch stream. */
export interface PolicyRng {
  /** uniform on [0, 1) */
  uniform(): number;
  /** uniform integer on 0 … n−1 */
  int(n: number): number;
}

export type PolicyFunction = (servers: DispatchServers, rng: PolicyRng) => number;

/** A policy with a display name, and optionally its time budget. */
export interface NamedPolicy {
  name: string;
  choose: PolicyFunction;
  /** wall-clock seconds one simulation run may spend before it is stopped (default 60) */
  timeLimit?: number;
}

/** A policy name of the library, or one the reader wrote. */
export type DispatchPolicyInput = DispatchPolicy | PolicyFunction | NamedPolicy;

/** A reader's policy, checked: its display name, the function and its budget. */
export interface UserPolicy {
  readonly name: string;
  readonly choose: PolicyFunction;
  readonly timeLimit: number;
}

export const DEFAULT_POLICY_TIME_LIMIT = 60;

const positive = (name: string, value: unknown, fallback: number): number => {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value > 0) || !Number.isFinite(value)) throw new ParameterError(name, `应为 > 0 的有限数（秒），实际是 ${shownValue(value)}`);
  return value;
};

/** True for a policy the reader wrote (a function or { name, choose }), false for anything else. */
export function isUserPolicy(p: unknown): p is PolicyFunction | NamedPolicy {
  return typeof p === "function" || (typeof p === "object" && p !== null && typeof (p as NamedPolicy).choose === "function");
}

/** Checks a reader's policy; `parameter` names it in errors (e.g. "policies[2]"). Unnamed functions are called
 * after the parameter. */
export function resolveUserPolicy(p: PolicyFunction | NamedPolicy, parameter = "policy"): UserPolicy {
  if (typeof p === "function") return { name: p.name || parameter, choose: p, timeLimit: DEFAULT_POLICY_TIME_LIMIT };
  if (typeof p.name !== "string" || p.name === "") throw new ParameterError(`${parameter}.name`, `应为非空字符串（表里这一行的名字），实际是 ${shownValue(p.name)}`);
  return {
    name: p.name,
    choose: p.choose,
    timeLimit: positive(`${parameter}.timeLimit`, p.timeLimit, DEFAULT_POLICY_TIME_LIMIT),
  };
}

/** The display name of any policy input: the library's id, or the reader's name. */
export function policyInputName(p: DispatchPolicyInput, parameter = "policy"): string {
  return typeof p === "string" ? p : resolveUserPolicy(p, parameter).name;
}

/** Runs a reader's policy inside simulateDispatch: the `servers` object it reads, the checks on what it returns. */
export class UserPolicyRunner implements DispatchServers {
  readonly count: number;
  job = 0;
  now = 0;
  snapshotTime = 0;

  constructor(private readonly policy: UserPolicy, private readonly state: ServerState, readonly stale: boolean, private readonly rng: Rng, private readonly seed: number | string) {
    this.count = state.servers;
  }

  queueLength(s: number): number {
    this.checkServer(s, "queueLength");
    if (this.stale) return this.state.snapshotCount[s];
    this.state.system.departUntil(s, this.now);
    return this.state.system.count[s];
  }

  workLeft(s: number): number {
    this.checkServer(s, "workLeft");
    if (this.stale) return this.state.snapshotWork[s];
    const done = this.state.lastCompletion[s];
    return done > this.now ? done - this.now : 0;
  }

  /** The snapshot was just taken at r. */
  refreshedAt(r: number): void {
    this.snapshotTime = r;
  }

  /** The server the reader's policy picks for job `job` arriving at t. */
  choose(t: number, job: number): number {
    this.now = t;
    this.job = job;
    if (!this.stale) this.snapshotTime = t;
    let s: unknown;
    try {
      s = this.policy.choose(this, this.rng);
    } catch (e) {
      throw this.failure(`抛出了错误：${describeThrown(e)}`);
    }
    if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s >= this.count) {
      throw this.failure(`返回了 ${shownValue(s)}：应返回服务器编号，0–${this.count - 1} 的整数`);
    }
    return s;
  }

  private checkServer(s: number, method: string): void {
    if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s >= this.count) {
      throw new RangeError(`servers.${method}(${shownValue(s)})：服务器编号应为 0–${this.count - 1} 的整数`);
    }
  }

  /** The error for a run stopped by its time limit while this job was being dispatched. */
  timedOut(): UserCodeError {
    return this.failure(`时还没算完，这次运行超过了时间上限 ${this.policy.timeLimit} 秒（函数里有死循环？写成 { name, choose, timeLimit: 秒数 } 可以放宽上限）`);
  }

  private failure(what: string): UserCodeError {
    return new UserCodeError(`派发策略 ${this.policy.name} 在请求 #${this.job}（按到达顺序从 0 数，到达时刻 ${this.now.toFixed(3)}，种子 ${String(this.seed)}）${what}`);
  }
}

/** "TypeError: x is not a function" — the first line of what was thrown. */
function describeThrown(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${String(e.message).split("\n")[0]}`;
  return shownValue(e);
}

/** Where a guarded run reports the runner it made (for the time-limit message). */
export interface RunWatch {
  runner?: UserPolicyRunner;
}

/** Runs `run` (a simulation that calls the reader's policy) under the policy's time limit (lib/core/watchdog.ts): an
 * endless loop inside the policy included, the run stops with a UserCodeError naming the job being dispatched. */
export function withTimeLimit<T>(policy: UserPolicy, run: (watch: RunWatch) => T): T {
  const watch: RunWatch = {};
  return runWithTimeLimit(policy.timeLimit, () => run(watch), () => (watch.runner ? watch.runner.timedOut() : new UserCodeError(`派发策略 ${policy.name} 超过了时间上限 ${policy.timeLimit} 秒`)));
}
