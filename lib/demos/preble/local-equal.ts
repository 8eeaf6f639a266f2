// 03.10 — Figure 3's comparison with the local policy held equal (§3.6): the paper's baseline runs longest-prefix-
// first on every replica while cacheAwareGuarded and E2 + rebalancing run FCFS, so 03.1's ratios mix routing with
// local queueing. Here every router runs under every local policy, on long documents 1/s and video QA 8/s.
import { checkEachOneOf, checkInteger, checkNumber } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { simulateConfigurations } from "../../cluster/preble/memo";
import { configurationRun } from "../../cluster/preble/runs";
import { Claim, f, needParam, needRows, times } from "../claims";
import { checkWorkloadRates, COLUMNS, OVERLOAD_NOTE, READING_LABEL, REPLICAS_DOC, requestsFor, SEED_DOC, WARMUP_NOTE } from "./common";
import { defineDemo } from "../registry";

/** The routers compared, by the configuration that carries each (its local policy is overridden). */
/** The lecture credits Preble's priority groups; 03.10 swaps in longest-prefix-first, which also serves cached requests first. */
const PRIORITY_AS_LPF = "讲义说的是优先级组，这里用 LPF 代替（讲义说两者几乎一样，见 03.5）";

const ROUTERS: Readonly<Record<string, string>> = { roundRobin: "baseline", cacheAwareGuarded: "cacheAwareGuarded", "e2+rebalance": "e2+rebalance" };
const LOCAL = ["fcfs", "lpf"];

/** The released reading of E2 + rebalancing (lib/cluster/preble/options.ts READINGS): migrate important nodes, the
 * released decode term and M. Round robin and cacheAwareGuarded are not Preble: both readings share their rows. */
const RELEASED_ROUTER = "e2+migrateReleased";
const RELEASED_OPTIONS = { rebalanceAction: "migrate", decodeEstimate: "released", evictionEstimate: "memoryFull" };
const EQUAL_READINGS = [
  { id: "lecture", label: READING_LABEL.lecture },
  { id: "released", label: READING_LABEL.released },
] as const;
type EqualReading = (typeof EQUAL_READINGS)[number];
/** The row name of a router under a reading. */
const routerIn = (r: EqualReading, router: string) => (r.id === "released" && router === "e2+rebalance" ? RELEASED_ROUTER : router);
const RELEASED_REMARK = "E2 + 再平衡另按开源代码的读法跑了一遍；轮转和简单规则不是 Preble，两种读法用同样的行";

/** One judgement per reading in `readings` (the lecture's first); `judge` gets the router-name mapping of its reading. */
function perEqualReading(p: EqualParams, judge: (name: (router: string) => string, r: EqualReading) => { holds: boolean; ours: string; remark?: string }) {
  const list = EQUAL_READINGS.filter((r) => p.readings.includes(r.id));
  needParam(list.length > 0, "需要参数 readings 里有 lecture 或 released");
  return list.map((r) => {
    const v = judge((router) => routerIn(r, router), r);
    return { reading: r.label, ...v, remark: r.id === "released" ? [v.remark, RELEASED_REMARK].filter(Boolean).join("；") : v.remark };
  });
}

type EqualParams = { readings: string[]; rates: Record<string, number>; routers: string[]; localPolicies: string[]; replicas: number; minRequests: number; minSeconds: number; seed: number | string };

const num = (x: unknown): number => x as number;
const mean = (t: Table, workload: string, router: string, local: string) => num(needRows(t, { workload, router, policy: local })[0].meanLatency);

function need(p: EqualParams, workloads: string[], routers: string[], locals: string[]): void {
  for (const w of workloads) needParam(p.rates[w] !== undefined, `需要负载 ${displayName(w)}（参数 rates）`);
  for (const r of routers) needParam(p.routers.includes(r), `需要路由器 ${displayName(r)}（参数 routers）`);
  for (const l of locals) needParam(p.localPolicies.includes(l), `需要副本内排队 ${displayName(l)}（参数 localPolicies）`);
}

