// Property tests for the segment radix tree, on seeded random sequences of inserts, locks and evictions.
import { describe, expect, it } from "vitest";
import { rng, Rng } from "../lib/core/rng";
import { RadixNode, RadixTree, SegmentLike } from "../lib/cluster/radix-tree";

// Segment ids 0…29, each with a fixed token count (content ids are globally unique per content).
const TOKENS = Array.from({ length: 30 }, (_, i) => 5 + ((i * 37) % 50));
const seg = (id: number): SegmentLike => ({ id, tokens: TOKENS[id] });
const randomPath = (r: Rng): SegmentLike[] => Array.from({ length: 1 + r.int(5) }, () => seg(r.int(6) + 6 * r.int(5)));
const tokensOf = (p: readonly SegmentLike[]): number => p.reduce((s, x) => s + x.tokens, 0);
const isPrefix = (a: readonly number[], b: readonly number[]): boolean => a.length <= b.length && a.every((x, i) => x === b[i]);

describe("RadixTree", () => {
  it("matches are prefixes of the query and of an inserted path, and are maximal", () => {
    for (let trial = 0; trial < 20; trial++) {
      const r = rng(trial).fork("match");
      const tree = new RadixTree({ check: true });
      const inserted: number[][] = [];
      for (let i = 0; i < 40; i++) {
        const p = randomPath(r);
        tree.insert(p, p.length, i);
        inserted.push(p.map((s) => s.id));
      }
      tree.checkInvariants();
      for (let i = 0; i < 100; i++) {
        const q = randomPath(r);
        const ids = q.map((s) => s.id);
        const node = tree.match(q);
        const path = tree.pathOf(node);
        expect(isPrefix(path, ids)).toBe(true);
        if (path.length > 0) expect(inserted.some((p) => isPrefix(path, p))).toBe(true);
        expect(node.matchedTokens).toBe(tokensOf(q.slice(0, path.length)));
        // Maximal: no inserted path extends the match by the query's next segment.
        if (path.length < ids.length) expect(inserted.some((p) => isPrefix([...path, ids[path.length]], p))).toBe(false);
      }
    }
  });

  it("eviction keeps held tokens within capacity, never touches referenced nodes, and reports every token", () => {
    for (let trial = 0; trial < 20; trial++) {
      const r = rng(trial).fork("evict");
      const tree = new RadixTree({ check: true });
      const capacity = 300;
      let reported = 0;
      tree.onEvict = (_node, tokens) => {
        reported += tokens;
      };
      const locked: RadixNode[] = [];
      for (let step = 0; step < 200; step++) {
        const p = randomPath(r);
        const node = tree.insert(p, p.length, step);
        if (r.uniform() < 0.2) {
          tree.lock(node);
          locked.push(node);
        }
        if (locked.length > 0 && r.uniform() < 0.2) tree.unlock(locked.splice(r.int(locked.length), 1)[0]);
        if (tree.heldTokens > capacity) tree.evict(tree.heldTokens - capacity);
        tree.checkInvariants();
        // Locked paths survive whole.
        for (const n of locked) {
          expect(n.attached).toBe(true);
          for (let a: RadixNode | null = n; a !== null && a.parent !== null; a = a.parent) expect(a.held).toBe(a.tokens);
        }
        // Over capacity only when everything left is in use.
        if (tree.heldTokens > capacity) expect(tree.evictableTokens()).toBe(0);
      }
      expect(reported).toBe(tree.evictedTokens);
    }
  });

  it("evicts least recently used leaves first, a tail partially, and restores it on reinsert", () => {
    const tree = new RadixTree();
    const a = [seg(1), seg(2)];
    const b = [seg(1), seg(3)];
    tree.insert(a, 2, 0);
    tree.insert(b, 2, 1);
    const t2 = TOKENS[2];
    // Evicting less than segment 2 trims its tail only.
    expect(tree.evict(t2 - 3)).toBe(t2 - 3);
    const n2 = tree.find([1, 2]) as RadixNode;
    expect(n2.held).toBe(3);
    expect(tree.matchTokens(a)).toBe(TOKENS[1] + 3);
    expect(tree.match([...a, seg(4)])).toBe(n2);
    // Touching a makes b the LRU leaf.
    tree.touch(tree.match(a), 2);
    tree.evict(TOKENS[3]);
    expect(tree.find([1, 3])).toBeNull();
    expect(tree.find([1, 2])).not.toBeNull();
    // Reinserting restores the evicted tail and counts it as added.
    tree.insert(a, 2, 3);
    expect(tree.lastInsertAdded).toBe(t2 - 3);
    expect(tree.matchTokens(a)).toBe(TOKENS[1] + t2);
    tree.checkInvariants();
  });

  it("a parent becomes evictable once its children are gone; locked nodes are never freed", () => {
    const tree = new RadixTree();
    const leaf = tree.insert([seg(1), seg(2)], 2, 0);
    tree.lock(leaf);
    expect(tree.evict(1000)).toBe(0);
    tree.unlock(leaf);
    expect(tree.evict(1000)).toBe(TOKENS[1] + TOKENS[2]);
    expect(tree.heldTokens).toBe(0);
    expect(tree.nodeCount).toBe(0);
  });

  it("a counting index prunes paths when their last reference goes", () => {
    const tree = new RadixTree({ evictable: false });
    const x = tree.insert([seg(1), seg(2)], 2, 0);
    tree.lock(x);
    const y = tree.insert([seg(1), seg(3)], 2, 0);
    tree.lock(y);
    tree.unlock(x);
    tree.prune(x);
    expect(tree.find([1, 2])).toBeNull();
    expect(tree.find([1])).not.toBeNull();
    tree.unlock(y);
    tree.prune(y);
    expect(tree.nodeCount).toBe(0);
    expect(tree.heldTokens).toBe(0);
  });

  it("keeps children in insertion order, found by segment, as a short list or (past 8) an indexed one with holes", () => {
    // A model of a node's children: a Map keeps insertion order, and a re-added key goes to the end.
    for (let trial = 0; trial < 10; trial++) {
      const r = rng(trial).fork("children");
      const tree = new RadixTree({ evictable: false });
      const model = new Map<number, RadixNode>();
      const locked = new Map<number, RadixNode>();
      for (let step = 0; step < 400; step++) {
        const id = r.int(30);
        if (!model.has(id)) {
          const n = tree.insert([seg(id)], 1, step);
          tree.lock(n);
          model.set(id, n);
          locked.set(id, n);
        } else if (r.uniform() < 0.7) {
          const n = locked.get(id) as RadixNode;
          tree.unlock(n);
          tree.prune(n);
          model.delete(id);
          locked.delete(id);
        }
        const root = tree.root;
        expect(root.childNodes().map((c) => c.segment)).toEqual([...model.keys()]);
        expect(root.childCount).toBe(model.size);
        expect(root.isLeaf).toBe(model.size === 0);
        for (let probe = 0; probe < 30; probe++) expect(root.child(probe)).toBe(model.get(probe));
        let viaSlots = 0;
        for (let i = 0; i < root.childSlots; i++) if (root.childAt(i) !== null) viaSlots++;
        expect(viaSlots).toBe(model.size);
      }
      tree.checkInvariants();
    }
  });

  it("recycles pruned nodes for new paths (recycle option) and behaves exactly as a fresh tree", () => {
    const plain = new RadixTree({ evictable: false });
    const recycled = new RadixTree({ evictable: false, recycle: true });
    const r = rng(7).fork("recycle");
    const live: Array<[RadixNode, RadixNode]> = [];
    const seen = new Set<RadixNode>();
    let reused = 0;
    for (let step = 0; step < 2000; step++) {
      if (live.length > 0 && r.uniform() < 0.5) {
        const [a, b] = live.splice(r.int(live.length), 1)[0];
        plain.unlock(a);
        plain.prune(a);
        recycled.unlock(b);
        recycled.prune(b);
      } else {
        const p = randomPath(r);
        const a = plain.insert(p, p.length, step);
        const b = recycled.insert(p, p.length, step);
        plain.lock(a);
        recycled.lock(b);
        live.push([a, b]);
        if (seen.has(b)) reused++;
        seen.add(b);
      }
      expect(recycled.nodeCount).toBe(plain.nodeCount);
      expect(recycled.heldTokens).toBe(plain.heldTokens);
      const q = randomPath(r);
      expect(recycled.matchTokens(q)).toBe(plain.matchTokens(q));
      expect(recycled.pathOf(recycled.match(q))).toEqual(plain.pathOf(plain.match(q)));
    }
    recycled.checkInvariants();
    expect(reused).toBeGreaterThan(100);
  });

  it("a recycled node gets a new payload from createPayload, as a new node does", () => {
    let made = 0;
    const tree = new RadixTree<{ n: number }>({ recycle: true, createPayload: () => ({ n: ++made }) });
    const a = tree.insert([{ id: 1, tokens: 4 }], 1, 0);
    const first = a.payload;
    tree.prune(a);
    const b = tree.insert([{ id: 2, tokens: 5 }], 1, 1);
    expect(b).toBe(a); // the pruned node came back
    expect(b.payload).not.toBe(first);
    expect(b.payload).toEqual({ n: (first as { n: number }).n + 1 }); // the next one made (the root has the first)
  });

  it("carries a payload per node and rejects inconsistent segments in check mode", () => {
    const tree = new RadixTree<{ gpus: Set<number> }>({ createPayload: () => ({ gpus: new Set() }), check: true });
    const n = tree.insert([seg(1), seg(2)], 2, 0);
    n.payload?.gpus.add(3);
    expect(tree.find([1, 2])?.payload?.gpus.has(3)).toBe(true);
    expect(tree.find([1])?.payload?.gpus.size).toBe(0);
    expect(() => tree.match([{ id: 1, tokens: TOKENS[1] + 1 }])).toThrow(/segment 1/);
  });
});

