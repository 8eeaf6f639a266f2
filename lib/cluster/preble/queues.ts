// Growable FIFOs for Preble's window statistics: numbers in a typed array, objects aligned with them by position.

/** A growable FIFO of numbers (window queues). */
export class NumberQueue {
  data: Float64Array = new Float64Array(1024);
  head = 0;
  tail = 0;
  get size(): number {
    return this.tail - this.head;
  }
  push(x: number): void {
    if (this.tail === this.data.length) {
      const live = this.tail - this.head;
      // Compact in place when at most half is live, else grow.
      if (live * 2 <= this.data.length) this.data.copyWithin(0, this.head, this.tail);
      else {
        const next = new Float64Array(this.data.length * 2);
        next.set(this.data.subarray(this.head, this.tail));
        this.data = next;
      }
      this.head = 0;
      this.tail = live;
    }
    this.data[this.tail++] = x;
  }
  at(i: number): number {
    return this.data[this.head + i];
  }
  set(i: number, x: number): void {
    this.data[this.head + i] = x;
  }
}

/** A growable FIFO of objects, aligned with NumberQueues by position. */
export class ObjectQueue<T> {
  data: Array<T | undefined> = [];
  head = 0;
  push(x: T): void {
    this.data.push(x);
  }
  shift(): T {
    const x = this.data[this.head] as T;
    this.data[this.head++] = undefined;
    if (this.head > 4096 && this.head * 2 > this.data.length) {
      this.data = this.data.slice(this.head);
      this.head = 0;
    }
    return x;
  }
  at(i: number): T {
    return this.data[this.head + i] as T;
  }
}