const CLAIMS: Claim<EqualParams>[] = [
  {
    id: "routing-pays-at-equal-local",
    says: "副本内排队相同时，缓存感知的路由（E2 + 再平衡）仍比轮转快 1.2 倍以上：路由本身的收益，不是排队策略带来的",
    lecture: "长文档和视频问答收益最大",
    judge: (t, p) => {
      const workloads = Object.keys(p.rates);
      need(p, workloads, ["roundRobin", "e2+rebalance"], []);
      return perEqualReading(p, (name) => {
        const parts = workloads.flatMap((w) => p.localPolicies.map((l) => ({ w, l, g: mean(t, w, "roundRobin", l) / mean(t, w, name("e2+rebalance"), l) })));
        return { holds: parts.every((x) => x.g >= 1.2), ours: parts.map((x) => `${displayName(x.w)}、都用 ${displayName(x.l)}：${times(x.g)}`).join("；"), why: `${parts.filter((x) => x.g < 1.2).map((x) => `${displayName(x.w)}、都用 ${displayName(x.l)} 时只快 ${times(x.g)}`).join("；")}，不到 1.2 倍` };
      });
    },
  },
  {
    id: "local-queue-pays-at-equal-routing",
    says: "路由相同时，视频问答 8 请求/秒上最长前缀优先比 FCFS 快 1.3 倍以上（每个路由器下都是）：03.1 里 Preble 领先的一部分来自副本内排队",
    lecture: "很大一部分优势来自副本内的优先级排队（视频 8/s：90.0 → 20.6 秒）",
    judge: (t, p) => {
      need(p, ["videoQA"], [], ["fcfs", "lpf"]);
      return perEqualReading(p, (name) => {
        const parts = p.routers.map((r) => ({ r: name(r), g: mean(t, "videoQA", name(r), "fcfs") / mean(t, "videoQA", name(r), "lpf") }));
        return { holds: parts.every((x) => x.g >= 1.3), ours: parts.map((x) => `${displayName(x.r)}：FCFS ÷ LPF = ${times(x.g)}`).join("；"), remark: PRIORITY_AS_LPF, why: `${parts.filter((x) => x.g < 1.3).map((x) => `${displayName(x.r)}下只快 ${times(x.g)}`).join("；")}，不到 1.3 倍` };
      });
    },
  },
  {
    id: "simple-not-worse-at-equal-local",
    says: "副本内排队相同时，简单的“缓存感知 + 负载保护”在长文档 1 请求/秒上仍不输 E2 + 再平衡（差距在 5% 以内也算）",
    lecture: "3.88 对 5.35 秒",
    judge: (t, p) => {
      need(p, ["longDocQA"], ["cacheAwareGuarded", "e2+rebalance"], []);
      return perEqualReading(p, (name) => {
        const parts = p.localPolicies.map((l) => ({ l, a: mean(t, "longDocQA", "cacheAwareGuarded", l), b: mean(t, "longDocQA", name("e2+rebalance"), l) }));
        return { holds: parts.every((x) => x.a <= 1.05 * x.b), ours: parts.map((x) => `都用 ${displayName(x.l)}：${f(x.a)} 对 ${f(x.b)} 秒`).join("；"), why: parts.filter((x) => x.a > 1.05 * x.b).map((x) => `都用 ${displayName(x.l)} 时简单规则慢 ${f((x.a / x.b - 1) * 100, 0)}%`).join("；") };
      });
    },
  },
  {
    id: "top-load-gap-is-local",
    says: "视频问答 8 请求/秒上，FCFS 时 E2 + 再平衡远胜简单规则（快 1.5 倍以上），两边都用最长前缀优先时差距不到 20%：高负载下 Preble 的领先多半来自副本内排队，不是路由",
    lecture: "很大一部分优势来自副本内的优先级排队，而不是路由",
    judge: (t, p) => {
      need(p, ["videoQA"], ["cacheAwareGuarded", "e2+rebalance"], ["fcfs", "lpf"]);
      return perEqualReading(p, (name) => {
        const g = (l: string) => mean(t, "videoQA", "cacheAwareGuarded", l) / mean(t, "videoQA", name("e2+rebalance"), l);
        return {
          holds: g("fcfs") >= 1.5 && g("lpf") < 1.2,
          ours: `简单规则 ÷ E2 + 再平衡：都用 FCFS ${times(g("fcfs"))}，都用 LPF ${times(g("lpf"))}`,
          why: [g("fcfs") >= 1.5 ? "" : `都用 FCFS 时 E2 + 再平衡只快 ${times(g("fcfs"))}，不到 1.5 倍`, g("lpf") < 1.2 ? "" : `都用 LPF 时差距仍有 ${times(g("lpf"))}，不比 1.2 倍小`].filter(Boolean).join("；"),
        };
      });
    },
  },
  {
    id: "figure3-ratio-mixes",
    says: "03.1 的比值（基线用 LPF、E2 + 再平衡用 FCFS）和排队相同时的比值不同：混在一起比，会把副本内排队的差别算到路由头上",
    judge: (t, p) => {
      const workloads = Object.keys(p.rates);
      need(p, workloads, ["roundRobin", "e2+rebalance"], ["fcfs", "lpf"]);
      return perEqualReading(p, (name) => {
        const parts = workloads.map((w) => ({ w, mixed: mean(t, w, "roundRobin", "lpf") / mean(t, w, name("e2+rebalance"), "fcfs"), equal: mean(t, w, "roundRobin", "lpf") / mean(t, w, name("e2+rebalance"), "lpf") }));
        return {
          holds: parts.some((x) => Math.abs(x.mixed / x.equal - 1) > 0.1),
          ours: parts.map((x) => `${displayName(x.w)}：03.1 的比法 ${times(x.mixed)}，都用 LPF ${times(x.equal)}`).join("；"),
          remark: `${parts.filter((x) => Math.abs(x.mixed / x.equal - 1) > 0.1).map((x) => `${displayName(x.w)}上${x.mixed < x.equal ? "低估" : "高估"}了路由的收益`).join("，") || "两种比法相差都不到 10%"}；基线过载的格子里两个比值都随模拟时长变化`,
        };
      });
    },
  },
];

