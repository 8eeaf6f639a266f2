// Local (per-replica) queue policies of §3.5, besides FCFS: SGLang's longest-prefix-first ("lpf"; "lpm" the paper's
// baseline without SGLang's later cut-off) and Preble's priority groups in two readings: a quota cycle that persists
// across iterations ("priority", the lecture's) and one group per iteration with k = 10 ("priorityReleased").
import { checkInteger } from "../../core/errors";
import type { LocalPolicy, LocalPolicyContext } from "./policy";
import { registerLocalPolicy } from "./policy";
import type { RequestRecord } from "../record";

/** Longest prefix first (SGLang): the waiting requests by tokens cached on this replica, most first; ties keep
 * dispatch order. Requests with little cached may wait long (starvation, §3.5). Like SGLang, it falls back to
 * FCFS while more than `maxSortedQueue` requests wait (matching and sorting a long queue every iteration is
 * too expensive for the engine; SGLang's cut-off is 128). */
export function longestPrefixFirst(maxSortedQueue = 128): LocalPolicy {
  checkInteger("maxSortedQueue", maxSortedQueue, { min: 1 });
  let keys = new Float64Array(64);
  let index = new Int32Array(64);
  let out: RequestRecord[] = [];
  return {
    name: "lpf",
    order(waiting, context) {
      const n = waiting.length;
      if (n <= 1 || n > maxSortedQueue) return null;
      if (keys.length < n) {
        keys = new Float64Array(2 * n);
        index = new Int32Array(2 * n);
      }
      let sorted = true;
      for (let i = 0; i < n; i++) {
        keys[i] = context.cachedTokens(waiting[i]);
        index[i] = i;
        if (i > 0 && keys[i] > keys[i - 1]) sorted = false;
      }
      if (sorted) return null;
      sortByKeyDescending(index, keys, n);
      out.length = n;
      for (let i = 0; i < n; i++) out[i] = waiting[index[i]];
      const result = out;
      out = [];
      return result;
    },
  };
}

/** Sorts index[0 … n) (positions 0 … n − 1 in order) by keys[position], largest first, equal keys in position
 * order: an insertion sort, allocation-free (a typed array's sort with a comparator copies it; n ≤ the cut-off, and
 * the queue is mostly in order already). The order is total, so it is the one any correct sort gives. */
function sortByKeyDescending(index: Int32Array, keys: Float64Array, n: number): void {
  for (let i = 1; i < n; i++) {
    const at = index[i];
    const key = keys[at];
    let j = i - 1;
    while (j >= 0 && keys[index[j]] < key) {
      index[j + 1] = index[j];
      j--;
    }
    index[j + 1] = at;
  }
}

/** Preble's priority group of a request: 0 when nothing is cached, else ⌈P·ratio⌉ − 1 (the released code's
 * formula; the same as ⌊P·ratio⌋ except at exact multiples of 1/P), clipped to [0, P − 1]. */
export function priorityGroup(cachedTokens: number, promptTokens: number, groups: number): number {
  if (cachedTokens <= 0) return 0;
  const g = Math.ceil((groups * cachedTokens) / promptTokens) - 1;
  return g < 0 ? 0 : g >= groups ? groups - 1 : g;
}

/** Groups the oldest `n` waiting requests by priority group: buckets[g][0 … filled[g]), in dispatch order. The bucket
 * arrays keep their storage between iterations (a length reset would drop it and the pushes would allocate again);
 * entries past filled[g] are stale and never read. */
function fillBuckets(waiting: readonly RequestRecord[], n: number, context: LocalPolicyContext, buckets: RequestRecord[][], filled: Int32Array): void {
  filled.fill(0);
  for (let i = 0; i < n; i++) {
    const r = waiting[i];
    const g = priorityGroup(context.cachedTokens(r), r.request.promptTokens, buckets.length);
    const b = buckets[g];
    const at = filled[g]++;
    if (at < b.length) b[at] = r;
    else b.push(r);
  }
}

export interface PriorityGroupsOptions {
  /** P: number of groups (default 10) */
  groups?: number;
  /** requests per priority unit in one turn: group g (priority g + 1) takes up to (g + 1)·k per turn (default 1,
   * the lecture's example: 55 requests → 10, 9, …, 1; the released code uses 10) */
  perPriority?: number;
  /** only the oldest this many waiting requests are grouped each iteration (default 256; like SGLang's cut-off
   * for longest-prefix-first, it keeps an overloaded replica's per-iteration work bounded) */
  maxScan?: number;
}

/** Preble's priority groups (§3.5): requests grouped by cached fraction; turns go from the highest group to the
 * lowest, each taking up to (priority × k) requests, FCFS within a group. The position in the cycle persists
 * across iterations (the engine usually admits only a few requests per iteration). */
