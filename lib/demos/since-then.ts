// 代码 06 (§6, exercise 8): production cache-aware routers next to ours on the §2/§3 workloads — the SGLang
// router (approximate tree), NVIDIA Dynamo's KV router (index from KV events) and the Kubernetes inference
// gateway's prefix scorer — plus what an approximate tree gets wrong when a replica restarts, and whether the
// SGLang router's "death spiral" shows up on our workloads.
import { checkInteger, checkNonEmpty, checkNumber, ParameterError } from "../core/errors";
import { mean } from "../core/stats";
import type { Row, Table } from "../core/table";
import { CLUSTER_CONFIGURATIONS, configurationOptions } from "../cluster/preble-configs";
import "../cluster/routers-production/index";
import { SGLANG_ROUTER_DEFAULTS } from "../cluster/routers-production/sglang";
import { routerNames } from "../cluster/routers";
import { ClusterOptions, ClusterResult, simulateCluster } from "../cluster/simulate";
import { generateWorkload, Workload } from "../cluster/workloads";
import { kvCapacityTokens } from "../hardware/step-model";
import { SECTION2_GPU, SECTION2_MODEL, SECTION2_WORKLOADS, hotSpot } from "./cache-vs-balance";
import { defineDemo, DemoContext } from "./registry";
import { CLUSTER_COLUMNS, policyColumn } from "./columns";

/** The three workloads of §6's comparison: long documents and video QA as in 02.1 (4 replicas), tool calling with
 * a hot tool as in 02.4 / 03.3 (8 replicas). */
export const SINCE_THEN_WORKLOADS: ReadonlyArray<{ workload: string; replicas: number; rate: number; requestCount: number }> = [
  { ...(SECTION2_WORKLOADS.find((w) => w.workload === "longDocQA") as { workload: string; rate: number; requestCount: number }), replicas: 4 },
  { ...(SECTION2_WORKLOADS.find((w) => w.workload === "videoQA") as { workload: string; rate: number; requestCount: number }), replicas: 4 },
  { workload: hotSpot.defaults.workload, replicas: hotSpot.defaults.replicas, rate: hotSpot.defaults.rate, requestCount: hotSpot.defaults.requestCount },
];

/** Our routers (§2, §3) and the production ones (§6), in table order. */
export const OUR_POLICIES = ["roundRobin", "leastLoad", "thresholdAffinity", "cacheAwareGuarded"];
export const PREBLE_POLICIES = ["e2+rebalance", "preble"];
export const PRODUCTION_POLICIES = ["sglangRouter", "sglangRouterLate2025", "dynamoKvRouter", "gatewayPrefixScorer"];

/** Which family a policy belongs to (for prose and chart colours). */
export function policyFamily(policy: string): "ours" | "Preble" | "production" {
  if (PRODUCTION_POLICIES.includes(policy)) return "production";
  if (PREBLE_POLICIES.includes(policy) || (policy in CLUSTER_CONFIGURATIONS && CLUSTER_CONFIGURATIONS[policy].router === "preble")) return "Preble";
  return "ours";
}

/** Router and local policy of a policy name: a Preble configuration (which carries its own local policy: FCFS for
 * e2+rebalance, priority groups for full Preble), else a registered router on FCFS replicas. */
export function resolvePolicy(policy: string): Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy"> {
  const cfg = CLUSTER_CONFIGURATIONS[policy];
  if (cfg !== undefined && cfg.router === "preble") return configurationOptions(policy);
  if (routerNames().includes(policy)) return { router: policy, routerOptions: {}, localPolicy: "fcfs" };
  if (cfg !== undefined) return configurationOptions(policy);
  throw new ParameterError("policies", `unknown policy ${JSON.stringify(policy)}; routers: ${routerNames().join(", ")}; configurations: ${Object.keys(CLUSTER_CONFIGURATIONS).join(", ")}`);
}

