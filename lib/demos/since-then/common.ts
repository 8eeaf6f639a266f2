// What the 代码 06 demos share: the §6 workloads and policy lists, how a policy name becomes a router and a local
// policy, one cluster run, and the reader-facing pieces every 06.x table uses.
import { checkNonEmpty, ParameterError } from "../../core/errors";
import type { Column } from "../../core/table";
import { CLUSTER_CONFIGURATIONS, configurationOptions } from "../../cluster/preble/configs";
import "../../cluster/routers-production/index";
import { routerNames } from "../../cluster/routers";
import { ClusterOptions, ClusterResult, simulateSummarized } from "../../cluster/simulate";
import type { Workload } from "../../cluster/workloads";
import { SECTION2_GPU, SECTION2_MODEL, SECTION2_WORKLOADS, hotSpot } from "../cache-balance/cache-vs-balance";
import { policyColumn } from "../columns";

/** The three workloads of §6's comparison: long documents and video QA as in 02.1 (4 replicas), tool calling with
 * a hot tool as in 02.4 / 03.3 (8 replicas). */
export const SINCE_THEN_WORKLOADS: ReadonlyArray<{ workload: string; replicas: number; rate: number; requestCount: number }> = [
  { ...(SECTION2_WORKLOADS.find((w) => w.workload === "longDocQA") as { workload: string; rate: number; requestCount: number }), replicas: 4 },
  { ...(SECTION2_WORKLOADS.find((w) => w.workload === "videoQA") as { workload: string; rate: number; requestCount: number }), replicas: 4 },
  { workload: hotSpot.defaults.workload, replicas: hotSpot.defaults.replicas, rate: hotSpot.defaults.rate, requestCount: hotSpot.defaults.requestCount },
];

/** Our routers (§2, §3) and the production ones (§6), in table order. */
export const OUR_POLICIES = ["roundRobin", "leastLoad", "thresholdAffinity", "cacheAwareGuarded"];
export const PREBLE_POLICIES = ["e2+rebalance", "preble"];
export const PRODUCTION_POLICIES = ["sglangRouter", "sglangRouterLate2025", "dynamoKvRouter", "gatewayPrefixScorer"];

/** Which family a policy belongs to (for prose and chart colours). */
export function policyFamily(policy: string): "ours" | "Preble" | "production" {
  if (PRODUCTION_POLICIES.includes(policy) || policy.startsWith("sglangRouter")) return "production";
  if (PREBLE_POLICIES.includes(policy) || (policy in CLUSTER_CONFIGURATIONS && CLUSTER_CONFIGURATIONS[policy].router === "preble")) return "Preble";
  return "ours";
}

/** Router and local policy of a policy name: a Preble configuration (which carries its own local policy: FCFS for
 * e2+rebalance, priority groups for full Preble), else a registered router on FCFS replicas. */
export function resolvePolicy(policy: string, parameter = "policies"): Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy"> {
  const cfg = CLUSTER_CONFIGURATIONS[policy];
  if (cfg !== undefined && cfg.router === "preble") return configurationOptions(policy);
  if (routerNames().includes(policy)) return { router: policy, routerOptions: {}, localPolicy: "fcfs" };
  if (cfg !== undefined) return configurationOptions(policy);
  throw new ParameterError(parameter, `没有路由策略 ${JSON.stringify(policy)}；路由器有：${routerNames().map((n) => JSON.stringify(n)).join("、")}；配置有：${Object.keys(CLUSTER_CONFIGURATIONS).map((n) => JSON.stringify(n)).join("、")}`);
}

/** Every policy name of a list, checked before anything runs. */
export function checkPolicies(name: string, value: readonly unknown[]): string[] {
  return checkNonEmpty(name, value).map((p, i) => {
    if (typeof p !== "string") throw new ParameterError(`${name}[${i}]`, `应为路由策略的名字（字符串），实际是 ${JSON.stringify(p)}`);
    resolvePolicy(p, `${name}[${i}]`);
    return p;
  });
}

/** What a 06.x demo keeps of one run of `policy` on `w`: summarize(result). Only the summary is kept, so the run's
 * records go to the thread's spare records (simulateSummarized); the summary must not hold on to them. */
export function runPolicy<T>(w: Workload, replicas: number, policy: string, seed: number, extra: Partial<ClusterOptions>, summarize: (result: ClusterResult) => T): T {
  return simulateSummarized({ workload: w, replicas, seed, model: SECTION2_MODEL, gpu: SECTION2_GPU, replicationSamples: 0, ...resolvePolicy(policy), ...extra }, summarize);
}

/** The warm-up rule of every 06.x run, as the reader sees it. */
export const WARMUP_NOTE = "预热：缓存从空开始，按到达时间排在前 20% 的请求不计入统计。";

/** The policy column of the 06.x tables: identifiers in the rows, glossary names on screen. */
export function policyNameColumn(): Column {
  return { ...policyColumn("路由策略"), format: "name" };
}

/** The parameters of 06.1 (the routers side by side); here so that its claims and its demo do not import each other. */
export interface SideBySideParams extends Record<string, unknown> {
  workloads: string[];
  replicas: number[];
  rates: number[];
  requestCounts: number[];
  policies: string[];
  notificationDelay: number;
  seed: number;
}
