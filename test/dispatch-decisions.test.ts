// §1's dispatcher state and the five policies' choice of a server (lib/dispatch/server-state.ts), decision by
// decision on hand-made states: FCFS servers in Lindley form, the jobs in system, stale snapshots, ties.
import { describe, expect, it } from "vitest";
import { InSystem, ServerState } from "../lib/dispatch/server-state";
import type { DispatchPolicy } from "../lib/dispatch/policies";

/** int(n) and uniform() return scripted values in turn; asked records the calls. */
function scripted(ints: number[], uniforms: number[] = []) {
  const asked: string[] = [];
  return {
    asked,
    int(n: number) {
      asked.push(`int(${n})`);
      const v = ints.shift() as number;
      if (!(v >= 0 && v < n)) throw new Error(`int(${n}) = ${v}`);
      return v;
    },
    uniform() {
      asked.push("uniform");
      return uniforms.shift() as number;
    },
  };
}

const state = (n: number, policy: DispatchPolicy, r: ReturnType<typeof scripted>, stale = false, countsKept = true) => new ServerState(n, policy, stale, countsKept, r as never);

/** Puts jobs on servers: jobs[s] = list of [arrival, size]. */
function load(s: ServerState, jobs: Array<Array<[number, number]>>): void {
  jobs.forEach((list, server) => list.forEach(([t, x]) => s.admit(server, t, x)));
}

describe("FCFS admission (Lindley) and the jobs in system", () => {
  it("a job starts when the server frees: completion = max(previous completion, arrival) + size", () => {
    const s = state(2, "jsq", scripted([]));
    expect(s.admit(0, 1, 2)).toBe(3);
    expect(s.admit(0, 2, 1)).toBe(4); // waits until 3
    expect(s.admit(0, 10, 0.5)).toBe(10.5); // idle server: starts at arrival
    expect(s.admit(1, 0, 1)).toBe(1);
    expect(Array.from(s.lastCompletion)).toEqual([10.5, 1]);
    expect(Array.from(s.system.count)).toEqual([3, 1]);
  });

  it("departUntil drops exactly the jobs completed by t (at t included); nextDone is the earliest left", () => {
    const sys = new InSystem(2);
    for (const c of [1, 2, 3, 5]) sys.push(0, c);
    expect(sys.nextDone[0]).toBe(1);
    expect(sys.nextDone[1]).toBe(Infinity);
    sys.departUntil(0, 0.5);
    expect(sys.count[0]).toBe(4);
    sys.departUntil(0, 2);
    expect(sys.count[0]).toBe(2);
    expect(sys.nextDone[0]).toBe(3);
    sys.departAllUntil(4.9);
    expect(sys.count[0]).toBe(1);
    expect(sys.nextDone[0]).toBe(5);
    sys.departAllUntil(5);
    expect(sys.count[0]).toBe(0);
    expect(sys.nextDone[0]).toBe(Infinity);
  });

  it("a server holding more than 64 jobs keeps them all, in order (the ring grows)", () => {
    const sys = new InSystem(3);
    sys.push(1, 0.5);
    sys.push(1, 0.6);
    sys.push(2, 0.25);
    sys.push(2, 0.3);
    for (let k = 1; k <= 70; k++) sys.push(0, k);
    sys.push(1, 0.75);
    expect(sys.count[0]).toBe(70);
    sys.departUntil(0, 60);
    expect(sys.count[0]).toBe(10);
    expect(sys.nextDone[0]).toBe(61);
    for (let t = 61; t <= 70; t++) {
      sys.departUntil(0, t);
      expect(sys.count[0]).toBe(70 - t);
    }
    // the other servers' jobs were copied into the grown ring, in order
    sys.departUntil(1, 0.55);
    expect([sys.count[1], sys.nextDone[1]]).toEqual([2, 0.6]);
    sys.departUntil(1, 0.6);
    expect([sys.count[1], sys.nextDone[1]]).toEqual([1, 0.75]);
    sys.departUntil(2, 0.25);
    expect([sys.count[2], sys.nextDone[2]]).toEqual([1, 0.3]);
  });
});

