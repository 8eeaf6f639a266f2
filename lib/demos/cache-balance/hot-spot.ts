// 代码 02, §2.2 and §2.5: why pure affinity collapses (02.5: system prompt present / absent × tie rule), a prefix
// too hot for one replica (02.4). Their timelines are in timelines.ts (02.9, 02.10).
import { checkEachOneOf, checkInteger, checkNumber, checkOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row } from "../../core/table";
import { longestMatch, Router, RouterFactory, TieBreak } from "../../cluster/routers";
import type { ClusterResult } from "../../cluster/simulate";
import { generateWorkload, WORKLOAD_NAMES } from "../../cluster/workloads";
import { defineDemo, DemoContext } from "../registry";
import { CLUSTER_COLUMNS, policyColumn } from "../columns";
import { Claim, f, need, needParam, needRow, needRows, pct, spread } from "../claims";
import {
  agreeing, checkRouterChoices, checkDistinctNames, choiceName, RouterChoice, routerChoicesDoc, checkReplicas, LOAD_ONLY_POLICIES, meanOverSeeds, meanText, OVERLOAD_NOTE, pctText, perSeed, runSection2, SEED_DOCS,
  seedList, seedsPhrase, warmupNote, zipSeeds,
} from "./section2";

const WORKLOAD_DOC = { meaning: "负载（data/workloads.json 里的名字）", range: `${WORKLOAD_NAMES.join("、")} 之一` };

// ---- 02.4: a hot spot ----

type P024 = { workload: string; replicas: number; rate: number; requestCount: number; policies: RouterChoice[]; seed: number; seeds: number };

/** Replicas that served at least 5% of the hot key's (key 0's) requests. */
function hotReplicas(res: ClusterResult): number {
  const counts = new Map<number, number>();
  let hot = 0;
  for (const r of res.records) {
    if (r.request.key !== 0) continue;
    hot++;
    counts.set(r.replica, (counts.get(r.replica) ?? 0) + 1);
  }
  return [...counts.values()].filter((c) => c >= 0.05 * hot).length;
}

const CLAIMS_024: Claim<P024>[] = [
  {
    id: "affinity-hot-collapse",
    says: "按内容分区的代价：最热的工具只在一个副本上，阈值亲和把它的流量全压在那里，那个副本过载",
    lecture: "如果某个前缀特别热，它的全部流量都会落到同一个副本上",
    judge: (t, p) => {
      const row = needRow(t, { policy: "thresholdAffinity" });
      const shares = perSeed(t, { policy: "thresholdAffinity" }, "maxShare");
      return {
        holds: (row.hotReplicas as number) <= 1.5 && spread(shares).mean > 2 / p.replicas && row.overloaded === true,
        ours: `最忙副本收到的请求份额 ${pctText(shares)}，公平份额 ${f(100 / p.replicas, 1)}%；热门工具平均只在 ${f(row.hotReplicas as number, 1)} 个副本上运行，平均延迟 ${f(row.meanLatency as number, 1)} 秒；${row.overloaded === true ? "过载" : "未过载"}`,
      };
    },
  },
  {
    id: "guard-keeps-hit",
    says: "加上负载保护，被分流的请求在别的副本上把热门前缀算一遍，热门前缀于是被复制到多个副本上：命中率和亲和一样高",
    lecture: "命中率和亲和一样高（84%）",
    judge: (t) => {
      const g = need(t, { policy: "cacheAwareGuarded" }, "hitRate");
      const a = need(t, { policy: "thresholdAffinity" }, "hitRate");
      const copies = need(t, { policy: "cacheAwareGuarded" }, "hotReplicas");
      return { holds: Math.abs(g - a) < 0.03 && copies >= 2, ours: `负载保护 ${pct(g, 1)}，阈值亲和 ${pct(a, 1)}；热门工具分布在 ${f(copies, 1)} 个副本上` };
    },
  },
  {
    id: "guard-beats-load-only",
    says: "缓存感知 + 负载保护的平均延迟比只看负载的路由还低",
    lecture: "延迟比只看负载还低",
    judge: (t) => {
      const loadOnly = t.rows.map((r) => String(r.policy)).filter((q) => LOAD_ONLY_POLICIES.includes(q));
      needParam(loadOnly.length > 0, "需要至少一个只看负载的策略");
      const g = perSeed(t, { policy: "cacheAwareGuarded" }, "meanLatency");
      const lists = loadOnly.map((q) => perSeed(t, { policy: q }, "meanLatency"));
      const ratios = zipSeeds([g, ...lists], (x, ...ys) => Math.min(...ys) / x);
      return { holds: spread(ratios).mean > 1, ours: `最好的只看负载策略 ÷ 负载保护 = ${meanText(ratios, 2, "倍")}`, seeds: agreeing(ratios, (x) => x > 1) };
    },
  },
];

