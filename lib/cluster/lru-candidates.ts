// The radix tree's eviction candidates (radix-tree.ts): a lazy binary min-heap of nodes by (last access, push order).
// A node may be pushed again when it is touched; only the entry whose stamp equals the node's current stamp is
// valid, and pop skips the others, as well as nodes that are no longer evictable leaves.
//
// Times, push numbers and stamps live in Float64Arrays grown by doubling, and a count says how many entries are
// in use: no allocation per push, and none when the heap shrinks and grows again (a JS array trims its storage
// when popped far below its capacity and reallocates on the next pushes — a tenth of the tool-calling bench's
// allocation). Sifting moves a hole instead of swapping. (last access, push order) pairs are all distinct, so
// the pop order is the same whatever the heap's layout.
import type { RadixNode } from "./radix-node";

const INITIAL = 64;

export class LruCandidates<P> {
  private times: Float64Array = new Float64Array(INITIAL);
  private seqs: Float64Array = new Float64Array(INITIAL);
  private stamps: Float64Array = new Float64Array(INITIAL);
  private nodes: Array<RadixNode<P> | null> = [];
  private count = 0;
  private pushCounter = 0;

  get size(): number {
    return this.count;
  }

  clear(): void {
    for (let i = 0; i < this.count; i++) this.nodes[i] = null;
    this.count = 0;
  }

  /** Adds an entry for the node with its current last access and stamp. */
  push(node: RadixNode<P>): void {
    if (this.count === this.times.length) this.grow();
    const times = this.times;
    const seqs = this.seqs;
    const stamps = this.stamps;
    const nodes = this.nodes;
    const time = node.lastAccess;
    const seq = this.pushCounter++;
    let i = this.count++;
    if (i === nodes.length) nodes.push(null);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const pt = times[p];
      if (pt < time || (pt === time && seqs[p] < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[p];
      stamps[i] = stamps[p];
      nodes[i] = nodes[p];
      i = p;
    }
    times[i] = time;
    seqs[i] = seq;
    stamps[i] = node.stamp;
    nodes[i] = node;
  }

  /** The least recently used evictable leaf (unreferenced, attached, holding tokens), or null. */
  pop(): RadixNode<P> | null {
    while (this.count > 0) {
      const node = this.nodes[0] as RadixNode<P>;
      const stamp = this.stamps[0];
      this.removeTop();
      if (stamp === node.stamp && node.attached && node.refs === 0 && node.isLeaf && node.held > 0) return node;
    }
    return null;
  }

  /** Moves the last entry into the root's place and sifts it down. */
  private removeTop(): void {
    const last = --this.count;
    const nodes = this.nodes;
    const node = nodes[last];
    nodes[last] = null; // no reference kept to a popped node
    if (last === 0) return;
    const times = this.times;
    const seqs = this.seqs;
    const stamps = this.stamps;
    const time = times[last];
    const seq = seqs[last];
    const stamp = stamps[last];
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= last) break;
      const r = l + 1;
      let m = l;
      if (r < last && (times[r] < times[l] || (times[r] === times[l] && seqs[r] < seqs[l]))) m = r;
      const mt = times[m];
      if (time < mt || (time === mt && seq < seqs[m])) break;
      times[i] = mt;
      seqs[i] = seqs[m];
      stamps[i] = stamps[m];
      nodes[i] = nodes[m];
      i = m;
    }
    times[i] = time;
    seqs[i] = seq;
    stamps[i] = stamp;
    nodes[i] = node;
  }

  private grow(): void {
    const size = this.times.length * 2;
    this.times = grown(this.times, size);
    this.seqs = grown(this.seqs, size);
    this.stamps = grown(this.stamps, size);
  }
}

function grown(a: Float64Array, size: number): Float64Array {
  const b = new Float64Array(size);
  b.set(a);
  return b;
}
