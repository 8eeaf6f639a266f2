// Plain data for two pictures of §3 that the lecture describes in words (the charts are lib/view's): §3.1's global
// radix tree right after a handful of requests of the programming workload were dispatched (03.7's scenario: the
// samples of one problem arrive within milliseconds), and §3.2's E2 decision line — every request's cluster-wide
// cached and missed tokens and what E2 did with it, in one cluster run.
import { checkInteger, checkNumber, checkOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import { CLUSTER_CONFIGURATIONS } from "../../cluster/preble/configs";
import { decideUnfinished, globalTreeSnapshot, GlobalTreeSegment, UnfinishedDecision } from "../../cluster/preble/cases";
import { DECISION_KINDS } from "../../cluster/preble/index";
import { configurationRun } from "../../cluster/preble/runs";
import { simulateCluster } from "../../cluster/simulate";
import { generateWorkload, WORKLOAD_NAMES } from "../../cluster/workloads";
import type { ClusterRequest } from "../../cluster/workloads";

const PREBLE_CONFIGURATIONS = ["e2", "e2+rebalance", "preble", "prebleReleased"];

/** One segment of the tree, ready for radixTreeSvg / showRadixTree. */
export interface TreeSegmentDrawing {
  id: string;
  parent?: string;
  label: string;
  tokens: number;
  gpus: number[];
  /** inserted into the global tree by the last request (at its dispatch) */
  inserted: boolean;
}

export interface GlobalTreeAtDispatch {
  nodes: TreeSegmentDrawing[];
  gpuCount: number;
  /** the requests in dispatch order: their problem, the global match at the decision, E2's decision and GPU */
  requests: Array<{ problem: number; sample: number } & UnfinishedDecision>;
  title: string;
}

/** What each segment of the programming workload is: the shared instruction prefix, or a problem. */
function segmentLabels(requests: readonly ClusterRequest[]): Map<number, string> {
  const labels = new Map<number, string>();
  for (const r of requests) {
    labels.set(r.segments[0].id, "共享指令前缀");
    labels.set(r.segments[1].id, `题目 ${r.tags?.problem ?? "?"}`);
  }
  return labels;
}

function drawing(segments: GlobalTreeSegment[], before: Set<string>, labels: Map<number, string>): TreeSegmentDrawing[] {
  return segments.map((s) => {
    const id = s.path.join("/");
    return {
      id,
      ...(s.path.length > 1 ? { parent: s.path.slice(0, -1).join("/") } : {}),
      label: labels.get(s.segment) ?? `段 ${s.segment}`,
      tokens: s.tokens,
      gpus: s.gpus,
      inserted: !before.has(id),
    };
  });
}

/** §3.1: the first `requests` requests of a programming workload (8 samples a problem, arriving together), decided
 * one by one by a fresh Preble router with nothing finished yet; the global tree after the last dispatch, with the
 * segments that last request inserted marked. */
export function globalTreeAtDispatch(o: { requests?: number; replicas?: number; configuration?: string; seed?: number | string } = {}): GlobalTreeAtDispatch {
  const n = checkInteger("requests", o.requests ?? 17, { min: 1, max: 64 });
  const replicas = checkInteger("replicas", o.replicas ?? 4, { min: 1, max: 30 });
  const configuration = checkOneOf("configuration", o.configuration ?? "e2", PREBLE_CONFIGURATIONS);
  const seed = o.seed ?? 3;
  const requests = generateWorkload("programming", { rate: 4, seed, requestCount: n }).requests.slice(0, n);
  let before = new Set<string>();
  let after: GlobalTreeSegment[] = [];
  const decisions = decideUnfinished(requests, replicas, CLUSTER_CONFIGURATIONS[configuration].routerOptions, (router, i) => {
    if (i === n - 2) before = new Set(globalTreeSnapshot(router).map((s) => s.path.join("/")));
    if (i === n - 1) after = globalTreeSnapshot(router);
  });
  return {
    nodes: drawing(after, before, segmentLabels(requests)),
    gpuCount: replicas,
    requests: decisions.map((d, i) => ({ problem: requests[i].tags?.problem ?? -1, sample: (requests[i].tags?.sample ?? 0) + 1, ...d })),
    title: `全局基数树：编程负载（种子 ${String(seed)}）的前 ${n} 个请求派发之后（${replicas} 个 GPU，还没有请求算完）`,
  };
}

/** One decision of E2 for the decision-line chart: exploit / explore (pairing is explore's first branch) / rebalance. */
export interface E2DecisionPoint {
  cachedTokens: number;
  missedTokens: number;
  kind: "exploit" | "explore" | "rebalance";
}

/** §3.2: every decision of one cluster run (a workload at a rate under a Preble configuration): the global tree's
 * cluster-wide match (cached) and the rest of the prompt (missed), and what E2 decided. */
export function e2DecisionLine(o: { workload?: string; rate?: number; replicas?: number; configuration?: string; requestCount?: number; seed?: number | string } = {}): { decisions: E2DecisionPoint[]; title: string } {
  const workload = checkOneOf("workload", o.workload ?? "toolCallingHotSpot", WORKLOAD_NAMES as string[]);
  const rate = checkNumber("rate", o.rate ?? 70, { above: 0 });
  const replicas = checkInteger("replicas", o.replicas ?? 8, { min: 1, max: 30 });
  const configuration = checkOneOf("configuration", o.configuration ?? "e2+rebalance", PREBLE_CONFIGURATIONS);
  const requestCount = checkInteger("requestCount", o.requestCount ?? 1000, { min: 10, max: 20000 });
  const seed = o.seed ?? 1;
  const base = configurationRun({ workload, rate, replicas, configuration, requestCount, seed });
  const res = simulateCluster({ ...base, router: { ...(base.router as { name: string } & Record<string, unknown>), recordDecisions: true } });
  const log = res.routerStats.decisions as { kind: number[]; cached: number[]; missed: number[] };
  const decisions = log.kind.map((k, i) => {
    const kind = DECISION_KINDS[k];
    return { cachedTokens: log.cached[i], missedTokens: log.missed[i], kind: kind === "pairing" ? "explore" : kind } as E2DecisionPoint;
  });
  return { decisions, title: `E2 的判定线：${requestCount} 个请求的已缓存与未命中 token（${displayName(workload)}，${rate} 请求/秒，${replicas} 个 GPU，${displayName(configuration)}，种子 ${String(seed)}）` };
}
