// The cluster simulation (§2): arrivals → router → replicas, driven by one event queue (arrivals, replica
// iteration ends, replication samples, timeline samples, delayed cache notices). Returns per-request records,
// metrics (metrics.ts) and, when asked, a timeline (timeline.ts). The parts: options checked (cluster-options.ts)
// → set-up, event loop and result (cluster-run.ts), with what routers see in cluster-view.ts.
// Each call is self-contained: the only state it shares is the thread's pool of spare radix nodes, which a finished
// run refills (radix-tree.ts) and which never changes a result; so independent runs can go to worker threads.
import { ClusterOptions, ClusterResult, resolveSettings } from "./cluster-options";
import { ClusterRun } from "./cluster-run";

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
