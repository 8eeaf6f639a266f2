// 代码 02: the cache–balance dilemma (§2.2) on the cluster simulator — load-only vs cache-aware routing (02.1),
// and the list of 代码 02's demos. The affinity threshold (02.3, threshold.ts), the cluster's total cache (02.2,
// 02.8, total-cache.ts), the hot spot and the collapse (02.4, 02.5, hot-spot.ts; their timelines 02.9, 02.10,
// timelines.ts) and the workload study (02.6, 02.7, workload-study.ts) are in the files beside this one.
import { displayName } from "../../core/glossary";
import type { Row } from "../../core/table";
import { kvCapacityTokens } from "../../hardware/step-model";
import { rangeText } from "../../core/format";
import { generateWorkload, Workload } from "../../cluster/workloads";
import { defineDemo, DemoContext } from "../registry";
import { CLUSTER_COLUMNS, policyColumn } from "../columns";
import { Claim, f, need, needParam, needRows, pct } from "../claims";
import {
  checkRouterChoices, checkDistinctNames, choiceName, RouterChoice, checkReplicas, checkWorkloadSetting, LOAD_ONLY_POLICIES, meanOverSeeds, names, OVERLOAD_NOTE, perSeed, routerChoicesDoc,
  runSection2, runSection2Many, SECTION2_GPU, SECTION2_MODEL, SEED_DOCS, seedList, seedsPhrase, warmupNote, WORKLOADS_DOCS, zipSeeds, meanText, pctText, seedsAgreeingAll, section2Defaults, workloadsIn, mean,
} from "./section2";
import { totalCache, cacheContents } from "./total-cache";
import { thresholdSweep } from "./threshold";
import { hotSpot, collapse } from "./hot-spot";
import { collapseTimeline, hotSpotTimeline } from "./timelines";
import { workloadStudy, azureStudy } from "./workload-study";

export { SECTION2_WORKLOADS, SECTION2_MODEL, SECTION2_GPU, LOAD_ONLY_POLICIES } from "./section2";
export { totalCache, cacheContents, hotSpot, collapse, collapseTimeline, hotSpotTimeline, workloadStudy, azureStudy };

const METRICS_021 = ["meanLatency", "p99Latency", "hitRate", "dispatchHitRate", "oracleHitRate", "replication", "maxShare", "slowdown"];

type P021 = ReturnType<typeof section2Defaults> & { policies: RouterChoice[]; seed: number; seeds: number };

/** The load-only policies present in the table's rows for a workload. */
function loadOnlyIn(rows: Row[]): string[] {
  return rows.map((r) => String(r.policy)).filter((p) => LOAD_ONLY_POLICIES.includes(p));
}

/** Per seed, the best (lowest mean latency) load-only policy's value of `key` for a workload. */
function bestLoadOnlyPerSeed(t: Parameters<Claim["judge"]>[0], workload: string, key: string): { values: number[]; latency: number[] } {
  const policies = loadOnlyIn(needRows(t, { workload }));
  needParam(policies.length > 0, "需要至少一个只看负载的策略（random、roundRobin、leastLoad、powerOfTwo）");
  const latency = policies.map((p) => perSeed(t, { workload, policy: p }, "meanLatency"));
  const vals = policies.map((p) => perSeed(t, { workload, policy: p }, key));
  const n = Math.min(...latency.map((l) => l.length));
  const best = Array.from({ length: n }, (_, i) => latency.reduce((b, l, k) => (l[i] < latency[b][i] ? k : b), 0));
  return { values: best.map((k, i) => vals[k][i]), latency: best.map((k, i) => latency[k][i]) };
}

/** "最忙副本占 x%" (every workload the same after rounding) or "最忙副本占 lo%–hi%" over the workloads. */
function busiestShareText(shares: number[]): string {
  const lo = f(Math.min(...shares) * 100, 1);
  const hi = f(Math.max(...shares) * 100, 1);
  if (lo === hi) return shares.length > 1 ? `每种负载上最忙副本都占 ${lo}%` : `最忙副本占 ${lo}%`;
  return `最忙副本占 ${lo}%–${hi}%`;
}

