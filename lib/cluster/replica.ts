// One replica: a GPU running an SGLang-like engine (§1.4, lecture 2–3): a waiting queue ordered by a local
// policy; each iteration continues chunked prefills, admits new requests while the token budget and KV memory
// allow (evicting unreferenced LRU cache first), runs one decode token for every decoding request, and takes
// StepModel time. Finished prompts, then outputs, enter the replica's prefix cache.
//
// KV accounting: used = tokens held by the cache tree (including prefixes locked by running requests)
//                     + private tokens reserved by running requests (uncached prompt + output, at admission).
// A prompt moves from private to the tree when its prefill completes (duplicates computed concurrently are
// freed, as in SGLang), the output when the request finishes. Reserving the output up front means no
// preemption is ever needed (a simplification: SGLang estimates it and preempts when wrong).
import type { StepModel } from "../hardware/step-model";
import type { LocalPolicy, LocalPolicyContext } from "./local/policy";
import { RadixTree } from "./radix-tree";
import type { RequestRecord } from "./record";

export interface ReplicaOptions {
  /** KV capacity in tokens (kvCapacityTokens(model, gpu)) */
  capacity: number;
  /** prefill tokens per iteration (chunked prefill) */
  chunkBudget: number;
  /** running requests at most (prefilling + decoding) */
  maxRunning: number;
  /** assert KV ≤ capacity and tree invariants as it runs (tests) */
  check: boolean;
}

export class Replica {
  /** evicted nodes are reused for new ones (nothing outside keeps a cache node once it is evicted: the eviction
   * notices copy its path), which spares the allocation of most nodes on long traces */
  readonly cache: RadixTree = new RadixTree({ recycle: true });
  readonly waiting: RequestRecord[] = [];
  readonly prefilling: RequestRecord[] = [];
  readonly decoding: RequestRecord[] = [];
  /** private KV reserved by running requests */
  reservedTokens = 0;
  /** Σ (prompt + output) of running requests: the KV they will hold (Dynamo's "active blocks") */
  activeKvTokens = 0;
  /** Σ prompt − prefilled over prefilling requests plus prompt − cachedAtDispatch over waiting ones */
  pendingPrefillTokens = 0;
  /** Σ over decoding requests of their context (prompt + generated) */
  private decodeContext = 0;
  /** a step is in flight (its end event is queued) */
  busy = false;
  // The simulator sets `now` before calling end() and begin(), and begin() leaves the planned iteration's end in
  // `nextEnd`: a number passed to or returned from a call the JIT does not inline is boxed (one allocation per
  // iteration each way), a number field is updated in place.
  /** simulated time of the event being handled (seconds) */
  now = 0;
  /** when the iteration begin() planned ends (seconds; valid after begin() returned true) */
  nextEnd = 0;
  iterations = 0;
  busySeconds = 0;
  computedPrefillTokens = 0;
  decodedTokens = 0;
  finished = 0;
  /** most KV used at any point (tokens) */
  peakKvTokens = 0;
  /** called when a request's prefill ends, its prompt now in the cache (set by the simulator) */
  onPrefilled: (record: RequestRecord) => void = () => undefined;
  /** called when a request finishes (set by the simulator) */
  onFinish: (record: RequestRecord, now: number) => void = () => undefined;
  /** called after a prompt (or output) enters the cache: node is its last segment (set by the simulator) */
  onStore: ((node: import("./radix-tree").RadixNode, addedTokens: number, now: number) => void) | null = null;
  private readonly context: LocalPolicyContext & { now: number };
  // the options read every iteration, as fields of their own (one load instead of two)
  private readonly chunkBudget: number;
  private readonly maxRunning: number;
  private readonly check: boolean;

  constructor(
    readonly index: number,
    readonly step: StepModel,
    readonly policy: LocalPolicy,
    readonly options: ReplicaOptions,
  ) {
    this.chunkBudget = options.chunkBudget;
    this.maxRunning = options.maxRunning;
    this.check = options.check;
    const cache = this.cache;
    this.context = {
      now: 0,
      replica: index,
      cachedTokens: (r: RequestRecord) => Math.min(cache.matchTokens(r.request.segments), r.request.promptTokens - 1),
    };
  }

