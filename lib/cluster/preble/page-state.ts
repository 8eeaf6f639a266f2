// What a reader-written E2 may read (issue 24, notebook 03): the global tree's match for the request and the window
// statistics behind L, M and P, as a small documented object in plain numbers and arrays. The router's own E2 (e2.ts,
// bitmasks and typed arrays) is untouched; with the Preble router option `decide` the page's function decides
// instead, and with `loadCost` / `redirect` the page's load cost and rebalancing are what `state.loadCost(g)` and
// `state.redirect(gpu)` answer. Each decision the page makes is checked: a bad one is one Chinese line naming the
// request.
import { ParameterError } from "../../core/errors";
import type { ClusterView } from "../routers";
import type { ClusterRequest } from "../workloads";
import { Decision, DECISION_KINDS, DecisionKind, EXPLORE } from "./e2";
import { GlobalNodeInfo, GlobalTree } from "./global-tree";
import { LoadCost, LoadCostModel, NS } from "./load-cost";
import type { PrebleOptions } from "./options";
import { isDecodeHeavy } from "./pairing";
import type { Redirect } from "./rebalance";
import type { LoadWindow } from "./window";

/** A decision of the page's E2: the GPU and why (exploit / explore / rebalance / pairing). */
export interface PrebleDecision {
  gpu: number;
  kind: DecisionKind;
}

/** One idle node in a GPU's eviction order (least recently used first). */
export interface IdleNode {
  /** tokens of the node */
  tokens: number;
  /** seconds to recompute it on top of its prefix (T_prefill) */
  recomputeSeconds: number;
  /** share of the window's requests whose prompt passes through it (0 when the window is empty) */
  hitRate: number;
}

/** The window H's statistics of one GPU. */
export interface GpuWindow {
  /** requests dispatched to the GPU within the window */
  requests: number;
  /** Σ prefill seconds of their missed tokens */
  prefillSeconds: number;
  /** Σ seconds one decode step of each of them takes alone (× mean output = the decode term of L) */
  decodeSecondsPerToken: number;
}

/** What the page's E2 may read at one decision (documented in Chinese in notebook 03 §3.2). */
export interface PrebleState {
  /** GPU ids 0 … R − 1 */
  readonly gpus: readonly number[];
  /** simulated time (s) */
  readonly now: number;
  /** the global tree's longest match anywhere: cached tokens, missed = prompt − cached, the GPUs holding that match */
  readonly match: { readonly cached: number; readonly missed: number; readonly holders: readonly number[] };
  /** tokens of this prompt the global tree places on GPU g (its longest prefix allocated there) */
  matchOn(g: number): number;
  /** the window H's statistics of GPU g */
  window(g: number): GpuWindow;
  /** mean output tokens of the requests finished within the window (45 before any finished) */
  readonly meanOutputTokens: number;
  /** seconds to prefill `tokens` new tokens on top of `cached` ones (T_prefill) */
  prefillSeconds(tokens: number, cached: number): number;
  /** KV tokens one GPU holds */
  readonly capacityTokens: number;
  /** tokens of the global-tree nodes allocated to GPU g */
  allocatedTokens(g: number): number;
  /** GPU g's idle nodes in eviction order (least recently used first), this prompt's own prefix left out */
  evictionOrder(g: number): Iterable<IdleNode>;
  /** GPU g runs a request and has under decodeHeavyPendingTokens prefill tokens left (§3.4 pairing) */
  isDecodeHeavy(g: number): boolean;
  /** requests dispatched to GPU g and not finished */
  outstandingRequests(g: number): number;
  /** requests this router has dispatched so far */
  readonly dispatches: number;
  /** the switches and thresholds of §3.4 */
  readonly settings: { readonly pairing: boolean; readonly pairingPrefillTokens: number; readonly rebalance: boolean; readonly thBal: number; readonly rebalanceAfter: number };
  /** L + M + P of this request on GPU g: the page's `loadCost` when the router has one, else the library's */
  loadCost(g: number): LoadCost;
  /** the rebalancing target for exploit's pick (−1: keep it): the page's `redirect` when given, else the library's */
  redirect(chosen: number): number;
}

/** The page's parts (Preble router options). */
export type PrebleDecide = (request: ClusterRequest, state: PrebleState) => PrebleDecision;
export type PrebleLoadCostFn = (request: ClusterRequest, g: number, state: PrebleState) => LoadCost;
export type PrebleRedirectFn = (chosen: number, state: PrebleState) => number;

/** The Preble router options that take the page's functions (kept out of PrebleOptions: plain data). */
export interface PageParts {
  decide: PrebleDecide | null;
  loadCost: PrebleLoadCostFn | null;
  redirect: PrebleRedirectFn | null;
}

/** Takes `decide`, `loadCost` and `redirect` out of raw router options (each a function or absent). */
export function pageParts(options: Record<string, unknown>): { parts: PageParts; rest: Record<string, unknown> } {
  const { decide, loadCost, redirect, ...rest } = options;
  const fn = <T>(name: string, v: unknown): T | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== "function") throw new ParameterError(name, `应为一个函数，实际是 ${shown(v)}`);
    return v as T;
  };
  return { parts: { decide: fn<PrebleDecide>("decide", decide), loadCost: fn<PrebleLoadCostFn>("loadCost", loadCost), redirect: fn<PrebleRedirectFn>("redirect", redirect) }, rest };
}

