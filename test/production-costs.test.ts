// §6 production routers, decision by decision on hand-made states (the mutation core "production", with
// test/production-decisions.test.ts): Dynamo's cost terms, its event-built index, its active sequences and its
// softmax / argmin choice; the gateway's three scores, its block index with its LRU, and its max-score pick with random
// ties. Every expected value is computed by hand in the comment beside it; the random choices run on a scripted Rng.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import type { Rng } from "../lib/core/rng";
import { rng } from "../lib/core/rng";
import {
  ActiveSequences,
  BlockLruIndex,
  DYNAMO_ROUTER_DEFAULTS,
  DynamoKvRouter,
  dynamoCost,
  dynamoRouterOptions,
  GATEWAY_SCORER_DEFAULTS,
  GatewayPrefixScorer,
  gatewayScorerOptions,
  KvEventIndex,
  promptBlocks,
  queueScores,
  softmaxSample,
} from "../lib/cluster/index";
import { RequestRecord } from "../lib/cluster/record";
import { CAPACITY, request, view } from "./support/production-world";

/** An Rng whose int() and uniform() return the given values in turn (0 when spent), logging each call. */
function scripted(ints: number[], uniforms: number[] = []): { r: Rng; calls: string[] } {
  const calls: string[] = [];
  const r = {
    int: (n: number) => {
      calls.push(`int(${n})`);
      return ints.shift() ?? 0;
    },
    uniform: () => {
      calls.push("uniform");
      return uniforms.shift() ?? 0;
    },
  } as unknown as Rng;
  return { r, calls };
}

/** A record of `req` dispatched to `replica`. */
function record(req: ReturnType<typeof request>, replica: number): RequestRecord {
  return Object.assign(new RequestRecord(req, 0), { replica });
}

describe("Dynamo: options, cost, blocks", () => {
  it("checks every option against its range, at the boundary, and keeps what is given", () => {
    expect(dynamoRouterOptions()).toEqual(DYNAMO_ROUTER_DEFAULTS);
    const given = { overlapWeight: 0, temperature: 0.5, blockSize: 2, trackOutputBlocks: true, decodeTerm: "runningKv", prefillTerm: "replica" };
    expect(dynamoRouterOptions(given)).toEqual(given);
    expect(() => dynamoRouterOptions({ overlapWeight: -0.1 })).toThrow(/overlapWeight/);
    expect(() => dynamoRouterOptions({ blockSize: 1 })).toThrow(/blockSize/);
    expect(() => dynamoRouterOptions({ blockSize: 2.5 })).toThrow(/blockSize/);
    expect(() => dynamoRouterOptions({ decodeTerm: "kv" })).toThrow(/decodeTerm/);
    expect(() => dynamoRouterOptions({ prefillTerm: "kv" })).toThrow(/prefillTerm/);
    expect(() => dynamoRouterOptions({ overlapWeigth: 1 })).toThrow(ParameterError);
  });

  it("cost = weight × prefill blocks + decode blocks, each term by hand", () => {
    // prefill (100 − 36 + 12) / 4 = 19 blocks; decode 7 + 3 = 10; cost 0.5 × 19 + 10 = 19.5
    expect(dynamoCost({ promptTokens: 100, overlapTokens: 36, activePrefillTokens: 12, activeBlocks: 7, newBlocks: 3, blockSize: 4, overlapWeight: 0.5 })).toEqual({ prefillBlocks: 19, decodeBlocks: 10, cost: 19.5 });
    expect(promptBlocks(47, 16)).toBe(2);
    expect(promptBlocks(48, 16)).toBe(3);
  });

  it("active sequences count block ends inside each segment, also when segments do not align with blocks", () => {
    const a = new ActiveSequences(16);
    const r1 = record(request([[1, 10], [2, 30]]), 0); // segment 1: no block end (10 < 16); segment 2: ends 16, 32
    const r2 = record(request([[1, 10], [3, 30]]), 0); // segment 3: 2 more
    a.add(r1, 40);
    expect(a.activeBlocks).toBe(2);
    a.add(r2, 30);
    expect(a.activeBlocks).toBe(4);
    // [1:10][2:30][4:24]: 64 tokens = 4 blocks; 40 match in flight → ⌊40 / 16⌋ = 2 of them already there
    expect(a.newBlocks(request([[1, 10], [2, 30], [4, 24]]).segments, 64)).toBe(2);
    // a finished request's prefill leaves with it even before any first token
    a.remove(r1);
    expect([a.activeBlocks, a.activePrefillTokens]).toEqual([2, 30]);
    a.remove(r1); // twice: nothing
    a.remove(record(request([[5, 16]]), 0)); // never added: nothing
    expect([a.activeBlocks, a.activePrefillTokens, a.inFlight.size]).toEqual([2, 30, 1]);
    // output blocks: ⌊40 / 16⌋ + ⌊15 / 16⌋ = 2
    const b = new ActiveSequences(16);
    b.add(Object.assign(record(request([[6, 16]]), 0), { generated: 40 }), 16);
    b.add(Object.assign(record(request([[7, 16]]), 0), { generated: 15 }), 16);
    expect(b.outputBlocks()).toBe(2);
    // the prefill of a request past its first token leaves at the next instant's sweep
    const [first] = b.inFlight.keys();
    first.firstToken = 3;
    b.sweepAt(3);
    expect(b.activePrefillTokens).toBe(16);
    // one sweep per instant: a first token appearing later at the same instant waits for the next instant
    const [, second] = b.inFlight.keys();
    second.firstToken = 3;
    b.sweepAt(3);
    expect(b.activePrefillTokens).toBe(16);
    b.sweepAt(4);
    expect(b.activePrefillTokens).toBe(0);
  });
});

