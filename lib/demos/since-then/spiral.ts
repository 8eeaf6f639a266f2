// 代码 06 演示 3: the SGLang router's "death spiral" built as its reports describe it (sgl-project/sglang PRs #14305
// and #14532, December 2025): a worker busy with unique, heavy requests — long decodes whose short prompts hardly grow
// the router's tree — has the smallest tree, so the pre-December-2025 rule "a miss goes to the smallest tree" sends it
// every new miss while the workers holding shared prompts stay idle. We run that mix (long decodes + a few shared
// system prompts whose unique questions grow the other trees), with a finite tree cap and the CLI default, on ≥ 3
// seeds, beside the later releases (a miss to the least loaded) and Dynamo, whose index reads KV events (delay swept).
import { checkInteger, checkNonEmpty, checkNumber } from "../../core/errors";
import { displayName, displayNames } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { poissonProcess } from "../../core/arrivals";
import { mixedWorkload } from "../../cluster/mix";
import { SGLANG_ROUTER_DEFAULTS } from "../../cluster/routers-production/sglang";
import type { ClusterResult } from "../../cluster/simulate";
import type { Workload } from "../../cluster/workloads";
import { Claim, f, need, needParam, pct, times } from "../claims";
import { CLUSTER_COLUMNS } from "../columns";
import { defineDemo, DemoContext } from "../registry";
import { checkPolicies, policyNameColumn, runPolicy } from "./common";

/** An imbalance threshold no run of this demo reaches: the guard switched off. */
const NO_GUARD = 1_000_000_000;

/** spiral-costs: "明显高" = the long decodes' mean latency over today's release above this ratio. */
const CLEARLY_SLOWER = 1.05;

/** mixedWorkload numbers part k's segments from k × 10^8: part 0 (the long decodes) has the ids below. */
const PART_STRIDE = 100_000_000;

export interface SpiralParams extends Record<string, unknown> {
  replicas: number;
  rate: number;
  longDecodeShare: number;
  longDecodeOutputTokens: number;
  sharedPrefixes: number;
  requestCount: number;
  treeCapTokens: number[];
  eventDelays: number[];
  policies: string[];
  seeds: number[];
}

/** The reported mix: unique prompts of ≈ 100 tokens with long outputs, and `shared` apps — a 2,000-token system
 * prompt, 20 tools, a unique 400-token question, short outputs — each app its own prefix. */
function spiralWorkload(p: { rate: number; longDecodeShare: number; longDecodeOutputTokens: number; sharedPrefixes: number; requestCount: number }, seed: number): Workload {
  const out = p.longDecodeOutputTokens;
  const apps = Array.from({ length: p.sharedPrefixes }, () => ({
    workload: "toolCalling",
    share: (1 - p.longDecodeShare) / p.sharedPrefixes,
    overrides: { systemPromptTokens: 2000, items: 20, questionTokensMean: 400, outputTokensMean: 40 },
  }));
  return mixedWorkload({
    parts: [
      { workload: "toolCalling", share: p.longDecodeShare, overrides: { systemPromptTokens: 0, items: 100000, itemTokensMean: 50, itemTokensMin: 10, itemTokensMax: 1000, popularityZipf: 0.01, questionTokensMean: 50, outputTokensMean: out, outputTokensCv: 0.3, outputTokensMax: 4 * out } },
      ...apps,
    ],
    requestCount: p.requestCount,
    arrivals: poissonProcess(p.rate),
    seed,
  });
}

interface RunStats {
  longDecodeLatency: number;
  p99Latency: number;
  meanLatency: number;
  longDecodeOnBusiest: number;
  missesToBusiest: number;
  missesByChance: number;
  imbalancedShare: number;
  /** leaves the approximate tree evicted to stay under its cap (NaN for routers without one) */
  treeEvictions: number;
  overloaded: boolean;
}

