// The router arena (路由器擂台, notebook 06): compareRouters runs routers written on the page — `{ name,
// route(request, view) }` objects, or functions returning one — beside the built-in ones (round robin, cache-aware
// + guard, full Preble, today's SGLang router) on the lecture's §2 workloads and on the Mooncake trace, and returns
// one Table (a row per workload × router) with claims: does your router beat cache-aware + guard, workload by
// workload. A router that throws, answers something that is not a replica index or runs past its time budget stops
// the whole comparison with one Chinese line (RouterError): no partial table.
//
// Sizes: the arena is something to play with, so one cell at the defaults must finish within ~5 s on a 2-core
// machine with five routers (yours and the four built-in) on four workloads = 20 runs, ≈ 0.2 s a run. A §2 run at
// 02.1's full length (1,200 / 2,000 / 4,000 requests) takes 0.1–0.35 s per router here and full Preble is the
// slowest, so the arena runs half of 02.1's lengths (600 / 1,000 / 2,000 requests at the same rates, so the same
// load) and the first 4 minutes of the Mooncake trace (as notebook 06's 06.4 cell): each workload still gives
// ≥ 480 measured decisions per router after the 20% warm-up. Pass `requestCounts` for 02.1's full lengths.
import { checkInteger, checkKnownKeys, checkNonEmpty, checkNumber, checkOneOf, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { runTimed, withTimeBudget } from "../../cluster/router-guard";
import type { Router, RouterContext, RouterFactory } from "../../cluster/routers";
import { ClusterOptions, simulateCluster } from "../../cluster/simulate";
import { ClusterRequest, generateWorkload } from "../../cluster/workloads";
import { resolveGpu, resolveModel } from "../../hardware/specs";
import { StepModel } from "../../hardware/step-model";
import { blockTraceRequests, loadMooncakeConversation, traceWindow } from "../../traces/mooncake-conversation";
import { SECTION2_GPU, SECTION2_MODEL, SECTION2_WORKLOADS } from "../cache-balance/section2";
import { Claim, evaluateClaims, f, needRow, pct } from "../claims";
import { CLUSTER_COLUMNS } from "../columns";
import { resolvePolicy } from "./common";
import { windowDemand } from "./trace-replay";

/** The built-in routers every arena run includes: load only, §2.5's rule, Preble as the paper describes it (E2,
 * rebalancing, autoscaling, pairing, priority groups) and the SGLang router as released today. */
export const ARENA_BASELINES = ["roundRobin", "cacheAwareGuarded", "preble", "sglangRouter"];
export const ARENA_WORKLOADS = ["longDocQA", "videoQA", "toolCalling", "mooncakeTrace"];
/** Half of 02.1's run lengths (see the file's head for why). */
export const ARENA_REQUEST_COUNTS: Readonly<Record<string, number>> = { longDocQA: 600, videoQA: 1000, toolCalling: 2000 };
/** The Mooncake window: its first 4 minutes, scaled to load 0.7 on 8 replicas (06.4's setting, notebook 06's window). */
export const ARENA_MOONCAKE = { minutes: 4, load: 0.7, replicas: 8 };
const SECTION2_REPLICAS = 4;

export interface CompareRoutersOptions {
  /** which of ARENA_WORKLOADS to run (default all four) */
  workloads?: string[];
  /** the seed of the synthetic workloads and of every router's randomness (default 1) */
  seed?: number;
  /** per synthetic workload, the requests to simulate (default ARENA_REQUEST_COUNTS) */
  requestCounts?: Record<string, number>;
  /** the built-in routers to run beside yours (default ARENA_BASELINES; [] for none) */
  baselines?: string[];
  /** seconds one of your routers may spend deciding in one run, in total (default 2) */
  timeBudgetSeconds?: number;
}

/** A router for the arena: a built-in name (a registered router or a configuration such as "preble"), a `{ name,
 * route }` object (kept for all runs: state it keeps carries over), or a function returning one (called per run). */
export type ArenaRouter = string | Router | ((context: RouterContext) => Router);

interface Entry {
  name: string;
  builtIn: boolean;
  spec: string | Router | RouterFactory;
}

function checkEntries(routers: unknown, baselines: readonly string[]): Entry[] {
  const given = checkNonEmpty("routers", routers as unknown[]).map((r, i): Entry => {
    if (typeof r === "string") {
      resolvePolicy(r, `routers[${i}]`);
      return { name: r, builtIn: true, spec: r };
    }
    if (typeof r === "function") return { name: r.name || `router${i}`, builtIn: false, spec: r as RouterFactory };
    const o = r as Partial<Router> | null;
    if (o === null || typeof o !== "object" || typeof o.route !== "function" || typeof o.name !== "string" || o.name === "") {
      throw new ParameterError(`routers[${i}]`, "应为路由器的名字、{ name, route(request, view) } 对象（name 是非空字符串，route 是函数）或返回这种对象的函数");
    }
    return { name: o.name, builtIn: false, spec: o as Router };
  });
  const entries = [...given];
  for (const b of baselines) if (!entries.some((e) => e.name === b)) entries.push({ name: b, builtIn: true, spec: b });
  checkDistinct(entries);
  return entries;
}

/** Rows are named by router: two of one name would share a row. */
function checkDistinct(entries: readonly Entry[]): void {
  const seen = new Set<string>();
  for (const e of entries) {
    if (seen.has(e.name)) throw new ParameterError("routers", `有两个路由器都叫 ${JSON.stringify(e.name)}；表按名字分行，请给它们不同的 name`);
    seen.add(e.name);
  }
}

/** The run's router options: a built-in by name; yours on FCFS replicas, timed. */
function routerOptions(e: Entry, budget: number, made: { router: ReturnType<typeof withTimeBudget> | null }): Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy"> {
  if (typeof e.spec === "string") return resolvePolicy(e.spec, "routers");
  const spec = e.spec;
  const factory: RouterFactory = (ctx, options) => (made.router = withTimeBudget(typeof spec === "function" ? spec(ctx, options) : spec, budget));
  return { router: factory, routerOptions: {}, localPolicy: "fcfs" };
}

