// Local queue policies (lib/cluster/local/): the order each returns on hand-made queues — the priority quota's
// counts per turn, the released one-group-per-iteration rule, longest prefix first and its cut-off.
import { describe, expect, it } from "vitest";
import { fcfs, localPolicyNames, LocalPolicyContext, resolveLocalPolicy } from "../lib/cluster/local/policy";
import { longestPrefixFirst, priorityGroup, priorityGroups, priorityGroupsPerIteration } from "../lib/cluster/local/prefix-and-priority";
import type { RequestRecord } from "../lib/cluster/record";
import { ParameterError } from "../lib/core/errors";

/** A waiting request with `cached` of its 100 prompt tokens cached (id = its position). */
const rec = (id: number, cached: number) => ({ id, cached, request: { promptTokens: 100 } }) as unknown as RequestRecord & { id: number; cached: number };
const context: LocalPolicyContext = { now: 0, replica: 0, cachedTokens: (r) => (r as unknown as { cached: number }).cached };
const ids = (xs: readonly RequestRecord[] | null) => (xs ?? []).map((r) => (r as unknown as { id: number }).id);
/** g requests of group g for g = 0 … 9 (cached 10g + 5 of 100 → group g): 55 in all, oldest first by group 0. */
function lectureQueue(): RequestRecord[] {
  const out: RequestRecord[] = [];
  for (let g = 0; g < 10; g++) for (let k = 0; k <= g; k++) out.push(rec(out.length, 10 * g + 5));
  return out;
}
const groupOf = (r: RequestRecord) => priorityGroup(context.cachedTokens(r), 100, 10);

