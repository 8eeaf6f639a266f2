// The radix tree's match, insert, touch, lock and LRU eviction (lib/cluster/radix-tree.ts, lru-candidates.ts)
// against a small reference model over seeded random operation sequences: a map path → {held, refs, last access}
// (refs: the locks on the node or below it, what decides eviction; locks: on the node itself, what a tree without
// refsOnPath keeps — both kinds of tree are run and must evict alike),
// eviction = repeatedly the unreferenced leaf with the oldest last access (a parent whose last child went becomes
// such a leaf, with the time its subtree was last used), the last one losing only its tail. Every operation has its
// own time, so the least recently used leaf is unique and the model needs no tie rule.
import { describe, expect, it } from "vitest";
import { RadixNode, RadixTree, SegmentLike } from "../lib/cluster/radix-tree";
import { rng, Rng } from "../lib/core/rng";

const tokensOf = (id: number) => 3 + ((id * 7) % 11);
const seg = (id: number): SegmentLike => ({ id, tokens: tokensOf(id) });
const key = (ids: readonly number[]) => ids.join("/");

interface ModelNode {
  ids: number[];
  held: number;
  refs: number;
  locks: number;
  last: number;
}

/** The reference: nodes by path; no heap, no stamps, a scan for the oldest leaf. */
class Model {
  nodes = new Map<string, ModelNode>();
  private childrenOf(ids: readonly number[]): ModelNode[] {
    return [...this.nodes.values()].filter((n) => n.ids.length === ids.length + 1 && key(n.ids.slice(0, -1)) === key(ids));
  }
  insert(ids: number[], time: number): number {
    let added = 0;
    for (let d = 1; d <= ids.length; d++) {
      const k = key(ids.slice(0, d));
      const n = this.nodes.get(k);
      const full = tokensOf(ids[d - 1]);
      if (!n) {
        this.nodes.set(k, { ids: ids.slice(0, d), held: full, refs: 0, locks: 0, last: time });
        added += full;
      } else {
        added += full - n.held;
        n.held = full;
      }
    }
    this.touch(ids, time);
    return added;
  }
  /** Deepest node on ids that is in the tree, stopping at (and including) a partially held one. */
  matchDepth(ids: readonly number[]): number {
    let d = 0;
    while (d < ids.length) {
      const n = this.nodes.get(key(ids.slice(0, d + 1)));
      if (!n) break;
      d++;
      if (n.held < tokensOf(ids[d - 1])) break;
    }
    return d;
  }
  matchTokens(ids: readonly number[]): number {
    const d = this.matchDepth(ids);
    let t = 0;
    for (let i = 0; i < d; i++) t += i === d - 1 ? (this.nodes.get(key(ids.slice(0, d))) as ModelNode).held : tokensOf(ids[i]);
    return t;
  }
  touch(ids: readonly number[], time: number): void {
    for (let d = 1; d <= ids.length; d++) (this.nodes.get(key(ids.slice(0, d))) as ModelNode).last = time;
  }
  lock(ids: readonly number[], delta: number): void {
    for (let d = 1; d <= ids.length; d++) (this.nodes.get(key(ids.slice(0, d))) as ModelNode).refs += delta;
    (this.nodes.get(key(ids)) as ModelNode).locks += delta;
  }
  evict(tokens: number): Array<[string, number, boolean]> {
    const events: Array<[string, number, boolean]> = [];
    let freed = 0;
    while (freed < tokens) {
      const leaves = [...this.nodes.values()].filter((n) => n.refs === 0 && this.childrenOf(n.ids).length === 0);
      if (leaves.length === 0) break;
      const oldest = leaves.reduce((a, b) => (b.last < a.last ? b : a));
      const want = tokens - freed;
      if (oldest.held <= want) {
        freed += oldest.held;
        events.push([key(oldest.ids), oldest.held, true]);
        this.nodes.delete(key(oldest.ids));
      } else {
        oldest.held -= want;
        freed += want;
        events.push([key(oldest.ids), want, false]);
      }
    }
    return events;
  }
}

function snapshot(tree: RadixTree): Record<string, [number, number, number]> {
  const out: Record<string, [number, number, number]> = {};
  tree.walk((n) => {
    out[key(tree.pathOf(n))] = [n.held, n.refs, tree.accessTime(n)];
  });
  return out;
}

function modelSnapshot(m: Model, refsOnPath: boolean): Record<string, [number, number, number]> {
  const out: Record<string, [number, number, number]> = {};
  for (const [k, n] of m.nodes) out[k] = [n.held, refsOnPath ? n.refs : n.locks, n.last];
  return out;
}

const sorted = (o: Record<string, unknown>) => Object.keys(o).sort().map((k) => [k, o[k]]);

/** A path of 1–4 segments over a small alphabet, so paths share prefixes often. */
const randomIds = (r: Rng, alphabet: number): number[] => Array.from({ length: 1 + r.int(4) }, () => 1 + r.int(alphabet));

