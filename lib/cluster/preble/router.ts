// Preble's global scheduler as a Router (§3.1–§3.4): the global tree updated at dispatch (global-tree.ts), the window
// H (window.ts), the load cost L + M + P (load-cost.ts), E2 (e2.ts), rebalancing and autoscaling (rebalance.ts),
// pairing (pairing.ts). Local scheduling (priority groups) lives in ../lib/cluster/local/prefix-and-priority.ts.
import { checkInteger, ParameterError } from "../../core/errors";
import type { StepModel } from "../../hardware/step-model";
import type { RequestRecord } from "../record";
import { ClusterView, EvictionNotice, registerRouter, Router, RouterContext } from "../routers";
import type { ClusterRequest } from "../workloads";
import { CandidateRecorder } from "./candidates";
import { Decision, DECISION_KINDS, E2, EXPLORE } from "./e2";
import { GlobalNodeInfo, GlobalTree } from "./global-tree";
import { LoadCost, LoadCostModel } from "./load-cost";
import { PrebleOptions, prebleOptions } from "./options";
import { AdmissionHitWindow, isDecodeHeavy } from "./pairing";
import { AutoscaleEvent, maybeAutoscale, migrateImportantNodes, Migration, Redirect } from "./rebalance";
import { LoadWindow, OutstandingDecode } from "./window";
import { decideOnPage, PageParts, pageParts, PrebleStateView } from "./page-state";

export class PrebleRouter implements Router {
  readonly name: string;
  readonly options: PrebleOptions;
  readonly global: GlobalTree;
  private readonly window: LoadWindow;
  private readonly costs: LoadCostModel;
  private readonly decode: OutstandingDecode | null;
  private readonly hits: AdmissionHitWindow | null;
  private readonly e2: E2;
  private readonly replicas: number;
  private readonly decision: Decision = { gpu: -1, kind: EXPLORE, byL: -1, byCount: -1 };
  private lastRequest: ClusterRequest | null = null;
  private readonly migrates: boolean;
  private dispatches = 0;
  // Statistics.
  private readonly kindCounts = [0, 0, 0, 0];
  private sumL = 0;
  private sumM = 0;
  private sumP = 0;
  private costDecisions = 0;
  private decisionsWithM = 0;
  private exploreSameAsL = 0;
  private exploreSameAsCount = 0;
  private noticesApplied = 0;
  private noticesIgnored = 0;
  readonly autoscaleEvents: AutoscaleEvent[] = [];
  readonly migrations: Migration[] = [];
  /** rebalancing's view (once it may act): the highest busiest ÷ lightest window-load ratio seen at a dispatch, and at
   * how many dispatches it was above Th_bal (a mechanism that never acted says why, 03.11) */
  private maxLoadRatio = 0;
  private aboveThBal = 0;
  /** migrations that moved a node straight back to the GPU its previous migration took it from */
  private migratedBack = 0;
  private readonly lastMigration = new Map<number, number>();
  private logKind: number[] = [];
  private logTime: number[] = [];
  private logL: number[] = [];
  private logM: number[] = [];
  private logP: number[] = [];
  private logGpu: number[] = [];
  /** the global tree's cluster-wide match at each decision (E2's cached; missed = prompt − cached) */
  private logCached: number[] = [];
  private logMissed: number[] = [];
  private readonly candidates: CandidateRecorder | null;
  /** the page's decide / loadCost / redirect (options of the same names) and the state they read */
  private readonly page: PageParts;
  private readonly state: PrebleStateView | null;

  constructor(context: Pick<RouterContext, "replicas" | "step" | "kvCapacity">, options: Record<string, unknown> = {}, name = "preble") {
    const R = checkInteger("replicas", context.replicas, { min: 1, max: 30 });
    this.replicas = R;
    const { parts, rest } = pageParts(options);
    this.page = parts;
    this.options = prebleOptions(R, context.kvCapacity, rest);
    this.name = name;
    const o = this.options;
    this.global = new GlobalTree(R, o.decodeEstimate === "released" || (o.rebalance && o.rebalanceAction === "migrate"));
    this.window = new LoadWindow(R, o.windowSeconds, o.defaultOutputTokens, o.rebalance && o.rebalanceAction === "migrate", o.evictionEstimate === "memoryFull");
    const decode = o.decodeEstimate === "released" ? new OutstandingDecode(R, o.initialTpotSeconds, o.tpotSamples) : null;
    this.decode = decode;
    if (decode !== null) this.global.onImportantAlloc = (info, g, added) => decode.onAlloc(info, g, added);
    this.costs = new LoadCostModel(R, context.step as StepModel, o, this.global, this.window, this.decode);
    this.hits = o.pairing && o.pairingRule === "released" ? new AdmissionHitWindow(R, o.pairingHitWindow) : null;
    const redirect = new Redirect(o, this.costs);
    this.e2 = new E2(o, this.global, this.costs, this.window.requestsPerGpu, this.hits, redirect);
    if (parts.decide !== null && o.pairing && o.pairingRule === "released") throw new ParameterError("decide", "本页的 E2 只配讲义的搭配规则（pairingRule: \"ours\"）；开源代码的搭配规则请去掉 decide");
    if (parts.decide === null && (parts.loadCost !== null || parts.redirect !== null)) throw new ParameterError(parts.loadCost !== null ? "loadCost" : "redirect", "只在给了 decide 时才用（本页的 E2 通过 state.loadCost、state.redirect 调用它们）");
    this.state = parts.decide !== null ? new PrebleStateView(o, this.global, this.costs, this.window, redirect, parts) : null;
    this.migrates = o.rebalance && o.rebalanceAction === "migrate";
    this.candidates = o.recordCandidates > 0 ? new CandidateRecorder(R, o.recordCandidates) : null;
  }