function run(w: Workload, replicas: number, policy: string, seed: number, extra: Partial<ClusterOptions> = {}): ClusterResult {
  return simulateCluster({ workload: w, replicas, seed, model: SECTION2_MODEL, gpu: SECTION2_GPU, replicationSamples: 0, ...resolvePolicy(policy), ...extra });
}

function aligned(name: string, values: readonly unknown[], n: number): void {
  if (values.length !== n) throw new ParameterError(name, `needs one entry per workload (${n}), got ${values.length}`);
}

const WARMUP = "Warm-up: caches start empty and the first 20% of requests by arrival are left out of the metrics";
const fmtList = (xs: string[]): string => (xs.length ? xs.join(", ") : "none");
const pct = (x: number): string => `${(x * 100).toFixed(0)}%`;

export const productionRouters = defineDemo({
  id: "06.1",
  section: "§6",
  title: "Our routers, Preble and production routers on the §2/§3 workloads (Mistral-7B on A6000 replicas)",
  defaults: {
    workloads: SINCE_THEN_WORKLOADS.map((w) => w.workload),
    replicas: SINCE_THEN_WORKLOADS.map((w) => w.replicas),
    rates: SINCE_THEN_WORKLOADS.map((w) => w.rate),
    requestCounts: SINCE_THEN_WORKLOADS.map((w) => w.requestCount),
    policies: [...OUR_POLICIES, ...PREBLE_POLICIES, ...PRODUCTION_POLICIES],
    notificationDelay: 0.1,
    seed: 1,
  },
  describe: {
    workloads: "workload names (data/workloads.json)",
    replicas: "replicas per workload",
    rates: "requests per second, one per workload",
    requestCounts: "requests simulated per workload (the first 20% are warm-up)",
    policies: "router names, or Preble configurations (e2+rebalance, preble)",
    notificationDelay: "seconds before the replicas' KV store / evict events reach the router (Dynamo, Preble)",
    seed: "random seed",
  },
  run(p, ctx: DemoContext) {
    const workloads = checkNonEmpty("workloads", p.workloads) as string[];
    aligned("replicas", p.replicas, workloads.length);
    aligned("rates", p.rates, workloads.length);
    aligned("requestCounts", p.requestCounts, workloads.length);
    const policies = checkNonEmpty("policies", p.policies) as string[];
    for (const policy of policies) resolvePolicy(policy);
    const delay = checkNumber("notificationDelay", p.notificationDelay, { min: 0 });
    const rows: Row[] = [];
    const overloaded: string[] = [];
    const settings: string[] = [];
    const sglang: string[] = [];
    for (let k = 0; k < workloads.length; k++) {
      const replicas = checkInteger("replicas[]", p.replicas[k], { min: 1 });
      const rate = checkNumber("rates[]", p.rates[k], { above: 0 });
      const count = checkInteger("requestCounts[]", p.requestCounts[k], { min: 10 });
      const w = generateWorkload(workloads[k], { rate, seed: p.seed, requestCount: count });
      settings.push(`${workloads[k]} ${rate} req/s on ${replicas} replicas, ${count} requests (≈ ${Math.round(w.requests[w.requests.length - 1].arrival)} s of arrivals)`);
      for (const policy of policies) {
        ctx.progress?.(`06.1: ${workloads[k]}, ${policy}`);
        const res = run(w, replicas, policy, p.seed, { notificationDelay: delay });
        const m = res.metrics;
        if (m.overloaded) overloaded.push(`${workloads[k]} / ${policy}`);
        const s = res.routerStats;
        if (typeof s.imbalanced === "number") {
          const total = (s.imbalanced as number) + (s.hit as number) + (s.miss as number);
          sglang.push(`${workloads[k]} / ${policy}: imbalanced ${pct((s.imbalanced as number) / total)}, hit ${pct((s.hit as number) / total)}, miss ${pct((s.miss as number) / total)} of decisions; ${pct((s.staleHits as number) / Math.max(1, s.hit as number))} of its tree hits found under half the matched prefix really there`);
        }
        rows.push({ workload: workloads[k], policy, meanLatency: m.meanLatency, p99Latency: m.p99Latency, hitRate: m.hitRate, maxShare: m.maxShare });
      }
    }
    return {
      title: this.title,
      columns: [
        CLUSTER_COLUMNS.workload,
        policyColumn(),
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.maxShare,
      ],
      rows,
      notes: [
        `Runs: ${settings.join("; ")}.`,
        "Every router runs on FCFS replicas except the Preble configurations: e2+rebalance (FCFS) and preble (E2 + rebalancing + autoscaling + pairing, with priority groups on the replicas).",
        `KV store / evict events reach the routers that use them (Dynamo's index, Preble's global tree) ${delay} s after the replica acted; the SGLang router and the gateway index only what they routed.`,
        `SGLang router at its CLI defaults: cache threshold ${SGLANG_ROUTER_DEFAULTS.cacheThreshold}, imbalance when max − min in-flight > ${SGLANG_ROUTER_DEFAULTS.balanceAbs} and max > ${SGLANG_ROUTER_DEFAULTS.balanceRel} × min, eviction every ${SGLANG_ROUTER_DEFAULTS.evictionInterval} s to 2^26 characters ≈ ${SGLANG_ROUTER_DEFAULTS.maxTreeTokens.toLocaleString("en-US")} tokens per worker (4 characters per token; ${(SGLANG_ROUTER_DEFAULTS.maxTreeTokens / kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU)).toFixed(0)}× a replica's KV capacity, so its tree never forgets within these runs).`,
        ...(sglang.length ? [`SGLang decisions: ${sglang.join("; ")}.`] : []),
        `Overloaded (queues grow without bound: numbers depend on run length): ${fmtList(overloaded)}.`,
        `Max share = largest fraction of measured requests on one replica. ${WARMUP}.`,
      ],
    } as Table;
  },
});