  get kvUsedTokens(): number {
    return this.cache.heldTokens + this.reservedTokens;
  }

  get running(): number {
    return this.prefilling.length + this.decoding.length;
  }

  get outstanding(): number {
    return this.waiting.length + this.prefilling.length + this.decoding.length;
  }

  enqueue(record: RequestRecord): void {
    this.waiting.push(record);
    this.pendingPrefillTokens += record.request.promptTokens - record.cachedAtDispatch;
  }

  /** Plans the next iteration at `this.now`: true with its end time in `nextEnd`, false when there is nothing to do. */
  begin(): boolean {
    const now = this.now;
    let budget = this.chunkBudget;
    let prefillTokens = 0;
    let pairs = 0;
    let cachedRead = 0;
    let completing = 0;
    // 1. Continue the prefills already running, in admission order.
    const prefilling = this.prefilling;
    for (let i = 0; i < prefilling.length; i++) {
      const r = prefilling[i];
      const remaining = r.request.promptTokens - r.prefilled;
      const chunk = remaining < budget ? remaining : budget;
      r.chunk = chunk;
      if (chunk > 0) {
        budget -= chunk;
        prefillTokens += chunk;
        pairs += chunk * r.prefilled + (chunk * (chunk + 1)) / 2;
        cachedRead += r.prefilled;
        if (chunk === remaining) completing++;
      }
    }
    // 2. Admit new requests while the budget and KV memory allow.
    if (budget > 0 && this.waiting.length > 0 && this.running < this.maxRunning) {
      this.context.now = now;
      const order = this.policy.order(this.waiting, this.context) ?? this.waiting;
      let admitted = 0;
      for (let i = 0; i < order.length && budget > 0 && this.running < this.maxRunning; i++) {
        const r = order[i];
        if (!this.admit(r, now)) break;
        if (this.policy.onAdmit) this.policy.onAdmit(r, this.context);
        admitted++;
        const remaining = r.request.promptTokens - r.prefilled;
        const chunk = remaining < budget ? remaining : budget;
        r.chunk = chunk;
        budget -= chunk;
        prefillTokens += chunk;
        pairs += chunk * r.prefilled + (chunk * (chunk + 1)) / 2;
        cachedRead += r.prefilled;
        if (chunk === remaining) completing++;
      }
      if (admitted > 0) this.removeAdmitted();
    }
    const decodeRequests = this.decoding.length;
    if (prefillTokens === 0 && decodeRequests === 0) return false;
    const seconds = this.step.mixedSeconds(prefillTokens, pairs, cachedRead, decodeRequests, this.decodeContext, completing);
    this.iterations++;
    this.busySeconds += seconds;
    this.nextEnd = now + seconds;
    return true;
  }

  /** Applies the iteration that ends at `this.now`: decode tokens, prefill progress, completions. */
  end(): void {
    // `this.now` is read where used, not kept in a local: a local number live across the calls below is boxed on
    // every iteration, even when no request completes.
    // Decodes first: exactly the requests that were decoding when the iteration began.
    const decoding = this.decoding;
    const n = decoding.length;
    this.decodeContext += n;
    this.decodedTokens += n;
    for (let i = n - 1; i >= 0; i--) {
      const r = decoding[i];
      r.generated++;
      if (r.generated >= r.request.outputTokens) {
        this.decodeContext -= r.request.promptTokens + r.generated;
        decoding[i] = decoding[decoding.length - 1];
        decoding.pop();
        this.complete(r, this.now);
      }
    }
    // Prefill progress; completed prompts enter the cache and emit their first token.
    const prefilling = this.prefilling;
    let kept = 0;
    for (let i = 0; i < prefilling.length; i++) {
      const r = prefilling[i];
      const chunk = r.chunk;
      if (chunk > 0) {
        r.prefilled += chunk;
        r.computedTokens += chunk;
        r.chunk = 0;
        this.computedPrefillTokens += chunk;
        this.pendingPrefillTokens -= chunk;
      }
      if (r.prefilled < r.request.promptTokens) {
        prefilling[kept++] = r;
        continue;
      }
      this.promptDone(r, this.now);
      this.onPrefilled(r);
      r.firstToken = this.now;
      r.generated = 1;
      if (r.request.outputTokens <= 1) this.complete(r, this.now);
      else {
        decoding.push(r);
        this.decodeContext += r.request.promptTokens + 1;
      }
    }
    while (prefilling.length > kept) prefilling.pop(); // pop is inlined; a length store calls the runtime
    if (this.check) this.checkMemory("end of iteration");
  }

