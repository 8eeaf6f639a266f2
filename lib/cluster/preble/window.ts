// The window H of Preble's load cost (§3.3), kept incrementally: what was dispatched within H (added at dispatch,
// expired from a queue), the output lengths of requests finished within H, the queueing samples of autoscaling by
// half-window, and — for the released decode estimate — the decode tokens of the requests outstanding on each GPU.
import { AutoscaleStats, autoscaleOf, GlobalNodeInfo, GNode, ReleasedNodeStats, releasedOf } from "./global-tree";
import { NumberQueue, ObjectQueue } from "./queues";

export class LoadWindow {
  /** per GPU: Σ prefill ns and Σ single-request decode ns per token of the requests dispatched within H */
  readonly prefillNs: Float64Array;
  readonly tpotNs: Float64Array;
  readonly requestsPerGpu: Int32Array;
  requests = 0;
  // The dispatch window: time, GPU, prefill ns, decode-per-token ns, leaf, global hit tokens, prompt tokens.
  private readonly wTime = new NumberQueue();
  private readonly wGpu = new NumberQueue();
  private readonly wPrefill = new NumberQueue();
  private readonly wTpot = new NumberQueue();
  private readonly wHit = new NumberQueue();
  private readonly wPrompt = new NumberQueue();
  private readonly wEpoch = new NumberQueue();
  private readonly wLeaf = new ObjectQueue<GNode>();
  /** important nodes with requests in the window (the released rebalancing's candidates, gsw:406) */
  readonly activeImportant = new Set<GNode>();
  // Output lengths of requests finished within the window.
  private readonly oTime = new NumberQueue();
  private readonly oTokens = new NumberQueue();
  private outputSum = 0;
  // Queueing of finished requests by important node (autoscaling); the first `qEarlier` entries are the earlier
  // half-window, the rest the recent half.
  private readonly qTime = new NumberQueue();
  private readonly qValue = new NumberQueue();
  private readonly qNode = new ObjectQueue<GNode>();
  private qEarlier = 0;

  constructor(
    readonly replicas: number,
    readonly windowSeconds: number,
    readonly defaultOutputTokens: number,
    /** keep per-(important node, GPU) window sums and the migration log (the released rebalancing) */
    readonly trackNodes = false,
    /** keep per-important-node hit and prompt tokens (the released M's miss rate) */
    readonly trackHits = false,
  ) {
    this.prefillNs = new Float64Array(replicas);
    this.tpotNs = new Float64Array(replicas);
    this.requestsPerGpu = new Int32Array(replicas);
  }

  /** Mean output length of requests finished within the window (the default before any finished). */
  meanOutputTokens(): number {
    return this.oTokens.size > 0 ? this.outputSum / this.oTokens.size : this.defaultOutputTokens;
  }

  /** A dispatch to g: its prefill and decode-per-token estimates (ns), the leaf of its prompt, and the tokens the
   * global tree held for it anywhere (the released code's hit count for the node's miss rate, gsw:59–62). */
  add(now: number, g: number, prefillNs: number, tpotNs: number, leaf: GNode, hitTokens: number, promptTokens: number): void {
    this.wTime.push(now);
    this.wGpu.push(g);
    this.wPrefill.push(prefillNs);
    this.wTpot.push(tpotNs);
    this.wLeaf.push(leaf);
    this.prefillNs[g] += prefillNs;
    this.tpotNs[g] += tpotNs;
    this.requestsPerGpu[g]++;
    this.requests++;
    if (!this.trackNodes && !this.trackHits) return;
    const node = (leaf.payload as GlobalNodeInfo).important;
    const imp = (node.payload as GlobalNodeInfo);
    const st = releasedOf(imp);
    if (st.count++ === 0 && this.trackNodes) this.activeImportant.add(node);
    if (this.trackHits) {
      this.wHit.push(hitTokens);
      this.wPrompt.push(promptTokens);
      st.hitTokens += hitTokens;
      st.promptTokens += promptTokens;
    }
    if (this.trackNodes) {
      this.wEpoch.push(st.migrations);
      const R = this.replicas;
      const off = imp.base + 5 * R + g;
      imp.page[off] += prefillNs;
      imp.page[off + R] += tpotNs;
      imp.page[off + 2 * R] += 1;
    }
  }