/** Windows (seconds relative to the restart) of 06.2. */
export const RESTART_WINDOWS: ReadonlyArray<readonly [number, number]> = [
  [-120, 0],
  [0, 30],
  [30, 90],
  [90, 210],
];

function windowLabel([a, b]: readonly [number, number]): string {
  return a < 0 ? `${-a} s before` : `${a}–${b} s after`;
}

interface WindowStats {
  requests: number;
  hitRate: number;
  meanLatency: number;
  restartedShare: number;
  restartedHitRate: number;
}

function windowStats(res: ClusterResult, from: number, to: number, replica: number): WindowStats {
  const rs = res.records.filter((r) => r.arrival >= from && r.arrival < to);
  let prompt = 0;
  let cached = 0;
  let prompt0 = 0;
  let cached0 = 0;
  let on0 = 0;
  for (const r of rs) {
    prompt += r.promptTokens;
    cached += r.cachedTokens;
    if (r.replica === replica) {
      on0++;
      prompt0 += r.promptTokens;
      cached0 += r.cachedTokens;
    }
  }
  return { requests: rs.length, hitRate: prompt ? cached / prompt : NaN, meanLatency: rs.length ? mean(rs.map((r) => r.latency)) : NaN, restartedShare: rs.length ? on0 / rs.length : NaN, restartedHitRate: prompt0 ? cached0 / prompt0 : NaN };
}

