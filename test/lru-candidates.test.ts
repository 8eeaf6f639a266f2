// The radix tree's eviction candidates (lib/cluster/lru-candidates.ts) against a sorted list: the pop order by (last
// access, push order) with stale entries skipped, past the arrays' first growth; the size as entries come and go;
// clear. One of the radix core's rule tests for `npm run mutation` (test/support/mutation-cores.mjs).
import { describe, expect, it } from "vitest";
import { rng } from "../lib/core/rng";
import { LruCandidates } from "../lib/cluster/lru-candidates";
import { RadixNode } from "../lib/cluster/radix-tree";

describe("LruCandidates", () => {
  it("pops by (last access, push order), skipping stale entries, like a sorted list", () => {
    const r = rng("lru");
    const heap = new LruCandidates<unknown>();
    const nodes = Array.from({ length: 40 }, (_, i) => new RadixNode<unknown>(i, 10, null, 0, 1, 0));
    const ref: Array<{ time: number; seq: number; node: RadixNode<unknown>; stamp: number }> = [];
    let seq = 0;
    for (let step = 0; step < 3000; step++) {
      if (r.uniform() < 0.6) {
        const node = nodes[Math.floor(r.uniform() * nodes.length)];
        node.lastAccess = Math.floor(r.uniform() * 50); // many equal times
        node.stamp++;
        heap.push(node);
        ref.push({ time: node.lastAccess, seq: seq++, node, stamp: node.stamp });
      } else {
        ref.sort((a, b) => a.time - b.time || a.seq - b.seq);
        let want: RadixNode<unknown> | null = null;
        while (ref.length > 0) {
          const e = ref.shift() as (typeof ref)[number];
          if (e.stamp === e.node.stamp) {
            want = e.node;
            break;
          }
        }
        expect(heap.pop()).toBe(want);
      }
      expect(heap.size).toBe(ref.length);
    }
  });

  it("keeps its order past the arrays' growth: 300 entries pushed at once come out sorted", () => {
    const r = rng("lru-grow");
    const heap = new LruCandidates<unknown>();
    const nodes = Array.from({ length: 300 }, (_, i) => new RadixNode<unknown>(i, 10, null, 0, 1, 0));
    for (const node of nodes) {
      node.lastAccess = Math.floor(r.uniform() * 1000);
      heap.push(node);
    }
    expect(heap.size).toBe(300);
    const want = nodes.map((node, i) => ({ node, i })).sort((a, b) => a.node.lastAccess - b.node.lastAccess || a.i - b.i).map((e) => e.node);
    const got: Array<RadixNode<unknown> | null> = [];
    for (let k = 0; k < 300; k++) got.push(heap.pop());
    expect(got).toEqual(want);
    expect(heap.size).toBe(0);
    expect(heap.pop()).toBeNull();
  });

  it("clear empties it: size 0, nothing to pop, and later pushes start afresh", () => {
    const heap = new LruCandidates<unknown>();
    const nodes = Array.from({ length: 5 }, (_, i) => new RadixNode<unknown>(i, 10, null, 0, 1, 0));
    nodes.forEach((node, i) => {
      node.lastAccess = 5 - i;
      heap.push(node);
    });
    expect(heap.size).toBe(5);
    heap.clear();
    expect(heap.size).toBe(0);
    expect(heap.pop()).toBeNull();
    heap.push(nodes[0]);
    expect(heap.size).toBe(1);
    expect(heap.pop()).toBe(nodes[0]);
  });
});
