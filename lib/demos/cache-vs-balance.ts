// 代码 02: the cache–balance dilemma (§2.2–§2.5) on the cluster simulator — load-only vs cache-aware routing,
// the cluster's total cache, the affinity threshold, and a hot spot.
import { checkNonEmpty, checkNumber, ParameterError } from "../core/errors";
import type { Row, Table } from "../core/table";
import { kvCapacityTokens } from "../hardware/step-model";
import { ClusterResult, simulateCluster, warmupDescription } from "../cluster/simulate";
import { generateWorkload, Workload } from "../cluster/workloads";
import { defineDemo, DemoContext } from "./registry";
import { CLUSTER_COLUMNS, policyColumn } from "./columns";

/** The §2 setting: Preble's (Mistral-7B on A6000 replicas). */
export const SECTION2_MODEL = "MISTRAL_7B";
export const SECTION2_GPU = "A6000";

/** The three workloads of §2 with the rates that load 4 replicas about equally (the best load-only policy's
 * mean latency ≈ 2× a lone request's, as for long documents at the lecture's 1 req/s), and run lengths. */
export const SECTION2_WORKLOADS: ReadonlyArray<{ workload: string; rate: number; requestCount: number }> = [
  { workload: "longDocQA", rate: 1, requestCount: 1200 },
  { workload: "videoQA", rate: 3, requestCount: 2000 },
  { workload: "toolCalling", rate: 36, requestCount: 4000 },
];

export const LOAD_ONLY_POLICIES = ["random", "roundRobin", "leastLoad", "powerOfTwo"];

function checkAligned(name: string, values: readonly unknown[], workloads: readonly unknown[]): void {
  if (values.length !== workloads.length) throw new ParameterError(name, `needs one entry per workload (${workloads.length}), got ${values.length}`);
}

function policyLabel(policy: string): string {
  return policy;
}

function runOne(w: Workload, replicas: number, router: string, seed: number, extra: Record<string, unknown> = {}): ClusterResult {
  return simulateCluster({ workload: w, replicas, router, seed, model: SECTION2_MODEL, gpu: SECTION2_GPU, ...extra });
}

const capitalize = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
const fmtList = (xs: string[]): string => (xs.length ? xs.join(", ") : "none");

/** The §2 setting that 02.1 and 02.3 both run: 4 replicas, the three workloads at their rates and run lengths. */
function section2Defaults(): { replicas: number; workloads: string[]; rates: number[]; requestCounts: number[] } {
  return {
    replicas: 4,
    workloads: SECTION2_WORKLOADS.map((w) => w.workload),
    rates: SECTION2_WORKLOADS.map((w) => w.rate),
    requestCounts: SECTION2_WORKLOADS.map((w) => w.requestCount),
  };
}

const SECTION2_DESCRIBE = {
  replicas: "replicas (one GPU each)",
  workloads: "workload names (data/workloads.json)",
  rates: "requests per second, one per workload",
  requestCounts: "requests simulated per workload (the first 20% are warm-up)",
};