  /** Where a window entry of `imp` dispatched to g0 at migration epoch e0 counts now. */
  private locate(imp: GlobalNodeInfo, g0: number, e0: number): number {
    let g = g0;
    const st = imp.released as ReleasedNodeStats;
    for (let k = e0; k < st.migrations; k++) if (st.from[k] === g) g = st.to[k];
    return g;
  }

  addOutput(now: number, tokens: number): void {
    this.oTime.push(now);
    this.oTokens.push(tokens);
    this.outputSum += tokens;
  }

  /** A finished request's queueing, for the autoscaling statistics of its important node (recent half). */
  addQueueing(now: number, important: GNode, seconds: number): void {
    const stats = autoscaleOf(important.payload as GlobalNodeInfo);
    this.qTime.push(now);
    this.qValue.push(seconds);
    this.qNode.push(important);
    stats.recentSum += seconds;
    stats.recentCount++;
  }

  /** Drops what left the window H (and moves autoscaling samples from the recent to the earlier half). */
  expire(now: number): void {
    const horizon = now - this.windowSeconds;
    const w = this.wTime;
    const R = this.replicas;
    while (w.size > 0 && w.at(0) < horizon) {
      const leaf = this.wLeaf.shift();
      const node = (leaf.payload as GlobalNodeInfo).important;
      const imp = (node.payload as GlobalNodeInfo);
      const g = this.trackNodes ? this.locate(imp, this.wGpu.at(0), this.wEpoch.at(0)) : this.wGpu.at(0);
      const p = this.wPrefill.at(0);
      const t = this.wTpot.at(0);
      this.prefillNs[g] -= p;
      this.tpotNs[g] -= t;
      this.requestsPerGpu[g]--;
      this.requests--;
      if (this.trackNodes || this.trackHits) {
        const st = imp.released as ReleasedNodeStats;
        if (--st.count === 0 && this.trackNodes) this.activeImportant.delete(node);
        if (this.trackHits) {
          st.hitTokens -= this.wHit.at(0);
          st.promptTokens -= this.wPrompt.at(0);
          this.wHit.head++;
          this.wPrompt.head++;
        }
        if (this.trackNodes) {
          const off = imp.base + 5 * R + g;
          imp.page[off] -= p;
          imp.page[off + R] -= t;
          imp.page[off + 2 * R] -= 1;
          this.wEpoch.head++;
        }
      }
      for (let n: GNode | null = leaf; n !== null && n.parent !== null; n = n.parent) (n.payload as GlobalNodeInfo).windowCount--;
      w.head++;
      this.wGpu.head++;
      this.wPrefill.head++;
      this.wTpot.head++;
    }
    while (this.oTime.size > 0 && this.oTime.at(0) < horizon) {
      this.outputSum -= this.oTokens.at(0);
      this.oTime.head++;
      this.oTokens.head++;
    }
    const q = this.qTime;
    const half = now - this.windowSeconds / 2;
    while (this.qEarlier < q.size && q.at(this.qEarlier) < half) {
      const stats = (this.qNode.at(this.qEarlier).payload as GlobalNodeInfo).autoscale as AutoscaleStats;
      const v = this.qValue.at(this.qEarlier);
      stats.recentSum -= v;
      stats.recentCount--;
      stats.earlierSum += v;
      stats.earlierCount++;
      this.qEarlier++;
    }
    while (q.size > 0 && q.at(0) < horizon) {
      const stats = (this.qNode.shift().payload as GlobalNodeInfo).autoscale as AutoscaleStats;
      stats.earlierSum -= this.qValue.at(0);
      stats.earlierCount--;
      q.head++;
      this.qValue.head++;
      this.qEarlier--;
    }
  }

  /** The window's Σ prefill ns, Σ decode ns per token and count of important node `info`'s requests counted on g. */
  nodeSums(info: GlobalNodeInfo, g: number): { prefillNs: number; tpotNs: number; count: number } {
    const off = info.base + 5 * this.replicas + g;
    return { prefillNs: info.page[off], tpotNs: info.page[off + this.replicas], count: info.page[off + 2 * this.replicas] };
  }

