// The thread's spare request records (lib/cluster/record.ts) and Preble's spare tree payloads: a sweep's finished runs
// give theirs back and later runs reuse them. A reused record must be indistinguishable from a new one, and a run's results must not depend on
// whether its records are new or reused.
import { describe, expect, it } from "vitest";
import { RequestRecord, releaseRecords } from "../lib/cluster/record";
import { simulateCluster, simulateSummarized } from "../lib/cluster/simulate";
import { summarizeRun } from "../lib/cluster/sweep";
import type { ClusterRequest } from "../lib/cluster/workloads";
import { autoscaleOf, GlobalNodeInfo, GlobalTree, infoOf, releasedOf, spareInfoCount } from "../lib/cluster/preble/global-tree";
import { configurationRun } from "../lib/cluster/preble/runs";

const request = (id: number): ClusterRequest => ({ id, arrival: id, segments: [{ id: 10 + id, tokens: 50 }], promptTokens: 50, outputTokens: 4, outputSegment: { id: 1000 + id, tokens: 4 }, key: 0, keySegment: 10 + id });

/** Everything a reader of a record can see. */
function visible(r: RequestRecord): Record<string, unknown> {
  return { ...r, times: undefined, at: undefined, dispatch: r.dispatch, start: r.start, firstToken: r.firstToken, finish: r.finish, request: r.request };
}

describe("spare request records", () => {
  it("a reused record reads exactly as a new one: every field reset, its times in the new run's array", () => {
    const times = new Float64Array(8);
    const used = RequestRecord.take(request(1), 5, times, 1);
    Object.assign(used, { replica: 3, cachedTokens: 7, computedTokens: 8, viewMatchAtDispatch: 9, cachedAtDispatch: 10, clusterCachedAtDispatch: 11, measured: false, prefilled: 12, generated: 13, chunk: 14, reserved: 15 });
    used.start = 6;
    used.firstToken = 7;
    used.finish = 8;
    releaseRecords([used]);
    const fresh = new RequestRecord(request(2), 9, new Float64Array(4), 0);
    const other = new Float64Array(12);
    const again = RequestRecord.take(request(2), 9, other, 2);
    expect(again).toBe(used); // it did come from the pool
    expect(visible(again)).toEqual(visible(fresh));
    expect(Array.from(other.subarray(8))).toEqual([9, NaN, NaN, NaN]);
    expect(Array.from(times.subarray(4))).toEqual([5, 6, 7, 8]); // the old run's times are left alone
  });

  it("a sweep's run gives the same summary with new records and with reused ones, and plain runs give none back", () => {
    const options = { workload: "toolCalling", rate: 6, replicas: 3, requestCount: 400, seed: 4, router: "cacheAwareGuarded" };
    const first = simulateSummarized(options, summarizeRun); // its records go to the pool
    const second = simulateSummarized(options, summarizeRun); // runs on them
    expect(second).toEqual(first);
    const plain = simulateCluster(options);
    const kept = plain.records.map(visible);
    simulateSummarized({ ...options, seed: 5 }, summarizeRun);
    expect(plain.records.map(visible)).toEqual(kept); // a caller's records are never reused
    expect(summarizeRun(plain)).toEqual(first);
  });
});

describe("spare Preble tree payloads (lib/cluster/preble/global-tree.ts)", () => {
  it("a reset payload reads exactly as a new one", () => {
    const tree = new GlobalTree(4, true);
    tree.analyze(request(1), 0);
    const node = tree.leaf;
    const used = infoOf(node);
    Object.assign(used, { alloc: 5, listed: 3, windowCount: 7, pathStamp: 6 });
    Object.assign(autoscaleOf(used), { recentSum: 1, recentCount: 2, earlierSum: 3, earlierCount: 4, scaledUntil: 8 });
    releasedOf(used).count = 2;
    const page = new Float64Array(64);
    used.reset(11, node, page, 32);
    expect({ ...used }).toEqual({ ...new GlobalNodeInfo(11, node, page, 32) });
  });

  it("a sweep's Preble runs give the same summaries on new and on pooled nodes and payloads; a plain run keeps its tree", () => {
    for (const configuration of ["preble", "prebleReleased"]) {
      const options = configurationRun({ workload: "toolCalling", rate: 16, replicas: 4, configuration, requestCount: 600, seed: 3 });
      const plain = summarizeRun(simulateCluster(options)); // its tree is not released
      const first = simulateSummarized(options, summarizeRun);
      const pooled = spareInfoCount();
      expect(pooled).toBeGreaterThan(400); // the first run's payloads went to the pool
      const second = simulateSummarized(options, summarizeRun); // on them
      expect(second).toEqual(first);
      expect(first).toEqual(plain);
      expect(spareInfoCount()).toBe(pooled); // the second run took as many as it gave back
    }
  });
});
