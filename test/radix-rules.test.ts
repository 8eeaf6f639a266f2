// The radix tree's rules the LRU model test (radix-lru-model.test.ts) does not reach: equal access times evicted in
// the order they became candidates, the LRU heap's rebuild, a node's children indexed by a hash table with hundreds of
// children removed and re-added, extend, the counts it reports, every guard's error, and checkInvariants catching
// each broken invariant. Hand-made trees; the references are plain arrays and maps.
import { describe, expect, it } from "vitest";
import { RadixNode, RadixTree, SegmentLike } from "../lib/cluster/radix-tree";
import { rng } from "../lib/core/rng";

const seg = (id: number, tokens = 4): SegmentLike => ({ id, tokens });
/** evicts the whole tree one token at a time from the front; returns the segments removed, in order */
function evictionOrder(tree: RadixTree): number[] {
  const order: number[] = [];
  tree.onEvict = (n, _a, removed) => removed && order.push(n.segment);
  tree.evict(tree.heldTokens);
  return order;
}

describe("LRU order of leaves with equal access times: the order they became candidates", () => {
  it("40 leaves, times from {1, 2, 3, 4}, inserted in a random order, × 8 seeds: sorted by (time, insertion)", () => {
    for (let seed = 0; seed < 8; seed++) {
      const r = rng(seed).fork("ties");
      const tree = new RadixTree();
      const leaves = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, time: 1 + r.int(4), at: i }));
      for (const l of leaves) tree.insert([seg(l.id)], 1, l.time);
      const expected = [...leaves].sort((a, b) => a.time - b.time || a.at - b.at).map((l) => l.id);
      expect(evictionOrder(tree)).toEqual(expected);
    }
  });

  it("a leaf unlocked later goes after the leaves of its time that were candidates before it", () => {
    const tree = new RadixTree();
    const a = tree.insert([seg(1)], 1, 5);
    tree.lock(a);
    tree.insert([seg(2)], 1, 5);
    tree.insert([seg(3)], 1, 5);
    tree.unlock(a);
    expect(evictionOrder(tree)).toEqual([2, 3, 1]);
  });
});

describe("the LRU heap's rebuild (many stale entries for few nodes)", () => {
  it("300 touches of 5 leaves under one parent: the untouched sixth first, then by last touch, then the parent", () => {
    const tree = new RadixTree();
    const r = rng(3).fork("rebuild");
    const leaf = [1, 2, 3, 4, 5].map((id) => tree.insert([seg(100), seg(id)], 2, 0));
    tree.insert([seg(100), seg(6)], 2, 0); // never touched again: the rebuilds must keep it (the oldest)
    const last = new Map<number, number>();
    const held = tree.insert([seg(200)], 1, 0);
    tree.lock(held);
    for (let t = 1; t <= 300; t++) {
      const k = r.int(5);
      tree.touch(leaf[k], t);
      last.set(k + 1, t);
    }
    const expected = [1, 2, 3, 4, 5].sort((a, b) => (last.get(a) ?? 0) - (last.get(b) ?? 0));
    expect(evictionOrder(tree)).toEqual([6, ...expected, 100]);
    expect(tree.find([200])).toBe(held);
  });
});

describe("a node's children: a scanned list, then a hash table (hundreds of children)", () => {
  // 400 ids: the list passes SCAN_CHILDREN and is indexed, with holes and compactions; 12 ids: it crosses back and forth
  // between a scanned list and a table, checked after every step (the first child is kept apart from the list).
  it.each([
    [400, 50],
    [12, 1],
  ])("random adds and removals of up to %i children × 4 seeds: found by segment, in insertion order", (ids, every) => {
    for (let seed = 0; seed < 4; seed++) {
      const r = rng(seed).fork("many-children");
      const tree = new RadixTree({ evictable: false });
      const model = new Map<number, RadixNode>();
      for (let step = 0; step < 3000; step++) {
        const id = r.int(ids);
        const grow = step < 1200 ? 0.9 : step < 2200 ? 0.3 : 0.6;
        if (!model.has(id) && r.uniform() < grow) {
          const n = tree.insert([seg(id)], 1, step);
          tree.lock(n);
          model.set(id, n);
        } else if (model.has(id) && r.uniform() >= grow) {
          const n = model.get(id) as RadixNode;
          tree.unlock(n);
          tree.prune(n);
          model.delete(id);
        }
        if (step % every === 0 || step > 2950) {
          const root = tree.root;
          expect(root.childNodes().map((c) => c.segment)).toEqual([...model.keys()]);
          for (let probe = 0; probe < ids; probe++) if (root.child(probe) !== model.get(probe)) expect(root.child(probe)).toBe(model.get(probe));
          expect(root.childCount).toBe(model.size);
        }
      }
    }
  });

  it("removing a child that is not there throws (no children; a short list; an indexed list)", () => {
    const tree = new RadixTree({ evictable: false });
    const stranger = new RadixTree({ evictable: false }).insert([seg(1)], 1, 0);
    expect(() => tree.root.removeChild(stranger)).toThrow(/removeChild/);
    tree.insert([seg(2)], 1, 0);
    expect(() => tree.root.removeChild(stranger)).toThrow(/removeChild/);
    const big = new RadixTree({ evictable: false });
    for (let i = 0; i < 20; i++) big.insert([seg(i)], 1, 0);
    const other = new RadixTree({ evictable: false });
    for (let i = 0; i < 20; i++) other.insert([seg(i)], 1, 0);
    expect(() => big.root.removeChild(other.find([5]) as RadixNode)).toThrow(/removeChild/);
    expect(() => big.root.removeChild(stranger)).toThrow(/removeChild/);
    expect(big.root.childCount).toBe(20);
  });

  it("pathOf: the segment ids root → node, nothing else", () => {
    const tree = new RadixTree();
    const n = tree.insert([seg(7), seg(8)], 2, 0);
    expect(Object.keys(tree.pathOf(n))).toEqual(["0", "1"]);
    expect(tree.pathOf(n)).toEqual([7, 8]);
  });

  it("root and non-root", () => {
    const tree = new RadixTree();
    expect(tree.root.isRoot).toBe(true);
    expect(tree.insert([seg(1)], 1, 0).isRoot).toBe(false);
  });
});

