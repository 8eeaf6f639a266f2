// Many independent cluster runs on every core (issue 8): a sweep describes each run as plain ClusterOptions (a
// workload by name, routers and local policies by name), and `simulateMany` runs them through core/parallel's
// mapParallel — worker threads plus the calling thread, results in the order given, each identical to
// `simulateCluster(options)` with the same seed. A run returns a RunSummary (plain data) rather than the whole
// ClusterResult: the per-request records stay in the thread that simulated them.
import { mapParallel, parallelTask } from "../core/parallel";
// Every router and local policy registered (a worker loads this file first):
import "./preble/index";
import "./local/prefix-and-priority";
import "./routers-production/index";
import { LOW_HIT_FRACTION, lowHitP99 } from "./preble/runs";
import { isNamedRouter, routerRegistrations } from "./routers";
import { localPolicyRegistrations } from "./local/policy";
import { ClusterMetrics, ClusterOptions, ClusterResult, simulateSummarized } from "./simulate";

/** What a sweep keeps of a run. */
export interface RunSummary {
  metrics: ClusterMetrics;
  routerName: string;
  routerStats: Record<string, unknown>;
  replicas: ClusterResult["replicas"];
  workload: ClusterResult["workload"];
  makespan: number;
  iterations: number;
  /** P99 latency and count of measured requests with a cached fraction < LOW_HIT_FRACTION (NaN, 0 if none) */
  lowHitP99: number;
  lowHitCount: number;
}

export function summarizeRun(result: ClusterResult): RunSummary {
  return {
    metrics: result.metrics,
    routerName: result.routerName,
    routerStats: result.routerStats,
    replicas: result.replicas,
    workload: result.workload,
    makespan: result.makespan,
    iterations: result.iterations,
    lowHitP99: lowHitP99(result),
    lowHitCount: result.records.filter((r) => r.measured && r.cachedTokens < LOW_HIT_FRACTION * r.promptTokens).length,
  };
}

/** The registries' state, for the keys of a session's memo of runs: a router or local policy registered again under
 * its name (a student's own rule in place of a built-in) makes every key new, so nothing is taken from before. */
export function registrationsKey(): string {
  return `${routerRegistrations()}.${localPolicyRegistrations()}`;
}

/** The registries as this module's imports left them: every built-in router and local policy (a worker thread loads
 * this file and has exactly these). */
const BUILT_IN_REGISTRATIONS = registrationsKey();

/** True once code in this thread has registered a router or local policy (a student's own, or one under a built-in's
 * name): worker threads would not know it, so sweeps then run in this thread. */
export function registriesChangedHere(): boolean {
  return registrationsKey() !== BUILT_IN_REGISTRATIONS;
}

/** One run, summarized (the function worker threads call). */
export function simulateSummary(options: ClusterOptions): RunSummary {
  return simulateSummarized(options, summarizeRun);
}

const SIMULATE_TASK = parallelTask(__filename, "simulateSummary", simulateSummary);

/** Runs every entry (plain options: names, numbers, plain objects) on all cores; summaries in the given order.
 * `progress(done, total)` is called as runs finish. Options holding functions or router instances cannot cross
 * threads: such a sweep runs in the calling thread (same results). */
export function simulateMany(runs: readonly ClusterOptions[], progress?: (done: number, total: number) => void): RunSummary[] {
  // Names a worker resolves as this thread does: built-in routers and local policies, none registered here since.
  const plain = !registriesChangedHere() && runs.every((o) => isNamedRouter(o.router) && typeof o.localPolicy !== "function");
  // Longer runs first, so the last one to finish is a short one.
  const weights = runs.map((o) => o.requestCount ?? (typeof o.workload === "object" ? o.workload.requests.length : o.requests?.length ?? 1000));
  const work = weights.reduce((a, b) => a + b, 0);
  return mapParallel(SIMULATE_TASK, runs.map((o) => [o] as [ClusterOptions]), { weights, work, threads: plain ? undefined : 1, onResult: progress ? (_, done, total) => progress(done, total) : undefined });
}