describe("Dynamo: the index from KV events", () => {
  it("overlapAll (one walk for every worker, the router's) gives each worker's overlapTokens, over random stores and evictions", () => {
    const workers = 5;
    const x = new KvEventIndex(workers);
    const pick = rng(7);
    const segs: Array<[number, number]> = Array.from({ length: 12 }, (_, i) => [i + 1, 10 + 7 * i]);
    const prompts = Array.from({ length: 40 }, () => request(segs.slice(0, 1 + pick.int(6)).map(([id, t], k) => (k === 0 ? [id, t] : [segs[pick.int(segs.length)][0], segs[pick.int(segs.length)][1]]) as [number, number])));
    for (const p of prompts) x.learn(p);
    const out = new Float64Array(workers);
    const matching = new Uint8Array(workers);
    let compared = 0;
    let partial = 0;
    for (let step = 0; step < 400; step++) {
      const p = prompts[pick.int(prompts.length)];
      const path = p.segments.slice(0, 1 + pick.int(p.segments.length)).map((s) => s.id);
      const w = pick.int(workers);
      if (pick.uniform() < 0.6) x.onStore(w, path);
      else {
        const held = pick.int(3) === 0 ? 0 : pick.int(10);
        x.onEvict(w, path, held);
      }
      const q = prompts[pick.int(prompts.length)];
      x.overlapAll(q, out, matching);
      for (let k = 0; k < workers; k++) {
        expect(out[k]).toBe(x.overlapTokens(q, k));
        if (out[k] > 0 && out[k] < q.promptTokens) partial++;
        compared++;
      }
    }
    expect(compared).toBe(2000);
    expect(partial).toBeGreaterThan(50); // the walks do stop part-way, at different places for different workers
  });
  it("overlap walks the worker's whole segments and stops after a partly held one; unknown segments and paths are ignored", () => {
    const x = new KvEventIndex(2);
    const req = request([[1, 20], [2, 30], [3, 40]]);
    x.learn(req);
    x.onStore(0, [1, 2]);
    expect(x.overlapTokens(req, 0)).toBe(50);
    expect(x.overlapTokens(req, 1)).toBe(0);
    x.onStore(1, [1, 77]); // segment 77 never seen in a request: ignored (segment 1 recorded)
    x.onEvict(0, [5], 0); // no such node: ignored
    expect([x.stored, x.ignored, x.removed]).toEqual([1, 2, 0]);
    expect(x.overlapTokens(req, 1)).toBe(20);
    x.onEvict(0, [1], 8); // 8 of segment 1's 20 tokens left: the walk stops there
    expect(x.overlapTokens(req, 0)).toBe(8);
    expect(x.removed).toBe(1);
    const r = new DynamoKvRouter(1, rng(1));
    r.index.learn(req);
    r.onStore({ replica: 0, time: 0, path: [1], addedTokens: 20 });
    r.onEvict({ replica: 0, time: 1, path: [1], segmentTokens: 20, heldTokens: 12, evictedTokens: 8, removed: true });
    expect(r.index.overlapTokens(req, 0)).toBe(0); // removed: nothing held, whatever heldTokens says
    expect(r.stats()).toMatchObject({ storeEvents: 1, removeEvents: 1, ignoredEvents: 0, indexNodes: 1 });
  });
});