describe("the five policies' choice", () => {
  it("random: one int(N) draw, returned as is", () => {
    const r = scripted([3, 0]);
    const s = state(4, "random", r);
    expect([s.choose(0), s.choose(0)]).toEqual([3, 0]);
    expect(r.asked).toEqual(["int(4)", "int(4)"]);
  });

  it("round robin: 0, 1, 2, 0 … without drawing", () => {
    const r = scripted([]);
    const s = state(3, "roundRobin", r);
    expect(Array.from({ length: 7 }, () => s.choose(0))).toEqual([0, 1, 2, 0, 1, 2, 0]);
    expect(r.asked).toEqual([]);
  });

  it("JSQ: fewest jobs in system now (finished jobs gone); a tie is broken by one uniform draw among the tied, in index order", () => {
    const r = scripted([], [0.7, 0.1, 0.9]);
    const s = state(4, "jsq", r);
    // server 0: jobs until 5 and 6; server 1: one until 2; server 2: one until 9; server 3: two until 3 and 4
    load(s, [[[0, 5], [0, 1]], [[0, 2]], [[0, 9]], [[0, 3], [0, 1]]]);
    expect(s.choose(1)).toBe(2); // jobs 2, 1, 1, 2: servers 1 and 2 tie → u = 0.7 → the second of them
    expect(s.choose(2.5)).toBe(1); // server 1's job is done at 2: it is the only empty one (no draw)
    expect(s.choose(4)).toBe(1); // jobs 2, 0, 1, 0: 1 and 3 tie → u = 0.1 → the first
    expect(s.choose(6)).toBe(3); // jobs 0, 0, 1, 0: servers 0, 1, 3 tie → ⌊0.9 · 3⌋ = 2 → the third, server 3
    expect(r.asked).toEqual(["uniform", "uniform", "uniform"]);
  });

  it("power of two: int(N) then int(N − 1) (skipping the first), the one with fewer jobs; a tie → uniform < ½ takes the first", () => {
    const jobs: Array<Array<[number, number]>> = [[[0, 9], [0, 9]], [[0, 9]], [], [[0, 9], [0, 9], [0, 9]]];
    const cases: Array<[number, number, number[], number]> = [
      // a, second draw, uniforms, expected
      [0, 0, [], 1], // pair (0, 1): 2 jobs vs 1
      [1, 1, [], 2], // b = 1 ≥ a → 2: pair (1, 2): 1 vs 0
      [3, 2, [], 2], // pair (3, 2): 3 vs 0
      [2, 2, [], 2], // pair (2, 3)
      [0, 2, [], 0], // pair (0, 3): 2 vs 3
    ];
    for (const [a, b0, u, expected] of cases) {
      const r = scripted([a, b0], u);
      const s = state(4, "powerOfTwo", r);
      load(s, jobs);
      expect(s.choose(1), `draws ${a}, ${b0}`).toBe(expected);
      expect(r.asked).toEqual(["int(4)", "int(3)"]);
    }
    const tie = (u: number) => {
      const s = state(3, "powerOfTwo", scripted([2, 0], [u]));
      load(s, [[[0, 9]], [], [[0, 9]]]);
      return s.choose(1);
    };
    expect(tie(0.49)).toBe(2);
    expect(tie(0.5)).toBe(0);
  });

  it("power of two on one server: server 0 (one draw int(1) a choice), never an index past the last server", () => {
    const r = scripted([0, 0], [0.9, 0.1]);
    const s = state(1, "powerOfTwo", r);
    load(s, [[[0, 9]]]);
    expect(s.choose(1)).toBe(0);
    expect(s.choose(1)).toBe(0);
    expect(r.asked.filter((x) => x.startsWith("int"))).toEqual(["int(1)", "int(1)"]);
  });

  it("power of two counts only jobs still in system on the two sampled servers", () => {
    const s = state(2, "powerOfTwo", scripted([0, 0]));
    load(s, [[[0, 1], [0, 1]], [[0, 5]]]); // server 0: done at 1 and 2; server 1: at 5
    expect(s.choose(2)).toBe(0); // at t = 2 server 0 is empty, server 1 holds one
  });

  it("least work left: the least remaining work now (an idle server has 0); ties by one uniform draw", () => {
    const r = scripted([], [0.99]);
    const s = state(3, "leastWorkLeft", r);
    load(s, [[[0, 4]], [[0, 1], [0, 1]], [[0, 3]]]); // queues empty at 4, 2, 3
    expect(s.choose(0)).toBe(1); // work 4, 2, 3
    expect(s.choose(2.5)).toBe(1); // 1.5, 0, 0.5
    expect(s.choose(3.5)).toBe(2); // 0.5, 0, 0 → tie of 1 and 2, u = 0.99 → 2
    expect(r.asked).toEqual(["uniform"]);
  });
});

describe("stale information (§1.3): the policies read the snapshot of the last refresh", () => {
  it("JSQ and least-work-left choose on the refreshed counts and work, not on the jobs admitted since", () => {
    for (const policy of ["jsq", "leastWorkLeft"] as const) {
      const s = state(2, policy, scripted([], [0.2]), true);
      load(s, [[[0, 3]], []]);
      s.refresh(1); // snapshot: server 0 has 1 job (work 2), server 1 empty
      expect(Array.from(s.snapshotCount)).toEqual([1, 0]);
      expect(Array.from(s.snapshotWork)).toEqual([2, 0]);
      s.admit(1, 1.5, 10); // server 1 now busy until 11.5, but the snapshot does not know
      expect(s.choose(2), policy).toBe(1);
      s.refresh(12); // both idle; work never negative
      expect(Array.from(s.snapshotWork)).toEqual([0, 0]);
      expect(Array.from(s.snapshotCount)).toEqual([0, 0]);
    }
  });

  it("power of two on the snapshot", () => {
    const s = state(2, "powerOfTwo", scripted([0, 0]), true);
    s.refresh(0);
    load(s, [[], [[0, 10], [0, 10]]]);
    s.refresh(1);
    s.admit(0, 1, 50);
    s.admit(0, 1, 50);
    s.admit(0, 1, 50);
    expect(s.choose(2)).toBe(0); // snapshot: 0 jobs vs 2
  });
});