export const loadVsCache = defineDemo({
  id: "02.1",
  section: "§2.2",
  title: "Load-only vs cache-aware routing (4 replicas, Mistral-7B on A6000)",
  defaults: {
    ...section2Defaults(),
    policies: [...LOAD_ONLY_POLICIES, "prefixAffinity", "thresholdAffinity"],
    seed: 1,
  },
  describe: {
    ...SECTION2_DESCRIBE,
    policies: "router names",
    seed: "random seed",
  },
  run(p, ctx: DemoContext) {
    const workloads = checkNonEmpty("workloads", p.workloads) as string[];
    checkAligned("rates", p.rates, workloads);
    checkAligned("requestCounts", p.requestCounts, workloads);
    const policies = checkNonEmpty("policies", p.policies) as string[];
    const rows: Row[] = [];
    const notes: string[] = [];
    const overloaded: string[] = [];
    const ratios: string[] = [];
    for (let k = 0; k < workloads.length; k++) {
      const rate = checkNumber("rates[]", p.rates[k], { above: 0 });
      const w = generateWorkload(workloads[k], { rate, seed: p.seed, requestCount: p.requestCounts[k] });
      let bestLoadOnly: { policy: string; latency: number; slowdown: number } | null = null;
      let affinity: number | null = null;
      for (const policy of policies) {
        ctx.progress?.(`02.1: ${workloads[k]} at ${rate} req/s, ${policy}`);
        const res = runOne(w, p.replicas, policy, p.seed);
        const m = res.metrics;
        if (m.overloaded) overloaded.push(`${workloads[k]} / ${policy}`);
        rows.push({ workload: workloads[k], policy: policyLabel(policy), meanLatency: m.meanLatency, p99Latency: m.p99Latency, hitRate: m.hitRate, replication: m.replication, maxShare: m.maxShare });
        if (LOAD_ONLY_POLICIES.includes(policy) && (bestLoadOnly === null || m.meanLatency < bestLoadOnly.latency)) bestLoadOnly = { policy, latency: m.meanLatency, slowdown: m.slowdown };
        if (policy === "thresholdAffinity") affinity = m.meanLatency;
      }
      if (bestLoadOnly) notes.push(`${workloads[k]} at ${rate} req/s: the best load-only policy (${bestLoadOnly.policy}) takes ${bestLoadOnly.slowdown.toFixed(2)}× a lone request's time.`);
      if (bestLoadOnly && affinity !== null) ratios.push(`${workloads[k]} ${(bestLoadOnly.latency / affinity).toFixed(2)}×`);
    }
    if (ratios.length) notes.push(`Mean latency, best load-only ÷ thresholdAffinity(0.5): ${ratios.join(", ")}.`);
    notes.push("Rates: long documents at the lecture's 1 req/s; video QA and tool calling at rates where the best load-only policy is stretched about as much (≈ 2× a lone request's latency).");
    notes.push(`Overloaded (queues grow without bound: means depend on run length): ${fmtList(overloaded)}.`);
    notes.push("Replication = cached tokens summed over replicas ÷ distinct cached tokens (1.00: every piece of content lives on one replica only).");
    notes.push(`KV capacity ${kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU).toLocaleString("en-US")} tokens per replica; ${warmupDescription()}.`);
    const table: Table = { title: this.title, columns: COLUMNS_021, rows, notes };
    return table;
  },
});

const COLUMNS_021 = [
  CLUSTER_COLUMNS.workload,
  policyColumn(),
  CLUSTER_COLUMNS.meanLatency,
  CLUSTER_COLUMNS.p99Latency,
  CLUSTER_COLUMNS.hitRate,
  { key: "replication", label: "replication", unit: "×", format: "fixed2" as const },
  CLUSTER_COLUMNS.maxShare,
];

export const clusterCache = defineDemo({
  id: "02.2",
  section: "§2.4",
  title: "The cluster's total cache: hit rate vs replicas (long documents, rate scaled with replicas)",
  defaults: { workload: "longDocQA", replicas: [2, 4, 8], ratePerReplica: 0.25, requestsPerReplica: 300, policies: ["roundRobin", "thresholdAffinity"], seed: 1 },
  describe: {
    replicas: "cluster sizes",
    ratePerReplica: "requests per second per replica",
    requestsPerReplica: "requests simulated per replica (the first 20% are warm-up)",
    policies: "router names",
  },
  run(p, ctx: DemoContext) {
    const sizes = checkNonEmpty("replicas", p.replicas) as number[];
    const policies = checkNonEmpty("policies", p.policies) as string[];
    checkNumber("ratePerReplica", p.ratePerReplica, { above: 0 });
    const rows: Row[] = [];
    for (const n of sizes) {
      const rate = p.ratePerReplica * n;
      const w = generateWorkload(p.workload, { rate, seed: p.seed, requestCount: Math.round(p.requestsPerReplica * n) });
      for (const policy of policies) {
        ctx.progress?.(`02.2: ${n} replicas, ${policy}`);
        const res = runOne(w, n, policy, p.seed);
        const m = res.metrics;
        rows.push({ replicas: n, policy, hitRate: m.hitRate, meanLatency: m.meanLatency, distinctCachedDocs: m.distinctCachedKeys, replication: m.replication });
      }
    }
    return {
      title: this.title,
      columns: [
        { key: "replicas", label: "replicas", format: "int" },
        policyColumn(),
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.meanLatency,
        { key: "distinctCachedDocs", label: "distinct documents cached", unit: "documents", format: "fixed1" },
      ],
      rows: rows.map(({ replication: _r, ...rest }) => rest),
      notes: [
        `Rate = ${p.ratePerReplica} req/s per replica; ${p.requestsPerReplica} requests per replica. Distinct documents: documents held whole by at least one replica, averaged over snapshots.`,
        `Replication by run: ${rows.map((r) => `${r.replicas}×${r.policy} ${(r.replication as number).toFixed(2)}`).join(", ")}.`,
        `${capitalize(warmupDescription())}.`,
      ],
    };
  },
});

