// 代码 06 演示 2 (§9 exercise 8): a replica restarts and its prefix cache is flushed. The approximate indexes (SGLang
// router, gateway) never hear of it; Dynamo's index gets the KV-removed events. Each seed runs twice on the same
// arrivals, with and without the restart; even bins of arrival time around the restart compare the two runs.
import { checkInteger, checkNonEmpty, checkNumber, ParameterError } from "../../core/errors";
import { displayName, displayNames } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import type { ClusterResult } from "../../cluster/simulate";
import { generateWorkload, WORKLOAD_NAMES } from "../../cluster/workloads";
import { Claim, f, needParam, needRows, pct } from "../claims";
import { CLUSTER_COLUMNS } from "../columns";
import { defineDemo, DemoContext } from "../registry";
import { checkPolicies, policyNameColumn, runPolicy } from "./common";

interface BinStats {
  requests: number;
  hitRate: number;
  meanLatency: number;
  restartedShare: number;
  restartedHitRate: number;
}

function binStats(res: ClusterResult, from: number, to: number, replica: number): BinStats {
  let n = 0;
  let prompt = 0;
  let cached = 0;
  let latency = 0;
  let on = 0;
  let promptOn = 0;
  let cachedOn = 0;
  for (const r of res.records) {
    if (r.arrival < from || r.arrival >= to) continue;
    n++;
    prompt += r.promptTokens;
    cached += r.cachedTokens;
    latency += r.latency;
    if (r.replica === replica) {
      on++;
      promptOn += r.promptTokens;
      cachedOn += r.cachedTokens;
    }
  }
  return { requests: n, hitRate: prompt ? cached / prompt : NaN, meanLatency: n ? latency / n : NaN, restartedShare: n ? on / n : NaN, restartedHitRate: promptOn ? cachedOn / promptOn : NaN };
}

const finite = (xs: number[]): number[] => xs.filter((x) => Number.isFinite(x));
const avg = (xs: number[]): number => (finite(xs).length ? finite(xs).reduce((a, b) => a + b, 0) / finite(xs).length : NaN);

export interface RestartParams extends Record<string, unknown> {
  workload: string;
  replicas: number;
  rate: number;
  requestCount: number;
  restartReplica: number;
  restartTime: number;
  binSeconds: number;
  secondsBefore: number;
  secondsAfter: number;
  policies: string[];
  notificationDelay: number;
  seeds: number[];
}

/** Rows of one policy, in bin order. */
function policyRows(t: Table, policy: string): Row[] {
  return needRows(t, { policy }).slice().sort((a, b) => (a.binStart as number) - (b.binStart as number));
}

const before = (rows: Row[]): Row[] => rows.filter((r) => (r.binStart as number) < 0);

function firstAfter(t: Table, policy: string): Row {
  const r = policyRows(t, policy).find((x) => x.binStart === 0);
  needParam(r !== undefined, "需要从重启时刻开始的那一格");
  return r as Row;
}

function approximatePolicies(t: Table): string[] {
  const ran = new Set(t.rows.map((r) => String(r.policy)));
  const ps = ["sglangRouter", "sglangRouterLate2025", "sglangRouterSmallestTree", "gatewayPrefixScorer"].filter((p) => ran.has(p));
  needParam(ps.length > 0, "需要至少一个只凭派发记录的路由器（SGLang 路由器或网关）");
  return ps;
}