  /** The global radix tree (payload: GlobalNodeInfo). */
  get tree() {
    return this.global.tree;
  }

  /** per GPU: tokens of the nodes allocated there */
  get allocatedTokens(): Float64Array {
    return this.global.allocatedTokens;
  }

  /** per GPU: requests dispatched within the window */
  get windowRequestsPerGpu(): Int32Array {
    return this.window.requestsPerGpu;
  }

  /** Mean output length of requests finished within the window (the default before any finished). */
  meanOutputTokens(): number {
    return this.window.meanOutputTokens();
  }

  /** L of GPU g now (seconds), in the configured reading. */
  windowLoad(g: number): number {
    return this.costs.windowLoad(g);
  }

  /** Integer nanoseconds to prefill `tokens` new tokens on top of `cached` ones (Preble's T_prefill). */
  prefillNanoseconds(tokens: number, cached: number): number {
    return this.costs.prefillNanoseconds(tokens, cached);
  }

  /** Ours: is GPU g decode-heavy now (§3.4)? */
  isDecodeHeavy(view: ClusterView, g: number): boolean {
    return isDecodeHeavy(view, g, this.options.decodeHeavyPendingTokens);
  }

  /** The released pairing rule: GPU g's hit ratio over the admissions of the window (NaN under our rule). */
  hitRatio(g: number, now: number): number {
    return this.hits === null ? NaN : this.hits.hitRatio(g, now);
  }

  private analyze(request: ClusterRequest, now: number): void {
    this.window.expire(now);
    this.global.analyze(request, now);
    this.costs.reset();
    this.lastRequest = request;
  }

  /** The load cost terms of every GPU for `request` now (for tests and the notebook; does not dispatch). */
  loadCosts(request: ClusterRequest, view: Pick<ClusterView, "now">): LoadCost[] {
    this.analyze(request, view.now);
    const out: LoadCost[] = [];
    for (let g = 0; g < this.replicas; g++) {
      const total = this.costs.cost(g, request);
      out.push({ L: this.costs.L[g], M: this.costs.M[g], P: this.costs.P[g], total });
    }
    return out;
  }

  /** Global-tree match of `request` now: the cluster-wide longest match and the GPUs holding it. */
  globalMatch(request: ClusterRequest, now: number): { cached: number; missed: number; candidates: number[]; perGpu: number[] } {
    this.analyze(request, now);
    const t = this.global;
    const candidates: number[] = [];
    for (let g = 0; g < this.replicas; g++) if (t.matchMask & (1 << g)) candidates.push(g);
    return { cached: t.matchCached, missed: request.promptTokens - t.matchCached, candidates, perGpu: Array.from(t.matchTokens) };
  }

  route(request: ClusterRequest, view: ClusterView): number {
    this.analyze(request, view.now);
    const d = this.decision;
    if (this.state !== null) decideOnPage(this.page.decide as NonNullable<PageParts["decide"]>, this.state, request, view, this.dispatches, this.costs, this.window.requestsPerGpu, d);
    else this.e2.decide(request, view, this.dispatches, d);
    const chosen = d.gpu;
    this.kindCounts[d.kind]++;
    if (d.byL >= 0) {
      if (d.byL === chosen) this.exploreSameAsL++;
      if (d.byCount === chosen) this.exploreSameAsCount++;
    }
    const L = this.costs.L[chosen];
    const M = this.costs.M[chosen];
    const P = this.costs.P[chosen];
    if (this.candidates !== null && d.kind === EXPLORE) this.candidates.add(this.costDecisions, view.now, chosen, this.costs.L, this.costs.M, this.costs.P, d.byCount);
    this.sumL += L;
    this.sumM += M;
    this.sumP += P;
    this.costDecisions++;
    if (M > 0) this.decisionsWithM++;
    if (this.options.recordDecisions) {
      this.logKind.push(d.kind);
      this.logTime.push(view.now);
      this.logL.push(L);
      this.logM.push(M);
      this.logP.push(P);
      this.logGpu.push(chosen);
      this.logCached.push(this.global.matchCached);
      this.logMissed.push(request.promptTokens - this.global.matchCached);
    }
    return chosen;
  }

