// The cluster simulation (§2): arrivals → router → replicas, driven by one event queue (arrivals, replica
// iteration ends, replication samples, timeline samples, delayed cache notices). Returns per-request records,
// metrics (metrics.ts) and, when asked, a timeline (timeline.ts). The parts: options checked (cluster-options.ts)
// → set-up, event loop and result (cluster-run.ts), with what routers see in cluster-view.ts.
// Each call is self-contained: the only state it shares is the thread's pools of spare radix nodes, which a finished
// run refills (radix-tree.ts), and of spare records and Preble's tree payloads, which sweeps refill (record.ts,
// preble/global-tree.ts); none changes a result, so independent runs can go to worker threads.
import { ClusterOptions, ClusterResult, resolveSettings } from "./cluster-options";
import { ClusterRun } from "./cluster-run";
import { releaseRecords } from "./record";
import { isNamedRouter } from "./routers";

export { aloneLatency, OVERLOAD_RULE, warmupDescription } from "./metrics";
export type { ClusterMetrics } from "./metrics";
export type { ClusterOptions, ClusterResult } from "./cluster-options";

export function simulateCluster(options: ClusterOptions): ClusterResult {
  return finishedRun(options).result;
}

/** Runs to the end and builds the result; the caches' and indexes' nodes are back in the thread's pool. */
function finishedRun(options: ClusterOptions): { run: ClusterRun; result: ClusterResult } {
  const wallStart = Date.now();
  const run = new ClusterRun(resolveSettings(options));
  run.run();
  const result = run.result(wallStart);
  run.recycle();
  return { run, result };
}

/** summarize(simulateCluster(options)) for callers that keep only the summary (sweeps): the run's records then go
 * to the thread's spare records for its next runs, and its router (made from a registered name, so nobody else holds
 * it) is released (Router.release: Preble's global tree goes to the pools). The summary must not refer to the
 * result's records; with a router given as code they are left alone, as its stats() could return one. */
export function simulateSummarized<T>(options: ClusterOptions, summarize: (result: ClusterResult) => T): T {
  const { run, result } = finishedRun(options);
  const summary = summarize(result);
  if (isNamedRouter(options.router)) {
    releaseRecords(result.records);
    run.router.release?.();
  }
  return summary;
}