const claims: Claim<RestartParams>[] = [
  {
    id: "approximate-indexes-keep-sending",
    says: "只凭派发记录的索引（SGLang 路由器、网关）在重启后照旧把请求派给那个副本：它们以为那里还缓存着这些视频",
    lecture: "练习 8 (a)(b)：工作进程重启后缓存清空，近似树却一点不知道，误派会反复发生",
    judge: (t) => {
      const ps = approximatePolicies(t);
      const parts = ps.map((p) => {
        const b = avg(before(policyRows(t, p)).map((r) => r.restartedShare as number));
        const a = firstAfter(t, p).restartedShare as number;
        return { p, b, a, keeps: a >= 0.75 * b };
      });
      needParam(parts.every((x) => Number.isFinite(x.b)), "需要重启前的格子");
      return { holds: parts.every((x) => x.keeps), ours: parts.map((x) => `${displayName(x.p)}：派给它的份额 ${pct(x.b)}（重启前）→ ${pct(x.a)}（重启后头一格）`).join("；") };
    },
  },
  {
    id: "hits-vanish-there",
    says: "重启后的头一格里，派到那个副本的请求命中率大跌：请求到了那里只能从头 prefill",
    judge: (t) => {
      const ps = [...new Set(t.rows.map((r) => String(r.policy)))];
      const parts = ps.map((p) => {
        const b = avg(before(policyRows(t, p)).map((r) => r.restartedHitRate as number));
        const a = firstAfter(t, p).restartedHitRate as number;
        return { p, b, a };
      });
      return { holds: parts.every((x) => x.a < 0.75 * x.b), ours: parts.map((x) => `${displayName(x.p)} ${pct(x.b, 1)} → ${pct(x.a, 1)}`).join("；") };
    },
  },
  {
    id: "dynamo-steers-away",
    says: "Dynamo 收到 KV 删除事件，在它眼里那个副本什么都没有了：重启后派去的份额下降，要重算的视频按负载分到各个副本",
    lecture: "练习 8 (c)：工作进程上报 KV 块的存储 / 删除事件，路由器的索引直接反映真实状态",
    judge: (t) => {
      const rows = policyRows(t, "dynamoKvRouter");
      const b = avg(before(rows).map((r) => r.restartedShare as number));
      const a = firstAfter(t, "dynamoKvRouter").restartedShare as number;
      return { holds: a < b, ours: `派给它的份额 ${pct(b)} → ${pct(a)}` };
    },
  },
  {
    id: "approximate-indexes-pay",
    says: "代价落在只凭派发记录的路由器上：重启后的头一格里，它们下的平均延迟明显高于不重启的同一段到达，Dynamo 的增量小得多",
    judge: (t, p) => {
      const ps = approximatePolicies(t);
      const approx = ps.map((x) => firstAfter(t, x));
      const dyn = firstAfter(t, "dynamoKvRouter");
      const minApprox = Math.min(...approx.map((r) => r.latencyDelta as number));
      const relOk = approx.every((r) => (r.latencyDelta as number) > 0.2 * (r.baselineLatency as number));
      return {
        holds: relOk && (dyn.latencyDelta as number) < 0.5 * minApprox,
        ours: [...approx, dyn].map((r) => `${displayName(r.policy)} ${(r.latencyDelta as number) >= 0 ? "+" : ""}${f(r.latencyDelta as number)} 秒（不重启 ${f(r.baselineLatency as number)} 秒；各种子 ${f(r.deltaLow as number)} 到 ${f(r.deltaHigh as number)}）`).join("；"),
        seeds: { agree: Math.min(...approx.map((r) => r.seedsWorse as number)), total: p.seeds.length },
      };
    },
  },
  {
    id: "damage-heals",
    says: "在我们的模型里这种错会自己愈合：被派回去的视频算一遍就又进了缓存，重启两分钟以后，有没有重启平均延迟差不到一成",
    judge: (t) => {
      const ps = [...new Set(t.rows.map((r) => String(r.policy)))];
      const parts = ps.map((x) => {
        const late = policyRows(t, x).filter((r) => (r.binStart as number) >= 120);
        needParam(late.length > 0, "需要重启 120 秒以后的格子（secondsAfter ≥ 150）");
        const withR = avg(late.map((r) => r.meanLatency as number));
        const without = avg(late.map((r) => r.baselineLatency as number));
        return { x, rel: withR / without - 1 };
      });
      return { holds: parts.every((q) => Math.abs(q.rel) < 0.1), ours: `重启 120 秒以后各格的平均延迟，有重启比无重启：${parts.map((q) => `${displayName(q.x)} ${q.rel >= 0 ? "+" : "−"}${pct(Math.abs(q.rel), 1)}`).join("；")}` };
    },
  },
];