export const restartIllustration = defineDemo({
  id: "06.2",
  section: "§9 exercise 8",
  title: "A replica restarts: an approximate tree keeps routing to the lost cache, a KV-event index does not",
  defaults: {
    workload: "videoQA",
    replicas: 4,
    rate: 3,
    requestCount: 2400,
    restartReplica: 0,
    restartTime: 400,
    policies: ["sglangRouter", "gatewayPrefixScorer", "dynamoKvRouter"],
    notificationDelay: 0.1,
    seeds: [1, 2, 3],
  },
  describe: {
    restartReplica: "the replica whose prefix cache is flushed",
    restartTime: "seconds after the start",
    seeds: "seeds averaged (each seed runs with and without the restart on the same arrivals)",
  },
  run(p, ctx: DemoContext) {
    const replicas = checkInteger("replicas", p.replicas, { min: 2 });
    const restartReplica = checkInteger("restartReplica", p.restartReplica, { min: 0, max: replicas - 1 });
    const restartTime = checkNumber("restartTime", p.restartTime, { above: 0 });
    const policies = checkNonEmpty("policies", p.policies) as string[];
    for (const policy of policies) resolvePolicy(policy);
    const seeds = checkNonEmpty("seeds", p.seeds) as number[];
    const delay = checkNumber("notificationDelay", p.notificationDelay, { min: 0 });
    const rows: Row[] = [];
    const workloads = seeds.map((seed) => generateWorkload(p.workload, { rate: p.rate, seed, requestCount: p.requestCount }));
    const lastArrival = Math.min(...workloads.map((w) => w.requests[w.requests.length - 1].arrival));
    const lastWindowEnd = RESTART_WINDOWS[RESTART_WINDOWS.length - 1][1];
    if (restartTime + lastWindowEnd > lastArrival) throw new ParameterError("restartTime", `leaves the last window (to ${lastWindowEnd} s after the restart) past the last arrival (${lastArrival.toFixed(0)} s); use a restart time ≤ ${Math.floor(lastArrival - lastWindowEnd)} s or more requests`);
    if (restartTime + RESTART_WINDOWS[0][0] < 0) throw new ParameterError("restartTime", `must be ≥ ${-RESTART_WINDOWS[0][0]} s so that the first window lies after the start`);
    for (const policy of policies) {
      const acc = RESTART_WINDOWS.map(() => ({ with: [] as WindowStats[], without: [] as WindowStats[] }));
      for (let si = 0; si < seeds.length; si++) {
        const seed = seeds[si];
        const w = workloads[si];
        for (const restart of [false, true]) {
          ctx.progress?.(`06.2: ${policy}, seed ${seed}${restart ? ", restart" : ""}`);
          const res = run(w, replicas, policy, seed, { notificationDelay: delay, restarts: restart ? [{ replica: restartReplica, time: restartTime }] : [] });
          RESTART_WINDOWS.forEach(([a, b], i) => (restart ? acc[i].with : acc[i].without).push(windowStats(res, restartTime + a, restartTime + b, restartReplica)));
        }
      }
      RESTART_WINDOWS.forEach((win, i) => {
        const avg = (xs: WindowStats[], key: keyof WindowStats): number => mean(xs.map((x) => x[key]).filter((v) => Number.isFinite(v)));
        rows.push({
          policy,
          window: windowLabel(win),
          windowStart: win[0],
          hitRate: avg(acc[i].with, "hitRate"),
          baselineHitRate: avg(acc[i].without, "hitRate"),
          meanLatency: avg(acc[i].with, "meanLatency"),
          baselineLatency: avg(acc[i].without, "meanLatency"),
          restartedShare: avg(acc[i].with, "restartedShare"),
          restartedHitRate: avg(acc[i].with, "restartedHitRate"),
        });
      });
    }
    return {
      title: this.title,
      columns: [
        policyColumn(),
        { key: "window", label: "arrivals", format: "text" },
        { key: "windowStart", label: "window start", unit: "s after the restart", format: "int" },
        CLUSTER_COLUMNS.hitRate,
        { key: "baselineHitRate", label: "hit rate, no restart", format: "fixed3" },
        CLUSTER_COLUMNS.meanLatency,
        { key: "baselineLatency", label: "mean latency, no restart", unit: "s", format: "fixed2" },
        { key: "restartedShare", label: "share sent to the restarted replica", format: "percent0" },
        { key: "restartedHitRate", label: "hit rate there", format: "fixed3" },
      ],
      rows,
      notes: [
        `${p.workload} at ${p.rate} req/s on ${replicas} replicas, ${p.requestCount} requests per run; replica ${restartReplica} restarts at ${restartTime} s: its prefix cache is flushed (prefixes locked by running requests stay until they finish).`,
        `Each seed (${seeds.join(", ")}) runs twice on the same arrivals, with and without the restart; every number is the mean over seeds of the window's requests (by arrival time).`,
        `The SGLang router and the gateway learn nothing from the restart (their indexes hold what they routed); Dynamo's index receives the flush as KV-removed events ${delay} s later.`,
        "Every router runs on FCFS replicas.",
      ],
    } as Table;
  },
});