describe("extend, counts and options", () => {
  it("a tree that never evicts keeps no LRU order: touch and insert leave the creation times", () => {
    const tree = new RadixTree({ evictable: false });
    const a = tree.insert([seg(1, 10), seg(2, 5)], 2, 3);
    tree.insert([seg(1, 10), seg(2, 5)], 2, 7);
    tree.touch(a, 9);
    expect(a.lastAccess).toBe(3);
    expect((a.parent as RadixNode).lastAccess).toBe(3);
    const lru = new RadixTree();
    const b = lru.insert([seg(1, 10), seg(2, 5)], 2, 3);
    lru.touch(b, 9);
    expect([lru.accessTime(b), lru.accessTime(b.parent as RadixNode)]).toEqual([9, 9]);
  });

  it("extend restores a partially evicted parent and counts what it restored", () => {
    const tree = new RadixTree();
    const a = tree.insert([seg(1, 10)], 1, 0);
    expect(tree.evict(4)).toBe(4);
    expect(a.held).toBe(6);
    const b = tree.extend(a, seg(2, 5), 1);
    expect(a.held).toBe(10);
    expect(tree.lastInsertAdded).toBe(5 + 4);
    expect(tree.heldTokens).toBe(15);
    expect(tree.accessTime(b)).toBe(1);
    expect(tree.accessTime(a)).toBe(1);
    tree.extend(b, seg(3, 2), 2);
    expect(tree.lastInsertAdded).toBe(2);
    tree.evict(tree.heldTokens);
    expect(() => tree.extend(a, seg(4), 3)).toThrow(/no longer in the tree/);
  });

  for (const refsOnPath of [false, true]) {
    it(`evictableTokens: the tokens of nodes with no reference on or below them${refsOnPath ? " (refsOnPath)" : ""}`, () => {
      const tree = new RadixTree({ refsOnPath });
      tree.insert([seg(1, 10), seg(2, 5)], 2, 0);
      const c = tree.insert([seg(1, 10), seg(3, 7)], 2, 0);
      expect(tree.evictableTokens()).toBe(22);
      tree.lock(c);
      expect(tree.evictableTokens()).toBe(5);
      expect(c.refs).toBe(1);
      expect((c.parent as RadixNode).refs).toBe(refsOnPath ? 1 : 0);
      tree.unlock(c);
      expect(tree.evictableTokens()).toBe(22);
      expect(() => tree.unlock(c)).toThrow(/no references/);
    });
  }

  it("a lock keeps its node and every ancestor from eviction; unlocked, the node is the next leaf out", () => {
    for (const refsOnPath of [false, true]) {
      const tree = new RadixTree({ refsOnPath });
      const gone: string[] = [];
      tree.onEvict = (n, _a, removed) => removed && gone.push(tree.pathOf(n).join("/"));
      const b = tree.insert([seg(1, 10), seg(2, 5)], 2, 1);
      tree.insert([seg(1, 10), seg(3, 7)], 2, 2);
      tree.lock(b);
      expect(tree.evict(100)).toBe(7); // only 1/3: 1/2 is locked and 1 lies under it
      expect(gone).toEqual(["1/3"]);
      tree.unlock(b);
      expect(tree.evict(100)).toBe(15);
      expect(gone).toEqual(["1/3", "1/2", "1"]);
    }
  });

  it("a recycling tree reuses an evicted node for the next new one", () => {
    const tree = new RadixTree({ recycle: true });
    const a = tree.insert([seg(1)], 1, 0);
    tree.evict(4);
    expect(tree.insert([seg(2)], 1, 1)).toBe(a);
    expect(a.segment).toBe(2);
  });

  it("the payload factory also gives the root its payload", () => {
    let made = 0;
    const tree = new RadixTree<number>({ createPayload: () => ++made });
    expect(tree.root.payload).toBe(1);
  });

  it("segment sizes are checked only in check mode (off by default)", () => {
    const tree = new RadixTree();
    tree.insert([seg(1, 5)], 1, 0);
    expect(tree.match([seg(1, 7)]).segment).toBe(1);
    expect(tree.insert([seg(1, 7)], 1, 1).segment).toBe(1);
    const checked = new RadixTree({ check: true });
    checked.insert([seg(1, 5)], 1, 0);
    expect(() => checked.insert([seg(1, 7)], 1, 1)).toThrow(/segment 1/);
  });
});

