// 代码 02, §2.4: the cluster's total cache — hit rate, content cached anywhere and content cached where requests
// land, as the replicas grow (02.2); and which documents each replica holds over a run, round robin vs threshold
// affinity (02.8, from the run's timeline).
import { checkInteger, checkNonEmpty, checkNumber, checkOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row } from "../../core/table";
import { generateWorkload, WORKLOAD_NAMES, workloadDefinition } from "../../cluster/workloads";
import { defineDemo, DemoContext } from "../registry";
import { CLUSTER_COLUMNS, policyColumn } from "../columns";
import { Claim, f, need, needParam, needRows, pct, spread, times } from "../claims";
import { kvCapacityTokens } from "../../hardware/step-model";
import {
  agreeing, checkPolicies, checkReplicas, meanOverSeeds, names, pctText, perSeed, policiesDoc, runSection2, runSection2Many, SECTION2_GPU, SECTION2_MODEL, SEED_DOCS, seedList,
  seedsPhrase, warmupNote, zipSeeds,
} from "./section2";

type P022 = { workload: string; replicas: number[]; ratePerReplica: number; requestsPerReplica: number; policies: string[]; seed: number; seeds: number };

const sizesIn = (t: Parameters<Claim["judge"]>[0], policy: string): number[] =>
  [...new Set(needRows(t, { policy }).map((r) => r.replicas as number))].sort((a, b) => a - b);

/** One replica's cache in documents of average length (the unit the lecture counts in). */
function docsPerReplica(p: { workload: string }): number {
  const mean = workloadDefinition(p.workload).params.itemTokensMean?.value;
  needParam(typeof mean === "number" && mean > 0, "这个负载没有\"文档平均长度\"（itemTokensMean）");
  return kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU) / (mean as number);
}

const CLAIMS_022: Claim<P022>[] = [
  {
    id: "load-only-flat",
    says: "只看负载（轮转）时，副本加多了命中率也不涨",
    lecture: "只看负载的路由下，加副本不会提高命中率（误区 4）；命中率约 32%",
    judge: (t) => {
      const sizes = sizesIn(t, "roundRobin");
      needParam(sizes.length >= 2, "需要至少两种副本数");
      const hits = sizes.map((n) => perSeed(t, { replicas: n, policy: "roundRobin" }, "hitRate"));
      const means = hits.map((h) => spread(h).mean);
      return { holds: Math.max(...means) - Math.min(...means) < 0.05, ours: sizes.map((n, k) => `${n} 个副本 ${pctText(hits[k], 1)}`).join("，") };
    },
  },
  {
    id: "affinity-grows",
    says: "阈值亲和的命中率随副本数上升：N 个副本的缓存合起来用",
    lecture: "练习 4：4 个副本时，轮转 32% → 亲和 58%（讲义比的是两种路由，不是副本数的序列）",
    judge: (t) => {
      const sizes = sizesIn(t, "thresholdAffinity");
      needParam(sizes.length >= 2, "需要至少两种副本数");
      const per = sizes.map((n) => perSeed(t, { replicas: n, policy: "thresholdAffinity" }, "hitRate"));
      const means = per.map((v) => spread(v, 3).mean);
      const rising = means.every((m, k) => k === 0 || m > means[k - 1] + 0.02);
      const bySeed = zipSeeds(per, (...xs) => (xs.every((x, k) => k === 0 || x > xs[k - 1]) ? 1 : 0));
      return { holds: rising, ours: sizes.map((n, k) => `${n} 个副本 ${pctText(per[k], 1)}`).join("，"), seeds: agreeing(bySeed, (x) => x === 1) };
    },
  },
  {
    id: "round-robin-total-cache",
    says: "轮转时各副本缓存的是同一批热门文档，集群里不同的文档只有一个副本那么多（十来份）",
    lecture: "十来份，复制倍数 1.34（练习 4(b)）",
    judge: (t, p) => {
      const sizes = sizesIn(t, "roundRobin");
      const n = sizes.includes(4) ? 4 : sizes[sizes.length - 1];
      const docs = need(t, { replicas: n, policy: "roundRobin" }, "distinctCachedDocs");
      const content = need(t, { replicas: n, policy: "roundRobin" }, "distinctDocs");
      const replication = need(t, { replicas: n, policy: "roundRobin" }, "replication");
      const one = docsPerReplica(p);
      return {
        holds: content < 1.5 * one,
        why: `${n} 个副本轮转时去重后的内容合 ${f(content, 1)} 份平均长度的文档，是一个副本（约 ${f(one, 1)} 份）的 ${times(content / one, 1)}：各副本缓存的并不是同一批；轮转的问题在于一个请求只能用它落到的副本的缓存`,
        ours: `${n} 个副本：完整缓存着 ${f(docs, 0)} 份不同的文档，去重后的内容合 ${f(content, 1)} 份平均长度的文档（一个副本放得下约 ${f(one, 1)} 份），复制倍数 ${f(replication, 2)}`,
      };
    },
  },
  {
    id: "affinity-more-content",
    says: "亲和路由让各副本存不同的文档：集群缓存的不同内容比轮转多，并随副本数增长",
    lecture: "理想分区约 40 份（4 个副本，练习 4(b)）",
    judge: (t) => {
      const sizes = sizesIn(t, "thresholdAffinity").filter((n) => sizesIn(t, "roundRobin").includes(n));
      needParam(sizes.length >= 1, "需要轮转和阈值亲和在同一副本数下的行");
      const th = sizes.map((n) => need(t, { replicas: n, policy: "thresholdAffinity" }, "distinctDocs"));
      const rr = sizes.map((n) => need(t, { replicas: n, policy: "roundRobin" }, "distinctDocs"));
      const more = th.every((x, k) => x > rr[k]);
      const grows = th.every((x, k) => k === 0 || x > th[k - 1]);
      return { holds: more && grows, ours: sizes.map((n, k) => `${n} 个副本：阈值亲和 ${f(th[k], 0)} 对 轮转 ${f(rr[k], 0)} 份`).join("，"), remark: "去重后的缓存内容，按平均长度的文档计" };
    },
  },
  {
    id: "only-landed-cache",
    says: "一个请求只能命中它落到的那个副本的缓存：轮转时，副本越多，请求的提示在集群某处缓存着的比例越高，它实际命中的却不涨",
    judge: (t) => {
      const sizes = sizesIn(t, "roundRobin");
      needParam(sizes.length >= 2, "需要至少两种副本数");
      const any = sizes.map((n) => need(t, { replicas: n, policy: "roundRobin" }, "oracleHitRate"));
      const hit = sizes.map((n) => need(t, { replicas: n, policy: "roundRobin" }, "hitRate"));
      const last = sizes.length - 1;
      return {
        holds: any[last] - any[0] > 0.05 && Math.abs(hit[last] - hit[0]) < 0.05 && any[last] - hit[last] > 0.1,
        ours: sizes.map((n, k) => `${n} 个副本：某处缓存着 ${pct(any[k], 1)}，实际命中 ${pct(hit[k], 1)}`).join("；"),
      };
    },
  },
];