function runStats(res: ClusterResult, replicas: number): RunStats {
  const heavy = res.records.filter((r) => r.measured && r.request.keySegment < PART_STRIDE);
  const per = new Array(replicas).fill(0);
  for (const r of heavy) per[r.replica]++;
  const s = res.routerStats;
  const misses = typeof s.miss === "number" ? (s.miss as number) : NaN;
  const decisions = typeof s.miss === "number" ? (s.imbalanced as number) + (s.hit as number) + misses : NaN;
  return {
    longDecodeLatency: heavy.length ? heavy.reduce((a, r) => a + r.latency, 0) / heavy.length : NaN,
    p99Latency: res.metrics.p99Latency,
    meanLatency: res.metrics.meanLatency,
    longDecodeOnBusiest: heavy.length ? Math.max(...per) / heavy.length : NaN,
    missesToBusiest: misses > 0 ? (s.missesToBusiest as number) / misses : NaN,
    missesByChance: misses > 0 ? (s.missesToBusiestByChance as number) / misses : NaN,
    imbalancedShare: decisions > 0 ? (s.imbalanced as number) / decisions : NaN,
    treeEvictions: typeof s.treeEvictions === "number" ? (s.treeEvictions as number) : NaN,
    overloaded: res.metrics.overloaded,
  };
}

const avg = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const isSglang = (p: string): boolean => p.startsWith("sglangRouter");

function rowOf(t: Table, policy: string, cap: number | null, delay: number | null, guardOff = false): Row {
  const row = t.rows.find((r) => r.policy === policy && (r.guardOff === true) === guardOff && (cap === null || r.treeCapTokens === cap) && (delay === null || r.eventDelay === delay));
  needParam(row !== undefined || !guardOff, `需要早期版 SGLang 路由器关掉不均衡保护的那一行（policies 里有 sglangRouterSmallestTree 时自动跑）`);
  needParam(row !== undefined, `需要 ${displayName(policy)}${cap !== null ? `、树的上限 ${cap} token` : ""}${delay !== null ? `、事件延迟 ${delay} 秒` : ""} 的行`);
  return row as Row;
}

const spiralOn = (r: Row): boolean => (r.missesToBusiest as number) >= 2 * (r.missesByChance as number);