function runSequence(seed: number, steps: number, alphabet: number, refsOnPath: boolean): { evictions: number; parentLeaves: number; partial: number } {
  const r = rng(seed).fork("lru-model");
  const tree = new RadixTree({ check: true, refsOnPath });
  const model = new Model();
  const events: Array<[string, number, boolean]> = [];
  tree.onEvict = (node, amount, removed) => events.push([key(tree.pathOf(node)), amount, removed]);
  const locked: Array<{ node: RadixNode; ids: number[] }> = [];
  const stats = { evictions: 0, parentLeaves: 0, partial: 0 };
  for (let time = 1; time <= steps; time++) {
    const op = r.uniform();
    const where = `seed ${seed}, step ${time}`; // eslint-disable-line
    if (op < 0.35) {
      const ids = randomIds(r, alphabet);
      tree.insert(ids.map(seg), ids.length, time);
      const added = model.insert(ids, time);
      if (tree.lastInsertAdded !== added) expect(tree.lastInsertAdded, `${where}: insert ${key(ids)} added`).toBe(added);
      if (r.uniform() < 0.25) {
        const node = tree.find(ids) as RadixNode;
        tree.lock(node);
        model.lock(ids, 1);
        locked.push({ node, ids });
      }
    } else if (op < 0.6) {
      // a lookup that uses the cached prefix: match, then touch what matched
      const ids = randomIds(r, alphabet);
      const node = tree.match(ids.map(seg));
      if (node.matchedTokens !== model.matchTokens(ids)) expect(node.matchedTokens, `${where}: match ${key(ids)}`).toBe(model.matchTokens(ids));
      if (node.parent !== null) tree.touch(node, time);
      model.touch(ids.slice(0, model.matchDepth(ids)), time);
    } else if (op < 0.72) {
      if (locked.length > 0) {
        const { node, ids } = locked.splice(r.int(locked.length), 1)[0];
        tree.unlock(node);
        model.lock(ids, -1);
      }
    } else {
      const want = 1 + r.int(40);
      events.length = 0;
      const freed = tree.evict(want);
      const expected = model.evict(want);
      if (JSON.stringify(events) !== JSON.stringify(expected)) expect(events, `${where}: evict ${want}`).toEqual(expected);
      expect(freed).toBe(expected.reduce((s, e) => s + e[1], 0));
      stats.evictions += expected.length;
      stats.partial += expected.filter((e) => !e[2]).length;
      // a node evicted in this call whose child was also evicted in it: a parent that became a leaf
      const gone = expected.filter((e) => e[2]).map((e) => e[0]);
      stats.parentLeaves += gone.filter((g) => gone.some((c) => c !== g && c.startsWith(`${g}/`))).length;
    }
    const got = snapshot(tree);
    const want = modelSnapshot(model, refsOnPath);
    if (JSON.stringify(sorted(got)) !== JSON.stringify(sorted(want))) expect(got, `${where}: tree ≠ model`).toEqual(want);
    tree.checkInvariants();
  }
  return stats;
}

describe("RadixTree's LRU order against a reference model", () => {
  it("200 random operations × 16 seeds × both kinds of references: same nodes, held tokens, references, access times and eviction sequence", () => {
    const total = { evictions: 0, parentLeaves: 0, partial: 0 };
    for (let seed = 0; seed < 32; seed++) {
      const s = runSequence(seed >> 1, 200, 3 + ((seed >> 1) % 3), seed % 2 === 1);
      total.evictions += s.evictions;
      total.parentLeaves += s.parentLeaves;
      total.partial += s.partial;
    }
    // the sequences did exercise what the test is about
    expect(total.evictions).toBeGreaterThan(2000);
    expect(total.parentLeaves).toBeGreaterThan(200);
    expect(total.partial).toBeGreaterThan(400);
  });

  // Where an ancestor's access time shows: a parent becomes a leaf while a newer leaf is locked; once that leaf is
  // unlocked, the parent (used at t = 3 through its child) must outlive it (t = 2).
  it("a parent becomes an evictable leaf with the time its subtree was last used (hand-worked)", () => {
    const tree = new RadixTree();
    const order: string[] = [];
    tree.onEvict = (n, _a, removed) => removed && order.push(key(tree.pathOf(n)));
    tree.insert([seg(1), seg(2)], 2, 1); // 1/2 at t = 1
    const three = tree.insert([seg(3)], 1, 2); // 3 at t = 2, in use
    tree.lock(three);
    tree.touch(tree.match([seg(1), seg(2)]), 3); // 1/2 used again at t = 3: 1 too
    expect(tree.evict(tokensOf(2))).toBe(tokensOf(2));
    expect(order).toEqual(["1/2"]); // 3 is locked; 1 is now a leaf, last used at t = 3
    tree.unlock(three);
    tree.evict(tree.heldTokens);
    expect(order).toEqual(["1/2", "3", "1"]);
  });

  it("touching a deep node refreshes every ancestor (three levels, hand-worked)", () => {
    const tree = new RadixTree();
    const order: string[] = [];
    tree.onEvict = (n, _a, removed) => removed && order.push(key(tree.pathOf(n)));
    tree.insert([seg(1), seg(2), seg(5)], 3, 1);
    const three = tree.insert([seg(3)], 1, 2);
    tree.lock(three);
    tree.touch(tree.find([1, 2, 5]) as RadixNode, 5);
    expect([1, 2].map((d) => tree.accessTime(tree.find([1, 2, 5].slice(0, d)) as RadixNode))).toEqual([5, 5]);
    tree.evict(tokensOf(5));
    tree.unlock(three);
    tree.evict(tree.heldTokens);
    expect(order).toEqual(["1/2/5", "3", "1/2", "1"]);
  });
});