export function priorityGroups(options: PriorityGroupsOptions = {}): LocalPolicy & { readonly groups: number; readonly perPriority: number; state(): { group: number; taken: number } } {
  const P = checkInteger("groups", options.groups ?? 10, { min: 1 });
  const k = checkInteger("perPriority", options.perPriority ?? 1, { min: 1 });
  const maxScan = checkInteger("maxScan", options.maxScan ?? 256, { min: 1 });
  // Each group's waiting requests this iteration (fillBuckets).
  const buckets: RequestRecord[][] = Array.from({ length: P }, () => []);
  const filled = new Int32Array(P);
  const used = new Int32Array(P);
  // Where the cycle stands: the group whose turn it is and how many it has taken in this turn.
  let group = P - 1;
  let taken = 0;
  // For each entry of the last order: the cycle state after admitting it.
  let afterGroup = new Int32Array(64);
  let afterTaken = new Int32Array(64);
  let admitted = 0;
  const quota = (g: number) => (g + 1) * k;
  const nextGroup = (g: number) => (g === 0 ? P - 1 : g - 1);
  return {
    name: "priority",
    groups: P,
    perPriority: k,
    state: () => ({ group, taken }),
    order(waiting, context) {
      const n = waiting.length < maxScan ? waiting.length : maxScan;
      fillBuckets(waiting, n, context, buckets, filled);
      if (afterGroup.length < n) {
        afterGroup = new Int32Array(2 * n);
        afterTaken = new Int32Array(2 * n);
      }
      const out: RequestRecord[] = new Array(n);
      used.fill(0);
      let g = group;
      let t = taken;
      let m = 0;
      while (m < n) {
        const b = buckets[g];
        if (used[g] >= filled[g] || t >= quota(g)) {
          g = nextGroup(g);
          t = 0;
          continue;
        }
        out[m] = b[used[g]++];
        t++;
        // The turn ends when the quota is met or the group has nobody else waiting.
        if (t >= quota(g) || used[g] >= filled[g]) {
          afterGroup[m] = nextGroup(g);
          afterTaken[m] = 0;
        } else {
          afterGroup[m] = g;
          afterTaken[m] = t;
        }
        m++;
      }
      admitted = 0;
      return out;
    },
    onAdmit(_record: RequestRecord, _context: LocalPolicyContext) {
      group = afterGroup[admitted];
      taken = afterTaken[admitted];
      admitted++;
    },
  };
}

/** Preble's priority groups as released (rpc:470–493, 790–801): each engine iteration serves ONE group — the group
 * the pointer is at, skipping empty ones — taking up to (g + 1)·k of its requests in FCFS order (k = 10, rpc:485),
 * and the pointer moves down a group every iteration whether or not anything was admitted; budget the group leaves
 * is not passed to another group. Our priorityGroups() instead keeps a quota cycle across iterations and fills the
 * iteration from the next groups. */
export function priorityGroupsPerIteration(options: { groups?: number; perPriority?: number; maxScan?: number } = {}): LocalPolicy & { readonly groups: number; readonly perPriority: number; pointer(): number } {
  const P = checkInteger("groups", options.groups ?? 10, { min: 1 });
  const k = checkInteger("perPriority", options.perPriority ?? 10, { min: 1 });
  const maxScan = checkInteger("maxScan", options.maxScan ?? 256, { min: 1 });
  const buckets: RequestRecord[][] = Array.from({ length: P }, () => []); // fillBuckets
  const filled = new Int32Array(P);
  let start = P - 1; // rpc:164: the pointer starts at the highest group
  return {
    name: "priorityReleased",
    groups: P,
    perPriority: k,
    pointer: () => start,
    order(waiting, context) {
      const n = waiting.length < maxScan ? waiting.length : maxScan;
      fillBuckets(waiting, n, context, buckets, filled);
      // get_schedule_group (rpc:790–801): from the pointer down to the first non-empty group; the pointer then
      // moves one below the group served.
      let g = start;
      for (let tried = 0; filled[g] === 0; tried++) {
        if (tried >= P) return [];
        g = g === 0 ? P - 1 : g - 1;
      }
      start = g === 0 ? P - 1 : g - 1;
      const take = filled[g] <= (g + 1) * k ? filled[g] : (g + 1) * k;
      return buckets[g].slice(0, take);
    },
  };
}

registerLocalPolicy("lpf", () => longestPrefixFirst());
registerLocalPolicy("priority", () => priorityGroups());
registerLocalPolicy("priorityReleased", () => priorityGroupsPerIteration());
// The paper's baseline engine (benchmarks/multi_exp_configs/e2e_4r_toolbench_config.py:23–29): SGLang's
// longest-prefix-match without the later 128-waiting cut-off (scheduler.py sorts the whole queue); we keep a cut-off
// at 1,024 waiting so that a deeply overloaded replica stays simulable (such a run is flagged overloaded anyway).
registerLocalPolicy("lpm", () => ({ ...longestPrefixFirst(1024), name: "lpm" }));
