// A binary min-heap keyed by (time, insertion order): equal times pop in the order they were pushed,
// so event order — and every simulated number — is deterministic.

export class EventQueue<T> {
  private times: number[] = [];
  private seqs: number[] = [];
  private items: T[] = [];
  private counter = 0;

  get size(): number {
    return this.items.length;
  }

  push(time: number, item: T): void {
    const times = this.times;
    const seqs = this.seqs;
    const items = this.items;
    let i = items.length;
    times.push(time);
    seqs.push(this.counter++);
    items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent] < times[i] || (times[parent] === times[i] && seqs[parent] < seqs[i])) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  peekTime(): number {
    return this.items.length ? this.times[0] : Infinity;
  }

  pop(): { time: number; item: T } | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    const time = this.times[0];
    const item = this.items[0];
    const lastTime = this.times.pop() as number;
    const lastSeq = this.seqs.pop() as number;
    const lastItem = this.items.pop() as T;
    if (n > 1) {
      this.times[0] = lastTime;
      this.seqs[0] = lastSeq;
      this.items[0] = lastItem;
      this.siftDown(0);
    }
    return { time, item };
  }

  private less(a: number, b: number): boolean {
    return this.times[a] < this.times[b] || (this.times[a] === this.times[b] && this.seqs[a] < this.seqs[b]);
  }

  private siftDown(i: number): void {
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.less(l, m)) m = l;
      if (r < n && this.less(r, m)) m = r;
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
    const it = this.items[a];
    this.items[a] = this.items[b];
    this.items[b] = it;
  }
}
