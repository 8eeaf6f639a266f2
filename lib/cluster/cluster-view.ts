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

/** Uncomputed prompts on one replica above which the dispatched-prompt index is built: below it, comparing the
 * request with each of them costs less than keeping a tree (insert and prune a path per request). */
const UNINDEXED_LIMIT = 64;

export class SimulationView implements ClusterView {
  now = 0;
  readonly outstandingReq: Int32Array;
  readonly outstandingTok: Float64Array;
  readonly dispatched: Int32Array;
  // The prompts dispatched to each replica and not computed yet (§3.1, what a view match adds to the cache's). A
  // prompt leaves when its prefill ends: from then on the replica's cache holds its whole path, locked until the
  // request finishes, so the cache matches all the prompt would. Mostly a replica has only a few (its queue and the
  // prefills in flight), kept in a list and compared with the deciding request one by one; when a list grows past
  // UNINDEXED_LIMIT (a long queue) they move to a counted radix tree per replica, kept from then on.
  /** per replica, its uncomputed prompts as a counted tree (built when `indexed`) */
  private readonly pending: RadixTree[];
  private indexed = false;
  /** per replica, its requests whose prefill has not ended, while there is no index */
  private readonly uncomputed: RequestRecord[][];
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
    this.uncomputed = engines.map(() => []);
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
  /** Tokens of `request` that replica i's uncomputed prompts hold: the index's match, or the longest prefix shared
   * with one of them (computed once per replica during the request's decision). */
  private pendingTokens(request: ClusterRequest, i: number): number {
    if (request !== this.deciding) return this.indexed ? this.pending[i].matchTokens(request.segments) : this.sharedWithUncomputed(request, i);
    if (this.pendingStamp[i] !== this.decision) {
      if (this.indexed) {
        const node = this.pending[i].match(request.segments, this.known);
        this.pendingNodes[i] = node;
        this.pendingMemo[i] = node.matchedTokens;
      } else this.pendingMemo[i] = this.sharedWithUncomputed(request, i);
      this.pendingStamp[i] = this.decision;
    }
    return this.pendingMemo[i];
  }
  /** The most tokens `request` shares, from its first segment, with one prompt of replica i's list. */
  private sharedWithUncomputed(request: ClusterRequest, i: number): number {
    const segments = request.segments;
    const list = this.uncomputed[i];
    let best = 0;
    for (let j = 0; j < list.length; j++) {
      const other = list[j].request.segments;
      const n = other.length < segments.length ? other.length : segments.length;
      let tokens = 0;
      for (let k = 0; k < n && other[k].id === segments[k].id; k++) tokens += segments[k].tokens;
      if (tokens > best) best = tokens;
    }
    return best;
  }
  /** Where the deciding request's prompt leaves replica i's dispatched-prompt index (a node on its path; the root
   * when its match was not asked for): the simulator inserts the prompt below it. */
  private pendingMatchNode(request: ClusterRequest, i: number): RadixNode {
    return request === this.deciding && this.pendingStamp[i] === this.decision ? this.pendingNodes[i] : this.pending[i].root;
  }
  private cachedTokens(request: ClusterRequest, i: number): number {
    const cache = this.engines[i].cache;
    if (request !== this.deciding) return cache.matchTokens(request.segments);
    if (this.cachedStamp[i] !== this.decision) {
      this.cachedMemo[i] = cache.matchTokens(request.segments, this.known);
      this.cachedStamp[i] = this.decision;
    }
    return this.cachedMemo[i];
  }
  /** A request dispatched to replica i (after its decision): into the index, or the replica's list. */
  promptDispatched(rec: RequestRecord, i: number, now: number): void {
    if (!this.indexed) {
      const list = this.uncomputed[i];
      list.push(rec);
      if (list.length > UNINDEXED_LIMIT) this.buildIndex(); // (a long queue: comparing with every prompt would cost more than the index)
      return;
    }
    const tree = this.pending[i];
    const node = tree.insertBelow(this.pendingMatchNode(rec.request, i), rec.request.segments, rec.request.segments.length, now);
    tree.lock(node);
    rec.pendingNode = node;
  }
  /** The prefill of a request on replica i ended (its prompt is in the replica's cache): out of the index, or the
   * replica's list. */
  promptComputed(rec: RequestRecord, i: number): void {
    const node = rec.pendingNode;
    if (node !== null) {
      this.pending[i].unlock(node);
      this.pending[i].prune(node);
      rec.pendingNode = null;
      return;
    }
    const list = this.uncomputed[i];
    const at = list.indexOf(rec);
    if (at < 0) throw new Error(`replica ${i}: request ${rec.request.id} was computed but not dispatched there`);
    list[at] = list[list.length - 1];
    list.pop();
  }
  /** Prompts dispatched to replica i and not computed (checks: 0 after the run; with the index, its nodes). */
  uncomputedCount(i: number): number {
    return this.indexed ? this.pending[i].nodeCount : this.uncomputed[i].length;
  }
  /** Builds the index from the uncomputed prompts; kept up to date from then on. */
  private buildIndex(): void {
    this.indexed = true;
    this.pendingStamp.fill(0); // (a match taken from the lists this decision has no node in the index)
    for (let i = 0; i < this.uncomputed.length; i++) {
      const tree = this.pending[i];
      for (const rec of this.uncomputed[i]) {
        const node = tree.insert(rec.request.segments, rec.request.segments.length, rec.dispatch);
        tree.lock(node);
        rec.pendingNode = node;
      }
      this.uncomputed[i].length = 0;
    }
  }
  /** Empties the index and the lists for the next run on this view's trees (recycle). */
  recycle(): void {
    for (const t of this.pending) t.recycleAll();
    for (const list of this.uncomputed) list.length = 0;
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
