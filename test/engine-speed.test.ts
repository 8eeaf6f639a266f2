// The engine's fast paths (issue 27) against the plain computations they replace: the event queue's order, a lone
// request's decode steps summed without a call per token, the radix node's hash index of children, and the union
// of several caches (the replication snapshots) bucketed by segment (the radix tree's LRU candidates: lru-candidates.test.ts).
import { describe, expect, it } from "vitest";
import { EventQueue } from "../lib/core/heap";
import { rng } from "../lib/core/rng";
import { grownToHold, isDirectId } from "../lib/core/typed-arrays";
import { GPUS, MODELS } from "../lib/hardware/specs";
import { StepModel } from "../lib/hardware/step-model";
import { KeyCounter } from "../lib/cluster/bucketing";
import { RadixNode, RadixTree } from "../lib/cluster/radix-tree";
import { keySegmentDepth, unionOf } from "../lib/cluster/timeline";
import type { ClusterRequest } from "../lib/cluster/workloads";

describe("EventQueue", () => {
  it("pops by time, equal times in push order, with pushes and pops interleaved", () => {
    const r = rng("heap");
    const q = new EventQueue<number>();
    const ref: Array<{ time: number; seq: number }> = [];
    const got: number[] = [];
    const want: number[] = [];
    let seq = 0;
    for (let step = 0; step < 5000; step++) {
      if (r.uniform() < 0.55 || ref.length === 0) {
        const time = Math.floor(r.uniform() * 50); // many equal times
        q.push(time, seq);
        ref.push({ time, seq: seq++ });
      } else {
        ref.sort((a, b) => a.time - b.time || a.seq - b.seq);
        const e = ref.shift() as { time: number; seq: number };
        want.push(e.seq);
        expect(q.peekTime()).toBe(e.time);
        got.push(q.popItem() as number);
        expect(q.lastTime).toBe(e.time);
      }
      expect(q.size).toBe(ref.length);
    }
    expect(got).toEqual(want);
    const last = q.pop();
    if (last) expect(typeof last.time).toBe("number");
  });
});

describe("StepModel.addLoneDecodeSeconds", () => {
  it("is bit for bit the sum of mixedSeconds(0, 0, 0, 1, prompt + k, 0), k = 1 … output − 1, in that order", () => {
    for (const model of Object.keys(MODELS)) {
      for (const gpu of Object.keys(GPUS)) {
        for (const tp of [1, 2, 4]) {
          let step: StepModel;
          try {
            step = new StepModel(model, gpu, { tp });
          } catch {
            continue; // a model that does not fit that GPU at this tp
          }
          for (const [start, prompt, output] of [[0, 1, 1], [0.123, 100, 2], [1.5, 3000, 257], [0, 32000, 40]]) {
            let t = start;
            for (let k = 1; k < output; k++) t += step.mixedSeconds(0, 0, 0, 1, prompt + k, 0);
            expect(step.addLoneDecodeSeconds(start, prompt, output), `${model} ${gpu} tp ${tp}`).toBe(t);
          }
        }
      }
    }
  });
});

describe("RadixNode's hash index of children", () => {
  it("finds exactly the children present, in insertion order, through many adds and removes", () => {
    const r = rng("kids");
    const parent = new RadixNode<unknown>(-1, 0, null, 0, 0, 0);
    const present = new Map<number, RadixNode<unknown>>();
    const order: number[] = [];
    for (let step = 0; step < 20000; step++) {
      // ids from a wide range with collisions mod powers of two (multiples of 1024), and a few non-integers
      const id = r.uniform() < 0.1 ? 1024 * Math.floor(r.uniform() * 40) : r.uniform() < 0.02 ? 0.5 + Math.floor(r.uniform() * 5) : Math.floor(r.uniform() * 400);
      const have = present.get(id);
      if (have === undefined && (present.size < 300 || r.uniform() < 0.3)) {
        const c = new RadixNode<unknown>(id, 1, parent, 0, 1, 0);
        parent.addChild(c);
        present.set(id, c);
        order.push(id);
      } else if (have !== undefined) {
        parent.removeChild(have);
        present.delete(id);
        order.splice(order.indexOf(id), 1);
      }
      if (step % 97 === 0) {
        for (let probe = -3; probe < 420; probe++) expect(parent.child(probe)).toBe(present.get(probe));
        for (const id of present.keys()) expect(parent.child(id)).toBe(present.get(id));
        expect(parent.childNodes().map((c) => c.segment)).toEqual(order);
      }
    }
    expect(parent.childCount).toBe(present.size);
  });
});