  onDispatch(record: RequestRecord, view: ClusterView): void {
    const request = record.request;
    if (this.lastRequest !== request) this.analyze(request, view.now);
    this.lastRequest = null;
    const g = record.replica;
    const t = this.global;
    const prefillNs = this.costs.prefillOn(g, request);
    const tpotNs = this.costs.singleDecodeNanoseconds(request.promptTokens);
    const hit = t.matchCached;
    t.markDispatched(g, request);
    const leaf = t.leaf;
    this.window.add(view.now, g, prefillNs, tpotNs, leaf, hit, request.promptTokens);
    if (this.decode !== null) this.decode.onDispatch(((leaf.payload as GlobalNodeInfo).important.payload as GlobalNodeInfo), g, request.outputTokens);
    if (this.hits !== null) this.hits.onDispatch(record);
    this.dispatches++;
    if (this.options.rebalance && this.dispatches >= this.options.rebalanceAfter) this.noteLoadRatio();
    if (this.migrates) {
      const moves = migrateImportantNodes(this.options, t, this.window, this.costs, view.now, this.dispatches);
      for (const m of moves) this.noteMigration(m);
    }
  }

  onFinish(record: RequestRecord, view: ClusterView): void {
    const now = view.now;
    this.window.expire(now);
    const g = record.replica;
    const request = record.request;
    const leaf = this.global.markFinished(request, g, now);
    this.window.addOutput(now, request.outputTokens);
    const important = (leaf.payload as GlobalNodeInfo).important;
    if (this.decode !== null) this.decode.onFinish((important.payload as GlobalNodeInfo), g, record.tpot);
    if (this.hits !== null) this.hits.onFinish(record);
    if (!this.options.autoscale) return;
    this.window.addQueueing(now, important, record.start - record.dispatch);
    const event = maybeAutoscale(this.options, this.global, this.costs, important, now);
    if (event) this.autoscaleEvents.push(event);
  }

  onEvict(notice: EvictionNotice): void {
    const r = this.global.applyEviction(notice);
    if (r === "applied") this.noticesApplied++;
    else if (r === "ignored") this.noticesIgnored++;
  }

  private noteLoadRatio(): void {
    let max = -Infinity;
    let min = Infinity;
    for (let g = 0; g < this.replicas; g++) {
      const L = this.costs.windowLoad(g);
      if (L > max) max = L;
      if (L < min) min = L;
    }
    const ratio = min > 0 ? max / min : max > 0 ? Infinity : 1;
    if (ratio > this.maxLoadRatio) this.maxLoadRatio = ratio;
    if (ratio > this.options.thBal) this.aboveThBal++;
  }

  private noteMigration(m: Migration): void {
    // a node's previous migration, as from × replicas + to: this one undoes it when it goes to → from
    const last = this.lastMigration.get(m.segment);
    if (last !== undefined && Math.floor(last / this.replicas) === m.to && last % this.replicas === m.from) this.migratedBack++;
    this.lastMigration.set(m.segment, m.from * this.replicas + m.to);
    this.migrations.push(m);
  }

  /** The run is over and only its summary is kept: the global tree's nodes and payloads go to the thread's pools. */
  release(): void {
    this.global.release();
  }

  stats(): Record<string, unknown> {
    const n = this.costDecisions;
    const counts: Record<string, number> = {};
    DECISION_KINDS.forEach((k, i) => (counts[k] = this.kindCounts[i]));
    const out: Record<string, unknown> = {
      ...counts,
      autoscale: this.autoscaleEvents.length,
      migrated: this.migrations.length,
      migratedBack: this.migratedBack,
      migratedNodes: this.lastMigration.size,
      maxLoadRatio: this.maxLoadRatio,
      aboveThBal: this.aboveThBal,
      meanL: n ? this.sumL / n : NaN,
      meanM: n ? this.sumM / n : NaN,
      meanP: n ? this.sumP / n : NaN,
      decisionsWithEviction: this.decisionsWithM,
      exploreSameAsL: this.exploreSameAsL,
      exploreSameAsCount: this.exploreSameAsCount,
      noticesApplied: this.noticesApplied,
      noticesIgnored: this.noticesIgnored,
      globalTreeNodes: this.global.tree.nodeCount,
      autoscaleEvents: this.autoscaleEvents.slice(),
    };
    if (this.candidates !== null) out.candidates = this.candidates.record();
    if (this.options.recordDecisions) out.decisions = { kind: this.logKind.slice(), time: this.logTime.slice(), gpu: this.logGpu.slice(), L: this.logL.slice(), M: this.logM.slice(), P: this.logP.slice(), cached: this.logCached.slice(), missed: this.logMissed.slice() };
    return out;
  }
}


registerRouter(
  "preble",
  "Preble 的全局调度器：全局基数树上的 E2、负载代价 L + M + P、再平衡（Th_bal）、自动扩展、prefill/decode 搭配",
  (ctx, o) => new PrebleRouter(ctx, o),
);