describe("priority groups (the lecture's reading): a quota cycle from the highest group down", () => {
  it("55 requests, 10 in group 9, 9 in group 8 … 1 in group 0: turns of 10, 9, …, 1 (k = 1), FCFS within a group", () => {
    const p = priorityGroups();
    const waiting = lectureQueue();
    // make every group hold more than its quota, so the quota (not the bucket) ends each turn
    const extra = waiting.concat(Array.from({ length: 20 }, (_, i) => rec(100 + i, 95)));
    const order = p.order(extra, context) as RequestRecord[];
    const groups = order.map(groupOf);
    // the first turn: group 9's quota (g + 1)·k = 10, then group 8's 9 …
    expect(groups.slice(0, 10)).toEqual(new Array(10).fill(9));
    expect(groups.slice(10, 19)).toEqual(new Array(9).fill(8));
    expect(groups.slice(19, 27)).toEqual(new Array(8).fill(7));
    expect(groups.slice(52, 55)).toEqual([1, 1, 0]);
    // then group 9's next turn with what it has left
    expect(groups.slice(55, 65)).toEqual(new Array(10).fill(9));
    // FCFS within group 9: the oldest first
    const nines = order.filter((r) => groupOf(r) === 9).map((r) => (r as unknown as { id: number }).id);
    expect(nines).toEqual([...nines].sort((a, b) => a - b));
    expect(order.length).toBe(extra.length);
  });

  it("k = 2 doubles each quota; an empty group passes its turn", () => {
    const p = priorityGroups({ perPriority: 2 });
    const waiting = [...Array.from({ length: 30 }, (_, i) => rec(i, 95)), ...Array.from({ length: 10 }, (_, i) => rec(30 + i, 55))];
    const groups = (p.order(waiting, context) as RequestRecord[]).map(groupOf);
    expect(groups.slice(0, 20)).toEqual(new Array(20).fill(9)); // (9 + 1) × 2
    expect(groups.slice(20, 30)).toEqual(new Array(10).fill(5)); // groups 8–6 empty; group 5's quota 12 > its 10
    expect(groups.slice(30)).toEqual(new Array(10).fill(9));
  });

  it("the cycle persists across iterations through onAdmit: admitting 3 of group 9 leaves 7 of its turn", () => {
    const p = priorityGroups();
    const waiting = [...Array.from({ length: 15 }, (_, i) => rec(i, 95)), ...Array.from({ length: 5 }, (_, i) => rec(15 + i, 85))];
    const first = p.order(waiting, context) as RequestRecord[];
    for (const r of first.slice(0, 3)) p.onAdmit?.(r, context);
    expect(p.state()).toEqual({ group: 9, taken: 3 });
    const rest = waiting.filter((r) => !first.slice(0, 3).includes(r));
    const groups = (p.order(rest, context) as RequestRecord[]).map(groupOf);
    expect(groups.slice(0, 7)).toEqual(new Array(7).fill(9));
    expect(groups.slice(7, 12)).toEqual(new Array(5).fill(8));
    // a turn ended by its quota moves the cycle on to the next group
    const p2 = priorityGroups();
    const w2 = [...Array.from({ length: 12 }, (_, i) => rec(i, 95)), rec(12, 85)];
    const o2 = p2.order(w2, context) as RequestRecord[];
    for (const r of o2.slice(0, 10)) p2.onAdmit?.(r, context);
    expect(p2.state()).toEqual({ group: 8, taken: 0 });
    // and a group emptied before its quota too
    const p3 = priorityGroups();
    const o3 = p3.order([rec(0, 95), rec(1, 5)], context) as RequestRecord[];
    p3.onAdmit?.(o3[0], context);
    expect(p3.state()).toEqual({ group: 8, taken: 0 });
    p3.onAdmit?.(o3[1], context);
    expect(p3.state()).toEqual({ group: 9, taken: 0 });
  });

  it("only the oldest maxScan waiting requests are ordered", () => {
    const p = priorityGroups({ maxScan: 3 });
    expect(ids(p.order([rec(0, 5), rec(1, 95), rec(2, 55), rec(3, 99)], context))).toEqual([1, 2, 0]);
  });

  it("grows past 64 waiting requests", () => {
    const p = priorityGroups();
    const waiting = Array.from({ length: 150 }, (_, i) => rec(i, i % 2 ? 95 : 5));
    const order = p.order(waiting, context) as RequestRecord[];
    expect(order.length).toBe(150);
    for (const r of order) p.onAdmit?.(r, context);
    expect(new Set(ids(order)).size).toBe(150);
    // the cycle state after the 150th admission is a real state (kept for every position, past 64 too)
    const { group, taken } = p.state();
    expect(Number.isInteger(group) && group >= 0 && group < 10).toBe(true);
    expect(Number.isInteger(taken) && taken >= 0).toBe(true);
  });

  it("the group: ⌈P·ratio⌉ − 1, clipped to P − 1 when more is cached than the prompt (never P)", () => {
    expect(priorityGroup(105, 100, 10)).toBe(9);
    expect(priorityGroup(150, 100, 10)).toBe(9);
    expect(priorityGroup(100, 100, 10)).toBe(9);
    expect(priorityGroup(1, 100, 10)).toBe(0);
  });

  it("options are checked: groups, perPriority and maxScan ≥ 1", () => {
    for (const make of [priorityGroups, priorityGroupsPerIteration]) {
      expect(() => make({ groups: 0 })).toThrow(ParameterError);
      expect(() => make({ perPriority: 0 })).toThrow(ParameterError);
      expect(() => make({ maxScan: 0 })).toThrow(ParameterError);
    }
  });
});

describe("priority groups as released: one group per iteration, k = 10", () => {
  it("serves the pointer's group (or the next non-empty one down), at most (g + 1)·k, and moves the pointer one below", () => {
    const p = priorityGroupsPerIteration();
    expect(p.pointer()).toBe(9);
    const waiting = [...Array.from({ length: 120 }, (_, i) => rec(i, 95)), rec(120, 55), rec(121, 5)];
    expect(ids(p.order(waiting, context))).toEqual(Array.from({ length: 100 }, (_, i) => i)); // group 9: (9 + 1) × 10
    expect(p.pointer()).toBe(8);
    expect(ids(p.order(waiting, context))).toEqual([120]); // 8, 7, 6 empty → group 5
    expect(p.pointer()).toBe(4);
    expect(ids(p.order(waiting, context))).toEqual([121]); // 4 … 1 empty → group 0
    expect(p.pointer()).toBe(9);
    expect(p.order([], context)).toEqual([]);
    // the order returned is the policy's answer to keep: the next call does not change it
    const kept = priorityGroupsPerIteration();
    const first = kept.order([rec(0, 95), rec(1, 95)], context);
    kept.order([rec(2, 85)], context);
    expect(ids(first)).toEqual([0, 1]);
    // only the oldest maxScan are grouped
    const scan = priorityGroupsPerIteration({ maxScan: 2 });
    expect(ids(scan.order([rec(0, 5), rec(1, 5), rec(2, 95)], context))).toEqual([0, 1]);
    const small = priorityGroupsPerIteration({ perPriority: 1, groups: 2 });
    expect(ids(small.order([rec(0, 80), rec(1, 90), rec(2, 70)], context))).toEqual([0, 1]);
    expect(ids(small.order([rec(0, 80), rec(1, 20), rec(2, 10)], context))).toEqual([1]);
  });
});