describe("unionOf", () => {
  /** The plain definition: over every distinct path, the most any cache holds of its last segment. */
  function bruteForce(trees: RadixTree[], keys: Set<number>): { distinct: number; keys: number } {
    const most = new Map<string, number>();
    const full = new Set<number>();
    for (const t of trees) {
      t.walk((n) => {
        const path = t.pathOf(n).join("/");
        most.set(path, Math.max(most.get(path) ?? 0, n.held));
        if (n.held === n.tokens && keys.has(n.segment)) full.add(n.segment);
      });
    }
    let distinct = 0;
    for (const v of most.values()) distinct += v;
    return { distinct, keys: full.size };
  }

  it("equals the plain definition on caches with shared, private, partly evicted and far-apart segments", () => {
    const r = rng("union");
    const trees = [0, 1, 2, 3].map(() => new RadixTree());
    const keys = new Set<number>([1, 2, 3, 5_000_000_000, 7]);
    for (let i = 0; i < 400; i++) {
      const t = trees[Math.floor(r.uniform() * trees.length)];
      const system = Math.floor(r.uniform() * 3);
      const doc = r.uniform() < 0.05 ? 5_000_000_000 : 1 + Math.floor(r.uniform() * 8);
      const own = 100 + i;
      const segs = [{ id: system + 10_000, tokens: 50 }, { id: doc, tokens: 200 + doc % 7 }, { id: own, tokens: 1 + Math.floor(r.uniform() * 90) }];
      const leaf = t.insert(segs, r.uniform() < 0.3 ? 2 : 3, i);
      t.lock(leaf);
      t.unlock(leaf);
      if (r.uniform() < 0.1) t.evict(Math.floor(r.uniform() * 400));
    }
    expect(unionOf(trees, keys)).toEqual(bruteForce(trees, keys));
    expect(unionOf([trees[2]], keys)).toEqual(bruteForce([trees[2]], keys));
    // keys sit at depth 2 at most (the document): walking private subtrees no deeper gives the same answer
    expect(unionOf(trees, keys, 2)).toEqual(bruteForce(trees, keys));
    expect(unionOf([trees[2]], keys, 2)).toEqual(bruteForce([trees[2]], keys));
    // the bound only limits the search for keys: the distinct tokens never depend on it
    expect(unionOf(trees, keys, 0).distinct).toBe(bruteForce(trees, keys).distinct);
  });

  it("equals the plain definition with keys deep in private subtrees (a key at depth 3 under private paths)", () => {
    const r = rng("union-deep");
    const trees = [0, 1, 2].map(() => new RadixTree());
    const keys = new Set<number>([900, 901, 902]);
    const requests: ClusterRequest[] = [];
    for (let i = 0; i < 300; i++) {
      const t = trees[i % 3];
      const shared = { id: 10 + Math.floor(r.uniform() * 2), tokens: 40 };
      const own = { id: 1000 + i, tokens: 5 + Math.floor(r.uniform() * 20) };
      const key = { id: 900 + Math.floor(r.uniform() * 3), tokens: 30 };
      const segs = [shared, own, key];
      requests.push({ id: i, arrival: i, segments: segs, promptTokens: 0, outputTokens: 1, outputSegment: { id: 5000 + i, tokens: 1 }, key: 0, keySegment: key.id });
      const leaf = t.insert(segs, 3, i);
      t.lock(leaf);
      t.unlock(leaf);
      if (r.uniform() < 0.2) t.evict(Math.floor(r.uniform() * 300));
    }
    const depth = keySegmentDepth(requests, keys);
    expect(depth).toBe(3);
    expect(unionOf(trees, keys, depth)).toEqual(bruteForce(trees, keys));
    expect(unionOf(trees, keys, 2).keys).toBe(0); // every key is below a private segment
  });

  it("keySegmentDepth: the deepest position of a key segment in a prompt (1-based), or after it as an output; 0 without keys", () => {
    const req = (ids: number[], output: number): ClusterRequest => ({ id: 0, arrival: 0, segments: ids.map((id) => ({ id, tokens: 1 })), promptTokens: ids.length, outputTokens: 1, outputSegment: { id: output, tokens: 1 }, key: 0, keySegment: ids[0] });
    expect(keySegmentDepth([req([1, 2, 3], 9)], new Set([2]))).toBe(2);
    expect(keySegmentDepth([req([1, 2, 3], 9), req([5, 6, 2, 7], 8)], new Set([2]))).toBe(3);
    expect(keySegmentDepth([req([1, 2, 3], 9)], new Set([9]))).toBe(4); // an output after a 3-segment prompt
    expect(keySegmentDepth([req([1, 2, 3], 9)], new Set([4]))).toBe(0);
    expect(keySegmentDepth([req([1, 2, 3], 9)], new Set())).toBe(0);
  });

  it("KeyCounter counts each key once, ignores other ids, and handles ids beyond its arrays", () => {
    const k = new KeyCounter(new Set([2, 9, -4, 2 ** 40]));
    for (const id of [2, 3, 2, 9, 100, -4, -4, 2 ** 40, 2 ** 41, 0.5]) k.add(id);
    expect(k.count).toBe(4);
  });
});

describe("typed-array helpers (lib/core/typed-arrays.ts)", () => {
  it("isDirectId: integers in [0, 2^24) only", () => {
    expect([0, 1, 2 ** 24 - 1].map(isDirectId)).toEqual([true, true, true]);
    expect([-1, 2 ** 24, 0.5, NaN, Infinity].map(isDirectId)).toEqual([false, false, false, false, false]);
  });

  it("grownToHold: the same array when the index fits, else a doubled copy with the values kept", () => {
    const a = Int32Array.from([7, 8, 9, 10]);
    expect(grownToHold(a, 3)).toBe(a);
    const b = grownToHold(a, 4);
    expect(b).toBeInstanceOf(Int32Array);
    expect(Array.from(b)).toEqual([7, 8, 9, 10, 0, 0, 0, 0]);
    expect(grownToHold(new Float64Array(4), 17).length).toBe(32);
    expect(grownToHold(new Uint8Array(0), 0).length).toBe(1);
  });
});