/** The requests and replicas of one arena workload. */
function workloadRun(workload: string, seed: number, counts: Record<string, number>): { requests: readonly ClusterRequest[]; replicas: number } {
  if (workload === "mooncakeTrace") {
    const trace = loadMooncakeConversation();
    const window = traceWindow(trace, 0, ARENA_MOONCAKE.minutes);
    const demand = windowDemand(trace, window, new StepModel(resolveModel(SECTION2_MODEL), resolveGpu(SECTION2_GPU)), 512);
    const rate = (ARENA_MOONCAKE.load * ARENA_MOONCAKE.replicas) / demand.prefillSeconds;
    return { requests: blockTraceRequests(trace, window, demand.rate / rate) as ClusterRequest[], replicas: ARENA_MOONCAKE.replicas };
  }
  const setting = SECTION2_WORKLOADS.find((w) => w.workload === workload) as { rate: number };
  return { requests: generateWorkload(workload, { rate: setting.rate, seed, requestCount: counts[workload] }).requests, replicas: SECTION2_REPLICAS };
}

function checkOptions(options: CompareRoutersOptions): { workloads: string[]; seed: number; counts: Record<string, number>; baselines: string[]; budget: number } {
  checkKnownKeys("compareRouters ", options as Record<string, unknown>, ["workloads", "seed", "requestCounts", "baselines", "timeBudgetSeconds"]);
  const workloads = checkNonEmpty("workloads", options.workloads ?? ARENA_WORKLOADS).map((w, i) => checkOneOf(`workloads[${i}]`, w, ARENA_WORKLOADS));
  const seed = checkInteger("seed", options.seed ?? 1, { min: 0 });
  const counts: Record<string, number> = { ...ARENA_REQUEST_COUNTS };
  for (const [w, n] of Object.entries(options.requestCounts ?? {})) counts[checkOneOf("requestCounts", w, Object.keys(ARENA_REQUEST_COUNTS))] = checkInteger(`requestCounts.${w}`, n, { min: 10, max: 200000 });
  const baselines = (options.baselines ?? ARENA_BASELINES).map((b, i) => (resolvePolicy(b, `baselines[${i}]`), b));
  const budget = checkNumber("timeBudgetSeconds", options.timeBudgetSeconds ?? 2, { above: 0 });
  return { workloads, seed, counts, baselines, budget };
}