export const totalCache = defineDemo({
  id: "02.2",
  section: "§2.4",
  title: "集群的总缓存：副本数增加时的命中率",
  // Size: 300 requests per replica, 3 seeds: enough for every replica's cache to fill, so the hit rate's growth with replicas is judged on seed means.
  defaults: { workload: "longDocQA", replicas: [2, 4, 8], ratePerReplica: 0.25, requestsPerReplica: 300, policies: ["roundRobin", "thresholdAffinity"], seed: 1, seeds: 3 },
  describe: {
    workload: { meaning: "负载（data/workloads.json 里的名字）", range: `${WORKLOAD_NAMES.join("、")} 之一` },
    replicas: { meaning: "要比较的副本数", range: "非空数组，每项为 1–64 的整数" },
    ratePerReplica: { meaning: "每个副本的请求率（请求/秒）：总请求率随副本数同比例增加", range: "> 0 且 ≤ 100 的数" },
    requestsPerReplica: { meaning: "每个副本模拟的请求数（前 20% 用来预热）", range: "10–20000 的整数" },
    policies: policiesDoc(),
    ...SEED_DOCS,
  },
  run(p, ctx: DemoContext) {
    const workload = checkOneOf("workload", p.workload, WORKLOAD_NAMES as string[]);
    const sizes = checkNonEmpty("replicas", p.replicas).map((n, k) => checkReplicas(`replicas[${k}]`, n));
    const policies = checkPolicies(p.policies);
    const rate = checkNumber("ratePerReplica", p.ratePerReplica, { above: 0, max: 100 });
    const perReplica = checkInteger("requestsPerReplica", p.requestsPerReplica, { min: 10, max: 20000 });
    const seeds = seedList(p);
    const rows: Row[] = [];
    let itemTokens = NaN;
    // Every (size, seed, policy) run at once over the worker threads, then read back in the same order.
    const jobs = sizes.flatMap((n) => seeds.flatMap((seed) => policies.map((router) => ({ workload, rate: rate * n, requestCount: Math.round(perReplica * n), replicas: n, router, seed }))));
    const results = runSection2Many(jobs, "02.2", ctx.progress);
    let next = 0;
    for (const n of sizes) {
      const runs = new Map<string, Row[]>(policies.map((q) => [q, []]));
      for (const seed of seeds) {
        const w = generateWorkload(workload, { rate: rate * n, seed, requestCount: Math.round(perReplica * n) });
        itemTokens = w.params.itemTokensMean ?? NaN;
        for (const policy of policies) {
          const m = results[next++].metrics;
          (runs.get(policy) as Row[]).push({ ...m, distinctDocs: m.distinctCachedTokens / itemTokens } as unknown as Row);
        }
      }
      for (const policy of policies) {
        rows.push(meanOverSeeds({ replicas: n, policy }, runs.get(policy) as Row[], ["hitRate", "oracleHitRate", "meanLatency", "distinctCachedKeys", "distinctDocs", "replication"]));
      }
    }
    for (const r of rows) r.distinctCachedDocs = r.distinctCachedKeys;
    return {
      title: `集群的总缓存：${displayName(workload)}，每个副本 ${rate} 请求/秒，${seedsPhrase(seeds)}`,
      columns: [
        { key: "replicas", label: "副本数", format: "int" },
        policyColumn(),
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.oracleHitRate,
        CLUSTER_COLUMNS.meanLatency,
        { key: "distinctCachedDocs", label: "完整缓存着的不同文档", unit: "份", format: "fixed1" },
        { key: "distinctDocs", label: "去重后的缓存内容", unit: "份平均长度的文档", format: "fixed1" },
        CLUSTER_COLUMNS.replication,
      ],
      rows,
      notes: [
        `总请求率 = 副本数 × ${rate} 请求/秒；每个副本 ${perReplica} 个请求。"完整缓存着的不同文档"：至少在一个副本上整份缓存着的文档数；"去重后的缓存内容"：集群里去重后缓存的 token ÷ 文档的平均长度（${Number.isFinite(itemTokens) ? itemTokens.toLocaleString("en-US") : "—"} token）。两者都是快照的平均。`,
        `"派发时集群里任一副本已缓存"：请求到达时，缓存得最多的那个副本已有它提示的多少——能读所有副本缓存的请求最多能命中这么多；"命中率"是它在落到的副本上实际命中的。`,
        warmupNote(),
      ],
    };
  },
  claims: CLAIMS_022,
});

