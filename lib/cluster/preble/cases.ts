// Hand-built cases of Preble's global scheduler (§3.1–§3.2): requests decided one after another by a PrebleRouter
// while nothing has finished (the replicas have not computed a token yet), and the E2 boundary on a small cluster.
import { kvCapacityTokens, StepModel } from "../../hardware/step-model";
import { DECISION_KINDS, DecisionKind, PrebleRouter } from "./index";
import { RequestRecord } from "../record";
import type { ClusterView } from "../routers";
import type { ClusterRequest, Segment } from "../workloads";

const step = new StepModel("MISTRAL_7B", "A6000");
const capacity = kvCapacityTokens("MISTRAL_7B", "A6000");

/** The cluster while nothing has finished: every dispatched request is outstanding and still to prefill. */
class UnfinishedView implements ClusterView {
  now = 0;
  readonly history: RequestRecord[] = [];
  private readonly requests: number[];
  private readonly tokens: number[];
  constructor(readonly replicaCount: number, readonly kvCapacity: number, readonly step: StepModel) {
    this.requests = new Array(replicaCount).fill(0);
    this.tokens = new Array(replicaCount).fill(0);
  }
  outstandingRequests(i: number): number {
    return this.requests[i];
  }
  outstandingTokens(i: number): number {
    return this.tokens[i];
  }
  dispatchedCount(i: number): number {
    return this.requests[i];
  }
  viewMatch(): number {
    return 0;
  }
  cachedMatch(): number {
    return 0;
  }
  /** all but the first request on a replica are still waiting */
  queueLength(i: number): number {
    return Math.max(0, this.requests[i] - 1);
  }
  pendingPrefillTokens(i: number): number {
    return this.tokens[i];
  }
  activeKvTokens(): number {
    return 0;
  }
  kvUtilization(): number {
    return 0;
  }
  dispatch(request: ClusterRequest, replica: number): RequestRecord {
    const r = new RequestRecord(request, this.now);
    r.replica = replica;
    this.history.push(r);
    this.requests[replica]++;
    this.tokens[replica] += request.promptTokens;
    return r;
  }
}

export interface UnfinishedDecision {
  gpu: number;
  kind: DecisionKind;
  /** tokens of the prompt the global tree held anywhere at the decision */
  cached: number;
  missed: number;
}

/** One segment of the global tree as plain data: its path of segment ids from the root, and the GPUs it is
 * allocated to (dispatched there, not known to be evicted). */
export interface GlobalTreeSegment {
  path: number[];
  segment: number;
  tokens: number;
  gpus: number[];
}

/** The router's global tree now, parents before children (the root left out). */
export function globalTreeSnapshot(router: PrebleRouter): GlobalTreeSegment[] {
  const out: GlobalTreeSegment[] = [];
  const tree = router.tree;
  tree.walk((n) => {
    const alloc = (n.payload as { alloc: number } | undefined)?.alloc ?? 0;
    const gpus: number[] = [];
    for (let g = 0; g < 31; g++) if (alloc & (1 << g)) gpus.push(g);
    out.push({ path: tree.pathOf(n), segment: n.segment, tokens: n.tokens, gpus });
  });
  return out;
}

/** Routes `requests` at their arrival times through a fresh Preble router with `options`, nothing finishing in
 * between (§3.1: the eight samples arrive within milliseconds, long before the first prefill ends); `after` sees
 * the router after each dispatch. */
export function decideUnfinished(requests: readonly ClusterRequest[], replicas: number, options: Record<string, unknown>, after?: (router: PrebleRouter, i: number) => void): UnfinishedDecision[] {
  const router = new PrebleRouter({ replicas, step, kvCapacity: capacity }, { ...options, recordDecisions: true });
  const view = new UnfinishedView(replicas, capacity, step);
  return requests.map((request, i) => {
    view.now = request.arrival;
    const m = router.globalMatch(request, request.arrival);
    const gpu = router.route(request, view);
    router.onDispatch(view.dispatch(request, gpu), view);
    const kinds = (router.stats().decisions as { kind: number[] }).kind;
    after?.(router, i);
    return { gpu, kind: DECISION_KINDS[kinds[i]], cached: m.cached, missed: m.missed };
  });
}

export interface BoundaryCase {
  questionTokens: number;
  cached: number;
  missed: number;
  exploit: boolean;
  gpu: number;
  /** prefill seconds of the request on the GPU holding the prefix, and on a GPU without it (P) */
  prefillHolder: number;
  prefillCold: number;
  /** the holder's window load L at the decision (s) */
  holderLoad: number;
}

/** E2 on both sides of cached = missed: a prefix (`prefixTokens`: a 13-token system prompt + a document) was
 * dispatched to GPU `holder` one second earlier; a request with the same prefix and a question of each length
 * arrives (E2 alone, no rebalancing). */
export function e2BoundaryCases(prefixTokens: number, questions: readonly number[], replicas: number, holder: number): BoundaryCase[] {
  const sys: Segment = { id: 1, tokens: 13 };
  const doc: Segment = { id: 2, tokens: prefixTokens - 13 };
  return questions.map((q, i) => {
    const r = new PrebleRouter({ replicas, step, kvCapacity: capacity }, { rebalance: false, autoscale: false, pairing: false });
    const view = new UnfinishedView(replicas, capacity, step);
    const first: ClusterRequest = { id: 0, arrival: 0, segments: [sys, doc, { id: 3, tokens: 200 }], promptTokens: prefixTokens + 200, outputTokens: 40, outputSegment: { id: 4, tokens: 40 }, key: 0, keySegment: 2 };
    r.onDispatch(view.dispatch(first, holder), view);
    view.now = 1;
    const req: ClusterRequest = { id: 1, arrival: 1, segments: [sys, doc, { id: 10 + i, tokens: q }], promptTokens: prefixTokens + q, outputTokens: 40, outputSegment: { id: 20 + i, tokens: 40 }, key: 0, keySegment: 2 };
    const m = r.globalMatch(req, 1);
    const costs = r.loadCosts(req, { now: 1 });
    const gpu = r.route(req, view);
    const other = holder === 0 ? 1 : 0;
    return { questionTokens: q, cached: m.cached, missed: m.missed, exploit: m.cached > m.missed, gpu, prefillHolder: costs[holder].P, prefillCold: costs[other].P, holderLoad: costs[holder].L };
  });
}

/** One decision of a fresh Preble router (E2 alone unless `options` say otherwise) after requests were placed by
 * hand on given GPUs at time 0 (their prompts are in the global tree, nothing has finished): the request arrives at
 * time 1 and is routed. With the option `decide`, the page's (or a student's) E2 decides. */
export function decideAfterPlacing(placed: ReadonlyArray<{ request: ClusterRequest; gpu: number }>, request: ClusterRequest, replicas: number, options: Record<string, unknown> = {}): UnfinishedDecision {
  const router = new PrebleRouter({ replicas, step, kvCapacity: capacity }, { rebalance: false, autoscale: false, pairing: false, ...options, recordDecisions: true });
  const view = new UnfinishedView(replicas, capacity, step);
  for (const p of placed) router.onDispatch(view.dispatch(p.request, p.gpu), view);
  view.now = 1;
  const m = router.globalMatch(request, 1);
  const gpu = router.route(request, view);
  const kinds = (router.stats().decisions as { kind: number[] }).kind;
  return { gpu, kind: DECISION_KINDS[kinds[kinds.length - 1]], cached: m.cached, missed: m.missed };
}