export const thresholdSweep = defineDemo({
  id: "02.3",
  section: "§2.3",
  title: "Affinity threshold θ: match / prompt ≥ θ → longest match, else least load (4 replicas)",
  defaults: {
    ...section2Defaults(),
    thresholds: [0.1, 0.25, 0.5, 0.75, 0.9],
    seed: 1,
  },
  describe: { ...SECTION2_DESCRIBE, thresholds: "values of θ in [0, 1]", seed: "random seed" },
  run(p, ctx: DemoContext) {
    const workloads = checkNonEmpty("workloads", p.workloads) as string[];
    checkAligned("rates", p.rates, workloads);
    checkAligned("requestCounts", p.requestCounts, workloads);
    const thresholds = checkNonEmpty("thresholds", p.thresholds) as number[];
    for (const t of thresholds) checkNumber("thresholds[]", t, { min: 0, max: 1 });
    const rows: Row[] = [];
    const overloaded: string[] = [];
    const herding: string[] = [];
    for (let k = 0; k < workloads.length; k++) {
      const w = generateWorkload(workloads[k], { rate: p.rates[k], seed: p.seed, requestCount: p.requestCounts[k] });
      for (const threshold of thresholds) {
        ctx.progress?.(`02.3: ${workloads[k]}, θ = ${threshold}`);
        const res = runOne(w, p.replicas, "thresholdAffinity", p.seed, { routerOptions: { threshold } });
        const m = res.metrics;
        if (m.overloaded) overloaded.push(`${workloads[k]} θ=${threshold}`);
        if (m.maxShare > 0.6) herding.push(`${workloads[k]} θ=${threshold} (${Math.round(m.maxShare * 100)}% on one replica)`);
        rows.push({ workload: workloads[k], threshold, meanLatency: m.meanLatency, hitRate: m.hitRate });
      }
    }
    return {
      title: this.title,
      columns: [
        CLUSTER_COLUMNS.workload,
        { key: "threshold", label: "θ", format: "fixed2" },
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.hitRate,
      ],
      rows,
      notes: [
        `Rates ${workloads.map((w, k) => `${w} ${p.rates[k]} req/s`).join(", ")}.`,
        `Herding (> 60% of requests on one replica): ${fmtList(herding)}.`,
        `Overloaded: ${fmtList(overloaded)}.`,
        `${capitalize(warmupDescription())}.`,
      ],
    };
  },
});

export const hotSpot = defineDemo({
  id: "02.4",
  section: "§2.5",
  title: "A hot spot: tool calling with the hottest tool ≈ 40% of traffic, 8 replicas",
  defaults: { workload: "toolCallingHotSpot", replicas: 8, rate: 70, requestCount: 8000, policies: ["roundRobin", "leastLoad", "powerOfTwo", "thresholdAffinity", "cacheAwareGuarded"], seed: 1 },
  describe: { rate: "requests per second", requestCount: "requests simulated (the first 20% are warm-up)" },
  run(p, ctx: DemoContext) {
    const policies = checkNonEmpty("policies", p.policies) as string[];
    const w = generateWorkload(p.workload, { rate: p.rate, seed: p.seed, requestCount: p.requestCount });
    const hot = w.requests.filter((r) => r.key === 0).length / w.requests.length;
    const rows: Row[] = [];
    const overloaded: string[] = [];
    const guard: string[] = [];
    for (const policy of policies) {
      ctx.progress?.(`02.4: ${policy}`);
      const res = runOne(w, p.replicas, policy, p.seed);
      const m = res.metrics;
      if (m.overloaded) overloaded.push(policy);
      if (typeof res.routerStats.guard === "number") guard.push(`${policy} sent ${((res.routerStats.guard as number) / w.requests.length * 100).toFixed(1)}% of requests by load`);
      rows.push({ policy, meanLatency: m.meanLatency, p99Latency: m.p99Latency, hitRate: m.hitRate, maxShare: m.maxShare });
    }
    return {
      title: this.title,
      columns: [
        policyColumn(),
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.maxShare,
      ],
      rows,
      notes: [
        `${p.rate} req/s on ${p.replicas} replicas; the hottest tool draws ${(hot * 100).toFixed(1)}% of requests (a fair share per replica is ${(100 / p.replicas).toFixed(1)}%).`,
        `cacheAwareGuarded: when max − min outstanding requests > 8 and max > 1.5 × min, the replica with the fewest; else thresholdAffinity(0.5). ${guard.join("; ")}.`,
        `Overloaded: ${fmtList(overloaded)}.`,
        `${capitalize(warmupDescription())}.`,
      ],
    };
  },
});

/** The demos of 代码 02, in order. */
export const cacheVsBalanceDemos = [loadVsCache, clusterCache, thresholdSweep, hotSpot];
