// The cluster simulation (§2): arrivals → router → replicas, driven by one event queue (arrivals, replica
// iteration ends, replication samples, timeline samples, delayed cache notices). Returns per-request records,
// metrics (metrics.ts) and, when asked, a timeline (timeline.ts). The parts: options checked (cluster-options.ts)
// → set-up, event loop and result (cluster-run.ts), with what routers see in cluster-view.ts.
// Each call is self-contained: the only state it shares is the thread's pools of spare radix nodes, which a finished
// run refills (radix-tree.ts), and of spare records, which sweeps refill (record.ts); neither changes a result, so
// independent runs can go to worker threads.
import { ClusterOptions, ClusterResult, resolveSettings } from "./cluster-options";
import { ClusterRun } from "./cluster-run";
import { releaseRecords } from "./record";
import { isNamedRouter } from "./routers";

export { aloneLatency, OVERLOAD_RULE, warmupDescription } from "./metrics";
export type { ClusterMetrics } from "./metrics";
export type { ClusterOptions, ClusterResult } from "./cluster-options";

export function simulateCluster(options: ClusterOptions): ClusterResult {
  const wallStart = Date.now();
  const run = new ClusterRun(resolveSettings(options));
  run.run();
  const result = run.result(wallStart);
  run.recycle();
  return result;
}

/** summarize(simulateCluster(options)) for callers that keep only the summary (sweeps): the run's records then go
 * to the thread's spare records for its next runs. The summary must not refer to the result's records; with a router
 * given as code (not a registered router's name) they are left alone, as its stats() could return one. */
export function simulateSummarized<T>(options: ClusterOptions, summarize: (result: ClusterResult) => T): T {
  const result = simulateCluster(options);
  const summary = summarize(result);
  if (isNamedRouter(options.router)) releaseRecords(result.records);
  return summary;
}
