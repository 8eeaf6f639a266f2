// The state a dispatcher reads (§1.2–§1.3): each server's jobs in system and the time its queue empties, a stale
// snapshot of both refreshed every T, and the five policies' choice of a server. One class, so that every call from
// the simulation loop stays monomorphic.
import type { Rng } from "../core/rng";
import type { DispatchPolicy } from "./policies";

/** The jobs in system on each server: completion times in a FIFO ring buffer per server (grown when full), and the
 * earliest of them (Infinity when idle) so that a scan over the servers touches one number each. */
export class InSystem {
  capacity = 64;
  ring: Float64Array;
  readonly head: Int32Array;
  readonly count: Int32Array;
  readonly nextDone: Float64Array;
  constructor(readonly servers: number) {
    this.ring = new Float64Array(servers * this.capacity);
    this.head = new Int32Array(servers);
    this.count = new Int32Array(servers);
    this.nextDone = new Float64Array(servers).fill(Infinity);
  }
  /** Drops server s's jobs that completed by time t. */
  departUntil(s: number, t: number): void {
    if (this.nextDone[s] > t) return;
    const base = s * this.capacity;
    const mask = this.capacity - 1;
    let n = this.count[s];
    let h = this.head[s];
    do {
      h = (h + 1) & mask;
      n--;
    } while (n > 0 && this.ring[base + h] <= t);
    this.head[s] = h;
    this.count[s] = n;
    this.nextDone[s] = n > 0 ? this.ring[base + h] : Infinity;
  }
  /** departUntil(s, t) for every server. */
  departAllUntil(t: number): void {
    const nextDone = this.nextDone;
    for (let s = 0; s < this.servers; s++) if (nextDone[s] <= t) this.departUntil(s, t);
  }
  push(s: number, completion: number): void {
    if (this.count[s] === this.capacity) this.grow();
    this.ring[s * this.capacity + ((this.head[s] + this.count[s]) & (this.capacity - 1))] = completion;
    if (this.count[s]++ === 0) this.nextDone[s] = completion;
  }
  private grow(): void {
    const old = this.ring;
    const oldCap = this.capacity;
    const cap = oldCap * 2;
    const ring = new Float64Array(this.servers * cap);
    for (let s = 0; s < this.servers; s++) {
      for (let k = 0; k < this.count[s]; k++) ring[s * cap + k] = old[s * oldCap + ((this.head[s] + k) & (oldCap - 1))];
      this.head[s] = 0;
    }
    this.ring = ring;
    this.capacity = cap;
  }
}

/** Servers as the dispatcher sees them, and the choice each policy makes. */
export class ServerState {
  readonly system: InSystem;
  /** when each server's queue empties (its last job's completion) */
  readonly lastCompletion: Float64Array;
  /** the stale view: queue lengths and remaining work as of the last refresh */
  readonly snapshotCount: Int32Array;
  readonly snapshotWork: Float64Array;
  private readonly liveWork: Float64Array;
  private readonly ties: Int32Array;
  private roundRobin = 0;
  constructor(
    readonly servers: number,
    private readonly policy: DispatchPolicy,
    private readonly stale: boolean,
    /** keep queue lengths (JSQ, power of two, and anything sampling queues need them) */
    readonly countsKept: boolean,
    private readonly choice: Rng,
  ) {
    this.system = new InSystem(servers);
    this.lastCompletion = new Float64Array(servers);
    this.snapshotCount = new Int32Array(servers);
    this.snapshotWork = new Float64Array(servers);
    this.liveWork = new Float64Array(servers);
    this.ties = new Int32Array(servers);
  }

  /** Takes the snapshot at instant r (every job so far arrived before r, so the state at r is exact). */
  refresh(r: number): void {
    for (let s = 0; s < this.servers; s++) {
      if (this.countsKept) this.system.departUntil(s, r);
      this.snapshotCount[s] = this.system.count[s];
      this.snapshotWork[s] = Math.max(0, this.lastCompletion[s] - r);
    }
  }

  /** The server the policy picks for a job arriving at t. */
  choose(t: number): number {
    const N = this.servers;
    switch (this.policy) {
      case "random":
        return this.choice.int(N);
      case "roundRobin": {
        const s = this.roundRobin;
        this.roundRobin = s + 1 === N ? 0 : s + 1;
        return s;
      }
      case "jsq":
        if (!this.stale) this.system.departAllUntil(t);
        return this.argminCount(this.stale ? this.snapshotCount : this.system.count);
      case "powerOfTwo": {
        const a = this.choice.int(N);
        let b = N > 1 ? this.choice.int(N - 1) : 0;
        if (N > 1 && b >= a) b++;
        if (!this.stale) {
          this.system.departUntil(a, t);
          this.system.departUntil(b, t);
        }
        const view = this.stale ? this.snapshotCount : this.system.count;
        return view[a] < view[b] ? a : view[b] < view[a] ? b : this.choice.uniform() < 0.5 ? a : b;
      }
      case "leastWorkLeft":
        if (!this.stale) for (let k = 0; k < N; k++) this.liveWork[k] = this.lastCompletion[k] > t ? this.lastCompletion[k] - t : 0;
        return this.argminWork(this.stale ? this.snapshotWork : this.liveWork);
    }
  }

  /** Puts a job of size x arriving at t on server s (FCFS, Lindley: it starts when the server frees); returns its
   * completion time. */
  admit(s: number, t: number, x: number): number {
    const previous = this.lastCompletion[s];
    const done = (previous > t ? previous : t) + x;
    this.lastCompletion[s] = done;
    if (this.countsKept) this.system.push(s, done);
    return done;
  }

  // Index of a minimum, ties broken uniformly at random (one draw, only when there is a tie). Two copies, one per
  // array type, so that each stays monomorphic.
  private argminCount(values: Int32Array): number {
    const ties = this.ties;
    let bestValue = values[0];
    let k = 1;
    ties[0] = 0;
    for (let s = 1; s < this.servers; s++) {
      const v = values[s];
      if (v < bestValue) {
        bestValue = v;
        ties[0] = s;
        k = 1;
      } else if (v === bestValue) ties[k++] = s;
    }
    return k === 1 ? ties[0] : ties[Math.floor(this.choice.uniform() * k)];
  }

  private argminWork(values: Float64Array): number {
    const ties = this.ties;
    let bestValue = values[0];
    let k = 1;
    ties[0] = 0;
    for (let s = 1; s < this.servers; s++) {
      const v = values[s];
      if (v < bestValue) {
        bestValue = v;
        ties[0] = s;
        k = 1;
      } else if (v === bestValue) ties[k++] = s;
    }
    return k === 1 ? ties[0] : ties[Math.floor(this.choice.uniform() * k)];
  }
}
