// One cluster simulation (§2), in the order it happens: set-up (replicas, the router, the notices routers hear, the
// scheduled samples) → the event loop (arrivals are routed and enqueued; replica iterations, replication samples,
// timeline samples and delayed notices are handled in time order) → the result (records, metrics, per-replica
// counts). simulate.ts drives it; one object per run, so independent runs share no mutable state.
import { checkInteger, checkNumber } from "../core/errors";
import { EventQueue } from "../core/heap";
import { rng } from "../core/rng";
import { StepModel } from "../hardware/step-model";
import type { ClusterResult, ClusterSettings } from "./cluster-options";
import { SimulationView } from "./cluster-view";
import { resolveLocalPolicy } from "./local/policy";
import { computeMetrics, OVERLOAD_RULE, warmupDescription } from "./metrics";
import type { RadixTree } from "./radix-tree";
import { RequestRecord, TIME_SLOTS } from "./record";
import { Replica } from "./replica";
import { routeChecked } from "./router-guard";
import { createRouter, EvictionNotice, Router, StoreNotice } from "./routers";
import { keySegmentDepth, TimelineRecorder, unionOf } from "./timeline";
import type { ClusterRequest } from "./workloads";

// Event items: ≥ 0 a replica's iteration ends; SAMPLE a replication snapshot; TIMELINE a timeline sample;
// ≤ NOTICE a delayed notice or a restart, notices[NOTICE − item].
const SAMPLE = -1;
const TIMELINE = -2;
const NOTICE = -3;

type Notice = { kind: "evict"; notice: EvictionNotice } | { kind: "store"; notice: StoreNotice } | { kind: "restart"; replica: number };

export class ClusterRun {
  readonly step: StepModel;
  readonly engines: Replica[] = [];
  readonly view: SimulationView;
  readonly router: Router;
  readonly events = new EventQueue<number>();
  /** restarts and replication samples: every one is known before the run, so they wait in a queue of their own
   * and the event queue holds little more than one entry per replica (its sifts stay short). At equal times they
   * come first, as they did when they were the event queue's first entries. */
  private readonly scheduled = new EventQueue<number>();
  /** delayed notices; their event item is NOTICE − index */
  private readonly notices: Notice[] = [];
  readonly n: number;
  readonly warmupCount: number;
  readonly records: RequestRecord[];
  /** the records' times (record.ts), four slots each */
  private readonly recordTimes: Float64Array;
  readonly outstandingAtArrival: Float64Array;
  /** the requests' arrival times (the event loop compares the next one with the next event's time every turn) */
  private readonly arrivals: Float64Array;
  private totalOutstanding = 0;
  lastFinish = 0;
  private next = 0;
  private sumHeld = 0;
  private sumDistinct = 0;
  private sumKeys = 0;
  private sampleCount = 0;
  /** the deepest key segment (timeline.ts's keySegmentDepth), found at the first replication snapshot */
  private keyDepth = -1;
  private readonly trees: RadixTree[];
  private readonly timeline: TimelineRecorder | null;

  constructor(readonly settings: ClusterSettings) {
    const s = settings;
    this.step = new StepModel(s.model, s.gpu);
    const localPolicy = resolveLocalPolicy(s.options.localPolicy ?? "fcfs");
    for (let i = 0; i < s.replicas; i++) this.engines.push(new Replica(i, this.step, localPolicy(i), { capacity: s.kvCapacity, chunkBudget: s.chunkBudget, maxRunning: s.maxRunning, check: s.check }));
    this.view = new SimulationView(s.replicas, s.kvCapacity, this.step, this.engines);
    this.router = createRouter(s.options.router, { replicas: s.replicas, rng: rng(s.seed).fork("router"), step: this.step, kvCapacity: s.kvCapacity }, s.options.routerOptions ?? {});
    this.n = s.requests.length;
    this.warmupCount = Math.min(this.n - 1, Math.floor(this.n * s.warmup));
    this.records = new Array(this.n);
    this.recordTimes = new Float64Array(this.n * TIME_SLOTS);
    this.outstandingAtArrival = new Float64Array(this.n);
    this.arrivals = new Float64Array(this.n);
    for (let i = 0; i < this.n; i++) this.arrivals[i] = s.requests[i].arrival; // (Float64Array.from iterates: an object per request)
    this.trees = this.engines.map((e) => e.cache);
    for (const e of this.engines) this.wireReplica(e);
    this.scheduleRestarts();
    this.scheduleReplicationSamples();
    this.timeline = s.options.timeline ? new TimelineRecorder(s.options.timeline, s.requests, s.replicas, s.kvCapacity) : null;
    if (this.timeline) this.events.push(this.timeline.timeOf(0), TIMELINE);
  }

  private deliver(n: Notice): void {
    if (n.kind === "evict") this.router.onEvict?.(n.notice, this.view);
    else if (n.kind === "store") this.router.onStore?.(n.notice, this.view);
    else this.engines[n.replica].cache.evict(this.engines[n.replica].cache.heldTokens);
  }

