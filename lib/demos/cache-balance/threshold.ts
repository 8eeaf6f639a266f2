// 代码 02, §2.3: the affinity threshold θ — match ÷ prompt ≥ θ sends a request to its longest match, else by load
// (02.3): too low herds on the shared system prompt, too high loses long documents, the middle is flat — except
// tool calling at 0.75, where copies made by load placements meet lowest-index ties.
import { checkNonEmpty, checkNumber, checkOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { defineDemo, DemoContext } from "../registry";
import { CLUSTER_COLUMNS } from "../columns";
import { Claim, f, need, needParam, pct, times } from "../claims";
import {
  agreeing, checkReplicas, mean, checkWorkloadSetting, meanOverSeeds, meanText, perSeed, runSection2Many, section2Defaults, SEED_DOCS, seedList, seedsAgreeingAll,
  seedsPhrase, warmupNote, WORKLOADS_DOCS, workloadsIn, zipSeeds,
} from "./section2";

/** The largest spread of mean latency over the given thresholds, workload by workload (seed means and per seed). */
function plateau(t: Table, p: { thresholds: number[] }, mid: number[]) {
  needParam(mid.every((m) => p.thresholds.includes(m)), `需要 θ = ${mid.join("、")} 这几行`);
  const parts: string[] = [];
  const gaps: number[][] = [];
  let worst = 0;
  let worstAt = "";
  for (const w of workloadsIn(t)) {
    const lat = mid.map((th) => perSeed(t, { workload: w, threshold: th }, "meanLatency"));
    const means = lat.map(mean);
    const gap = Math.max(...means) / Math.min(...means) - 1;
    if (gap > worst) [worst, worstAt] = [gap, w];
    const bySeed = zipSeeds(lat, (...xs) => Math.max(...xs) / Math.min(...xs) - 1);
    gaps.push(bySeed);
    parts.push(`${displayName(w)} ${pct(gap)}${bySeed.length > 1 ? `（每个种子单独算：${pct(Math.min(...bySeed))}–${pct(Math.max(...bySeed))}）` : ""}`);
  }
  // Two statistics, each named: the gap of the seed-mean curve (what is judged) and each seed's own gap. The mean
  // curve is flatter where the seeds' ups and downs fall on different θ, so the first may lie below the second's range.
  const seedCount = gaps[0]?.length ?? 1;
  return {
    holds: worst < 0.1,
    why: `${displayName(worstAt)}在 θ = ${mid.join("、")} 之间平均延迟${seedCount > 1 ? `（${seedCount} 个种子的均值）` : ""}最多相差 ${pct(worst)}，超过 10%`,
    ours: seedCount > 1
      ? `${seedCount} 个种子的平均延迟取均值后（均值抵消了各种子错开的起伏，可以小于每个种子单独算的差），在这几个 θ 之间最多相差：${parts.join("；")}`
      : `平均延迟在这几个 θ 之间最多相差：${parts.join("；")}`,
    remark: worst >= 0.1 ? `${displayName(worstAt)}超出 10%` : undefined,
    seeds: seedsAgreeingAll(gaps, (g) => g < 0.1),
  };
}

type P023 = ReturnType<typeof section2Defaults> & { thresholds: number[]; ties?: string; seed: number; seeds: number };

const CLAIMS_023: Claim<P023>[] = [
  {
    id: "plateau",
    says: "阈值取 0.25–0.75 时结果几乎一样：值得共享的部分（文档、视频、工具说明）都占提示的大头",
    lecture: "0.25–0.75 之间几乎一样",
    judge: (t, p) => plateau(t, p, [0.25, 0.5, 0.75]),
  },
  {
    id: "plateau-to-half",
    says: "至少在 0.25–0.5 之间结果几乎一样",
    judge: (t, p) => plateau(t, p, [0.25, 0.5]),
  },
  {
    id: "tool-calling-at-three-quarters",
    says: "工具调用在 θ = 0.75 时开始变差：问题较长的请求够不上阈值、被按负载派去别处，热门工具于是在几个副本上都有一份，流量偏向其中一个（最忙副本的份额上升；偏向的为什么是编号最小的那个，见下面正文）",
    judge: (t, p) => {
      needParam(p.thresholds.includes(0.75) && p.thresholds.includes(0.5), "需要 θ = 0.75 和 θ = 0.5 两行");
      const load05 = need(t, { workload: "toolCalling", threshold: 0.5 }, "loadShare");
      const load075 = need(t, { workload: "toolCalling", threshold: 0.75 }, "loadShare");
      const share05 = need(t, { workload: "toolCalling", threshold: 0.5 }, "maxShare");
      const share075 = need(t, { workload: "toolCalling", threshold: 0.75 }, "maxShare");
      const lat = zipSeeds([perSeed(t, { workload: "toolCalling", threshold: 0.5 }, "meanLatency"), perSeed(t, { workload: "toolCalling", threshold: 0.75 }, "meanLatency")], (a, b) => b / a);
      const spreads = share075 > share05 + 0.05;
      return {
        holds: load075 > 2 * load05 && spreads && mean(lat) > 1.1,
        ours: `按负载派的请求 ${pct(load05)} → ${pct(load075)}，最忙副本 ${pct(share05)} → ${pct(share075)}，平均延迟 ${meanText(lat, 2, "倍")}`,
        why: `${!spreads ? `最忙副本的份额没有明显上升（${pct(share05)} → ${pct(share075)}）` : `平均延迟只到 θ = 0.5 时的 ${f(mean(lat), 2)} 倍`}${p.ties === "leastLoad" ? "：平局取负载最轻时，热门工具的几份拷贝里由闲的那个接活，流量不再偏向一个副本" : ""}`,
        seeds: agreeing(lat, (x) => x > 1.1),
      };
    },
  },
  {
    id: "low-theta-herds",
    says: "阈值太低（0.1）时，只共享系统提示也越过阈值，扎堆又回来了：工具调用的系统提示约占提示的六分之一，长文档的系统提示只有 13 个 token、挡在门外",
    lecture: "太低（0.1）时\"只共享系统提示\"也会触发亲和，扎堆又回来了",
    judge: (t, p) => {
      needParam(p.thresholds.includes(0.1) && p.thresholds.includes(0.5), "需要 θ = 0.1 和 θ = 0.5 两行");
      const tool01 = perSeed(t, { workload: "toolCalling", threshold: 0.1 }, "meanLatency");
      const tool05 = perSeed(t, { workload: "toolCalling", threshold: 0.5 }, "meanLatency");
      const share = need(t, { workload: "toolCalling", threshold: 0.1 }, "maxShare");
      const ratios = zipSeeds([tool01, tool05], (a, b) => a / b);
      const long01 = need(t, { workload: "longDocQA", threshold: 0.1 }, "meanLatency");
      const long05 = need(t, { workload: "longDocQA", threshold: 0.5 }, "meanLatency");
      return {
        holds: mean(ratios) > 3 && share > 0.5 && long01 / long05 < 1.2,
        ours: `工具调用 θ = 0.1 的平均延迟是 θ = 0.5 的 ${meanText(ratios, 1, "倍")}，最忙副本占 ${pct(share)}；长文档 ${f(long01, 2)} 对 ${f(long05, 2)} 秒`,
        seeds: agreeing(ratios, (x) => x > 3),
      };
    },
  },
  {
    id: "high-theta-long-docs",
    says: "阈值太高（0.9）时长文档吃亏：问题部分约占提示的 9%，缓存了文档的请求也够不上阈值，被派去别处重算整份文档",
    lecture: "太高（0.9）时长文档的问题部分（约 9%）就让很多请求够不上",
    judge: (t, p) => {
      needParam(p.thresholds.includes(0.9) && p.thresholds.includes(0.5), "需要 θ = 0.9 和 θ = 0.5 两行");
      const h05 = perSeed(t, { workload: "longDocQA", threshold: 0.5 }, "hitRate");
      const h09 = perSeed(t, { workload: "longDocQA", threshold: 0.9 }, "hitRate");
      const l05 = perSeed(t, { workload: "longDocQA", threshold: 0.5 }, "meanLatency");
      const l09 = perSeed(t, { workload: "longDocQA", threshold: 0.9 }, "meanLatency");
      const drop = zipSeeds([h05, h09], (a, b) => a - b);
      const rise = zipSeeds([l05, l09], (a, b) => b / a);
      return {
        holds: mean(drop) > 0.05 && mean(rise) > 1.1,
        ours: `命中率 ${pct(mean(h05), 1)} → ${pct(mean(h09), 1)}，平均延迟 ${f(mean(l05), 2)} → ${f(mean(l09), 2)} 秒（${meanText(rise, 2, "倍")}）`,
        seeds: seedsAgreeingAll([zipSeeds([drop, rise], (a, b) => (a > 0.05 && b > 1.1 ? 1 : 0))], (x) => x === 1),
      };
    },
  },
  {
    id: "high-theta-video",
    says: "视频问答的问题只占提示的很小一部分，θ = 0.9 时几乎不受影响",
    judge: (t, p) => {
      needParam(p.thresholds.includes(0.9) && p.thresholds.includes(0.5), "需要 θ = 0.9 和 θ = 0.5 两行");
      const l05 = need(t, { workload: "videoQA", threshold: 0.5 }, "meanLatency");
      const l09 = need(t, { workload: "videoQA", threshold: 0.9 }, "meanLatency");
      return { holds: l09 / l05 < 1.15, ours: `平均延迟 ${f(l05, 2)} → ${f(l09, 2)} 秒（${times(l09 / l05)}）` };
    },
  },
];

export const thresholdSweep = defineDemo({
  id: "02.3",
  section: "§2.3",
  title: "亲和阈值 θ：匹配 ÷ 提示 ≥ θ 才去匹配最长的副本",
  // Size: 02.1's workloads, rates and request counts (the same runs at θ = 0.5), 3 seeds: the plateau is judged on seed means.
  defaults: {
    ...section2Defaults(),
    thresholds: [0.1, 0.25, 0.5, 0.75, 0.9],
    ties: "lowestIndex",
    seed: 1,
    seeds: 3,
  },
  describe: {
    ...WORKLOADS_DOCS,
    thresholds: { meaning: "要扫描的阈值 θ：匹配 ÷ 提示长度达到 θ 才派给匹配最长的副本，否则按负载派", range: "非空数组，每项在 0 到 1 之间" },
    ties: { meaning: "几个副本匹配一样长时怎么选：lowestIndex = 编号最小（本节的路由器），leastLoad = 在途提示 token 最少（演示 02.5 的另一种平局规则）", range: "lowestIndex、leastLoad 之一" },
    ...SEED_DOCS,
  },
  run(p, ctx: DemoContext) {
    const setting = checkWorkloadSetting(p);
    const replicas = checkReplicas("replicas", p.replicas);
    const thresholds = checkThresholds(p.thresholds);
    const ties = checkOneOf("ties", p.ties ?? "lowestIndex", ["lowestIndex", "leastLoad"] as const);
    const seeds = seedList(p);
    const rows: Row[] = [];
    const herding: string[] = [];
    const overloaded: string[] = [];
    // Every (workload, seed, θ) run at once over the worker threads, then read back in the same order.
    const jobs = setting.flatMap(({ workload, rate, requestCount }) => seeds.flatMap((seed) => thresholds.map((threshold) => ({ workload, rate, requestCount, replicas, router: "thresholdAffinity", seed, routerOptions: ties === "lowestIndex" ? { threshold } : { threshold, ties } }))));
    const results = runSection2Many(jobs, "02.3", ctx.progress);
    let next = 0;
    for (const { workload, requestCount } of setting) {
      const perTheta = thresholds.map(() => [] as Row[]);
      for (let s = 0; s < seeds.length; s++) {
        thresholds.forEach((_threshold, k) => {
          const res = results[next++];
          const load = (res.routerStats.load as number | undefined) ?? 0;
          perTheta[k].push({ ...res.metrics, loadShare: load / requestCount } as unknown as Row);
        });
      }
      thresholds.forEach((threshold, k) => {
        const over = perTheta[k].filter((r) => r.overloaded === true).length;
        const row = meanOverSeeds({ workload, threshold, overloaded: over > 0 }, perTheta[k], ["meanLatency", "hitRate", "maxShare", "loadShare"]);
        if ((row.maxShare as number) > 0.6) herding.push(`${displayName(workload)} θ = ${threshold}（最忙副本 ${f((row.maxShare as number) * 100, 0)}%）`);
        if (over > 0) overloaded.push(`${displayName(workload)} θ = ${threshold}`);
        rows.push(row);
      });
    }
    return {
      title: `亲和阈值 θ 的扫描：${replicas} 个副本，${seedsPhrase(seeds)}`,
      columns: [
        CLUSTER_COLUMNS.workload,
        { key: "threshold", label: "阈值 θ", format: "fixed2" },
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.maxShare,
        { key: "loadShare", label: "够不上阈值、按负载派的请求", format: "percent0" },
        CLUSTER_COLUMNS.overloaded,
      ],
      rows,
      notes: [
        `路由：匹配（路由器视角）÷ 提示长度 ≥ θ 时派给匹配最长的副本，否则派给在途提示 token 最少的副本；几个副本匹配一样长时取${ties === "lowestIndex" ? "编号最小" : "在途提示 token 最少"}的（lib/cluster/routers.ts 的 thresholdAffinity，ties = ${ties}）。请求率：${setting.map((s) => `${displayName(s.workload)} ${s.rate} 请求/秒`).join("，")}。`,
        `扎堆（最忙副本 > 60% 的请求）：${herding.length ? herding.join("、") : "无"}。过载：${overloaded.length ? overloaded.join("、") : "无"}。`,
        warmupNote(),
      ],
    };
  },
  claims: CLAIMS_023,
});

function checkThresholds(value: unknown): number[] {
  return checkNonEmpty("thresholds", value as number[]).map((t, k) => checkNumber(`thresholds[${k}]`, t, { min: 0, max: 1 }));
}