  /** Moves the window load of important node `node` from GPU `from` to `to` (the released migration carries a node's
   * cost with it, gsw:169–177); its entries still to expire follow it (a migration log per node). */
  moveImportantNode(node: GNode, from: number, to: number): void {
    const info = (node.payload as GlobalNodeInfo);
    const R = this.replicas;
    const a = info.base + 5 * R + from;
    const b = info.base + 5 * R + to;
    const p = info.page[a];
    const t = info.page[a + R];
    const c = info.page[a + 2 * R];
    info.page[b] += p;
    info.page[b + R] += t;
    info.page[b + 2 * R] += c;
    info.page[a] = 0;
    info.page[a + R] = 0;
    info.page[a + 2 * R] = 0;
    this.prefillNs[from] -= p;
    this.tpotNs[from] -= t;
    this.requestsPerGpu[from] -= c;
    this.prefillNs[to] += p;
    this.tpotNs[to] += t;
    this.requestsPerGpu[to] += c;
    const st = releasedOf(info);
    st.from.push(from);
    st.to.push(to);
    st.migrations++;
  }
}

/** The released decode term's state (gsw:152–159, 195–197, 368–369): per GPU g, Σ over the important nodes allocated
 * to g of (their requests outstanding on g) × (the output length last dispatched for the node), and the median of the
 * TPOTs measured on g (a window of the last `samples`, seeded with `initial`). Each outstanding request counts once,
 * through its own important node (the released code counts a request under every histogram node its prompt passes
 * through); a node migrated or evicted off g stops counting there, as the released code sums allocated nodes only. */
export class OutstandingDecode {
  /** per GPU: decode tokens of the outstanding requests of the important nodes allocated there */
  readonly tokens: Float64Array;
  private readonly ring: Float64Array[];
  private readonly sorted: number[][];
  private readonly next: Int32Array;

  constructor(
    readonly replicas: number,
    initial: number,
    readonly samples: number,
  ) {
    this.tokens = new Float64Array(replicas);
    this.ring = Array.from({ length: replicas }, () => new Float64Array(samples).fill(NaN));
    this.sorted = Array.from({ length: replicas }, () => [initial]);
    this.next = new Int32Array(replicas).fill(1);
    for (const r of this.ring) r[0] = initial;
  }

  private outstanding(imp: GlobalNodeInfo, g: number): number {
    return imp.page[imp.base + 4 * this.replicas + g];
  }

  /** The allocation of important node `imp` on g changed (GlobalTree.onImportantAlloc). */
  onAlloc(imp: GlobalNodeInfo, g: number, added: boolean): void {
    const d = this.outstanding(imp, g) * releasedOf(imp).lastOutputTokens;
    this.tokens[g] += added ? d : -d;
  }

  /** A request with important node `imp` and `outputTokens` dispatched to g (after the tree marked it there): every
   * outstanding request of that node is re-priced at the new length (gsw:56 overwrites the node's decoding size). */
  onDispatch(imp: GlobalNodeInfo, g: number, outputTokens: number): void {
    const R = this.replicas;
    const st = releasedOf(imp);
    const a = st.lastOutputTokens;
    if (a !== outputTokens) {
      for (let h = 0; h < R; h++) if (imp.alloc & (1 << h)) this.tokens[h] += this.outstanding(imp, h) * (outputTokens - a);
      st.lastOutputTokens = outputTokens;
    }
    imp.page[imp.base + 4 * R + g]++;
    if (imp.alloc & (1 << g)) this.tokens[g] += outputTokens;
  }

  /** The request finished on g with measured `tpot` seconds (NaN when it had one output token: not recorded). */
  onFinish(imp: GlobalNodeInfo, g: number, tpot: number): void {
    imp.page[imp.base + 4 * this.replicas + g]--;
    if (imp.alloc & (1 << g)) this.tokens[g] -= releasedOf(imp).lastOutputTokens;
    if (!Number.isFinite(tpot)) return;
    const ring = this.ring[g];
    const sorted = this.sorted[g];
    const k = this.next[g] % this.samples;
    const old = ring[k];
    if (!Number.isNaN(old)) sorted.splice(lowerBound(sorted, old), 1);
    ring[k] = tpot;
    sorted.splice(lowerBound(sorted, tpot), 0, tpot);
    this.next[g]++;
  }

  /** Median measured TPOT on g (numpy's median: the mean of the two middle values for an even count). */
  medianTpot(g: number): number {
    const s = this.sorted[g];
    const n = s.length;
    return n % 2 === 1 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }
}

function lowerBound(xs: readonly number[], x: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