export const hotSpot = defineDemo({
  id: "02.4",
  section: "§2.5",
  title: "热点：一个副本扛不住的前缀",
  // Size: 8,000 requests at 70/s on 8 replicas (≈ 2 minutes of a hot spot, long enough for the hot replica to overload), 3 seeds: guard-beats-load-only is judged seed by seed.
  defaults: { workload: "toolCallingHotSpot", replicas: 8, rate: 70, requestCount: 8000, policies: ["roundRobin", "leastLoad", "powerOfTwo", "thresholdAffinity", "cacheAwareGuarded"] as RouterChoice[], seed: 1, seeds: 3 },
  describe: {
    workload: { ...WORKLOAD_DOC, meaning: "负载（toolCallingHotSpot：最热的工具约占 40% 的流量）" },
    replicas: { meaning: "副本数", range: "1–64 的整数" },
    rate: { meaning: "总请求率（请求/秒）", range: "> 0 且 ≤ 1000 的数" },
    requestCount: { meaning: "模拟的请求数（前 20% 用来预热，不计入统计）", range: "20–100000 的整数" },
    policies: routerChoicesDoc(),
    ...SEED_DOCS,
  },
  run(p, ctx: DemoContext) {
    const workload = checkOneOf("workload", p.workload, WORKLOAD_NAMES as string[]);
    const replicas = checkReplicas("replicas", p.replicas);
    const rate = checkNumber("rate", p.rate, { above: 0, max: 1000 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 20, max: 100000 });
    const choices = checkRouterChoices(p.policies);
    checkDistinctNames(choices.filter((c) => typeof c !== "function").map((c) => choiceName(c)));
    const labels = choices.map((c) => choiceName(c));
    const seeds = seedList(p);
    const runs = choices.map((): Row[] => []);
    let hotShare = 0;
    for (const seed of seeds) {
      const w = generateWorkload(workload, { rate, seed, requestCount });
      hotShare += w.requests.filter((r) => r.key === 0).length / w.requests.length / seeds.length;
      choices.forEach((choice, k) => {
        ctx.progress?.(`02.4：${displayName(labels[k])}，种子 ${seed}`);
        const res = runSection2(w, replicas, choice, seed);
        labels[k] = choiceName(choice, res.routerName);
        const guard = typeof res.routerStats.guard === "number" ? (res.routerStats.guard as number) / w.requests.length : NaN;
        runs[k].push({ ...res.metrics, hotReplicas: hotReplicas(res), guardShare: guard } as unknown as Row);
      });
    }
    checkDistinctNames(labels);
    const rows = labels.map((policy, k) => {
      const r = runs[k];
      return meanOverSeeds({ policy, overloaded: r.some((x) => x.overloaded === true) }, r, ["meanLatency", "p99Latency", "hitRate", "maxShare", "hotReplicas", "guardShare"]);
    });
    for (const r of rows) if (Number.isNaN(r.guardShare)) r.guardShare = null;
    return {
      title: `热点：${displayName(workload)}，${replicas} 个副本，${rate} 请求/秒，${seedsPhrase(seeds)}`,
      columns: [
        policyColumn(),
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.maxShare,
        { key: "hotReplicas", label: "最热工具的请求分布在几个副本上", unit: "个", format: "fixed1" },
        { key: "guardShare", label: "按负载改派的请求", format: "percent1" },
        CLUSTER_COLUMNS.overloaded,
      ],
      rows,
      notes: [
        `最热的工具吸走 ${f(hotShare * 100, 1)}% 的请求；平均每个副本只该分到 ${f(100 / replicas, 1)}%。"分布在几个副本上"：收到它至少 5% 请求的副本数。`,
        "缓存感知 + 负载保护（cacheAwareGuarded）：各副本在途请求数的最大值与最小值之差超过 8、且最大值超过最小值的 1.5 倍时，派给在途请求最少的副本（\"按负载改派\"）；否则按阈值亲和（θ = 0.5），匹配一样长时取负载轻的副本。",
        `${OVERLOAD_NOTE}${warmupNote()}`,
      ],
    };
  },
  claims: CLAIMS_024,
});