  private post(n: Notice, time: number): void {
    if (this.settings.notificationDelay === 0) this.deliver(n);
    else {
      this.notices.push(n);
      this.events.push(time + this.settings.notificationDelay, NOTICE - (this.notices.length - 1));
    }
  }

  /** A finished request frees its outstanding counts and its dispatched prompt; the router hears of stores and
   * evictions when it listens for them. */
  private wireReplica(e: Replica): void {
    const i = e.index;
    const view = this.view;
    const router = this.router;
    e.onPrefilled = (rec) => view.promptComputed(rec, i);
    e.onFinish = (rec, now) => {
      view.outstandingReq[i]--;
      view.outstandingTok[i] -= rec.request.promptTokens;
      this.totalOutstanding--;
      if (now > this.lastFinish) this.lastFinish = now;
      router.onFinish?.(rec, view);
    };
    if (router.onEvict) {
      e.cache.onEvict = (node, evicted, removed) => {
        this.post({ kind: "evict", notice: { replica: i, time: view.now, path: e.cache.pathOf(node), segmentTokens: node.tokens, heldTokens: removed ? 0 : node.held, evictedTokens: evicted, removed } }, view.now);
      };
    }
    if (router.onStore) {
      e.onStore = (node, added, now) => this.post({ kind: "store", notice: { replica: i, time: now, path: e.cache.pathOf(node), addedTokens: added } }, now);
    }
  }

  /** Restarts ride on the notice queue (undelayed): the flush happens at exactly their time. */
  private scheduleRestarts(): void {
    for (const r of this.settings.options.restarts ?? []) {
      checkInteger("restarts[].replica", r.replica, { min: 0, max: this.settings.replicas - 1 });
      checkNumber("restarts[].time", r.time, { min: 0 });
      this.notices.push({ kind: "restart", replica: r.replica });
      this.scheduled.push(r.time, NOTICE - (this.notices.length - 1));
    }
  }

  /** Replication snapshots, evenly spaced from the first measured arrival to the last arrival. */
  private scheduleReplicationSamples(): void {
    const requests = this.settings.requests;
    const samples = this.settings.replicationSamples;
    const sampleStart = requests[this.warmupCount].arrival;
    const sampleEnd = requests[this.n - 1].arrival;
    for (let k = 0; k < samples; k++) this.scheduled.push(sampleStart + ((sampleEnd - sampleStart) * (k + 0.5)) / samples, SAMPLE);
  }

  /** Runs every arrival and every event to the end. */
  run(): void {
    const requests = this.settings.requests;
    const n = this.n;
    const events = this.events;
    const scheduled = this.scheduled;
    const arrivals = this.arrivals;
    while (this.next < n || events.size > 0 || scheduled.size > 0) {
      const tArrival = this.next < n ? arrivals[this.next] : Infinity;
      const tEvent = events.peekTime();
      if (scheduled.size > 0 && scheduled.peekTime() <= tEvent && scheduled.peekTime() <= tArrival) {
        const item = scheduled.popItem() as number;
        this.view.now = scheduled.lastTime;
        this.handleEvent(scheduled.lastTime, item);
      } else if (events.size > 0 && tEvent <= tArrival) {
        // an iteration's end stays on top while the replica applies it: the next one replaces it (iterate)
        const item = events.peekItem() as number;
        this.view.now = events.lastTime;
        if (item >= 0) this.iterate(this.engines[item]);
        else {
          events.removeTop();
          this.handleEvent(events.lastTime, item);
        }
      } else this.dispatch(requests[this.next]);
    }
    if (this.settings.check) this.checkEnd();
  }

  /** A replica's iteration ends (its event still on top of the queue: peekItem): apply it and plan the next, which
   * takes the ended one's place (the time is read from the queue, not passed: see Replica.now). The notices it posts
   * meanwhile are pushed below it. */
  private iterate(e: Replica): void {
    const events = this.events;
    e.now = events.lastTime;
    e.end();
    if (e.begin()) events.replaceTop(e.nextEnd, e.index);
    else {
      events.removeTop();
      e.busy = false;
    }
  }

  /** The other events: replication and timeline samples, delayed notices and restarts. */
  private handleEvent(now: number, item: number): void {
    if (item === SAMPLE) this.sampleReplication();
    else if (item === TIMELINE) {
      const tl = this.timeline as TimelineRecorder;
      tl.sample(now, this.timelineSource);
      if (this.next < this.n || this.events.size > 0 || this.scheduled.size > 0) {
        if (tl.full) tl.truncated = true;
        else this.events.push(tl.timeOf(tl.count), TIMELINE);
      }
    } else this.deliver(this.notices[NOTICE - item]);
  }

  private sampleReplication(): void {
    let held = 0;
    for (const t of this.trees) held += t.heldTokens;
    if (this.keyDepth < 0) this.keyDepth = keySegmentDepth(this.settings.requests, this.settings.keySegments);
    const u = unionOf(this.trees, this.settings.keySegments, this.keyDepth);
    this.sumHeld += held;
    this.sumDistinct += u.distinct;
    this.sumKeys += u.keys;
    this.sampleCount++;
  }