describe("Dynamo: the router's decision", () => {
  it("overlap counts whole blocks only and at most the prompt minus one token; the new prefill is what is left", () => {
    const r = new DynamoKvRouter(2, rng(1));
    expect(r.lastCosts).toEqual([]);
    const req = request([[1, 40], [2, 60]]);
    r.index.learn(req);
    r.onStore({ replica: 0, time: 0, path: [1], addedTokens: 40 });
    r.route(req, view(2));
    expect(r.lastCosts.map((c) => c.overlapTokens)).toEqual([32, 0]); // ⌊40 / 16⌋ × 16
    const full = request([[3, 32]]);
    r.index.learn(full);
    r.onStore({ replica: 1, time: 0, path: [3], addedTokens: 32 });
    // worker 1: overlap min(32, 32 − 1) = 31; prefill (32 − 31) / 16; decode 0 + 2 new blocks
    expect(r.route(full, view(2))).toBe(1);
    expect(r.lastCosts[1]).toEqual({ prefillBlocks: 1 / 16, decodeBlocks: 2, cost: 2 + 1 / 16, overlapTokens: 31 });
    r.onDispatch(record(full, 1));
    expect(r.active[1].activePrefillTokens).toBe(1);
  });

  it("the released prefill term is the router's own count; the replica's queue counts only in the first version", () => {
    const req = request([[1, 32]]); // 2 blocks, nothing cached, nothing in flight
    const v = view(1, { pendingPrefill: [480], activeKv: [160] });
    const released = new DynamoKvRouter(1, rng(1));
    released.route(req, v);
    expect(released.lastCosts[0].cost).toBe(2 + 2); // 32 / 16 prefill + 2 new blocks
    const first = new DynamoKvRouter(1, rng(1), { prefillTerm: "replica", decodeTerm: "runningKv" });
    first.route(req, v);
    expect(first.lastCosts[0].cost).toBe((32 + 480) / 16 + 160 / 16); // 32 + 10
  });

  it("passed-up hits: the pick holds less than half the prompt while another worker holds at least half", () => {
    // blocks of 2 tokens, prompt [1:50][2:50] (half = 50); worker 1 busy (10,000 tokens queued in the first version)
    const setup = (held: number[]) => {
      const r = new DynamoKvRouter(2, rng(1), { blockSize: 2, prefillTerm: "replica", decodeTerm: "runningKv" });
      const req = request([[1, 50], [2, 50]]);
      r.index.learn(req);
      held.forEach((h, w) => {
        if (h >= 50) r.onStore({ replica: w, time: 0, path: h === 100 ? [1, 2] : [1], addedTokens: h });
      });
      return { r, req };
    };
    const picks = (held: number[]) => {
      const { r, req } = setup(held);
      const w = r.route(req, view(2, { pendingPrefill: [0, 10000] }));
      return [w, r.stats().passedUpHits];
    };
    expect(picks([0, 50])).toEqual([0, 1]); // worker 1 holds exactly half
    expect(picks([0, 0])).toEqual([0, 0]); // nobody holds anything
    expect(picks([50, 100])).toEqual([0, 0]); // the pick holds exactly half itself
    // the mean overlap per decision, in blocks: (25 + 0) / 2 with the worker holding 50 tokens picked first
    const { r, req } = setup([50, 0]);
    r.route(req, view(2, { pendingPrefill: [0, 10000] }));
    r.route(request([[9, 20]]), view(2, { pendingPrefill: [0, 10000] }));
    expect(r.stats()).toMatchObject({ decisions: 2, passedUpHits: 0, meanOverlapBlocks: 12.5 });
    expect(new DynamoKvRouter(1, rng(1)).stats().meanOverlapBlocks).toBe(0);
  });
});