const claims: Claim<SpiralParams>[] = [
  {
    id: "spiral-appears",
    says: "未命中派给“树最小”的工作进程时，螺旋如报告所说出现：别的工作进程的树被共享前缀的请求撑大，长 decode 的请求几乎全落到同一个、已经最忙的工作进程上",
    lecture: "sglang#14305、#14532：未命中的新请求全部派给已经过载的工作进程，空闲的却因为树大而接不到",
    judge: (t, p) => {
      const r = rowOf(t, "sglangRouterSmallestTree", p.treeCapTokens[0], null);
      const toBusiest = r.missesToBusiest as number;
      const chance = r.missesByChance as number;
      const piled = r.longDecodeOnBusiest as number;
      return {
        holds: spiralOn(r) && piled > 1.5 / p.replicas,
        ours: `${pct(toBusiest)} 的未命中落到最忙的工作进程（随便选一个是 ${pct(chance)}），长 decode 请求的 ${pct(piled)} 在同一个副本上（公平份额 ${pct(1 / p.replicas)}）`,
        remark: `螺旋 = 未命中落到最忙者的比例至少是随便选一个的 2 倍，且长 decode 在一个副本上的份额超过公平份额的 1.5 倍（${pct(1.5 / p.replicas)}）`,
        seeds: { agree: r.seedsSpiral as number, total: p.seeds.length },
        why: [
          spiralOn(r) ? "" : `未命中落到最忙者的比例 ${pct(toBusiest)} 只是随便选一个（${pct(chance)}）的 ${f(toBusiest / chance, 1)} 倍，不到 2 倍`,
          piled > 1.5 / p.replicas ? "" : `长 decode 请求在一个副本上最多 ${pct(piled)}，没有超过公平份额的 1.5 倍（${pct(1.5 / p.replicas)}）`,
        ].filter(Boolean).join("；") + `：这组参数下（${p.sharedPrefixes} 个共享前缀、长 decode 占 ${pct(p.longDecodeShare)}）最小的树并不总在最忙的工作进程上`,
      };
    },
  },
  {
    id: "guard-bounds-it",
    says: "把螺旋挡住的是不均衡保护：在途请求的差超过 64 时改派最闲的——所以结果是变慢，而不是压垮",
    judge: (t, p) => {
      const r = rowOf(t, "sglangRouterSmallestTree", p.treeCapTokens[0], null);
      needParam(spiralOn(r), `这组参数下螺旋没有出现（未命中落到最忙者 ${pct(r.missesToBusiest as number)}，随便选一个 ${pct(r.missesByChance as number)}），没有要挡的东西`);
      const off = rowOf(t, "sglangRouterSmallestTree", p.treeCapTokens[0], null, true);
      const guarded = r.longDecodeLatency as number;
      const unguarded = off.longDecodeLatency as number;
      const acted = (r.imbalancedShare as number) > 0.02;
      const crushed = (off.overloadedSeeds as number) > 0 || unguarded > 1.5 * guarded;
      const safe = r.overloadedSeeds === 0;
      return {
        holds: acted && safe && crushed,
        ours: `有保护：${pct(r.imbalancedShare as number)} 的决定判为不均衡，${r.overloadedSeeds} 个种子过载，长 decode ${f(guarded, 1)} 秒；关掉保护：${off.overloadedSeeds} 个种子过载，长 decode ${f(unguarded, 1)} 秒（${times(unguarded / guarded)}）`,
        remark: "“压垮” = 关掉保护后有种子过载，或长 decode 的延迟超过有保护时的 1.5 倍",
        why: [
          acted ? "" : `保护只在 ${pct(r.imbalancedShare as number)} 的决定里触发`,
          safe ? "" : `有保护时仍有 ${r.overloadedSeeds} 个种子过载`,
          crushed ? "" : `关掉保护也没有压垮：没有种子过载，长 decode 只慢到 ${times(unguarded / guarded)}`,
        ].filter(Boolean).join("；"),
      };
    },
  },
  {
    id: "spiral-costs",
    says: "螺旋的代价：长 decode 请求的平均延迟，按树大小派发比今天的版本明显高（高 5% 以上）",
    judge: (t, p) => {
      const r = rowOf(t, "sglangRouterSmallestTree", p.treeCapTokens[0], null);
      needParam(Number.isFinite(r.vsToday as number), "需要同一组种子、同一上限下 sglangRouter 的运行");
      const ratio = r.vsToday as number;
      return {
        holds: ratio > CLEARLY_SLOWER,
        ours: `${times(ratio)}（${p.seeds.length} 个种子的平均，范围 ${f(r.vsTodayLow as number)}–${f(r.vsTodayHigh as number)}）：${f(r.longDecodeLatency as number, 1)} 对 ${f(need(t, { policy: "sglangRouter", treeCapTokens: p.treeCapTokens[0] }, "longDecodeLatency"), 1)} 秒`,
        seeds: { agree: r.seedsSlower as number, total: p.seeds.length },
        remark: (r.vsTodayHigh as number) - (r.vsTodayLow as number) > 0.5 ? "种子之间相差较大" : undefined,
        why: `按树大小派发的长 decode 只${ratio >= 1 ? "慢" : "快"} ${f(Math.abs(ratio - 1) * 100, 0)}%${spiralOn(r) ? "" : "：螺旋没有出现（上一条），也就没有代价"}`,
      };
    },
  },
  {
    id: "least-load-ends-it",
    says: "2025 年 12 月起未命中改派负载最少的工作进程，螺旋消失：未命中落到最忙者的比例低于随便选一个",
    lecture: "sglang#14650：未命中改派负载最少的，而不是树最小的",
    judge: (t, p) => {
      const ps = ["sglangRouterLate2025", "sglangRouter"].filter((x) => t.rows.some((r) => r.policy === x));
      needParam(ps.length > 0, "需要 sglangRouterLate2025 或 sglangRouter");
      const rows = ps.flatMap((x) => p.treeCapTokens.map((c) => rowOf(t, x, c, null)));
      return { holds: rows.every((r) => (r.missesToBusiest as number) < (r.missesByChance as number)), ours: rows.map((r) => `${displayName(r.policy)}（上限 ${(r.treeCapTokens as number).toLocaleString("en-US")}）${pct(r.missesToBusiest as number)}`).join("；") };
    },
  },
  {
    id: "cap-not-needed",
    says: "在我们的模型里，树的上限是有限的 2 万 token 还是默认的 2^26 个字符，螺旋都出现：让它出现的是别的树长得更快，而不是上限",
    judge: (t, p) => {
      needParam(p.treeCapTokens.length >= 2, "需要至少两个树的上限（treeCapTokens）才能比较");
      const rows = p.treeCapTokens.map((c) => rowOf(t, "sglangRouterSmallestTree", c, null));
      // A cap that never evicted anything is no test of "the cap is not needed": say so instead of comparing.
      const largest = Math.max(...rows.map((r) => r.treeCapTokens as number));
      const finite = rows.filter((r) => (r.treeCapTokens as number) < largest);
      const idle = finite.filter((r) => (r.treeEvictions as number) === 0);
      const unjudged =
        finite.length > 0 && idle.length === finite.length
          ? `树的上限在这次运行里没有起作用：${idle.map((r) => `上限 ${(r.treeCapTokens as number).toLocaleString("en-US")} token 时近似树一次也没淘汰`).join("；")}（每 ${SGLANG_ROUTER_DEFAULTS.evictionInterval} 秒剪一次树，这么短的运行里树还没长到上限），两行的差别说明不了上限的作用。把 requestCount 调大、或把上限调小再看`
          : undefined;
      const without = rows.filter((r) => !spiralOn(r));
      const why = unjudged ?? `${without.map((r) => `上限 ${(r.treeCapTokens as number).toLocaleString("en-US")} token 时未命中落到最忙者 ${pct(r.missesToBusiest as number)}，不到随便选一个（${pct(r.missesByChance as number)}）的 2 倍`).join("；")}：螺旋${without.length === rows.length ? "在哪个上限下都没有出现，比不出上限的作用" : "只在一部分上限下出现"}`;
      return { unjudged, why, holds: rows.every(spiralOn), ours: rows.map((r) => `上限 ${(r.treeCapTokens as number).toLocaleString("en-US")} token：${pct(r.missesToBusiest as number)}（随便选一个 ${pct(r.missesByChance as number)}）`).join("；") };
    },
  },
  {
    id: "dynamo-no-spiral",
    says: "Dynamo 的代价直接数在途请求的块，不看树的大小：各个 KV 事件延迟下长 decode 请求都在副本间摊得开，延迟几乎不随事件延迟变",
    judge: (t, p) => {
      needParam(p.eventDelays.length >= 2, "需要至少两个事件延迟（eventDelays）才能比较");
      const rows = p.eventDelays.map((d) => rowOf(t, "dynamoKvRouter", null, d));
      const lat = rows.map((r) => r.longDecodeLatency as number);
      const spreadOk = Math.max(...lat) / Math.min(...lat) - 1 < 0.1;
      return {
        holds: rows.every((r) => (r.longDecodeOnBusiest as number) < 1.5 / p.replicas) && spreadOk,
        ours: rows.map((r) => `延迟 ${r.eventDelay} 秒：最忙副本 ${pct(r.longDecodeOnBusiest as number)}，长 decode ${f(r.longDecodeLatency as number, 1)} 秒`).join("；"),
      };
    },
  },
];