/** The state behind one router (reused for every decision). */
export class PrebleStateView implements PrebleState {
  readonly gpus: number[];
  now = 0;
  match = { cached: 0, missed: 0, holders: [] as number[] };
  meanOutputTokens = 0;
  dispatches = 0;
  readonly capacityTokens: number;
  readonly settings: PrebleState["settings"];
  private request: ClusterRequest | null = null;
  private view: ClusterView | null = null;

  constructor(
    private readonly o: PrebleOptions,
    private readonly tree: GlobalTree,
    private readonly costs: LoadCostModel,
    private readonly win: LoadWindow,
    private readonly libraryRedirect: Redirect,
    private readonly page: PageParts,
  ) {
    this.gpus = Array.from({ length: costs.replicas }, (_, g) => g);
    this.capacityTokens = o.capacityTokens;
    this.settings = { pairing: o.pairing, pairingPrefillTokens: o.pairingPrefillTokens, rebalance: o.rebalance && o.rebalanceAction === "redirect", thBal: o.thBal, rebalanceAfter: o.rebalanceAfter };
  }

  /** A new decision (the tree has analysed `request`). */
  begin(request: ClusterRequest, view: ClusterView, dispatches: number): void {
    this.request = request;
    this.view = view;
    this.now = view.now;
    this.dispatches = dispatches;
    this.meanOutputTokens = this.win.meanOutputTokens();
    const t = this.tree;
    const holders: number[] = [];
    for (const g of this.gpus) if (t.matchMask & (1 << g)) holders.push(g);
    this.match = { cached: t.matchCached, missed: request.promptTokens - t.matchCached, holders };
  }

  matchOn(g: number): number {
    return this.tree.matchTokens[g];
  }
  window(g: number): GpuWindow {
    const w = this.win;
    return { requests: w.requestsPerGpu[g], prefillSeconds: w.prefillNs[g] / NS, decodeSecondsPerToken: w.tpotNs[g] / NS };
  }
  prefillSeconds(tokens: number, cached: number): number {
    return this.costs.prefillNanoseconds(tokens, cached) / NS;
  }
  allocatedTokens(g: number): number {
    return this.tree.allocatedTokens[g];
  }
  *evictionOrder(g: number): Generator<IdleNode> {
    const tree = this.tree;
    const total = this.win.requests;
    for (let id = tree.listHead[g]; id >= 0; ) {
      const node = tree.nodes[id];
      const info = node.payload as GlobalNodeInfo;
      id = tree.nextIdle(info, g);
      if (info.pathStamp === tree.decisionCounter) continue;
      const hitRate = total > 0 && info.windowCount > 0 ? info.windowCount / total : 0;
      yield { tokens: node.tokens, recomputeSeconds: this.costs.recomputeNanoseconds(node) / NS, hitRate };
    }
  }
  isDecodeHeavy(g: number): boolean {
    return isDecodeHeavy(this.view as ClusterView, g, this.o.decodeHeavyPendingTokens);
  }
  outstandingRequests(g: number): number {
    return (this.view as ClusterView).outstandingRequests(g);
  }
  loadCost(g: number): LoadCost {
    const page = this.page.loadCost;
    if (page !== null) return page(this.request as ClusterRequest, g, this);
    const total = this.costs.cost(g, this.request as ClusterRequest);
    return { L: this.costs.L[g], M: this.costs.M[g], P: this.costs.P[g], total };
  }
  redirect(chosen: number): number {
    const page = this.page.redirect;
    return page !== null ? page(chosen, this) : this.libraryRedirect.target(this.view as ClusterView, chosen, this.dispatches);
  }
}

/** What a page function returned, in a few characters (for the one-line error). */
function shown(x: unknown): string {
  if (typeof x === "number") return String(x);
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
}

/** The page's decision into `out` (checked), with the library's cost terms filled in for the router's statistics:
 * every GPU's after an explore (the argmin's record), the chosen GPU's otherwise. */
export function decideOnPage(decide: PrebleDecide, state: PrebleStateView, request: ClusterRequest, view: ClusterView, dispatches: number, costs: LoadCostModel, windowRequests: Int32Array, out: Decision): void {
  state.begin(request, view, dispatches);
  let d: PrebleDecision | undefined;
  try {
    d = decide(request, state);
  } catch (e) {
    if (e instanceof ParameterError) throw e;
    throw new ParameterError("decide", `第 ${request.id} 个请求（提示 ${request.promptTokens} token）出错：${e instanceof Error ? e.message : String(e)}`);
  }
  const R = costs.replicas;
  const gpu = d?.gpu;
  const kind = d ? DECISION_KINDS.indexOf(d.kind) : -1;
  if (typeof gpu !== "number" || !Number.isInteger(gpu) || gpu < 0 || gpu >= R || kind < 0) {
    throw new ParameterError("decide", `第 ${request.id} 个请求（提示 ${request.promptTokens} token）返回了 ${shown(d)}，应为 { gpu: 0–${R - 1} 的整数, kind: ${DECISION_KINDS.join(" / ")} }`);
  }
  out.gpu = gpu;
  out.kind = kind;
  out.byL = -1;
  out.byCount = -1;
  if (kind !== EXPLORE) {
    costs.cost(gpu, request);
    return;
  }
  for (let g = 0; g < R; g++) costs.cost(g, request);
  let byL = 0;
  let byCount = 0;
  for (let g = 1; g < R; g++) {
    if (costs.L[g] < costs.L[byL]) byL = g;
    if (windowRequests[g] < windowRequests[byCount]) byCount = g;
  }
  out.byL = byL;
  out.byCount = byCount;
}