export const restartIllustration = defineDemo<RestartParams>({
  id: "06.2",
  section: "§9 练习 8",
  title: "一个副本重启：近似树照旧往空了的缓存里派，KV 事件的索引不会",
  // Size: 2,100 video requests at 3/s (≈ 12 minutes: 2 minutes before the restart, 3.5 after in 30 s bins), 3 seeds: damage-heals compares the bins after the restart on seed means.
  defaults: {
    workload: "videoQA",
    replicas: 4,
    rate: 3,
    requestCount: 2100,
    restartReplica: 0,
    restartTime: 400,
    binSeconds: 30,
    secondsBefore: 120,
    secondsAfter: 210,
    policies: ["sglangRouter", "gatewayPrefixScorer", "dynamoKvRouter"],
    notificationDelay: 0.1,
    seeds: [1, 2, 3],
  },
  describe: {
    workload: { meaning: "负载的名字（data/workloads.json）", range: `${WORKLOAD_NAMES.join("、")} 之一` },
    replicas: { meaning: "副本数", range: "2–31 的整数" },
    rate: { meaning: "请求率（请求/秒）", range: "> 0 的数" },
    requestCount: { meaning: "每次运行模拟的请求数", range: "≥ 10 的整数，到达要盖过重启后的最后一格" },
    restartReplica: { meaning: "重启（清空前缀缓存）的副本编号", range: "0 到 replicas − 1 的整数" },
    restartTime: { meaning: "重启的时刻（秒）", range: "≥ secondsBefore 的数，重启后 secondsAfter 秒内还要有到达" },
    binSeconds: { meaning: "按到达时间分格的宽度（秒）", range: "> 0 的数，能整除 secondsBefore 和 secondsAfter 最好" },
    secondsBefore: { meaning: "比较的范围从重启前多少秒开始", range: "≥ binSeconds 的数" },
    secondsAfter: { meaning: "比较的范围到重启后多少秒为止", range: "≥ binSeconds 的数" },
    policies: { meaning: "比较的路由策略", range: "非空数组；名字见 routerNames()" },
    notificationDelay: { meaning: "KV 事件晚多少秒到达 Dynamo 的索引", range: "≥ 0 的数（秒）" },
    seeds: { meaning: "取平均的种子（每个种子在同样的到达上各跑一遍有、无重启）", range: "非空的整数数组" },
  },
  run(p, ctx: DemoContext) {
    const replicas = checkInteger("replicas", p.replicas, { min: 2, max: 31 });
    const restartReplica = checkInteger("restartReplica", p.restartReplica, { min: 0, max: replicas - 1 });
    const restartTime = checkNumber("restartTime", p.restartTime, { above: 0 });
    const bin = checkNumber("binSeconds", p.binSeconds, { above: 0 });
    const secondsBefore = checkNumber("secondsBefore", p.secondsBefore, { min: bin });
    const secondsAfter = checkNumber("secondsAfter", p.secondsAfter, { min: bin });
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const count = checkInteger("requestCount", p.requestCount, { min: 10 });
    const policies = checkPolicies("policies", p.policies);
    const seeds = checkNonEmpty("seeds", p.seeds).map((s, i) => checkInteger(`seeds[${i}]`, s));
    const delay = checkNumber("notificationDelay", p.notificationDelay, { min: 0 });
    if (restartTime < secondsBefore) throw new ParameterError("restartTime", `应 ≥ secondsBefore（${secondsBefore} 秒），第一格才落在开始之后；实际是 ${restartTime}`);
    const workloads = seeds.map((seed) => generateWorkload(p.workload, { rate, seed, requestCount: count }));
    const lastArrival = Math.min(...workloads.map((w) => w.requests[w.requests.length - 1].arrival));
    if (restartTime + secondsAfter > lastArrival) throw new ParameterError("restartTime", `重启后 ${secondsAfter} 秒已超过最后一个到达（${lastArrival.toFixed(0)} 秒）；请把重启时刻设在 ${Math.floor(lastArrival - secondsAfter)} 秒以内，或增加 requestCount`);
    const starts: number[] = [];
    for (let a = -secondsBefore; a < secondsAfter - 1e-9; a += bin) starts.push(Math.round(a * 1000) / 1000);
    const rows: Row[] = [];
    for (const policy of policies) {
      const acc = starts.map(() => ({ with: [] as BinStats[], without: [] as BinStats[] }));
      for (let si = 0; si < seeds.length; si++) {
        for (const restart of [false, true]) {
          ctx.progress?.(`06.2：${displayName(policy)}，种子 ${seeds[si]}${restart ? "，重启" : ""}`);
          const bins = runPolicy(workloads[si], replicas, policy, seeds[si], { notificationDelay: delay, restarts: restart ? [{ replica: restartReplica, time: restartTime }] : [] }, (res) =>
            starts.map((a) => binStats(res, restartTime + a, restartTime + Math.min(a + bin, secondsAfter), restartReplica)),
          );
          starts.forEach((_, i) => (restart ? acc[i].with : acc[i].without).push(bins[i]));
        }
      }
      starts.forEach((a, i) => {
        const deltas = acc[i].with.map((x, k) => x.meanLatency - acc[i].without[k].meanLatency);
        rows.push({
          policy,
          binStart: a,
          requests: avg(acc[i].with.map((x) => x.requests)),
          meanLatency: avg(acc[i].with.map((x) => x.meanLatency)),
          baselineLatency: avg(acc[i].without.map((x) => x.meanLatency)),
          latencyDelta: avg(deltas),
          deltaLow: Math.min(...finite(deltas)),
          deltaHigh: Math.max(...finite(deltas)),
          seedsWorse: deltas.filter((d) => d > 0).length,
          hitRate: avg(acc[i].with.map((x) => x.hitRate)),
          baselineHitRate: avg(acc[i].without.map((x) => x.hitRate)),
          restartedShare: avg(acc[i].with.map((x) => x.restartedShare)),
          baselineRestartedShare: avg(acc[i].without.map((x) => x.restartedShare)),
          restartedHitRate: avg(acc[i].with.map((x) => x.restartedHitRate)),
        });
      });
    }
    return {
      title: `副本 ${restartReplica} 在第 ${restartTime} 秒重启：${displayName(p.workload)}、${rate} 请求/秒、${replicas} 个副本，按到达时间每 ${bin} 秒一格（${seeds.length} 个种子的平均）`,
      columns: [
        policyNameColumn(),
        { key: "binStart", label: "格的起点（相对重启）", unit: "秒", format: "int" },
        { key: "requests", label: "格里的请求", unit: "个", format: "fixed0" },
        { ...CLUSTER_COLUMNS.meanLatency, label: "平均延迟（有重启）" },
        { key: "baselineLatency", label: "平均延迟（无重启）", unit: "秒", format: "fixed2" },
        { key: "latencyDelta", label: "延迟增量", unit: "秒", format: "fixed2" },
        { key: "deltaLow", label: "增量·种子最小", unit: "秒", format: "fixed2" },
        { key: "deltaHigh", label: "增量·种子最大", unit: "秒", format: "fixed2" },
        { key: "hitRate", label: "命中率（有重启）", format: "percent1" },
        { key: "baselineHitRate", label: "命中率（无重启）", format: "percent1" },
        { key: "restartedShare", label: "派给重启副本的份额", format: "percent0" },
        { key: "baselineRestartedShare", label: "同一副本·无重启", format: "percent0" },
        { key: "restartedHitRate", label: "那里的命中率", format: "percent1" },
      ],
      rows,
      notes: [
        `${displayName(p.workload)}、${rate} 请求/秒、${replicas} 个副本，每次运行 ${count} 个请求；副本 ${restartReplica} 在第 ${restartTime} 秒重启：前缀缓存清空（正在运行的请求锁住的前缀留到它们结束）。`,
        `每个种子（${seeds.join("、")}）在同样的到达上跑两遍，有、无重启；每格的数字是该格到达的请求在 ${seeds.length} 个种子上的平均，“增量·种子最小 / 最大”是各种子增量的范围。路由策略：${displayNames(policies)}。`,
        `SGLang 路由器和网关从重启里什么也学不到（它们的索引只记派过什么）；Dynamo 的索引在 ${delay} 秒后收到清空产生的 KV 删除事件。所有路由器下的副本都用先来先服务。`,
      ],
    } as Table;
  },
  claims,
});