// ---- 02.8: which documents each replica holds ----

type P028 = { workload: string; replicas: number; rate: number; requestCount: number; policies: string[]; topRanks: number; seed: number };

/** For each rank 1 … top of a policy: the time-averaged copies (Σ over replicas) and the share of them on the
 * replica holding it most (1 = always the same replica). */
function byRank(t: Parameters<Claim["judge"]>[0], policy: string): Array<{ copies: number; concentration: number }> {
  const rows = needRows(t, { policy });
  const top = Math.max(...rows.map((r) => r.rank as number));
  const out = Array.from({ length: top }, () => ({ copies: 0, max: 0 }));
  for (const r of rows) {
    const x = out[(r.rank as number) - 1];
    const share = r.cachedShare as number;
    x.copies += share;
    if (share > x.max) x.max = share;
  }
  return out.map((x) => ({ copies: x.copies, concentration: x.copies > 0 ? x.max / x.copies : NaN }));
}

const avg = (xs: number[]): number => xs.reduce((s, v) => s + v, 0) / xs.length;

const CLAIMS_028: Claim<P028>[] = [
  {
    id: "round-robin-hot-everywhere",
    says: "轮转时最热的文档同时存在好几个副本上：同一份内容缓存了好几遍",
    lecture: "只看负载，每个副本都试图缓存同一批热门内容",
    judge: (t, p) => {
      const hot = byRank(t, "roundRobin").slice(0, 3);
      needParam(hot.length >= 3, "需要至少前 3 名的文档");
      const copies = avg(hot.map((x) => x.copies));
      return { holds: copies >= 2, ours: `最热的 3 份平均同时存在 ${f(copies, 1)} 个副本上（共 ${p.replicas} 个；第一名 ${f(hot[0].copies, 1)} 个）` };
    },
  },
  {
    id: "affinity-one-home",
    says: "阈值亲和时热门文档各有一个\"家\"：每份最多存一份，大多时候（至少四分之三的时间）在同一个副本上",
    judge: (t) => {
      const hot = byRank(t, "thresholdAffinity").slice(0, 5);
      needParam(hot.length >= 3, "需要至少前 3 名的文档");
      const copies = avg(hot.map((x) => x.copies));
      const home = avg(hot.filter((x) => Number.isFinite(x.concentration)).map((x) => x.concentration));
      const rr = byRank(t, "roundRobin").slice(0, hot.length);
      const rrHome = avg(rr.filter((x) => Number.isFinite(x.concentration)).map((x) => x.concentration));
      return {
        holds: copies <= 1.05 && home >= 0.75,
        ours: `最热的 ${hot.length} 份平均同时存 ${f(copies, 2)} 份，其中 ${pct(home)} 在最常存它的那个副本上（轮转：${pct(rrHome)}）`,
      };
    },
  },
];

