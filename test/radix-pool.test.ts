// The thread's pool of detached radix nodes (radix-tree.ts, SPARE): recycle trees share it within a run, a finished
// run's caches give their nodes back (recycleAll), and node identity never changes a result.
import { describe, expect, it } from "vitest";
import { rng, Rng } from "../lib/core/rng";
import { RadixNode, RadixTree, SegmentLike, spareNodeCount } from "../lib/cluster/radix-tree";
import { simulateCluster } from "../lib/cluster/simulate";

const TOKENS = Array.from({ length: 40 }, (_, i) => 3 + ((i * 29) % 40));
const seg = (id: number): SegmentLike => ({ id, tokens: TOKENS[id] });
// Wide first level (up to 40 children: the hash-indexed child list), short paths below.
const randomPath = (r: Rng): SegmentLike[] => Array.from({ length: 1 + r.int(4) }, (_, d) => seg(d === 0 ? r.int(40) : r.int(8) + 8 * r.int(4)));

function fill(tree: RadixTree, r: Rng, paths: number, time = 0): RadixNode[] {
  const made: RadixNode[] = [];
  for (let i = 0; i < paths; i++) {
    const p = randomPath(r);
    made.push(tree.insert(p, p.length, time + i));
  }
  return made;
}

describe("recycleAll and the shared pool", () => {
  it("a tree without recycle never gives its nodes to the pool: nodes it evicted or pruned keep their identity", () => {
    const plain = new RadixTree();
    const evicted: RadixNode[] = [];
    plain.onEvict = (n, _t, removed) => void (removed && evicted.push(n));
    fill(plain, rng(4).fork("plain"), 60);
    const counting = new RadixTree({ evictable: false });
    const pruned = counting.insert([seg(5), seg(9)], 2, 0);
    const prunedParent = pruned.parent as RadixNode;
    counting.prune(pruned);
    const before = spareNodeCount();
    expect(before, "the pool has room (this test runs before the one that fills it)").toBeLessThan(60000);
    plain.evict(1e9);
    expect(evicted.length).toBeGreaterThan(10);
    expect(spareNodeCount()).toBe(before);
    const segments = evicted.map((n) => n.segment);
    const other = new RadixTree({ recycle: true });
    fill(other, rng(4).fork("other"), 200); // takes whatever the pool holds
    expect(evicted.map((n) => n.segment)).toEqual(segments);
    expect([pruned.segment, prunedParent.segment]).toEqual([9, 5]);
    other.recycleAll();
  });

  it("empties the tree, gives every node to the pool as a detached childless node, and the tree stays usable", () => {
    const tree = new RadixTree({ recycle: true });
    fill(tree, rng(1).fork("a"), 300);
    tree.checkInvariants();
    const nodes: RadixNode[] = [];
    tree.walk((n) => nodes.push(n));
    expect(nodes.length).toBe(tree.nodeCount);
    expect(tree.root.childCount).toBeGreaterThan(8); // the root's children were hash-indexed
    const stamps = nodes.map((n) => n.stamp);
    const before = spareNodeCount();
    tree.recycleAll();
    expect(spareNodeCount() - before).toBe(nodes.length);
    expect(tree.nodeCount).toBe(0);
    expect(tree.heldTokens).toBe(0);
    expect(tree.root.isLeaf).toBe(true);
    expect(tree.match([seg(1)])).toBe(tree.root);
    nodes.forEach((n, i) => {
      expect(n.attached).toBe(false);
      expect(n.isLeaf).toBe(true);
      expect(n.childSlots).toBe(0);
      expect(n.refs).toBe(0);
      expect(n.stamp).toBeGreaterThan(stamps[i]); // stale LRU entries can never match it again
    });
    expect(tree.evict(1e9)).toBe(0); // no stale candidate survives the emptying
    fill(tree, rng(1).fork("b"), 50);
    tree.checkInvariants();
  });

  it("a tree built from pooled nodes behaves exactly as a fresh plain tree (matches, evictions, LRU order)", () => {
    const r = rng(2).fork("pool");
    const donor = new RadixTree({ recycle: true });
    fill(donor, r.fork("donor"), 400);
    donor.recycleAll();
    const pooled = new Set<RadixNode>();
    const plain = new RadixTree();
    const recycled = new RadixTree({ recycle: true });
    let reused = 0;
    const evictedPlain: number[][] = [];
    const evictedRecycled: number[][] = [];
    plain.onEvict = (n, tokens, removed) => evictedPlain.push([...plain.pathOf(n), tokens, removed ? 1 : 0]);
    recycled.onEvict = (n, tokens, removed) => evictedRecycled.push([...recycled.pathOf(n), tokens, removed ? 1 : 0]);
    for (let step = 0; step < 1500; step++) {
      const p = randomPath(r);
      const a = plain.insert(p, p.length, step);
      const b = recycled.insert(p, p.length, step);
      expect(recycled.pathOf(b)).toEqual(plain.pathOf(a)); // (before an eviction may give b back to the pool)
      if (!pooled.has(b)) pooled.add(b);
      else reused++;
      if (step % 7 === 0) {
        const want = 1 + r.int(200);
        expect(recycled.evict(want)).toBe(plain.evict(want));
      }
      if (step % 97 === 0) {
        // another run ending meanwhile gives its nodes to the same pool
        const other = new RadixTree({ recycle: true });
        fill(other, r.fork(`other${step}`), 30, step);
        other.recycleAll();
      }
      const q = randomPath(r);
      expect(recycled.matchTokens(q)).toBe(plain.matchTokens(q));
    }
    expect(recycled.nodeCount).toBe(plain.nodeCount);
    expect(recycled.heldTokens).toBe(plain.heldTokens);
    expect(evictedRecycled).toEqual(evictedPlain);
    recycled.checkInvariants();
    expect(reused + pooled.size).toBeGreaterThan(1000);
  });

  it("is bounded: a huge tree's nodes beyond 2^16 are left to the garbage collector", () => {
    const tree = new RadixTree({ recycle: true, evictable: false });
    // 70,000 distinct two-segment paths: ids 0…279 then 0…249 (ids reused across levels are distinct nodes)
    for (let i = 0; i < 70000; i++) tree.insert([{ id: i % 280, tokens: 1 }, { id: 1000 + Math.floor(i / 280), tokens: 1 }], 2, i);
    expect(tree.nodeCount).toBeGreaterThan(65536);
    tree.recycleAll();
    expect(spareNodeCount()).toBeLessThanOrEqual(65536);
  });

  it("refuses a tree made without recycle", () => {
    expect(() => new RadixTree().recycleAll()).toThrow(/recycle/);
  });
});

describe("simulateCluster with the shared pool", () => {
  it("gives the same result whatever ran before it in the thread (pool empty or full of another run's nodes)", () => {
    const a = { workload: "toolCalling" as const, rate: 20, replicas: 3, router: "roundRobin", seed: 5, requestCount: 600, memFraction: 0.35 };
    const b = { workload: "videoQA" as const, rate: 4, replicas: 4, router: "leastLoad", seed: 6, requestCount: 300 };
    const first = simulateCluster(a);
    expect(first.replicas.some((x) => x.evictedTokens > 0)).toBe(true); // evictions: nodes reused within the run
    simulateCluster(b);
    expect(spareNodeCount()).toBeGreaterThan(100); // the last run's caches are in the pool
    const again = simulateCluster(a);
    expect(again.metrics).toEqual(first.metrics);
    expect(again.replicas).toEqual(first.replicas);
    expect(again.records.map((r) => [r.replica, r.start, r.firstToken, r.finish, r.cachedTokens])).toEqual(first.records.map((r) => [r.replica, r.start, r.firstToken, r.finish, r.cachedTokens]));
  });
});