describe("Dynamo: softmax_sample", () => {
  it("temperature 0: the argmin without touching the random stream; among tied minima the one the stream picks", () => {
    let s = scripted([]);
    expect(softmaxSample([5, 3, 4], 0, s.r)).toBe(1);
    expect(s.calls).toEqual([]);
    s = scripted([0, 1]);
    expect(softmaxSample([5, 3, 3, 9], 0, s.r)).toBe(1);
    expect(softmaxSample([5, 3, 3, 9], 0, s.r)).toBe(2);
    expect(s.calls).toEqual(["int(2)", "int(2)"]);
    s = scripted([2]);
    expect(softmaxSample([2, 2, 7, 2], 0, s.r)).toBe(3); // the third of three minima
  });

  it("temperature > 0: all equal → uniform over all; else weights exp(−(c − min) / (range × T)), walked in order", () => {
    let s = scripted([1]);
    expect(softmaxSample([4, 4, 4], 1, s.r)).toBe(1);
    expect(s.calls).toEqual(["int(3)"]);
    // costs 10, 13, 16 at T = 2: weights 1, e^−0.25 = 0.7788, e^−0.5 = 0.6065; total 2.3853;
    // cumulative shares 0.4192, 0.7457, 1 (at T = 1 they would be 0.5065, 0.8137)
    const pick = (costs: number[], t: number, u: number) => softmaxSample(costs, t, scripted([], [u]).r);
    expect([0.41, 0.45, 0.74, 0.8].map((u) => pick([10, 13, 16], 2, u))).toEqual([0, 1, 1, 2]);
    // the same costs in another order (the maximum first): shares 0.2543, 0.6735, 1
    expect([0.2, 0.26, 0.67, 0.68].map((u) => pick([16, 10, 13], 2, u))).toEqual([0, 1, 1, 2]);
    // T = ∞: every weight is exactly 1, so u × total = 2 falls exactly at the end of the second weight
    expect(pick([1, 2, 3, 4], Infinity, 0.5)).toBe(1);
    expect(pick([1, 2, 3, 4], Infinity, 0)).toBe(0);
    // only differences count: costs 1001 and 1000 at T = 0.01 weigh e^−100 and 1 (not both e^−(c + min)/… = 0)
    expect(pick([1001, 1000], 0.01, 0.5)).toBe(1);
    // the largest u below 1 can leave a rounding residue (≈ 1e−16) after the last weight: still the last worker
    expect(pick([46, 16, 46], 0.5, 1 - 2 ** -53)).toBe(2);
  });
});

describe("gateway: options and scores", () => {
  it("checks every option against its range; the index capacity defaults to the replica's KV capacity", () => {
    expect(gatewayScorerOptions(4000)).toEqual({ ...GATEWAY_SCORER_DEFAULTS, capacityTokens: 4000 });
    const given = { queueWeight: 0, kvWeight: 0, prefixWeight: 0, blockTokens: 1, maxPrefixBlocks: 1, capacityTokens: 0.5 };
    expect(gatewayScorerOptions(4000, given)).toEqual(given);
    for (const [k, bad] of [["queueWeight", -1], ["kvWeight", -1], ["blockTokens", 0], ["blockTokens", 1.5], ["maxPrefixBlocks", 0], ["capacityTokens", 0]] as const) {
      expect(() => gatewayScorerOptions(4000, { [k]: bad }), k).toThrow(new RegExp(k));
    }
    // the index holds ⌊capacity / block⌋ hashes, at least one
    expect(new GatewayPrefixScorer(1, rng(1), 4000, { capacityTokens: 100 }).index.capacityBlocks).toBe(6);
    expect(new GatewayPrefixScorer(1, rng(1), 4000, { capacityTokens: 10 }).index.capacityBlocks).toBe(1);
  });

  it("queue score (max − q) / (max − min), whatever the order and the minimum", () => {
    expect(queueScores([2, 4, 6, 10])).toEqual([1, 0.75, 0.5, 0]);
    expect(queueScores([10, 4, 2])).toEqual([0, 0.75, 1]);
  });
});