export const deathSpiral = defineDemo({
  id: "06.3",
  section: "§6",
  title: "Does the SGLang router's \"death spiral\" appear? Misses to the smallest tree vs to the least loaded worker",
  defaults: {
    workload: "longDocQA",
    replicas: 4,
    rates: [1, 1.25, 1.5],
    requestCount: 1200,
    policies: ["sglangRouter", "sglangRouterLate2025", "cacheAwareGuarded"],
    seed: 1,
  },
  describe: { rates: "requests per second", policies: "router names" },
  run(p, ctx: DemoContext) {
    const rates = checkNonEmpty("rates", p.rates) as number[];
    const policies = checkNonEmpty("policies", p.policies) as string[];
    for (const policy of policies) resolvePolicy(policy);
    const rows: Row[] = [];
    for (const rate of rates) {
      checkNumber("rates[]", rate, { above: 0 });
      const w = generateWorkload(p.workload, { rate, seed: p.seed, requestCount: p.requestCount });
      for (const policy of policies) {
        ctx.progress?.(`06.3: ${rate} req/s, ${policy}`);
        const res = run(w, p.replicas, policy, p.seed);
        const m = res.metrics;
        const s = res.routerStats;
        const misses = typeof s.miss === "number" ? (s.miss as number) : NaN;
        const decisions = typeof s.miss === "number" ? (s.imbalanced as number) + (s.hit as number) + misses : NaN;
        rows.push({
          rate,
          policy,
          meanLatency: m.meanLatency,
          p99Latency: m.p99Latency,
          hitRate: m.hitRate,
          missShare: misses / decisions,
          missesToBusiest: misses > 0 ? (s.missesToBusiest as number) / misses : NaN,
          missesToBusiestByChance: misses > 0 ? (s.missesToBusiestByChance as number) / misses : NaN,
          overloaded: m.overloaded ? "yes" : "no",
        });
      }
    }
    return {
      title: this.title,
      columns: [
        { key: "rate", label: "rate", unit: "req/s", format: "fixed2" },
        policyColumn(),
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        CLUSTER_COLUMNS.hitRate,
        { key: "missShare", label: "misses", unit: "of decisions", format: "percent0" },
        { key: "missesToBusiest", label: "misses sent to the busiest worker", format: "percent0" },
        { key: "missesToBusiestByChance", label: "… by a random choice", format: "percent0" },
        CLUSTER_COLUMNS.overloaded,
      ],
      rows,
      notes: [
        `${p.workload} on ${p.replicas} replicas, ${p.requestCount} requests per run, FCFS replicas.`,
        "A miss = match rate ≤ the cache threshold (0.3) while the load is balanced. \"Busiest\" = a worker with the most in-flight requests while another has fewer; \"by a random choice\" = the share a uniformly random worker would have scored on the same misses. The reported spiral: misses keep landing on an overloaded worker because its tree is small, which overloads it further.",
        `${WARMUP}.`,
      ],
    } as Table;
  },
});

/** The demos of 代码 06, in order. */
export const sinceThenDemos = [productionRouters, restartIllustration, deathSpiral];
