// A binary min-heap keyed by (time, insertion order): equal times pop in the order they were pushed,
// so event order — and every simulated number — is deterministic.
//
// Times and insertion numbers live in Float64Arrays (grown by doubling): no boxed number per entry and no object
// per pop on the simulator's hot path — `popItem()` returns the item and leaves its time in `lastTime`.
// Sifting moves a "hole" instead of swapping, which writes each level once.

export class EventQueue<T> {
  private times = new Float64Array(64);
  private seqs = new Float64Array(64);
  private items: T[] = [];
  private count = 0;
  private counter = 0;
  /** time of the entry the last popItem() returned */
  lastTime = 0;

  get size(): number {
    return this.count;
  }

  push(time: number, item: T): void {
    if (this.count === this.times.length) this.grow();
    const times = this.times;
    const seqs = this.seqs;
    const items = this.items;
    const seq = this.counter++;
    let i = this.count++;
    if (i === items.length) items.push(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const pt = times[parent];
      if (pt < time || (pt === time && seqs[parent] < seq)) break;
      times[i] = pt;
      seqs[i] = seqs[parent];
      items[i] = items[parent];
      i = parent;
    }
    times[i] = time;
    seqs[i] = seq;
    items[i] = item;
  }

  peekTime(): number {
    return this.count > 0 ? this.times[0] : Infinity;
  }

  /** Removes the earliest entry and returns its item (its time in `lastTime`); undefined when empty. */
  popItem(): T | undefined {
    if (this.count === 0) return undefined;
    const item = this.items[0];
    this.lastTime = this.times[0];
    this.removeTop();
    return item;
  }

  /** The earliest entry's item, left in place (its time in `lastTime`); undefined when empty. The caller then ends it
   * with replaceTop or removeTop, and may push in between: an entry pushed meanwhile has a later (time, insertion)
   * key than the earliest one (its time is no earlier, its insertion later), so the earliest stays on top. */
  peekItem(): T | undefined {
    if (this.count === 0) return undefined;
    this.lastTime = this.times[0];
    return this.items[0];
  }

  /** Replaces the earliest entry with (time, item): the same entries, in the same order of popping, as popItem()
   * before the pushes since peekItem and push(time, item) now — one sift down instead of a sift down and up (an
   * engine iteration that plans the next is the simulator's commonest event). */
  replaceTop(time: number, item: T): void {
    if (this.count === 0) throw new Error("replaceTop: the queue is empty");
    this.siftDown(time, this.counter++, item, this.count);
  }

  /** Removes the earliest entry (popItem, or after peekItem). */
  removeTop(): void {
    const n = this.count;
    if (n === 0) throw new Error("removeTop: the queue is empty");
    const items = this.items;
    const last = n - 1;
    this.count = last;
    if (last > 0) this.siftDown(this.times[last], this.seqs[last], items[last], last);
    items[last] = undefined as unknown as T; // no reference kept to a removed item
  }

  pop(): { time: number; item: T } | undefined {
    if (this.count === 0) return undefined;
    const item = this.popItem() as T;
    return { time: this.lastTime, item };
  }

  /** Places (time, seq, item) from the root down in a heap of `n` entries. */
  private siftDown(time: number, seq: number, item: T, n: number): void {
    const times = this.times;
    const seqs = this.seqs;
    const items = this.items;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      if (r < n && (times[r] < times[l] || (times[r] === times[l] && seqs[r] < seqs[l]))) m = r;
      const mt = times[m];
      if (time < mt || (time === mt && seq < seqs[m])) break;
      times[i] = mt;
      seqs[i] = seqs[m];
      items[i] = items[m];
      i = m;
    }
    times[i] = time;
    seqs[i] = seq;
    items[i] = item;
  }

  private grow(): void {
    const times = new Float64Array(this.times.length * 2);
    times.set(this.times);
    this.times = times;
    const seqs = new Float64Array(this.seqs.length * 2);
    seqs.set(this.seqs);
    this.seqs = seqs;
  }
}