describe("gateway: the block index", () => {
  it("gives distinct blocks distinct ids, and the same block the same id", () => {
    const idx = new BlockLruIndex(1, 100);
    const a = idx.blocks(request([[1, 40], [3, 40]]).segments); // ends 16, 32 in segment 1; 48, 64, 80 in segment 3
    const b = idx.blocks(request([[9, 32]]).segments);
    const c = idx.blocks(request([[1, 40], [4, 24]]).segments); // 16, 32 shared; 48, 64 new
    expect([a.length, b.length, c.length]).toEqual([5, 2, 4]);
    expect(c.slice(0, 2)).toEqual(a.slice(0, 2));
    expect(new Set([...a, ...b, ...c]).size).toBe(5 + 2 + 2);
    // a segment starting at 16: one block end (32) inside it, so one id — the next prompt's ids start right after
    const idx2 = new BlockLruIndex(1, 100);
    const p = idx2.blocks(request([[1, 16]]).segments);
    const q = idx2.blocks(request([[1, 16], [2, 16]]).segments);
    const long = idx2.blocks(request([[3, 300 * 16]]).segments);
    expect([p, q]).toEqual([[0], [0, 1]]);
    expect(long.slice(0, 2)).toEqual([2, 3]);
    expect(new Set([...q, ...long]).size).toBe(2 + 256);
  });

  it("holds blocks whose ids are past the first table size (1,024), one past it and far past it", () => {
    const idx = new BlockLruIndex(1, 100);
    idx.blocks(request([[5, 1024 * 16]]).segments); // reserves ids 0 … 1023
    const [at1024] = idx.blocks(request([[6, 16]]).segments);
    idx.blocks(request([[7, 5000 * 16]]).segments); // ids 1025 … 6024
    const [far] = idx.blocks(request([[8, 16]]).segments); // past twice the table's size after the first growth
    expect([at1024, far]).toEqual([1024, 6025]);
    expect([idx.holds(0, at1024), idx.holds(0, 1023), idx.holds(0, 99999)]).toEqual([false, false, false]);
    idx.add([at1024], 0);
    idx.add([far], 0);
    expect([idx.holds(0, at1024), idx.holds(0, far), idx.holds(0, far + 1)]).toEqual([true, true, false]);
    const out = new Float64Array(1);
    idx.match([far], out);
    expect(out[0]).toBe(1);
  });

  it("a pod's LRU: re-adding refreshes without growing; the least recent goes first, also after the queue is compacted", () => {
    const idx = new BlockLruIndex(1, 2);
    const [A, B, C, D] = [1, 2, 3, 4].map((k) => idx.blocks(request([[k, 16]]).segments)[0]);
    // A, B, A again: the queue's first entry (A's first use) is stale, so C evicts B
    const small = new BlockLruIndex(1, 2);
    small.add([A, B, A, C], 0);
    expect([small.holds(0, A), small.holds(0, B), small.holds(0, C)]).toEqual([true, false, true]);
    idx.add([A, B], 0);
    idx.add([A], 0); // still 2 blocks
    expect(idx.sizes[0]).toBe(2);
    expect([idx.holds(0, A), idx.holds(0, B)]).toEqual([true, true]);
    for (let k = 0; k < 80; k++) idx.add([A], 0); // 82 queue entries, 80 stale: compacted past 4 × 2 + 64
    idx.add([C], 0); // B is the least recent
    expect([idx.holds(0, A), idx.holds(0, B), idx.holds(0, C)]).toEqual([true, false, true]);
    idx.add([D], 0); // then A
    expect([idx.holds(0, A), idx.holds(0, C), idx.holds(0, D)]).toEqual([false, true, true]);
    expect(idx.evictions).toBe(2);
    // capacity 1: each add evicts the previous one, from the queue's first entry on
    const one = new BlockLruIndex(1, 1);
    one.add([A], 0);
    one.add([B], 0);
    one.add([C], 0);
    expect([one.holds(0, A), one.holds(0, B), one.holds(0, C), one.sizes[0]]).toEqual([false, false, true, 1]);
  });

  it("supports at most 31 pods", () => {
    expect(new BlockLruIndex(31, 4).podCount).toBe(31);
    expect(() => new BlockLruIndex(32, 4)).toThrow(/replicas/);
  });
});

