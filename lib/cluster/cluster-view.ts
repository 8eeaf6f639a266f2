// What a router sees of the cluster during a simulation (the ClusterView interface of routers.ts): outstanding
// requests and tokens per replica, what was dispatched, and the tokens a replica's cache — or the prompts already
// dispatched to it — would match. The simulator keeps these counts; routers only read them.
import type { StepModel } from "../hardware/step-model";
import { RadixNode, RadixTree } from "./radix-tree";
import type { RequestRecord } from "./record";
import type { Replica } from "./replica";
import type { ClusterView } from "./routers";
import type { ClusterRequest } from "./workloads";
import { grownToHold, isDirectId } from "../core/typed-arrays";


export class SimulationView implements ClusterView {
  now = 0;
  readonly outstandingReq: Int32Array;
  readonly outstandingTok: Float64Array;
  readonly dispatched: Int32Array;
  readonly pending: RadixTree[];
  readonly history: RequestRecord[] = [];
  // While one request is routed and recorded, each replica's two matches are computed once: the router asks for
  // every replica's and the simulator then records the chosen one's, and neither the caches nor the dispatched-
  // prompt index change in between (routers only read the view). Stamped with the decision's number.
  private deciding: ClusterRequest | null = null;
  private decision = 0;
  private readonly cachedMemo: Float64Array;
  private readonly cachedStamp: Int32Array;
  private readonly pendingMemo: Float64Array;
  private readonly pendingStamp: Int32Array;
  /** the dispatched-prompt index's match node behind pendingMemo (the simulator inserts the prompt from it) */
  private readonly pendingNodes: RadixNode[];
  // Segment ids of every prompt and output dispatched so far: the only ids the caches and the dispatched-prompt
  // index can hold (a replica caches the prompts and outputs of the requests it runs). A match cannot pass a
  // segment no tree has, so the deciding request's trailing segments never seen before (a tool call's question,
  // a document's new question) are left out of its walks: one lookup fewer per tree, the same match.
  private seen: Uint8Array = new Uint8Array(1024);
  private known = 0;
  constructor(
    readonly replicaCount: number,
    readonly kvCapacity: number,
    readonly step: StepModel,
    private readonly engines: Replica[],
  ) {
    this.outstandingReq = new Int32Array(replicaCount);
    this.outstandingTok = new Float64Array(replicaCount);
    this.dispatched = new Int32Array(replicaCount);
    this.pending = engines.map(() => new RadixTree({ evictable: false, recycle: true }));
    this.cachedMemo = new Float64Array(replicaCount);
    this.cachedStamp = new Int32Array(replicaCount);
    this.pendingMemo = new Float64Array(replicaCount);
    this.pendingStamp = new Int32Array(replicaCount);
    this.pendingNodes = this.pending.map((t) => t.root);
  }
  /** From here until endDecision(), matches of `request` are computed once per replica. */
  beginDecision(request: ClusterRequest): void {
    this.deciding = request;
    this.decision++;
    const segments = request.segments;
    let known = segments.length;
    while (known > 0 && !this.wasSeen(segments[known - 1].id)) known--;
    this.known = known;
  }
  /** Records a dispatched request's prompt and output segments (after its decision). */
  dispatchedSegments(request: ClusterRequest): void {
    const segments = request.segments;
    for (let i = 0; i < segments.length; i++) this.markSeen(segments[i].id);
    this.markSeen(request.outputSegment.id);
  }
  private wasSeen(id: number): boolean {
    if (!isDirectId(id)) return true; // ids the byte array cannot index always count as seen
    return id < this.seen.length && this.seen[id] === 1;
  }
  private markSeen(id: number): void {
    if (!isDirectId(id)) return;
    this.seen = grownToHold(this.seen, id);
    this.seen[id] = 1;
  }
  endDecision(): void {
    this.deciding = null;
  }
  private cachedTokens(request: ClusterRequest, i: number): number {
    return this.memoMatch(this.engines[i].cache, this.cachedMemo, this.cachedStamp, null, request, i);
  }
  private pendingTokens(request: ClusterRequest, i: number): number {
    return this.memoMatch(this.pending[i], this.pendingMemo, this.pendingStamp, this.pendingNodes, request, i);
  }
  /** Where the deciding request's prompt leaves replica i's dispatched-prompt index (a node on its path; the root
   * when its match was not asked for): the simulator inserts the prompt below it. */
  pendingMatchNode(request: ClusterRequest, i: number): RadixNode {
    return request === this.deciding && this.pendingStamp[i] === this.decision ? this.pendingNodes[i] : this.pending[i].root;
  }
  /** `tree`'s match of `request`: computed once per replica `i` during the request's decision (its node kept in
   * `nodes` when given), else walked. */
  private memoMatch(tree: RadixTree, memo: Float64Array, stamp: Int32Array, nodes: RadixNode[] | null, request: ClusterRequest, i: number): number {
    if (request !== this.deciding) return tree.matchTokens(request.segments);
    if (stamp[i] !== this.decision) {
      const node = tree.match(request.segments, this.known);
      if (nodes !== null) nodes[i] = node;
      memo[i] = node.matchedTokens;
      stamp[i] = this.decision;
    }
    return memo[i];
  }
  outstandingRequests(i: number): number {
    return this.outstandingReq[i];
  }
  outstandingTokens(i: number): number {
    return this.outstandingTok[i];
  }
  dispatchedCount(i: number): number {
    return this.dispatched[i];
  }
  viewMatch(request: ClusterRequest, i: number): number {
    const cached = this.cachedTokens(request, i);
    const pending = this.pendingTokens(request, i);
    return cached > pending ? cached : pending;
  }
  cachedMatch(request: ClusterRequest, i: number): number {
    return this.cachedTokens(request, i);
  }
  queueLength(i: number): number {
    return this.engines[i].waiting.length;
  }
  pendingPrefillTokens(i: number): number {
    return this.engines[i].pendingPrefillTokens;
  }
  activeKvTokens(i: number): number {
    return this.engines[i].activeKvTokens;
  }
  kvUtilization(i: number): number {
    return Math.min(1, this.engines[i].activeKvTokens / this.kvCapacity);
  }
}