describe("the priority policies called again with a shorter queue", () => {
  it("order only what waits now: a longer queue's requests never come back (both readings)", () => {
    for (const p of [priorityGroups(), priorityGroupsPerIteration()]) {
      const long = Array.from({ length: 40 }, (_, i) => rec(i, (i * 37) % 100));
      p.order(long, context);
      const short = [rec(100, 95), rec(101, 5), rec(102, 55)];
      const got = ids(p.order(short, context));
      expect(got.length).toBeGreaterThan(0);
      for (const id of got) expect([100, 101, 102]).toContain(id);
      expect(new Set(got).size).toBe(got.length);
    }
    // the released rule serving the lowest group: its cap (g + 1)·k = 10 is above what waits now (2), so it takes 2
    const released = priorityGroupsPerIteration();
    released.order(Array.from({ length: 30 }, (_, i) => rec(i, 0)), context);
    expect(ids(released.order([rec(100, 0), rec(101, 0)], context))).toEqual([100, 101]);
    const all = priorityGroups();
    all.order(Array.from({ length: 40 }, (_, i) => rec(i, 95)), context);
    expect(ids(all.order([rec(7, 95), rec(8, 5)], context)).sort()).toEqual([7, 8]);
  });
});

describe("longest prefix first", () => {
  it("most cached first, ties in dispatch order; null when already sorted, for one request, or past the cut-off", () => {
    const p = longestPrefixFirst(4);
    expect(ids(p.order([rec(0, 10), rec(1, 50), rec(2, 10), rec(3, 30)], context))).toEqual([1, 3, 0, 2]);
    expect(p.order([rec(0, 50), rec(1, 50), rec(2, 10)], context)).toBeNull();
    expect(p.order([rec(0, 5)], context)).toBeNull();
    expect(p.order([rec(0, 1), rec(1, 2), rec(2, 3), rec(3, 4), rec(4, 5)], context)).toBeNull();
    expect(ids(p.order([rec(0, 1), rec(1, 2), rec(2, 3), rec(3, 4)], context))).toEqual([3, 2, 1, 0]);
    const big = longestPrefixFirst(200);
    const order = big.order(Array.from({ length: 150 }, (_, i) => rec(i, i)), context);
    expect(ids(order)).toEqual(Array.from({ length: 150 }, (_, i) => 149 - i));
    expect(() => longestPrefixFirst(0)).toThrow(ParameterError);
  });

  it("equals a reference stable sort on random queues with many ties (lengths 2 … 128)", () => {
    const p = longestPrefixFirst(128);
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let trial = 0; trial < 300; trial++) {
      const n = 2 + Math.floor(next() * 127);
      const queue = Array.from({ length: n }, (_, i) => rec(i, Math.floor(next() * 6) * 10));
      const want = [...queue].sort((a, b) => b.cached - a.cached || a.id - b.id).map((r) => r.id);
      const got = p.order(queue, context);
      expect(got === null ? queue.map((r) => r.id) : ids(got)).toEqual(want);
    }
  });

  it("the registry: fcfs keeps dispatch order; names resolve; a factory passes through", () => {
    expect(fcfs().order([rec(0, 1), rec(1, 9)], context)).toBeNull();
    expect(localPolicyNames()).toEqual(expect.arrayContaining(["fcfs", "lpf", "priority", "priorityReleased", "lpm"]));
    expect(resolveLocalPolicy("lpm")(0).name).toBe("lpm");
    expect(resolveLocalPolicy("priority")(0).name).toBe("priority");
    expect(resolveLocalPolicy("priorityReleased")(0).name).toBe("priorityReleased");
    expect(resolveLocalPolicy("lpf")(0).name).toBe("lpf");
    const f = () => fcfs();
    expect(resolveLocalPolicy(f)).toBe(f);
    expect(() => resolveLocalPolicy("sjf")).toThrow(ParameterError);
  });
});