export const localEqualDemo = defineDemo<EqualParams>({
  id: "03.10",
  section: "§3.6",
  title: "副本内排队相同时再比路由：路由器 × 副本内排队",
  // Size: 03.1's run sizes (≥ 200 s, ≥ 1,000 requests), one seed: the cells are 03.1's cells with the local policy swapped.
  defaults: { readings: ["lecture", "released"], rates: { longDocQA: 1, videoQA: 8 }, routers: ["roundRobin", "cacheAwareGuarded", "e2+rebalance"], localPolicies: ["fcfs", "lpf"], replicas: 4, minRequests: 1000, minSeconds: 200, seed: 1 },
  describe: {
    readings: { meaning: "按哪几种读法下结论：lecture（讲义：E2 + 再平衡改派请求，讲义的 decode 项和 M）、released（开源代码：E2 + 再平衡另按开源代码跑一遍：迁移重要节点、在途请求 × 实测 TPOT、显存总是满的 M）；讲义的各行总是跑", range: "非空数组，每项为 lecture、released 之一" },
    rates: { meaning: "负载和请求率（请求/秒）", range: "对象 { 负载名: 请求率 }，请求率 > 0" },
    routers: { meaning: "比较的路由器", range: `非空数组，每项为 ${Object.keys(ROUTERS).join("、")} 之一` },
    localPolicies: { meaning: "每个路由器下试的副本内排队策略", range: `非空数组，每项为 ${LOCAL.join("、")} 之一` },
    replicas: REPLICAS_DOC,
    minRequests: { meaning: "每次模拟至少多少个请求", range: "≥ 100 的整数" },
    minSeconds: { meaning: "每次模拟至少覆盖多少秒的到达（与 03.1 相同时，两个演示共用同样的模拟）", range: "≥ 0 的数" },
    seed: SEED_DOC,
  },
  run(p, { progress }) {
    const rates = checkWorkloadRates("rates", p.rates);
    const routers = checkEachOneOf("routers", p.routers, Object.keys(ROUTERS));
    const locals = checkEachOneOf("localPolicies", p.localPolicies, LOCAL);
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 30 });
    const minRequests = checkInteger("minRequests", p.minRequests, { min: 100 });
    const minSeconds = checkNumber("minSeconds", p.minSeconds, { min: 0 });
    const released = checkEachOneOf("readings", p.readings, ["lecture", "released"]).includes("released") && routers.includes("e2+rebalance");
    const rowRouters = released ? [...routers, RELEASED_ROUTER] : routers;
    const cells = rates.flatMap(([workload, rate]) => rowRouters.flatMap((router) => locals.map((local) => ({ workload, rate, router, local }))));
    const results = simulateConfigurations(
      cells.map((c) =>
        c.router === RELEASED_ROUTER
          ? configurationRun({ workload: c.workload, rate: c.rate, replicas, configuration: "e2+rebalance", routerOptions: RELEASED_OPTIONS, localPolicy: c.local, requestCount: requestsFor(c.rate, minRequests, minSeconds), seed: p.seed })
          : configurationRun({ workload: c.workload, rate: c.rate, replicas, configuration: ROUTERS[c.router], localPolicy: c.local, requestCount: requestsFor(c.rate, minRequests, minSeconds), seed: p.seed }),
      ),
      (done, total) => progress?.(`03.10：已完成 ${done}/${total} 次模拟`),
    );
    const rows: Row[] = cells.map((c, i) => {
      const m = results[i].metrics;
      return { workload: c.workload, rate: c.rate, router: c.router, policy: c.local, meanLatency: m.meanLatency, p99Latency: m.p99Latency, overloaded: m.overloaded, hitRate: m.hitRate };
    });
    return {
      title: `路由器 × 副本内排队：${rates.map(([w, r]) => `${displayName(w)} ${r} 请求/秒`).join("、")}，${replicas} 个副本`,
      columns: [COLUMNS.workload, COLUMNS.rate, { key: "router", label: "路由器", format: "name" }, COLUMNS.localPolicy, COLUMNS.meanLatency, COLUMNS.p99Latency, COLUMNS.overloaded, COLUMNS.hitRate],
      rows,
      notes: [
        `轮转 + 最长前缀优先就是 03.1 的基线，缓存感知 + 负载保护 + FCFS、E2 + 再平衡 + FCFS 就是 03.1 的同名配置（参数相同时共用同一次模拟）；其余组合把副本内的排队换成另一种。每次模拟 max(${minRequests}, 请求率 × ${minSeconds} 秒) 个请求，种子 ${String(p.seed)}。`,
        WARMUP_NOTE,
        OVERLOAD_NOTE,
      ],
    };
  },
  claims: CLAIMS,
});