export const deathSpiral = defineDemo<SpiralParams>({
  id: "06.3",
  section: "§6",
  title: "SGLang 路由器的“死亡螺旋”：按报告搭出长 decode 的工作进程，看它出不出现",
  // Size: 1,000 requests × 3 seeds at each event delay and tree cap: the spiral claims compare shares of long-decode requests over seeds.
  defaults: {
    replicas: 4,
    rate: 8,
    longDecodeShare: 0.25,
    longDecodeOutputTokens: 2000,
    sharedPrefixes: 3,
    requestCount: 1000,
    treeCapTokens: [20000, SGLANG_ROUTER_DEFAULTS.maxTreeTokens],
    eventDelays: [0.1, 2, 10],
    policies: ["sglangRouterSmallestTree", "sglangRouter", "dynamoKvRouter"],
    seeds: [1, 2, 3],
  },
  describe: {
    replicas: { meaning: "工作进程（副本）数", range: "2–31 的整数" },
    rate: { meaning: "总请求率（请求/秒）", range: "> 0 的数" },
    longDecodeShare: { meaning: "长 decode 请求（约 100 token 的独有提示、很长的输出）占的比例", range: "(0, 1) 之间的数" },
    longDecodeOutputTokens: { meaning: "长 decode 请求的平均输出长度（token）", range: "≥ 1 的整数" },
    sharedPrefixes: { meaning: "共享前缀的应用数：各有一段 2,000 token 的系统提示、20 个工具和独有的 400 token 问题", range: "≥ 1 的整数" },
    requestCount: { meaning: "每次运行模拟的请求数（前 20% 用于预热）", range: "≥ 10 的整数" },
    treeCapTokens: { meaning: "SGLang 路由器每个工作进程的树的上限（token；默认值是 2^26 个字符 ÷ 4）", range: "非空数组，每项 ≥ 0" },
    eventDelays: { meaning: "KV 事件晚多少秒到达 Dynamo 的索引（SGLang 的近似树不读事件）", range: "非空数组，每项 ≥ 0（秒）" },
    policies: { meaning: "比较的路由器：SGLang 的三个版本与 Dynamo", range: "非空数组；名字见 routerNames()" },
    seeds: { meaning: "种子：每个种子一份到达，各策略共用", range: "非空的整数数组（结论看 ≥ 3 个种子的平均）" },
  },
  run(p, ctx: DemoContext) {
    const replicas = checkInteger("replicas", p.replicas, { min: 2, max: 31 });
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const longDecodeShare = checkNumber("longDecodeShare", p.longDecodeShare, { above: 0, below: 1 });
    const longDecodeOutputTokens = checkInteger("longDecodeOutputTokens", p.longDecodeOutputTokens, { min: 1 });
    const sharedPrefixes = checkInteger("sharedPrefixes", p.sharedPrefixes, { min: 1 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 10 });
    const caps = checkNonEmpty("treeCapTokens", p.treeCapTokens).map((c, i) => checkNumber(`treeCapTokens[${i}]`, c, { min: 0 }));
    const delays = checkNonEmpty("eventDelays", p.eventDelays).map((d, i) => checkNumber(`eventDelays[${i}]`, d, { min: 0 }));
    const policies = checkPolicies("policies", p.policies);
    const seeds = checkNonEmpty("seeds", p.seeds).map((s, i) => checkInteger(`seeds[${i}]`, s));
    // (policy, condition) → per-seed stats
    const runs = new Map<string, RunStats[]>();
    const key = (policy: string, cap: number, delay: number) => `${policy}|${cap}|${delay}`;
    const conditions = (policy: string): Array<[number, number]> => (isSglang(policy) ? caps.map((c) => [c, NaN]) : delays.map((d) => [NaN, d]));
    // the early release once more without its imbalance guard (guard-bounds-it: what the guard holds back)
    const guardOff = policies.includes("sglangRouterSmallestTree");
    const record = (k: string, st: RunStats) => {
      if (!runs.has(k)) runs.set(k, []);
      (runs.get(k) as RunStats[]).push(st);
    };
    for (const seed of seeds) {
      const w = spiralWorkload({ rate, longDecodeShare, longDecodeOutputTokens, sharedPrefixes, requestCount }, seed);
      for (const policy of policies) {
        for (const [cap, delay] of conditions(policy)) {
          ctx.progress?.(`06.3：${displayName(policy)}，种子 ${seed}`);
          const stats = runPolicy(w, replicas, policy, seed, { notificationDelay: Number.isNaN(delay) ? 0.1 : delay, routerOptions: isSglang(policy) ? { maxTreeTokens: cap } : {} }, (res) => runStats(res, replicas));
          record(key(policy, cap, delay), stats);
        }
      }
      if (guardOff) {
        ctx.progress?.(`06.3：${displayName("sglangRouterSmallestTree")}（不均衡保护关掉），种子 ${seed}`);
        const stats = runPolicy(w, replicas, "sglangRouterSmallestTree", seed, { notificationDelay: 0.1, routerOptions: { maxTreeTokens: caps[0], balanceAbs: NO_GUARD } }, (res) => runStats(res, replicas));
        record(key("sglangRouterSmallestTree|noGuard", caps[0], NaN), stats);
      }
    }
    const rows: Row[] = [];
    const lines: Array<[string, number, number, boolean]> = policies.flatMap((policy) => conditions(policy).map(([cap, delay]): [string, number, number, boolean] => [policy, cap, delay, false]));
    if (guardOff) lines.splice(lines.findIndex((l) => l[0] === "sglangRouterSmallestTree") + 1, 0, ["sglangRouterSmallestTree", caps[0], NaN, true]);
    for (const [policy, cap, delay, noGuard] of lines) {
      const rs = runs.get(key(noGuard ? `${policy}|noGuard` : policy, cap, delay)) as RunStats[];
      // the same seeds under today's SGLang router (same cap; Dynamo compares with the first cap)
      const today = runs.get(key("sglangRouter", isSglang(policy) ? cap : caps[0], NaN));
      const ratios = today ? rs.map((r, i) => r.longDecodeLatency / today[i].longDecodeLatency) : [];
      const pick = (f: (r: RunStats) => number) => avg(rs.map(f));
      const condition = isSglang(policy) ? `树的上限 ${cap.toLocaleString("en-US")} token${noGuard ? "，不均衡保护关掉" : ""}` : `KV 事件延迟 ${delay} 秒`;
      rows.push({
        policy,
        condition,
        guardOff: noGuard,
        // one label a run, for a chart with one bar each (the conditions of SGLang's rows and Dynamo's differ in kind)
        run: `${displayName(policy)}：${condition}`,
        treeCapTokens: cap,
        eventDelay: delay,
        longDecodeLatency: pick((r) => r.longDecodeLatency),
        longDecodeLow: Math.min(...rs.map((r) => r.longDecodeLatency)),
        longDecodeHigh: Math.max(...rs.map((r) => r.longDecodeLatency)),
        meanLatency: pick((r) => r.meanLatency),
        p99Latency: pick((r) => r.p99Latency),
        longDecodeOnBusiest: pick((r) => r.longDecodeOnBusiest),
        missesToBusiest: pick((r) => r.missesToBusiest),
        missesByChance: pick((r) => r.missesByChance),
        imbalancedShare: pick((r) => r.imbalancedShare),
        treeEvictions: pick((r) => r.treeEvictions),
        vsToday: ratios.length ? avg(ratios) : NaN,
        vsTodayLow: ratios.length ? Math.min(...ratios) : NaN,
        vsTodayHigh: ratios.length ? Math.max(...ratios) : NaN,
        seedsSlower: ratios.filter((x) => x > CLEARLY_SLOWER).length,
        seedsSpiral: rs.filter((r) => r.missesToBusiest >= 2 * r.missesByChance).length,
        overloadedSeeds: rs.filter((r) => r.overloaded).length,
      });
    }
    return {
      title: `长 decode 加 ${sharedPrefixes} 个共享前缀：${replicas} 个工作进程、${rate} 请求/秒，${seeds.length} 个种子的平均`,
      columns: [
        policyNameColumn(),
        { key: "condition", label: "条件", format: "text" },
        { key: "longDecodeLatency", label: "长 decode 请求的平均延迟", unit: "秒", format: "fixed1" },
        { key: "longDecodeLow", label: "延迟·种子最小", unit: "秒", format: "fixed1" },
        { key: "longDecodeHigh", label: "延迟·种子最大", unit: "秒", format: "fixed1" },
        { ...CLUSTER_COLUMNS.p99Latency, label: "全部请求的 P99", format: "fixed1" },
        { key: "longDecodeOnBusiest", label: "长 decode 在一个副本上的最大份额", format: "percent0" },
        { key: "missesToBusiest", label: "未命中落到最忙者", format: "percent0" },
        { key: "missesByChance", label: "随便选一个会落到", format: "percent0" },
        { key: "imbalancedShare", label: "判为不均衡的决定", format: "percent0" },
        { key: "treeEvictions", label: "近似树为守上限淘汰的叶子（种子平均）", unit: "个", format: "fixed1" },
        { key: "vsToday", label: "长 decode 延迟 ÷ 今天的版本", format: "fixed2" },
        { key: "vsTodayLow", label: "比值·种子最小", format: "fixed2" },
        { key: "vsTodayHigh", label: "比值·种子最大", format: "fixed2" },
      ],
      rows,
      notes: [
        `负载：${pct(longDecodeShare)} 的请求是长 decode（约 100 token 的独有提示，平均 ${longDecodeOutputTokens.toLocaleString("en-US")} 个输出 token），其余平分给 ${sharedPrefixes} 个共享前缀的应用（2,000 token 系统提示 + 20 个工具之一 + 独有的 400 token 问题，约 40 个输出 token）；泊松到达，每次运行 ${requestCount} 个请求，副本用先来先服务。`,
        `路由器：${displayNames(policies)}。SGLang 的各版本按每个树的上限各跑一遍（每 ${SGLANG_ROUTER_DEFAULTS.evictionInterval} 秒剪一次树）${guardOff ? `，早期版另在第一个上限下关掉不均衡保护跑一遍（阈值设成 ${NO_GUARD.toLocaleString("en-US")}，永远达不到），看保护挡住了什么` : ""}；Dynamo 按每个 KV 事件延迟各跑一遍——SGLang 的近似树不读事件，延迟与它无关。`,
        `“未命中落到最忙者” = 未命中的请求里，派给当时在途请求最多（且不是人人一样多）的工作进程的比例；“随便选一个会落到” = 同样这些时刻随机选一个工作进程落到最忙者的比例。“今天的版本” = 同一组种子、同一个树的上限下的${displayName("sglangRouter")}（Dynamo 与第一个上限比）。`,
        `每格是 ${seeds.length} 个种子（${seeds.join("、")}）的平均，“种子最小 / 最大”是前一列在各种子上的范围。预热：缓存从空开始，按到达时间排在前 20% 的请求不计入统计。`,
      ],
    } as Table;
  },
  claims,
});