export const cacheContents = defineDemo({
  id: "02.8",
  section: "§2.4",
  title: "每个副本缓存着哪些文档：轮转 vs 阈值亲和",
  // Size: 02.1's long-document setting, one seed: the claims read where each hot document is cached, not a mean.
  defaults: { workload: "longDocQA", replicas: 4, rate: 1, requestCount: 1200, policies: ["roundRobin", "thresholdAffinity"], topRanks: 40, seed: 1 },
  describe: {
    workload: { meaning: "负载（data/workloads.json 里的名字；关键部分按热度排名）", range: `${WORKLOAD_NAMES.join("、")} 之一` },
    replicas: { meaning: "副本数", range: "1–64 的整数" },
    rate: { meaning: "请求率（请求/秒）", range: "> 0 且 ≤ 1000 的数" },
    requestCount: { meaning: "模拟的请求数（前 20% 用来预热，不计入快照）", range: "20–50000 的整数" },
    policies: policiesDoc(),
    topRanks: { meaning: "表中列出热度前几名的文档", range: "1–1000 的整数" },
    seed: SEED_DOCS.seed,
  },
  run(p, ctx: DemoContext) {
    const workload = checkOneOf("workload", p.workload, WORKLOAD_NAMES as string[]);
    const replicas = checkReplicas("replicas", p.replicas);
    const rate = checkNumber("rate", p.rate, { above: 0, max: 1000 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 20, max: 50000 });
    const policies = checkPolicies(p.policies);
    const top = checkInteger("topRanks", p.topRanks, { min: 1, max: 1000 });
    const seed = checkInteger("seed", p.seed, { min: 0 });
    const w = generateWorkload(workload, { rate, seed, requestCount });
    const from = w.requests[Math.floor(requestCount * 0.2)].arrival;
    const to = w.requests[requestCount - 1].arrival;
    const rows: Row[] = [];
    let samples = 0;
    for (const policy of policies) {
      ctx.progress?.(`02.8：${displayName(policy)}`);
      const tl = runSection2(w, replicas, policy, seed, { timeline: { interval: (to - from) / 40, maxSamples: 2000 } }).timeline;
      if (!tl || !tl.cachedKeys) continue;
      const keep = tl.times.map((time, k) => (time >= from && time <= to ? k : -1)).filter((k) => k >= 0);
      samples = keep.length;
      for (let i = 0; i < replicas; i++) {
        const counts = new Array<number>(top).fill(0);
        for (const k of keep) for (const key of tl.cachedKeys[i][k]) if (key < top) counts[key]++;
        for (let rank = 1; rank <= top; rank++) rows.push({ policy, replica: i, rank, cachedShare: keep.length ? counts[rank - 1] / keep.length : NaN });
      }
    }
    return {
      title: `每个副本缓存着哪些${displayName(workload) === "长文档问答" ? "文档" : "关键部分"}：${displayName(workload)}，${replicas} 个副本，${rate} 请求/秒，种子 ${seed}`,
      columns: [
        policyColumn(),
        { key: "replica", label: "副本", format: "int" },
        { key: "rank", label: "热度排名", format: "int" },
        { key: "cachedShare", label: "整份缓存着的时间比例", format: "percent0" },
      ],
      rows,
      notes: [
        `热度排名 1 = 最热（Zipf 热度的第一名）。"整份缓存着的时间比例"：预热之后到最后一个请求到达之间的 ${samples} 个等间隔快照里，这个副本整份缓存着这份文档的比例；同一排名在各副本上的比例之和 = 平均同时存着几份。`,
        `策略：${names(policies)}。`,
      ],
    };
  },
  claims: CLAIMS_028,
});