  private admit(r: RequestRecord, now: number): boolean {
    const cache = this.cache;
    const req = r.request;
    const node = cache.match(req.segments);
    // At least the last prompt token is computed (its logits start the output), as in SGLang.
    const cached = Math.min(node.matchedTokens, req.promptTokens - 1);
    const need = req.promptTokens - cached + req.outputTokens;
    cache.lock(node);
    const free = this.options.capacity - cache.heldTokens - this.reservedTokens;
    if (need > free) {
      cache.evict(need - free);
      if (need > this.options.capacity - cache.heldTokens - this.reservedTokens) {
        cache.unlock(node);
        return false;
      }
    }
    cache.touch(node, now);
    r.lockedNode = node;
    r.cachedTokens = cached;
    r.prefilled = cached;
    r.reserved = need;
    r.start = now;
    this.reservedTokens += need;
    this.activeKvTokens += req.promptTokens + req.outputTokens;
    // The queue estimate assumed the dispatch-time match; now the true remaining prefill is known.
    this.pendingPrefillTokens += r.cachedAtDispatch - cached;
    this.prefilling.push(r);
    const used = cache.heldTokens + this.reservedTokens;
    if (used > this.peakKvTokens) this.peakKvTokens = used;
    if (this.check) this.checkMemory(`admitting request ${req.id}`);
    return true;
  }

  private removeAdmitted(): void {
    const w = this.waiting;
    let kept = 0;
    for (let i = 0; i < w.length; i++) if (w[i].lockedNode === null) w[kept++] = w[i];
    while (w.length > kept) w.pop();
  }

  /** The prompt's KV moves from the request's reservation into the cache tree. */
  private promptDone(r: RequestRecord, now: number): void {
    const cache = this.cache;
    const req = r.request;
    const matched = r.lockedNode as NonNullable<RequestRecord["lockedNode"]>;
    // the prompt's path from its match at admission on (locked since, so still in the tree)
    const leaf = cache.insertBelow(matched, req.segments, req.segments.length, now);
    const added = cache.lastInsertAdded;
    cache.lock(leaf);
    cache.unlock(matched);
    r.lockedNode = leaf;
    const moved = req.promptTokens - r.cachedTokens;
    r.reserved -= moved;
    this.reservedTokens -= moved;
    if (this.onStore !== null && added > 0) this.onStore(leaf, added, now);
  }

  /** The request's last token: its output enters the cache, its prefix is released. */
  private complete(r: RequestRecord, now: number): void {
    const cache = this.cache;
    const leaf = r.lockedNode as NonNullable<RequestRecord["lockedNode"]>;
    const out = cache.extend(leaf, r.request.outputSegment, now);
    const added = cache.lastInsertAdded;
    cache.unlock(leaf);
    this.reservedTokens -= r.reserved;
    r.reserved = 0;
    this.activeKvTokens -= r.request.promptTokens + r.request.outputTokens;
    r.lockedNode = null;
    r.finish = now;
    this.finished++;
    if (this.onStore !== null && added > 0) this.onStore(out, added, now);
    if (this.check) this.checkMemory(`finishing request ${r.request.id}`);
    this.onFinish(r, now);
  }

  private checkMemory(where: string): void {
    const used = this.cache.heldTokens + this.reservedTokens;
    if (used > this.options.capacity) throw new Error(`replica ${this.index}: KV use ${used} exceeds capacity ${this.options.capacity} (${where})`);
    if (this.reservedTokens < 0) throw new Error(`replica ${this.index}: negative reservation ${this.reservedTokens} (${where})`);
  }
}