const CLAIMS_021: Claim<P021>[] = [
  {
    id: "load-only-hit",
    says: "只看负载的路由把请求撒到所有副本上：长文档问答的命中率只有三分之一左右，几种只看负载的策略相差无几",
    lecture: "命中率约 33%",
    judge: (t) => {
      const policies = loadOnlyIn(needRows(t, { workload: "longDocQA" }));
      needParam(policies.length > 0, "需要长文档问答和至少一个只看负载的策略");
      const hits = policies.map((p) => need(t, { workload: "longDocQA", policy: p }, "hitRate"));
      const lo = Math.min(...hits);
      const hi = Math.max(...hits);
      return { holds: lo > 0.25 && hi < 0.4 && hi - lo < 0.05, ours: `${names(policies)}：${rangeText(pct(lo, 1).slice(0, -1), pct(hi, 1).slice(0, -1), "%")}` };
    },
  },
  {
    id: "threshold-hit",
    says: "命中够多才亲和（阈值亲和）在每种负载上都把命中率提到只看负载的水平之上",
    lecture: "长文档问答 33% → 58%",
    judge: (t) => {
      needRows(t, { policy: "thresholdAffinity" });
      const parts: string[] = [];
      const gains: number[][] = [];
      for (const w of workloadsIn(t)) {
        const base = bestLoadOnlyPerSeed(t, w, "hitRate").values;
        const th = perSeed(t, { workload: w, policy: "thresholdAffinity" }, "hitRate");
        gains.push(zipSeeds([base, th], (x, y) => y - x));
        parts.push(`${displayName(w)} ${pct(mean(base), 1)} → ${pctText(th, 1)}`);
      }
      return {
        holds: gains.every((g) => mean(g) > 0.03),
        ours: parts.join("；"),
        remark: "与每个种子里平均延迟最低的只看负载策略比",
        seeds: seedsAgreeingAll(gains, (d) => d > 0.03),
      };
    },
  },
  {
    id: "threshold-latency",
    says: "阈值亲和的平均延迟比最好的只看负载的路由低，三种负载上都是",
    lecture: "长文档低 1.8 倍；三种负载 1.4–2.3 倍",
    judge: (t) => {
      needRows(t, { policy: "thresholdAffinity" });
      const parts: string[] = [];
      const lists: number[][] = [];
      for (const w of workloadsIn(t)) {
        const base = bestLoadOnlyPerSeed(t, w, "meanLatency").latency;
        const th = perSeed(t, { workload: w, policy: "thresholdAffinity" }, "meanLatency");
        const ratios = zipSeeds([base, th], (x, y) => x / y);
        lists.push(ratios);
        parts.push(`${displayName(w)} ${meanText(ratios, 2, "倍")}`);
      }
      return {
        holds: lists.every((r) => mean(r) > 1.1),
        ours: parts.join("；"),
        remark: "最好的只看负载策略 ÷ 阈值亲和，逐种子计算",
        seeds: seedsAgreeingAll(lists, (x) => x > 1.1),
      };
    },
  },
  {
    id: "pure-affinity-collapse",
    says: "纯前缀亲和（总派给匹配最长的副本）把几乎全部请求送到同一个副本，那里的队列越排越长",
    lecture: "所有请求都去了同一个副本",
    judge: (t) => {
      const rows = needRows(t, { policy: "prefixAffinity" });
      const shares = rows.map((r) => r.maxShare as number);
      const min = Math.min(...shares);
      const overloaded = rows.filter((r) => r.overloaded === true).length;
      const latency = rows.map((r) => `${displayName(r.workload)} ${f(r.meanLatency as number, 0)} 秒`).join("、");
      return { holds: min > 0.99 && overloaded === rows.length, ours: `${busiestShareText(shares)}；平均延迟 ${latency}；${overloaded}/${rows.length} 种负载过载` };
    },
  },
  {
    id: "replication",
    says: "只看负载时热门内容在各副本上各存一份（轮转的复制倍数明显大于 1），阈值亲和几乎每份内容只存一处",
    lecture: "轮转的复制倍数 1.34（练习 4(b)）",
    judge: (t) => {
      const rr = perSeed(t, { workload: "longDocQA", policy: "roundRobin" }, "replication");
      const th = perSeed(t, { workload: "longDocQA", policy: "thresholdAffinity" }, "replication");
      return { holds: mean(rr) > 1.15 && mean(th) < 1.03, ours: `长文档问答：轮转 ${meanText(rr, 2)}，阈值亲和 ${meanText(th, 2)}` };
    },
  },
  {
    id: "only-landed-cache",
    says: "一个请求只能命中它落到的那个副本的缓存：轮转时，请求的提示在集群里某个副本上缓存着的比例远高于它落到的副本上的；阈值亲和让两者几乎相等",
    judge: (t) => {
      const rrAny = need(t, { workload: "longDocQA", policy: "roundRobin" }, "oracleHitRate");
      const rrHere = need(t, { workload: "longDocQA", policy: "roundRobin" }, "dispatchHitRate");
      const thAny = need(t, { workload: "longDocQA", policy: "thresholdAffinity" }, "oracleHitRate");
      const thHere = need(t, { workload: "longDocQA", policy: "thresholdAffinity" }, "dispatchHitRate");
      return {
        holds: rrAny - rrHere > 0.1 && thAny - thHere < 0.02,
        ours: `长文档问答，派发时：轮转 任一副本 ${pct(rrAny, 1)} 对 所选副本 ${pct(rrHere, 1)}；阈值亲和 ${pct(thAny, 1)} 对 ${pct(thHere, 1)}`,
      };
    },
  },
];