// ---- 02.5: the pure-affinity collapse, 2 × 2 ----

type P025 = { workload: string; replicas: number; rate: number; requestCount: number; systemPrompt: string[]; ties: string[]; seed: number; seeds: number };

export const SYSTEM_PROMPT_SETTINGS = ["systemPrompt", "noSystemPrompt"] as const;
export const TIE_RULES: readonly TieBreak[] = ["lowestIndex", "leastLoad"];

/** Pure prefix affinity with a given tie rule (the registered prefixAffinity is the lowestIndex one). */
export function pureAffinity(ties: TieBreak): RouterFactory {
  return (): Router => ({ name: `prefixAffinity(${ties})`, route: (req, view) => longestMatch(req, view, ties).replica });
}

const CLAIMS_025: Claim<P025>[] = [
  {
    id: "system-prompt-collapses",
    says: "有共享的系统提示时，纯亲和不论平局怎么打破都把全部请求送到同一个副本：第一个请求之后，只有那个副本匹配得到系统提示",
    lecture: "所有请求都去了同一个副本：长文档负载里所有请求共享一段只有 13 个 token 的系统提示",
    judge: (t) => {
      const rows = needRows(t, { prompt: "systemPrompt" });
      // "whatever the tie rule": judged only when the run has both rules
      needParam(TIE_RULES.every((x) => rows.some((r) => r.ties === x)), `“不论平局怎么打破”要两种平局规则都跑过（ties 里同时有 ${TIE_RULES.join("、")}）`);
      const min = Math.min(...rows.map((r) => r.maxShare as number));
      const only = Math.max(...rows.map((r) => r.systemOnlyShare as number));
      return {
        holds: min > 0.99 && rows.every((r) => r.overloaded === true),
        ours: `${rows.map((r) => `平局${displayName(r.ties)}：最忙副本 ${f((r.maxShare as number) * 100, 1)}%，平均延迟 ${f(r.meanLatency as number, 0)} 秒`).join("；")}；派发时只匹配到系统提示的请求最多占 ${f(only * 100, 0)}%`,
      };
    },
  },
  {
    id: "lowest-index-collapses-anyway",
    says: "去掉系统提示，平局取最小编号仍然崩溃：每份哪里都没有匹配的新文档都去副本 0",
    judge: (t) => {
      const share = perSeed(t, { prompt: "noSystemPrompt", ties: "lowestIndex" }, "maxShare");
      return { holds: spread(share).mean > 0.9, ours: `最忙副本 ${pctText(share)}，平均延迟 ${f(need(t, { prompt: "noSystemPrompt", ties: "lowestIndex" }, "meanLatency"), 0)} 秒`, seeds: agreeing(share, (x) => x > 0.9) };
    },
  },
  {
    id: "least-load-spreads",
    says: "去掉系统提示、平局给负载最轻的副本，纯亲和就把新文档摊到各个副本上，不再过载",
    judge: (t, p) => {
      const share = perSeed(t, { prompt: "noSystemPrompt", ties: "leastLoad" }, "maxShare");
      const row = needRow(t, { prompt: "noSystemPrompt", ties: "leastLoad" });
      return {
        holds: spread(share).mean < 2 / p.replicas && row.overloaded === false,
        ours: `最忙副本 ${pctText(share)}，平均延迟 ${f(row.meanLatency as number, 1)} 秒，${row.overloaded === true ? "过载" : "不过载"}`,
        seeds: agreeing(share, (x) => x < 2 / p.replicas),
      };
    },
  },
];