  private readonly timelineSource = {
    outstanding: (i: number) => this.view.outstandingReq[i],
    queued: (i: number) => this.engines[i].waiting.length,
    kvUsed: (i: number) => this.engines[i].kvUsedTokens,
    cache: (i: number) => this.engines[i].cache,
  };

  /** An arrival: route, record, enqueue, wake the replica if idle. */
  private dispatch(req: ClusterRequest): void {
    const now = req.arrival;
    const view = this.view;
    view.now = now;
    view.beginDecision(req);
    const target = routeChecked(this.router, req, this.next, view);
    const rec = RequestRecord.take(req, now, this.recordTimes, this.next);
    rec.replica = target;
    rec.measured = this.next >= this.warmupCount;
    rec.viewMatchAtDispatch = view.viewMatch(req, target);
    rec.cachedAtDispatch = Math.min(view.cachedMatch(req, target), req.promptTokens - 1);
    view.promptDispatched(rec, target, now);
    view.endDecision();
    view.dispatchedSegments(req);
    if (this.settings.oracle) rec.clusterCachedAtDispatch = Math.min(this.anywhereMatch(req), req.promptTokens - 1);
    this.records[this.next] = rec;
    view.history.push(rec);
    view.outstandingReq[target]++;
    view.outstandingTok[target] += req.promptTokens;
    view.dispatched[target]++;
    this.totalOutstanding++;
    this.outstandingAtArrival[this.next] = this.totalOutstanding;
    this.next++;
    this.router.onDispatch?.(rec, view);
    const e = this.engines[target];
    e.enqueue(rec);
    if (!e.busy) {
      e.now = now;
      if (e.begin()) {
        e.busy = true;
        this.events.push(e.nextEnd, target);
      }
    }
  }

  /** The longest match over every replica's cache: what the request could hit if it could read any cache. */
  private anywhereMatch(req: ClusterRequest): number {
    let anywhere = 0;
    for (const e of this.engines) {
      const m = e.cache.matchTokens(req.segments);
      if (m > anywhere) anywhere = m;
    }
    return anywhere;
  }

  private checkEnd(): void {
    for (const e of this.engines) {
      e.cache.checkInvariants();
      if (e.outstanding !== 0 || e.reservedTokens !== 0) throw new Error(`replica ${e.index}: ${e.outstanding} requests left, ${e.reservedTokens} tokens reserved after the run`);
      if (this.view.uncomputedCount(e.index) !== 0) throw new Error(`replica ${e.index}: the dispatched-prompt index still holds ${this.view.uncomputedCount(e.index)} entries after the run`);
    }
  }

  /** Gives the caches' and the dispatched-prompt indexes' nodes to the thread's pool for the next run (after
   * result(): nothing returned keeps a node). The run's engines are empty afterwards. */
  recycle(): void {
    for (const e of this.engines) e.cache.recycleAll();
    this.view.recycle();
  }

  /** The run's result; engine state is dropped from the records so results stay small and cloneable. */
  result(wallStart: number): ClusterResult {
    const s = this.settings;
    const metrics = computeMetrics(this.records, s.replicas, this.warmupCount, this.outstandingAtArrival, this.engines, this.lastFinish, this.step, s.chunkBudget);
    if (!s.oracle) metrics.oracleHitRate = NaN;
    metrics.replication = this.sampleCount > 0 && this.sumDistinct > 0 ? this.sumHeld / this.sumDistinct : NaN;
    metrics.distinctCachedTokens = this.sampleCount > 0 ? this.sumDistinct / this.sampleCount : NaN;
    metrics.distinctCachedKeys = this.sampleCount > 0 ? this.sumKeys / this.sampleCount : NaN;
    for (let i = 0; i < this.records.length; i++) {
      this.records[i].lockedNode = null;
      this.records[i].pendingNode = null;
    }
    let iterations = 0;
    for (const e of this.engines) iterations += e.iterations;
    const w = s.workload;
    return {
      records: this.records,
      metrics,
      replicas: this.engines.map((e) => ({
        requests: this.view.dispatched[e.index],
        iterations: e.iterations,
        busySeconds: e.busySeconds,
        computedPrefillTokens: e.computedPrefillTokens,
        evictedTokens: e.cache.evictedTokens,
        peakKvTokens: e.peakKvTokens,
        cachedTokensAtEnd: e.cache.heldTokens,
      })),
      routerName: this.router.name,
      routerStats: this.router.stats ? this.router.stats() : {},
      workload: w ? { name: w.name, label: w.label, rate: w.rate, keySegments: s.keySegments.size } : { name: "custom", label: "given requests", rate: s.options.rate ?? NaN, keySegments: s.keySegments.size },
      kvCapacity: s.kvCapacity,
      makespan: this.lastFinish,
      iterations,
      wallSeconds: (Date.now() - wallStart) / 1000,
      warmupRule: `${warmupDescription(s.warmup, s.replicationSamples)} (here the first ${this.warmupCount} of ${this.n})`,
      overloadRule: OVERLOAD_RULE,
      timeline: this.timeline ? this.timeline.build(this.records) : null,
    };
  }
}