export const loadVsCache = defineDemo({
  id: "02.1",
  section: "§2.2",
  title: "只看负载 vs 缓存感知的路由",
  // Size: 3 seeds; 1,200 / 2,000 / 4,000 requests ≈ 20 minutes of arrivals at the lecture's rates, so the caches fill and the collapse shows as overload; the claims compare policies on seed means.
  defaults: {
    ...section2Defaults(),
    policies: [...LOAD_ONLY_POLICIES, "prefixAffinity", "thresholdAffinity"] as RouterChoice[],
    seed: 1,
    seeds: 3,
  },
  describe: { ...WORKLOADS_DOCS, policies: routerChoicesDoc(), ...SEED_DOCS },
  run(p, ctx: DemoContext) {
    const setting = checkWorkloadSetting(p);
    const replicas = checkReplicas("replicas", p.replicas);
    const choices = checkRouterChoices(p.policies);
    checkDistinctNames(choices.filter((c) => typeof c !== "function").map((c) => choiceName(c)));
    const labels = choices.map((c) => choiceName(c));
    const seeds = seedList(p);
    const rows: Row[] = [];
    const overloaded: string[] = [];
    // Registered routers (names): every (workload, seed, router) run at once over the worker threads, read back below
    // in the same order. Routers written in a cell run here, one after another, as before (their state may carry).
    const byName = choices.every((c) => typeof c === "string");
    const jobs = byName ? setting.flatMap(({ workload, rate, requestCount }) => seeds.flatMap((seed) => (choices as string[]).map((router) => ({ workload, rate, requestCount, replicas, router, seed })))) : [];
    const results = byName ? runSection2Many(jobs, "02.1", ctx.progress) : null;
    let next = 0;
    for (const { workload, rate, requestCount } of setting) {
      const perPolicy = choices.map((): Row[] => []);
      for (const seed of seeds) {
        const w = results ? null : generateWorkload(workload, { rate, seed, requestCount });
        choices.forEach((choice, k) => {
          if (!results) ctx.progress?.(`02.1：${displayName(workload)}，${displayName(labels[k])}，种子 ${seed}`);
          const res = results ? results[next++] : runSection2(w as Workload, replicas, choice, seed);
          labels[k] = choiceName(choice, res.routerName);
          perPolicy[k].push({ ...res.metrics, overloaded: res.metrics.overloaded } as unknown as Row);
        });
      }
      checkDistinctNames(labels);
      for (const [k, policy] of labels.entries()) {
        const runs = perPolicy[k];
        const over = runs.filter((r) => r.overloaded === true).length;
        if (over > 0) overloaded.push(`${displayName(workload)} / ${displayName(policy)}${seeds.length > 1 ? `（${over}/${seeds.length} 个种子）` : ""}`);
        rows.push(meanOverSeeds({ workload, policy, overloaded: over > 0 }, runs, METRICS_021));
      }
    }
    const slow = setting.map(({ workload, rate }) => {
      const loadOnly = rows.filter((r) => r.workload === workload && LOAD_ONLY_POLICIES.includes(String(r.policy)));
      if (loadOnly.length === 0) return null;
      const best = loadOnly.reduce((a, b) => ((b.meanLatency as number) < (a.meanLatency as number) ? b : a));
      return { text: `${displayName(workload)} ${rate} 请求/秒：${displayName(best.policy)} ${f(best.slowdown as number, 2)} 倍`, slowdown: best.slowdown as number };
    });
    const measured = slow.filter((s): s is { text: string; slowdown: number } => s !== null);
    const span = measured.length ? `${f(Math.min(...measured.map((s) => s.slowdown)), 1)}–${f(Math.max(...measured.map((s) => s.slowdown)), 1)} 倍` : "—";
    return {
      title: `只看负载 vs 缓存感知的路由：${replicas} 个副本（Mistral-7B / A6000），${seedsPhrase(seeds)}`,
      columns: [
        CLUSTER_COLUMNS.workload,
        policyColumn(),
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.dispatchHitRate,
        CLUSTER_COLUMNS.oracleHitRate,
        CLUSTER_COLUMNS.replication,
        CLUSTER_COLUMNS.maxShare,
        CLUSTER_COLUMNS.overloaded,
      ],
      rows,
      notes: [
        `请求率：${setting.map((s) => `${displayName(s.workload)} ${s.rate} 请求/秒（${s.requestCount} 个请求）`).join("，")}。长文档按讲义的 1 请求/秒，另两种负载的请求率选得让最好的只看负载策略同样"吃力"：平均延迟是单独运行（每个请求独自在一个空闲副本上）时的 ${span}（实测：${measured.map((s) => s.text).join("；")}）。`,
        "命中率 = 命中缓存的提示 token ÷ 提示 token（请求被接纳时）。两列\"派发时\"在路由器做决定的那一刻量：所选副本的缓存里已有提示的多少，和集群里缓存得最多的那个副本有多少——后者是\"一个能读所有副本缓存的请求\"最多能命中的。",
        "复制倍数 = 各副本缓存的 token 之和 ÷ 去重后的 token（1.00 表示每份内容只存在一个副本上）。",
        `过载的运行：${overloaded.length ? overloaded.join("、") : "无"}。${OVERLOAD_NOTE}`,
        `每个副本可放 ${kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU).toLocaleString("en-US")} 个 token 的 KV。${warmupNote()}`,
      ],
    };
  },
  claims: CLAIMS_021,
  // 07 shows pure-affinity-collapse alone: it reads prefix affinity's rows, each (workload, seed, router) run its own
  narrowForClaims: (ids, p) => (ids.length > 0 && ids.every((id) => id === "pure-affinity-collapse") && p.policies.includes("prefixAffinity") ? { policies: ["prefixAffinity"] } : undefined),
});

/** The demos of 代码 02 the lecture names (演示 1–4), in order. */
export const cacheVsBalanceDemos = [loadVsCache, totalCache, thresholdSweep, hotSpot];
/** The demos added to 代码 02: the collapse 2 × 2, the workload study, the cache contents, the timelines. */
export const section2MoreDemos = [collapse, workloadStudy, azureStudy, cacheContents, collapseTimeline, hotSpotTimeline];