describe("RadixTree.insertBelow (a prompt stored from its match on: the simulator's dispatched-prompt index and a replica's cache)", () => {
  /** The tree as a reader sees it: every node's path, held tokens, references and last access; the totals. */
  function state(t: RadixTree): unknown {
    const nodes: unknown[] = [];
    t.walk((n) => nodes.push([t.pathOf(n).join("/"), n.held, n.refs, n.lastAccess]));
    return { nodes, held: t.heldTokens, count: t.nodeCount, added: t.lastInsertAdded, evicted: t.evictedTokens };
  }

  it("leaves the same tree, node and added tokens as insert from the root, also when the match lost its tail", () => {
    const r = rng("insert-below");
    for (let round = 0; round < 200; round++) {
      const a = new RadixTree();
      const b = new RadixTree();
      // the same history in both trees: prompts of 1–5 segments over a few shared ids, some evictions
      const prompts: SegmentLike[][] = [];
      for (let i = 0; i < 12; i++) {
        const len = 1 + Math.floor(r.uniform() * 5);
        prompts.push(Array.from({ length: len }, (_, j) => ({ id: j * 10 + Math.floor(r.uniform() * 3), tokens: 5 + ((j * 10) % 7) })));
      }
      for (const [i, p] of prompts.entries()) {
        for (const t of [a, b]) {
          const leaf = t.insert(p, p.length, i);
          t.lock(leaf);
          t.unlock(leaf);
        }
        if (r.uniform() < 0.4) {
          const amount = Math.floor(r.uniform() * 30);
          a.evict(amount);
          b.evict(amount);
        }
      }
      // a new prompt: its match is locked (as at admission), then stored
      const prompt = prompts[Math.floor(r.uniform() * prompts.length)].concat([{ id: 999, tokens: 4 }]);
      const ma = a.match(prompt);
      const mb = b.match(prompt);
      a.lock(ma);
      b.lock(mb);
      const viaRoot = a.insert(prompt, prompt.length, 50);
      const below = b.insertBelow(mb, prompt, prompt.length, 50);
      expect(b.pathOf(below)).toEqual(a.pathOf(viaRoot));
      expect(state(b)).toEqual(state(a));
      a.checkInvariants();
      b.checkInvariants();
    }
  });

  it("refuses a node that is no longer in the tree", () => {
    const t = new RadixTree();
    const p = [{ id: 1, tokens: 5 }];
    const leaf = t.insert(p, 1, 0);
    t.evict(5);
    expect(() => t.insertBelow(leaf, p, 1, 1)).toThrow(/no longer in the tree/);
  });
});

describe("RadixTree.insertBelow in a checking tree", () => {
  it("checks that the node lies on the path of the segments it is given (the simulator's check mode)", () => {
    const t = new RadixTree({ check: true });
    const p = [{ id: 1, tokens: 5 }, { id: 2, tokens: 3 }];
    const first = t.insert(p, 1, 0);
    expect(t.pathOf(t.insertBelow(first, p, 2, 1))).toEqual([1, 2]);
    expect(() => t.insertBelow(first, [{ id: 9, tokens: 5 }, { id: 2, tokens: 3 }], 2, 2)).toThrow(/not on the path/);
    expect(() => t.insertBelow(first, [{ id: 1, tokens: 6 }], 1, 2)).toThrow(/not on the path/);
  });
});