/** Runs every router on every workload (in that order: a failing router stops everything before a table exists). */
export function compareRouters(routers: readonly ArenaRouter[], options: CompareRoutersOptions = {}): Table {
  const o = checkOptions(options);
  const entries = checkEntries(routers, o.baselines);
  const rows: Row[] = [];
  for (const workload of o.workloads) {
    const { requests, replicas } = workloadRun(workload, o.seed, o.counts);
    for (const e of entries) {
      const made: { router: ReturnType<typeof withTimeBudget> | null } = { router: null };
      const options = { requests, replicas, seed: o.seed, model: SECTION2_MODEL, gpu: SECTION2_GPU, replicationSamples: 0, ...routerOptions(e, o.budget, made) };
      // A router that never returns is stopped by the watchdog (a little past its budget, the run's own work included).
      const res = typeof e.spec === "string" ? simulateCluster(options) : runTimed(2 * o.budget + 10, () => made.router, () => simulateCluster(options));
      if (typeof e.spec === "function") e.name = res.routerName; // a function's row: the name of the router it made
      const m = res.metrics;
      rows.push({ workload, policy: e.name, yours: !e.builtIn, meanLatency: m.meanLatency, p99Latency: m.p99Latency, hitRate: m.hitRate, maxShare: m.maxShare, overloaded: m.overloaded });
    }
    checkDistinct(entries);
  }
  const table: Table = {
    title: `路由器擂台：${entries.filter((e) => !e.builtIn).map((e) => displayName(e.name)).join("、") || "（没有你的路由器）"} 对 ${entries.filter((e) => e.builtIn).map((e) => displayName(e.name)).join("、")}，种子 ${o.seed}`,
    columns: [
      { key: "workload", label: "负载", format: "name" },
      { key: "policy", label: "路由器", format: "name" },
      CLUSTER_COLUMNS.meanLatency,
      CLUSTER_COLUMNS.p99Latency,
      CLUSTER_COLUMNS.hitRate,
      CLUSTER_COLUMNS.maxShare,
      CLUSTER_COLUMNS.overloaded,
    ],
    rows,
    notes: arenaNotes(o),
  };
  const params = { workloads: o.workloads, seed: o.seed };
  // the claims measure yours against cache-aware + guard (§2.5's rule): none when it did not run
  const yours = entries.some((e) => e.name === "cacheAwareGuarded") ? entries.filter((e) => !e.builtIn).map((e) => e.name) : [];
  return { ...table, params, claims: evaluateClaims(arenaClaims(yours, o.workloads), table, params) };
}

function arenaNotes(o: { workloads: string[]; counts: Record<string, number> }): string[] {
  const synthetic = o.workloads.filter((w) => w !== "mooncakeTrace").map((w) => {
    const s = SECTION2_WORKLOADS.find((x) => x.workload === w) as { rate: number };
    return `${displayName(w)} ${s.rate} 请求/秒、${o.counts[w]} 个请求`;
  });
  return [
    `设定同第 2 节（演示 02.1）：${SECTION2_REPLICAS} 个副本（Mistral-7B / A6000），${synthetic.join("，")}（02.1 的一半长度，让这一格几秒内跑完）。${o.workloads.includes("mooncakeTrace") ? `Mooncake：trace 的前 ${ARENA_MOONCAKE.minutes} 分钟，${ARENA_MOONCAKE.replicas} 个副本，到达时刻缩放到目标利用率 ρ = ${ARENA_MOONCAKE.load}（同演示 06.4）。` : ""}`,
    "你的路由器下副本都用先来先服务；完整 Preble 带它自己的本地优先级组。前 20% 的请求用来预热，不计入统计。",
    "你的路由器若是一个对象，所有运行共用它（它记的状态会带到下一次运行）；要每次从头开始，传一个返回路由器的函数。",
  ];
}

/** Why your router's mean latency is not below cache-aware + guard's: by how much, and the hit rates and overload
 * that go with it (the reader's first clue). */
function arenaWhy(mine: Row, guard: Row): string {
  const a = mine.meanLatency as number;
  const b = guard.meanLatency as number;
  const by = a === b ? "与它相同" : `高 ${f((100 * (a - b)) / b, 0)}%`;
  const hits = `命中率 ${pct(mine.hitRate as number, 1)} 对 ${pct(guard.hitRate as number, 1)}${(mine.hitRate as number) < (guard.hitRate as number) ? "，你的更低" : ""}`;
  return `你的平均延迟 ${f(a, 2)} 秒，比缓存感知 + 负载保护的 ${f(b, 2)} 秒${by}；${hits}${mine.overloaded === true ? "；你的路由器过载了" : ""}`;
}

/** Per router of yours and workload: does it beat cache-aware + guard on mean latency? */
function arenaClaims(yours: readonly string[], workloads: readonly string[]): Claim<Record<string, unknown>>[] {
  const claims: Claim<Record<string, unknown>>[] = [];
  for (const name of yours) {
    for (const w of workloads) {
      claims.push({
        id: `beats-guard:${name}:${w}`,
        says: `你的路由器（${displayName(name)}）在${displayName(w)}上的平均延迟低于缓存感知 + 负载保护`,
        judge: (t) => {
          const mine = needRow(t, { workload: w, policy: name });
          const guard = needRow(t, { workload: w, policy: "cacheAwareGuarded" });
          const a = mine.meanLatency as number;
          const b = guard.meanLatency as number;
          return { holds: a < b, ours: `${f(a, 2)} 秒 对 ${f(b, 2)} 秒（命中率 ${pct(mine.hitRate as number, 1)} 对 ${pct(guard.hitRate as number, 1)}）${mine.overloaded === true ? "；你的路由器过载" : ""}`, why: arenaWhy(mine, guard) };
        },
      });
    }
  }
  return claims;
}
