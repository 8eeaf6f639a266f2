// The SGLang router's approximate tree (lib/cluster/routers-production/tenant-tree.ts) against a small reference
// model over random operation sequences: per worker, the set of prefixes it was sent with their last access time, the
// creator of each prefix, and eviction as "remove this worker's least recently used leaf until its size is at most the
// cap" — written from that sentence, with none of the tree's machinery (no heap, no lazy entries, no pruning code).
import { describe, expect, it } from "vitest";
import { rng } from "../lib/core/rng";
import { TenantNode, TenantTree } from "../lib/cluster/index";

const WORKERS = 3;
/** tokens of a segment id (the same id has the same tokens wherever it occurs) */
const tokensOf = (id: number) => 4 + (id % 5) * 3;
const segs = (path: number[]) => path.map((id) => ({ id, tokens: tokensOf(id) }));
const keyOf = (path: number[]) => path.join("/");
const prefixes = (path: number[]) => path.map((_, i) => keyOf(path.slice(0, i + 1)));

class Model {
  /** per worker: prefix key → last access time */
  readonly held: Array<Map<string, number>> = [];
  /** prefix key → the worker whose insert created it (while anyone holds it) */
  readonly creator = new Map<string, number>();
  constructor() {
    for (let w = 0; w < WORKERS; w++) this.held.push(new Map());
  }
  private tokens(key: string): number {
    const ids = key.split("/");
    return tokensOf(Number(ids[ids.length - 1]));
  }
  size(w: number): number {
    let s = 0;
    for (const k of this.held[w].keys()) s += this.tokens(k);
    return s;
  }
  insert(path: number[], w: number, now: number): void {
    for (const k of prefixes(path)) {
      if (!this.creator.has(k)) this.creator.set(k, w);
      this.held[w].set(k, now);
    }
  }
  touch(path: number[], w: number, now: number): void {
    for (const k of prefixes(path)) if (this.held[w].has(k)) this.held[w].set(k, now);
  }
  /** Removes w's least recently used leaf (a held prefix with no held one-segment extension) until size ≤ cap. */
  evict(w: number, cap: number): number {
    let freed = 0;
    while (this.size(w) > cap) {
      let victim: string | null = null;
      for (const [k, t] of this.held[w]) {
        const isLeaf = ![...this.held[w].keys()].some((o) => o.startsWith(k + "/") && o.split("/").length === k.split("/").length + 1);
        if (isLeaf && (victim === null || t < (this.held[w].get(victim) as number))) victim = k;
      }
      if (victim === null) break;
      this.held[w].delete(victim);
      freed += this.tokens(victim);
      if (!this.held.some((h) => h.has(victim as string))) this.creator.delete(victim);
    }
    return freed;
  }
  nodes(): Set<string> {
    return new Set(this.held.flatMap((h) => [...h.keys()]));
  }
}

/** The tree's state in the model's terms: per worker, key → time; key → creator. */
function stateOf(t: TenantTree): { held: Array<Array<[string, number]>>; creator: Array<[string, number]> } {
  const held: Array<Array<[string, number]>> = [];
  for (let w = 0; w < WORKERS; w++) held.push([]);
  const creator: Array<[string, number]> = [];
  t.tree.walk((n) => {
    const ids: number[] = [];
    for (let m: TenantNode | null = n; m !== null && !m.isRoot; m = m.parent) ids.unshift(m.segment);
    const k = keyOf(ids);
    for (const w of t.tenantsOf(n)) held[w].push([k, (n.payload as Float64Array)[w]]);
    creator.push([k, t.lastTenant(n)]);
  });
  const byKey = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return { held: held.map((h) => h.sort(byKey)), creator: creator.sort(byKey) };
}

function modelState(m: Model): { held: Array<Array<[string, number]>>; creator: Array<[string, number]> } {
  const byKey = (a: [string, number], b: [string, number]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return { held: m.held.map((h) => [...h].sort(byKey)), creator: [...m.creator].sort(byKey) };
}

interface Shape {
  seeds: number;
  steps: number;
  /** ids of a path's first segment (past 8 children a tree node's child list is hash-indexed, with holes) */
  firstIds: number;
  /** segments after the first: 0 … maxDepth − 1 */
  maxDepth: number;
  /** shares of inserts and touches (the rest: evictions) */
  inserts: number;
  touches: number;
  /** caps an eviction picks from, given the worker's size */
  caps: (size: number) => number[];
}

/** Random sequences of inserts, touches and evictions on the tree and on the model, compared after every step. */
function compare(name: string, s: Shape): void {
  for (let seed = 1; seed <= s.seeds; seed++) {
    const r = rng(`tenant-model-${name}-${seed}`);
    const t = new TenantTree(WORKERS);
    const m = new Model();
    // deeper segments from 3 ids, so that paths share prefixes often
    const randomPath = () => {
      const path = [1 + r.int(s.firstIds)];
      const depth = r.int(s.maxDepth);
      for (let d = 0; d < depth; d++) path.push(20 + r.int(3));
      return path;
    };
    for (let now = 1; now <= s.steps; now++) {
      const op = r.uniform();
      const w = r.int(WORKERS);
      const at = `${name}, seed ${seed}, step ${now}`;
      if (op < s.inserts) {
        const path = randomPath();
        t.insert(segs(path), w, now);
        m.insert(path, w, now);
      } else if (op < s.inserts + s.touches) {
        const path = randomPath();
        const node = t.tree.find(path);
        if (node === null) continue;
        t.touch(node as TenantNode, w, now);
        m.touch(path, w, now);
      } else {
        const caps = s.caps(m.size(w));
        const cap = caps[r.int(caps.length)];
        expect(t.evictTenant(w, cap), `${at}: evict ${w} to ${cap}`).toBe(m.evict(w, cap));
      }
      expect(stateOf(t), at).toEqual(modelState(m));
      for (let v = 0; v < WORKERS; v++) expect(t.sizeTokens[v], at).toBe(m.size(v));
      expect(t.tree.nodeCount, at).toBe(m.nodes().size);
      t.checkInvariants();
    }
  }
}

describe("tenant tree against a reference model", () => {
  it("wide trees: inserts, touches and evictions leave the same prefixes, times, creators and sizes", () => {
    compare("wide", { seeds: 40, steps: 150, firstIds: 12, maxDepth: 3, inserts: 0.55, touches: 0.2, caps: (size) => [0, Math.floor(size / 2), Math.max(0, size - 1), size] });
  });

  it("small trees often evicted down to nothing (a worker's queue then refills from empty)", () => {
    compare("small", { seeds: 60, steps: 60, firstIds: 3, maxDepth: 2, inserts: 0.5, touches: 0.1, caps: (size) => [0, 0, Math.floor(size / 2), Math.max(0, size - 1)] });
  });
});
