// The router's view of dispatched prompts (§3.1): a replica's view match is the longest prefix the request shares
// with its cache or with a prompt dispatched to it and not finished. The simulator drops a prompt from what it keeps
// when the prompt's prefill ends (the cache holds the whole path from then on, locked until the request finishes),
// keeps a replica's few uncomputed prompts in a list and compares the request with each, and builds a radix tree of
// them only when a list grows long. Both ways must give the numbers of the plain definition, checked here against a
// reference the router keeps itself, at every decision and in what the simulator records.
import { describe, expect, it } from "vitest";
import { ClusterRequest, ClusterView, generateWorkload, RequestRecord, Router, simulateCluster } from "../lib/cluster/index";

/** Tokens of the longest common prefix of two prompts (segment by segment). */
function sharedPrefix(a: ClusterRequest, b: ClusterRequest): number {
  let tokens = 0;
  for (let k = 0; k < a.segments.length && k < b.segments.length && a.segments[k].id === b.segments[k].id; k++) tokens += a.segments[k].tokens;
  return tokens;
}

/** Round robin that checks every replica's view match against the definition: the most of the cache's match and the
 * longest prefix shared with a request dispatched there and not finished. `expected[id]` is the definition's value
 * for the replica the request went to (what the simulator records). */
function checkingRouter(replicas: number) {
  const unfinished: RequestRecord[][] = Array.from({ length: replicas }, () => []);
  const state = { compared: 0, nonZero: 0, beyondCache: 0, mismatches: [] as string[], expected: [] as number[], indexed: false };
  const router: Router = {
    name: "checking",
    route(req: ClusterRequest, view: ClusterView) {
      const target = req.id % replicas;
      for (let i = 0; i < replicas; i++) {
        const cached = view.cachedMatch(req, i);
        let dispatched = 0;
        for (const r of unfinished[i]) dispatched = Math.max(dispatched, sharedPrefix(req, r.request));
        const expected = Math.max(cached, dispatched);
        const got = view.viewMatch(req, i);
        if (got !== expected && state.mismatches.length < 5) state.mismatches.push(`request ${req.id}, replica ${i}: view ${got}, definition ${expected}`);
        if (i === target) state.expected[req.id] = expected;
        state.compared++;
        if (expected > 0) state.nonZero++;
        if (dispatched > cached) state.beyondCache++;
      }
      // white box: which of the two ways the view used (the tree is built once a replica's list grows long)
      state.indexed = (view as unknown as { indexed: boolean }).indexed;
      return target;
    },
    onDispatch(rec) {
      unfinished[rec.replica].push(rec);
    },
    onFinish(rec) {
      const list = unfinished[rec.replica];
      list.splice(list.indexOf(rec), 1);
    },
  };
  return { router, state };
}

// Deep prompts, a hot prefix, shared problem statements, and an overloaded run (its queues grow past the length at
// which the tree is built); small KV memory (memFraction) where the prompts allow, so that caches evict.
const CASES = [
  { workload: "agent", rate: 12, replicas: 3, memFraction: 0.4 },
  { workload: "toolCallingHotSpot", rate: 70, replicas: 4, memFraction: 0.4 },
  { workload: "programming", rate: 12, replicas: 4, memFraction: 0.4 },
  { workload: "longDocQA", rate: 2, replicas: 2, memFraction: 1 },
] as const;

describe("the dispatched-prompt index", () => {
  it("a view match is the longest prefix shared with the cache or with a dispatched, unfinished prompt (evictions and a restart included), kept as a list or as a tree", () => {
    const ways: Record<string, boolean> = {};
    for (const c of CASES) {
      const w = generateWorkload(c.workload, { rate: c.rate, seed: 5, requestCount: 500 });
      const { router, state } = checkingRouter(c.replicas);
      const res = simulateCluster({ workload: w, replicas: c.replicas, router, seed: 5, memFraction: c.memFraction, restarts: [{ replica: 0, time: w.requests[250].arrival }], check: true });
      expect(state.mismatches, c.workload).toEqual([]);
      expect(state.compared).toBe(500 * c.replicas);
      expect(state.nonZero, c.workload).toBeGreaterThan(100);
      // prompts still in prefill count beyond the cache: what is kept is not empty where it matters
      expect(state.beyondCache, c.workload).toBeGreaterThan(0);
      ways[c.workload] = state.indexed;
      // what the simulator records is the definition's value for the replica chosen
      expect(res.records.map((r) => r.viewMatchAtDispatch)).toEqual(state.expected);
    }
    // both ways were checked: lists throughout (the agent run) and a tree built on the way (the overloaded run)
    expect(ways).toMatchObject({ agent: false, longDocQA: true });
  });

  it("a router reading the view changes nothing: the same records and metrics as round robin, which never reads it", () => {
    for (const c of CASES) {
      const w = generateWorkload(c.workload, { rate: c.rate, seed: 7, requestCount: 500 });
      const run = (router: Router | string) => simulateCluster({ workload: w, replicas: c.replicas, router, seed: 7, memFraction: c.memFraction, check: true });
      const plain = run("roundRobin");
      const checked = run(checkingRouter(c.replicas).router);
      expect(checked.records.map((r) => [r.replica, r.viewMatchAtDispatch, r.cachedTokens, r.finish]), c.workload).toEqual(plain.records.map((r) => [r.replica, r.viewMatchAtDispatch, r.cachedTokens, r.finish]));
      expect(checked.metrics).toEqual(plain.metrics);
    }
  });
});