describe("gateway: the pick", () => {
  it("highest total wins; ties go to the pod the random stream picks among the tied, unique maxima use no randomness", () => {
    const tie = (k: number) => {
      const s = scripted([k]);
      const r = new GatewayPrefixScorer(3, s.r, CAPACITY);
      const w = r.route(request([[1, 5]]), view(3, { queue: [1, 1, 1] })); // shorter than a block: prefix 0 everywhere
      return [w, s.calls];
    };
    expect(tie(0)).toEqual([0, ["int(3)"]]);
    expect(tie(1)).toEqual([1, ["int(3)"]]);
    expect(tie(2)).toEqual([2, ["int(3)"]]);
    const s = scripted([]);
    const r = new GatewayPrefixScorer(3, s.r, CAPACITY);
    expect(r.lastScores).toEqual([]);
    // queue scores 0, 1, 0.5; KV scores 0.5, 0.5, 0.9: totals 2 × 0 + 2 × 0.5 = 1, 2 + 1 = 3, 1 + 1.8 = 2.8 → pod 1
    expect(r.route(request([[2, 5]]), view(3, { queue: [4, 0, 2], kvUtil: [0.5, 0.5, 0.1] }))).toBe(1);
    expect(r.lastScores.map((x) => x.prefix)).toEqual([0, 0, 0]);
    expect(r.lastScores.map((x) => x.total)).toEqual([1, 3, 2.8]);
    expect(s.calls).toEqual([]);
  });

  it("counts the picks that went to the best prefix score (none when nobody matched), and adds the prompt to the pick's LRU", () => {
    const r = new GatewayPrefixScorer(2, rng(1), CAPACITY);
    const p = request([[1, 64]]);
    const q = r.index.blocks(p.segments);
    r.index.add(q.slice(1), 0); // pod 0: 3 of 4 blocks (as counted across pods), pod 1: 2 of 4
    r.index.add(q.slice(0, 2), 1);
    expect(r.route(p, view(2))).toBe(0); // 3 × 0.75 + 4 > 3 × 0.5 + 4
    expect(r.stats()).toMatchObject({ decisions: 1, toBestPrefix: 1 });
    expect(r.index.sizes).toEqual([4, 2]); // the prompt's 4 blocks are now all pod 0's
    r.route(p, view(2, { queue: [9, 0] })); // pod 0: 3 × 1 + 2 × 0 + 2 = 5; pod 1: 3 × 0.5 + 2 + 2 = 5.5 → pod 1
    expect(r.stats()).toMatchObject({ decisions: 2, toBestPrefix: 1 });
    expect(r.lastScores.map((x) => x.prefix)).toEqual([1, 0.5]);
    r.route(request([[2, 64]]), view(2, { queue: [0, 9] })); // nothing matched anywhere; pod 0 (queue score 1 vs 0)
    const stats = r.stats();
    expect(stats).toMatchObject({ decisions: 3, toBestPrefix: 1, indexBlocks: [4 + 4, 4] });
    r.route(request([[3, 64]]), view(2, { queue: [0, 9] }));
    expect(stats.indexBlocks).toEqual([8, 4]); // stats() is a snapshot
  });
});