describe("guards", () => {
  it("new segments need an integer number of tokens > 0", () => {
    const tree = new RadixTree();
    expect(() => tree.insert([seg(1, 0)], 1, 0)).toThrow(/tokens must be an integer > 0/);
    expect(() => tree.insert([seg(1, -2)], 1, 0)).toThrow(/tokens must be an integer > 0/);
    expect(() => tree.insert([seg(1, 2.5)], 1, 0)).toThrow(/tokens must be an integer > 0/);
    expect(tree.nodeCount).toBe(0);
    expect(tree.insert([seg(1, 1)], 1, 0).held).toBe(1);
  });

  it("unlock without a reference, evict on an index, reuse of an attached node: each throws", () => {
    const tree = new RadixTree();
    const a = tree.insert([seg(1)], 1, 0);
    expect(() => tree.unlock(a)).toThrow(/no references/);
    tree.lock(a);
    tree.unlock(a);
    expect(() => tree.unlock(a)).toThrow(/no references/);
    expect(() => new RadixTree({ evictable: false }).evict(1)).toThrow(/evictable: false/);
    expect(() => a.reuse(5, 4, tree.root, 0, 1, 0)).toThrow(/not a detached leaf/);
    const p = tree.insert([seg(2), seg(3)], 2, 0).parent as RadixNode;
    tree.evict(tree.heldTokens);
    expect(p.attached).toBe(false);
    // a detached node that still lists a child (never the tree's own state after an eviction, made by hand)
    const q = new RadixNode(9, 4, null, 0, 0, 0);
    q.addChild(new RadixNode(10, 4, q, 4, 1, 0));
    q.attached = false;
    expect(() => q.reuse(5, 4, tree.root, 0, 1, 0)).toThrow(/not a detached leaf/);
  });
});

describe("checkInvariants catches each broken invariant", () => {
  function fresh() {
    const tree = new RadixTree({ refsOnPath: true });
    const leaf = tree.insert([seg(1, 10), seg(2, 5)], 2, 0);
    const mid = leaf.parent as RadixNode;
    tree.checkInvariants();
    return { tree, leaf, mid };
  }
  const cases: Array<[string, (t: ReturnType<typeof fresh>) => void, RegExp]> = [
    ["held above tokens", ({ leaf, tree }) => ((leaf.held = 6), (tree.heldTokens += 1)), /outside/],
    ["held below 0", ({ leaf, tree }) => ((leaf.held = -1), (tree.heldTokens -= 6)), /outside/],
    ["nothing held", ({ leaf, tree }) => ((leaf.held = 0), (tree.heldTokens -= 5)), /nothing held/],
    ["a partial parent", ({ mid, tree }) => ((mid.held = 9), (tree.heldTokens -= 1)), /partially held/],
    ["marked detached", ({ leaf }) => (leaf.attached = false), /detached/],
    ["prefix tokens", ({ leaf }) => ((leaf as { prefixTokens: number }).prefixTokens = 3), /prefixTokens/],
    ["more references than the parent", ({ leaf }) => (leaf.refs = 1), /more references/],
    ["heldTokens", ({ tree }) => (tree.heldTokens += 1), /heldTokens/],
    ["nodeCount", ({ tree }) => (tree.nodeCount += 1), /nodeCount/],
  ];
  for (const [what, breakIt, message] of cases) {
    it(what, () => {
      const t = fresh();
      breakIt(t);
      expect(() => t.tree.checkInvariants()).toThrow(message);
    });
  }

  it("held exactly 0 < held = tokens are fine at the edges (a full node, a one-token node)", () => {
    const tree = new RadixTree();
    tree.insert([seg(1, 1)], 1, 0);
    expect(() => tree.checkInvariants()).not.toThrow();
  });
});