export const collapse = defineDemo({
  id: "02.5",
  section: "§2.2",
  title: "纯亲和为什么崩溃：系统提示 × 平局规则",
  // Size: 02.1's long-document setting (1,200 requests), 3 seeds: each cell of the 2 × 2 is judged on every seed.
  defaults: { workload: "longDocQA", replicas: 4, rate: 1, requestCount: 1200, systemPrompt: [...SYSTEM_PROMPT_SETTINGS], ties: [...TIE_RULES], seed: 1, seeds: 3 },
  describe: {
    workload: WORKLOAD_DOC,
    replicas: { meaning: "副本数", range: "1–64 的整数" },
    rate: { meaning: "请求率（请求/秒）", range: "> 0 且 ≤ 1000 的数" },
    requestCount: { meaning: "模拟的请求数（前 20% 用来预热，不计入统计）", range: "20–50000 的整数" },
    systemPrompt: { meaning: "系统提示：systemPrompt = 负载自带的（长文档 13 token），noSystemPrompt = 去掉", range: "非空数组，每项为 systemPrompt、noSystemPrompt 之一" },
    ties: { meaning: "几个副本匹配一样长时怎么选：lowestIndex = 编号最小（Preble 开源调度器的 argmax），leastLoad = 在途提示 token 最少", range: "非空数组，每项为 lowestIndex、leastLoad 之一" },
    ...SEED_DOCS,
  },
  run(p, ctx: DemoContext) {
    const workload = checkOneOf("workload", p.workload, WORKLOAD_NAMES as string[]);
    const replicas = checkReplicas("replicas", p.replicas);
    const rate = checkNumber("rate", p.rate, { above: 0, max: 1000 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 20, max: 50000 });
    const prompts = checkEachOneOf("systemPrompt", p.systemPrompt, SYSTEM_PROMPT_SETTINGS);
    const ties = checkEachOneOf("ties", p.ties, TIE_RULES);
    const seeds = seedList(p);
    const rows: Row[] = [];
    let systemTokens = 0;
    for (const prompt of prompts) {
      for (const tie of ties) {
        const runs: Row[] = [];
        for (const seed of seeds) {
          ctx.progress?.(`02.5：${displayName(prompt)}，平局${displayName(tie)}，种子 ${seed}`);
          const w = generateWorkload(workload, { rate, seed, requestCount, overrides: prompt === "noSystemPrompt" ? { systemPromptTokens: 0 } : undefined });
          const sys = prompt === "systemPrompt" ? w.params.systemPromptTokens ?? 0 : 0;
          if (sys > 0) systemTokens = sys;
          const res = runSection2(w, replicas, pureAffinity(tie), seed);
          const measured = res.records.filter((r) => r.measured);
          const only = sys > 0 ? measured.filter((r) => r.viewMatchAtDispatch === sys).length / measured.length : NaN;
          runs.push({ ...res.metrics, systemOnlyShare: only } as unknown as Row);
        }
        const row = meanOverSeeds({ prompt, ties: tie, overloaded: runs.some((r) => r.overloaded === true) }, runs, ["maxShare", "meanLatency", "p99Latency", "hitRate", "systemOnlyShare"]);
        if (prompt === "noSystemPrompt") row.systemOnlyShare = null;
        rows.push(row);
      }
    }
    return {
      title: `纯前缀亲和为什么崩溃：${displayName(workload)}，${replicas} 个副本，${rate} 请求/秒，${seedsPhrase(seeds)}`,
      columns: [
        { key: "prompt", label: "系统提示", format: "name" },
        { key: "ties", label: "平局规则", format: "name" },
        CLUSTER_COLUMNS.maxShare,
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        CLUSTER_COLUMNS.hitRate,
        { key: "systemOnlyShare", label: "派发时只匹配到系统提示的请求", format: "percent0" },
        CLUSTER_COLUMNS.overloaded,
      ],
      rows,
      notes: [
        `纯前缀亲和：总派给匹配（路由器视角：已缓存 + 已派去还没算完的段）最长的副本。${systemTokens > 0 ? `系统提示 ${systemTokens} 个 token，所有请求共用。` : ""}"只匹配到系统提示"：它在所选副本上的匹配恰好是系统提示那几个 token——新文档的请求本该去任何一个空闲的副本，却因此被吸过去。`,
        `${OVERLOAD_NOTE}${warmupNote()}`,
      ],
    };
  },
  claims: CLAIMS_025,
});
