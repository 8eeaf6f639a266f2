// The radix tree's eviction candidates (radix-tree.ts): a lazy binary min-heap of nodes by (last access, push order).
// A node may be pushed again when it is touched; only the entry whose stamp equals the node's current stamp is
// valid, and pop skips the others, as well as nodes that are no longer evictable leaves. Parallel arrays instead of
// entry objects: no allocation per push.
import type { RadixNode } from "./radix-node";

export class LruCandidates<P> {
  private times: number[] = [];
  private seqs: number[] = [];
  private nodes: RadixNode<P>[] = [];
  private stamps: number[] = [];
  private pushCounter = 0;

  get size(): number {
    return this.nodes.length;
  }

  clear(): void {
    this.times = [];
    this.seqs = [];
    this.nodes = [];
    this.stamps = [];
  }

  /** Adds an entry for the node with its current last access and stamp. */
  push(node: RadixNode<P>): void {
    const times = this.times;
    const seqs = this.seqs;
    let i = times.length;
    times.push(node.lastAccess);
    seqs.push(this.pushCounter++);
    this.nodes.push(node);
    this.stamps.push(node.stamp);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (times[p] < times[i] || (times[p] === times[i] && seqs[p] < seqs[i])) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** The least recently used evictable leaf (unreferenced, attached, holding tokens), or null. */
  pop(): RadixNode<P> | null {
    while (this.nodes.length > 0) {
      const node = this.nodes[0];
      const stamp = this.stamps[0];
      this.removeTop();
      if (stamp === node.stamp && node.attached && node.refs === 0 && node.isLeaf && node.held > 0) return node;
    }
    return null;
  }

  private removeTop(): void {
    const n = this.nodes.length;
    const lastT = this.times.pop() as number;
    const lastS = this.seqs.pop() as number;
    const lastN = this.nodes.pop() as RadixNode<P>;
    const lastK = this.stamps.pop() as number;
    if (n === 1) return;
    this.times[0] = lastT;
    this.seqs[0] = lastS;
    this.nodes[0] = lastN;
    this.stamps[0] = lastK;
    const times = this.times;
    const seqs = this.seqs;
    const size = n - 1;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && (times[l] < times[m] || (times[l] === times[m] && seqs[l] < seqs[m]))) m = l;
      if (r < size && (times[r] < times[m] || (times[r] === times[m] && seqs[r] < seqs[m]))) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const t = this.times[a];
    this.times[a] = this.times[b];
    this.times[b] = t;
    const s = this.seqs[a];
    this.seqs[a] = this.seqs[b];
    this.seqs[b] = s;
    const n = this.nodes[a];
    this.nodes[a] = this.nodes[b];
    this.nodes[b] = n;
    const k = this.stamps[a];
    this.stamps[a] = this.stamps[b];
    this.stamps[b] = k;
  }
}
