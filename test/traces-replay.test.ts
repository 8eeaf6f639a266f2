// The Mooncake trace replayed through the cluster simulator: conservation (every request completes once, the
// per-replica counts add up, KV never above capacity), the hit rate never above the infinite-cache bound, and
// demo 06.4's table and claims.
import { describe, expect, it } from "vitest";
import { configurationOptions } from "../lib/cluster/preble/configs";
import "../lib/cluster/routers-production/index";
import { simulateCluster } from "../lib/cluster/simulate";
import type { ClusterRequest } from "../lib/cluster/workloads";
import { cell } from "../lib/core/table";
import { getDemo, runDemo } from "../lib/demos";
import { replayPolicies } from "../lib/demos/since-then/trace-replay";
import { blockTraceRequests, infiniteCacheHitRate, loadMooncakeConversation, traceWindow } from "../lib/traces";

const trace = loadMooncakeConversation();

function conserved(requests: readonly ClusterRequest[], res: ReturnType<typeof simulateCluster>, replicas: number): void {
  const n = requests.length;
  expect(res.records.length).toBe(n);
  const ids = new Set<number>();
  for (const r of res.records) {
    ids.add(r.id);
    expect(Number.isFinite(r.finish), `request ${r.id} never finished`).toBe(true);
    expect(r.firstToken).toBeGreaterThanOrEqual(r.arrival);
    expect(r.finish).toBeGreaterThanOrEqual(r.firstToken);
    expect(r.replica >= 0 && r.replica < replicas).toBe(true);
    expect(r.cachedTokens + r.computedTokens).toBe(r.promptTokens);
  }
  expect(ids.size).toBe(n);
  expect(res.replicas.reduce((s, x) => s + x.requests, 0)).toBe(n);
  const perReplica = new Array(replicas).fill(0);
  for (const r of res.records) perReplica[r.replica]++;
  expect(perReplica).toEqual(res.replicas.map((x) => x.requests));
  for (const x of res.replicas) expect(x.peakKvTokens).toBeLessThanOrEqual(res.kvCapacity);
  expect(res.metrics.requestsPerReplica.reduce((a, b) => a + b, 0)).toBe(res.metrics.requests);
}

describe("replaying the Mooncake trace through the simulator", () => {
  const w = traceWindow(trace, 20, 3);
  const requests = blockTraceRequests(trace, w, 2) as ClusterRequest[];
  const bound = infiniteCacheHitRate(trace, w.first, w.count, Math.floor(w.count * 0.2));

  for (const policy of ["leastLoad", "thresholdAffinity", "e2", "sglangRouter", "dynamoKvRouter", "gatewayPrefixScorer"]) {
    it(`${policy}: every request completes once, counts add up, KV within capacity (checked every step), hits ≤ the bound`, () => {
      const options = policy === "e2" ? configurationOptions("e2") : { router: policy };
      const res = simulateCluster({ requests, replicas: 4, seed: 1, replicationSamples: 0, check: true, ...options });
      conserved(requests, res, 4);
      expect(res.metrics.hitRate).toBeGreaterThan(0);
      expect(res.metrics.hitRate).toBeLessThanOrEqual(bound + 1e-12);
    });
  }

  it("the whole trace (12,031 requests) through one router on 8 replicas", () => {
    const all = blockTraceRequests(trace, { first: 0, count: trace.inputTokens.length }, 2) as ClusterRequest[];
    const res = simulateCluster({ requests: all, replicas: 8, router: "leastLoad", seed: 1, replicationSamples: 0 });
    conserved(all, res, 8);
    expect(res.metrics.hitRate).toBeLessThanOrEqual(infiniteCacheHitRate(trace, 0, all.length, Math.floor(all.length * 0.2)));
  }, 60_000);
});

describe("demo 06.4: every registered router on the real trace", () => {
  it("defaults: one row per load and router, every registered router present, claims judged", () => {
    const t = runDemo("06.4");
    const loads = t.params?.loads as number[];
    expect(loads.length).toBeGreaterThanOrEqual(3);
    const policies = replayPolicies();
    for (const p of ["roundRobin", "leastLoad", "prefixAffinity", "thresholdAffinity", "cacheAwareGuarded", "e2", "sglangRouter", "dynamoKvRouter", "gatewayPrefixScorer"]) expect(policies).toContain(p);
    expect(t.rows.length).toBe(loads.length * policies.length);
    for (const r of t.rows) {
      expect(r.hitRate as number).toBeLessThanOrEqual((r.bound as number) + 1e-12);
      expect(r.boundShare as number).toBeCloseTo((r.hitRate as number) / (r.bound as number), 12);
      expect(r.maxShare as number).toBeGreaterThanOrEqual(1 / 8 - 1e-12);
    }
    // the arrival rate follows the load level
    const rates = loads.map((load) => cell(t, { load, policy: "leastLoad" }, "rate"));
    for (let i = 1; i < rates.length; i++) expect(rates[i] / rates[0]).toBeCloseTo(loads[i] / loads[0], 9);
    expect(t.title).toMatch(/8 个副本/);
    expect(t.notes?.join(" ")).toMatch(/Kimi/);
    const declared = getDemo("06.4").claims ?? [];
    expect(declared.length).toBeGreaterThan(0);
    expect((t.claims ?? []).map((c) => c.id)).toEqual(declared.map((c) => c.id));
    for (const c of t.claims ?? []) expect(c.verdict, `${c.id}: ${c.ours} ${c.reason ?? ""}`).toBe("holds");
  }, 60_000);

  it("the title follows the parameters; the whole trace is a parameter away", () => {
    const t = runDemo("06.4", { minutes: 2, fromMinute: 5, replicas: 4, loads: [0.5], policies: ["leastLoad"] });
    expect(t.title).toMatch(/第 5–7 分钟/);
    expect(t.title).toMatch(/4 个副本/);
    const whole = runDemo("06.4", { minutes: 60, loads: [0.5], policies: ["leastLoad"] });
    expect(whole.title).toMatch(/整份 trace（12,031 个请求）/);
  }, 60_000);

  it("bad input names the parameter", () => {
    expect(() => runDemo("06.4", { loads: [0] })).toThrow(/loads\[0\]/);
    expect(() => runDemo("06.4", { minutes: 0 })).toThrow(/minutes/);
    expect(() => runDemo("06.4", { fromMinute: 70 })).toThrow(/fromMinute/);
    expect(() => runDemo("06.4", { policies: ["nope"] })).toThrow(/policies/);
    expect(() => runDemo("06.4", { gpu: "V100" })).toThrow(/gpu/);
    expect(() => runDemo("06.4", { replicas: 0 })).toThrow(/replicas/);
  });
});
