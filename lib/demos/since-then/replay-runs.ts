// 06.4's runs over the worker threads: one (load, router) replay of the Mooncake conversation window, named by plain
// data, so that mapParallel can send it to a worker — which loads the trace itself and simulates exactly what the
// calling thread would (the same window, time scale and options: a pure function of them).
import { ParameterError } from "../../core/errors";
import { mapParallel, parallelTask } from "../../core/parallel";
import { CLUSTER_CONFIGURATIONS, configurationOptions } from "../../cluster/preble/configs";
import { routerNames } from "../../cluster/routers";
import { ClusterMetrics, ClusterOptions, simulateCluster } from "../../cluster/simulate";
import { registriesChangedHere } from "../../cluster/sweep"; // every router and local policy registered, in a worker too
import type { ClusterRequest } from "../../cluster/workloads";
import { blockTraceRequests, loadMooncakeConversation, traceWindow } from "../../traces/mooncake-conversation";

/** Every registered router, Preble's global scheduler as E2 alone (configuration "e2": no rebalancing, autoscaling
 * or pairing, FCFS replicas) so that it differs from the others only in routing. */
export function replayPolicies(): string[] {
  return routerNames().map((r) => (r === "preble" ? "e2" : r));
}

/** Router and local policy for a policy name: a named configuration (baseline, e2, e2+rebalance, preble …) or a
 * registered router on FCFS replicas. */
export function policyOptions(policy: string): Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy"> {
  if (policy in CLUSTER_CONFIGURATIONS) return configurationOptions(policy);
  if (routerNames().includes(policy)) return { router: policy, routerOptions: {}, localPolicy: "fcfs" };
  throw new ParameterError("policies", `没有路由器或配置 ${JSON.stringify(policy)}；可选：${[...replayPolicies(), ...Object.keys(CLUSTER_CONFIGURATIONS).filter((c) => !replayPolicies().includes(c))].map((n) => JSON.stringify(n)).join("、")}`);
}

export interface ReplayJob {
  fromMinute: number;
  minutes: number;
  timeScale: number;
  replicas: number;
  seed: number;
  model: string;
  gpu: string;
  warmup: number;
  policy: string;
}

let lastRequests: { key: string; requests: ClusterRequest[] } | null = null;

/** The window's requests at a time scale (the last one kept: a load's routers share it). */
function requestsOf(j: ReplayJob): ClusterRequest[] {
  const key = JSON.stringify([j.fromMinute, j.minutes, j.timeScale]);
  if (lastRequests?.key !== key) {
    const trace = loadMooncakeConversation();
    lastRequests = { key, requests: blockTraceRequests(trace, traceWindow(trace, j.fromMinute, j.minutes), j.timeScale) as ClusterRequest[] };
  }
  return lastRequests.requests;
}

/** One replay: its metrics (plain data). */
export function replayRun(j: ReplayJob): ClusterMetrics {
  const requests = requestsOf(j);
  return simulateCluster({ requests, replicas: j.replicas, seed: j.seed, model: j.model, gpu: j.gpu, replicationSamples: 0, warmup: j.warmup, ...policyOptions(j.policy) }).metrics;
}

const REPLAY_TASK = parallelTask(__filename, "replayRun", replayRun);

/** Every job over the worker threads (results in order, identical to running them here one after another), with a
 * progress line. */
export function replayRuns(jobs: readonly ReplayJob[], progress?: (message: string) => void): ClusterMetrics[] {
  // the work in simulated requests: each replay simulates its window's requests
  let work = 0;
  if (jobs.length > 0) {
    const trace = loadMooncakeConversation();
    for (const j of jobs) work += traceWindow(trace, j.fromMinute, j.minutes).count;
  }
  // a router registered in this thread is unknown to the workers: then every replay runs here
  return mapParallel(REPLAY_TASK, jobs.map((j) => [j] as [ReplayJob]), { work, threads: registriesChangedHere() ? 1 : undefined, onResult: progress ? (_, done, total) => progress(`06.4：已完成 ${done}/${total} 次重放`) : undefined });
}
