// 03.3 — the hot spot (§3.4): one tool takes ≈ 40% of the traffic; E2 with and without rebalancing, over Th_bal.
import { checkEachOneOf, checkInteger, checkNonEmpty, checkNumber } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row } from "../../core/table";
import { configurationRun } from "../../cluster/preble/runs";
import { READINGS } from "../../cluster/preble/index";
import { simulateConfigurations } from "../../cluster/preble/memo";
import type { ClusterOptions } from "../../cluster/simulate";
import { cannotJudge, Claim, f, needParam, needRows, pct, seedsAgreeing } from "../claims";
import { COLUMNS, OVERLOAD_NOTE, READING_LABEL, SEED_DOC, seedsOf, WARMUP_NOTE } from "./common";
import { defineDemo } from "../registry";

const num = (x: unknown): number => x as number;

type HotSpotParams = { readings: string[]; rate: number; replicas: number; thBals: number[]; thBalSeeds: number; requestCount: number; seed: number | string };

/** The released reading of the load cost (lib/cluster/preble/options.ts READINGS): it changes E2's explore, so E2 and
 * the Th_bal sweep are run again under it (the released Th_bal sweep migrates important nodes, gsw:377–462; one seed
 * per Th_bal, to keep the demo fast). */
export const RELEASED_COST = { decodeEstimate: "released", evictionEstimate: "memoryFull" };
export const HOT_READINGS = [
  { id: "lecture", label: READING_LABEL.lecture, e2: "e2", sweep: "e2+rebalance", moved: "rebalanced" },
  { id: "released", label: READING_LABEL.released, e2: "e2Released", sweep: "e2+migrateReleased", moved: "migrated" },
] as const;
type HotReading = (typeof HOT_READINGS)[number];

/** One judgement per reading in `readings` (the lecture's first). */
function perHotReading<T>(p: HotSpotParams, judge: (r: HotReading) => T): Array<T & { reading: string }> {
  const list = HOT_READINGS.filter((r) => p.readings.includes(r.id));
  if (list.length === 0) cannotJudge("参数 readings 里没有可判断的读法");
  return list.map((r) => ({ reading: r.label, ...judge(r) }));
}

const HOT_SPOT_CLAIMS: Claim<HotSpotParams>[] = [
  {
    id: "e2-collapses",
    says: "没有再平衡的 E2 和“命中过半才亲和”一样崩溃：热门工具只在一个副本上有最长匹配，那个副本收下它的全部请求，队列越排越长",
    lecture: "没有再平衡的 E2 和“命中过半才亲和”一样崩溃",
    judge: (t, p) =>
      perHotReading(p, (reading) => {
        const rows = [reading.e2, "thresholdAffinity"].map((policy) => needRows(t, { policy })[0]);
        const fine = rows.filter((r) => !(num(r.maxShare) >= 0.35 && r.overloaded === true));
        return {
          holds: rows.every((r) => num(r.maxShare) >= 0.35 && r.overloaded === true),
          why: `${fine.map((r) => `${displayName(r.policy)}最忙副本只占 ${pct(num(r.maxShare))}${r.overloaded ? "" : "、没有过载"}`).join("；")}`,
          ours: rows.map((r) => `${displayName(r.policy)}：最忙副本 ${pct(num(r.maxShare))}，平均 ${f(num(r.meanLatency), 1)} 秒${r.overloaded ? "（过载）" : ""}`).join("；"),
          remark: reading.id === "released" ? "阈值亲和不是 Preble，两种读法用同一行；E2 按开源代码的负载代价（decode 项、M）重跑" : undefined,
        };
      }),
  },
  {
    id: "rebalance-cures",
    says: "打开再平衡后崩溃消失：（每个 Th_bal 下）都不过载，最忙副本的占比降到 30% 以下，平均延迟不到没有再平衡时的三分之一",
    lecture: "打开再平衡后崩溃消失",
    judge: (t) => {
      const e2 = num(needRows(t, { policy: "e2" })[0].meanLatency);
      return [
        { reading: "讲义的再平衡（改派请求）", policy: "e2+rebalance" },
        { reading: "开源代码的再平衡（迁移重要节点）", policy: "e2+migrate" },
      ].map(({ reading, policy }) => {
        const reb = needRows(t, { policy });
        const means = reb.map((r) => num(r.meanLatency));
        const holds = reb.every((r) => r.overloaded === false && num(r.maxShare) < 0.3 && num(r.meanLatency) < e2 / 3);
        return {
          reading,
          holds,
          why: policy === "e2+migrate" ? `最忙副本仍占 ${pct(Math.max(...reb.map((r) => num(r.maxShare))))}${reb.some((r) => r.overloaded === true) ? "、过载" : ""}：迁移搬走的是热副本上别的前缀，单个热前缀搬不走，开源代码把它留给 TTFT 翻倍时的复制（gsw:419–429），这一行没开自动扩展` : `最忙副本最多占 ${pct(Math.max(...reb.map((r) => num(r.maxShare))))}，平均 ${f(Math.max(...means))} 秒（E2 ${f(e2, 1)} 秒）${reb.some((r) => r.overloaded === true) ? "，有 Th_bal 下过载" : ""}`,
          ours: `平均 ${f(Math.min(...means))}${means.length > 1 ? `–${f(Math.max(...means))}` : ""} 秒（E2 ${f(e2, 1)} 秒），最忙副本最多 ${pct(Math.max(...reb.map((r) => num(r.maxShare))))}${reb[0].overloaded ? "，过载" : ""}`,
        };
      });
    },
  },
  {
    id: "thbal-insensitive",
    says: "阈值 Th_bal 几乎无关紧要：几次改派让热门前缀在别的副本上也有了副本之后，“利用”就在这些副本之间按负载代价分流",
    lecture: "阈值不敏感",
    judge: (t, p) => {
      needParam(p.thBals.length >= 2, "需要至少两个 Th_bal（参数 thBals）");
      return perHotReading(p, (reading) => {
        const reb = needRows(t, { policy: reading.sweep });
        const means = reb.map((r) => num(r.meanLatency));
        const spreadRatio = Math.max(...means) / Math.min(...means);
        const perSeed = Array.from({ length: num(reb[0].seeds) }, (_, k) => {
          const xs = reb.map((r) => num(r[`meanSeed${k}`]));
          return Math.max(...xs) / Math.min(...xs);
        });
        const moved = Math.max(...reb.map((r) => num(r[reading.moved])));
        const allOverloaded = reb.every((r) => r.overloaded === true);
        return {
          // the claim names its mechanism (the load spreads over the new copies): with every Th_bal overloaded, the
          // thresholds agree only in failing, and the claim does not hold
          holds: spreadRatio < 1.3 && !allOverloaded,
          why: spreadRatio >= 1.3 ? `不同 Th_bal 下平均延迟相差 ${pct(spreadRatio - 1)}，超过 30%` : "每个 Th_bal 都过载：阈值不敏感是因为哪个都治不了热点，不是因为分流了",
          ours: `Th_bal ${p.thBals.join("、")}：${num(reb[0].seeds) > 1 ? "种子平均的" : ""}平均延迟最多相差 ${pct(spreadRatio - 1)}，${reading.id === "released" ? "迁移的重要节点" : "改派的请求"}最多 ${f(moved, 0)} 个`,
          remark:
            reading.id === "released"
              ? `开源代码的读法：再平衡迁移重要节点（gsw:377–462），负载代价用开源代码的 decode 项和 M，每个 Th_bal 一个种子${allOverloaded ? "；迁移搬不走单个热前缀的负载" : ""}`
              : undefined,
          seeds: perSeed.length > 1 ? seedsAgreeing(perSeed, (x) => x < 1.3) : undefined,
        };
      });
    },
  },
];

export const hotSpotDemo = defineDemo<HotSpotParams>({
  id: "03.3",
  section: "§3.4",
  title: "热点：一个工具占约 40% 的流量，E2 有无事后再平衡",
  // Size: 4,000 requests at 70/s (≈ 1 minute: the collapse overloads within it), 3 seeds per Th_bal: thbal-insensitive compares Th_bal values on seed means.
  defaults: { readings: ["lecture", "released"], rate: 70, replicas: 8, thBals: [1.2, 1.5, 2, 3], thBalSeeds: 3, requestCount: 4000, seed: 1 },
  describe: {
    readings: { meaning: "按哪几种读法下结论：lecture（讲义：改派请求的再平衡、窗口请求 × 平均输出的 decode 项、放不下才淘汰的 M）、released（开源代码：另跑 E2 和迁移重要节点的 Th_bal 扫描，用在途请求 × 实测 TPOT 的 decode 项、显存总是满的 M）；讲义的各行总是跑", range: "非空数组，每项为 lecture、released 之一" },
    rate: { meaning: "请求率（请求/秒）", range: "> 0 的数" },
    replicas: { meaning: "副本（GPU）个数", range: "2–30 的整数" },
    thBals: { meaning: "“E2 + 再平衡”试的 Th_bal 值", range: "非空数组，每项 ≥ 1" },
    thBalSeeds: { meaning: "“E2 + 再平衡”每个 Th_bal 跑几个种子取平均（种子 seed、seed + 1 …）", range: "1–10 的整数" },
    requestCount: { meaning: "每次模拟的请求数", range: "≥ 100 的整数" },
    seed: SEED_DOC,
  },
  run(p, { progress }) {
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const replicas = checkInteger("replicas", p.replicas, { min: 2, max: 30 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 100 });
    const thBals = checkNonEmpty("thBals", p.thBals).map((t, i) => checkNumber(`thBals[${i}]`, t, { min: 1 }));
    const nSeeds = checkInteger("thBalSeeds", p.thBalSeeds, { min: 1, max: 10 });
    const seeds = seedsOf(p.seed, nSeeds);
    const released = checkEachOneOf("readings", p.readings, ["lecture", "released"]).includes("released");
    const runs: Array<{ policy: string; thBal: number | null; configuration: string; routerOptions?: Record<string, unknown>; router?: string; seeds?: Array<number | string> }> = [
      { policy: "baseline", thBal: null, configuration: "baseline" },
      { policy: "thresholdAffinity", thBal: null, configuration: "", router: "thresholdAffinity" },
      { policy: "cacheAwareGuarded", thBal: null, configuration: "cacheAwareGuarded" },
      { policy: "e2", thBal: null, configuration: "e2" },
      ...thBals.map((t) => ({ policy: "e2+rebalance", thBal: t, configuration: "e2+rebalance", routerOptions: { thBal: t }, seeds })),
      { policy: "e2+migrate", thBal: 1.5, configuration: "e2+rebalance", routerOptions: { rebalanceAction: "migrate" } },
      { policy: "preble", thBal: 1.5, configuration: "preble" },
      ...(released
        ? [
            { policy: "e2Released", thBal: null, configuration: "e2", routerOptions: { ...RELEASED_COST } },
            ...thBals.map((t) => ({ policy: "e2+migrateReleased", thBal: t, configuration: "e2+rebalance", routerOptions: { thBal: t, rebalanceAction: "migrate", ...RELEASED_COST } })),
          ]
        : []),
    ];
    const jobs = runs.flatMap((r) => (r.seeds ?? [p.seed]).map((seed) => ({ r, seed })));
    const results = simulateConfigurations(
      jobs.map(({ r, seed }): ClusterOptions =>
        r.router
          ? { workload: "toolCallingHotSpot", rate, replicas, requestCount, seed, router: r.router, localPolicy: "fcfs", replicationSamples: 0 }
          : configurationRun({ workload: "toolCallingHotSpot", rate, replicas, configuration: r.configuration, routerOptions: r.routerOptions, requestCount, seed }),
      ),
      (done, total) => progress?.(`03.3：已完成 ${done}/${total} 次模拟`),
    );
    let next = 0;
    const rows: Row[] = runs.map((r) => {
      const n = (r.seeds ?? [p.seed]).length;
      const rs = results.slice(next, next + n);
      next += n;
      const avg = (f0: (x: (typeof rs)[number]) => number) => rs.reduce((a, x) => a + f0(x), 0) / n;
      const variant = r.policy === "e2+rebalance" || r.policy === "e2+migrateReleased" ? `${displayName(r.policy)} · Th_bal ${r.thBal}` : displayName(r.policy);
      const stat = (k: string) => (rs[0].routerStats[k] === undefined ? null : avg((x) => x.routerStats[k] as number));
      const row: Row = { policy: r.policy, variant, thBal: r.thBal, meanLatency: avg((x) => x.metrics.meanLatency), meanMin: Math.min(...rs.map((x) => x.metrics.meanLatency)), meanMax: Math.max(...rs.map((x) => x.metrics.meanLatency)), meanRange: n > 1 ? `${f(Math.min(...rs.map((x) => x.metrics.meanLatency)))}–${f(Math.max(...rs.map((x) => x.metrics.meanLatency)))}` : null, p99Latency: avg((x) => x.metrics.p99Latency), maxShare: avg((x) => x.metrics.maxShare), hitRate: avg((x) => x.metrics.hitRate), overloaded: rs.some((x) => x.metrics.overloaded), rebalanced: stat("rebalance"), migrated: stat("migrated"), seeds: n };
      rs.forEach((x, k) => (row[`meanSeed${k}`] = x.metrics.meanLatency));
      return row;
    });
    return {
      title: `热点：最热的工具约占 40% 的流量，${replicas} 个副本，${rate} 请求/秒`,
      columns: [
        COLUMNS.configuration,
        { key: "thBal", label: "Th_bal", format: "sig3" },
        COLUMNS.meanLatency,
        { key: "meanRange", label: "平均延迟（各种子的范围）", unit: "秒", format: "text" },
        COLUMNS.p99Latency,
        COLUMNS.maxShare,
        COLUMNS.hitRate,
        COLUMNS.overloaded,
        { key: "seeds", label: "种子数", format: "int" },
        { key: "rebalanced", label: "改派的请求", format: "fixed0" },
        { key: "migrated", label: "迁移的重要节点", format: "int" },
      ],
      rows,
      notes: [
        `负载“工具调用（热点）”：最热的工具占 40% 的请求，其余按 Zipf 1.1 分布在另外 199 个工具上；${requestCount} 个请求，种子 ${String(p.seed)}；“E2 + 再平衡”的各行是 ${nSeeds} 个种子（${seeds.join("、")}）的均值。一个副本大约只扛得住 1/${replicas} 的流量（公平份额 ${pct(1 / replicas, 1)}）。`,
        "阈值亲和 = 最长匹配覆盖提示的一半以上就派给它，否则派给负载最轻的（§2.3）；阈值亲和、E2、E2 + 再平衡的副本内都是 FCFS，完整 Preble 用优先级组。",
        `两种再平衡都在派发满 50 × ${replicas} = ${50 * replicas} 个请求之后才开始（gsw:378）。E2 + 再平衡：${READINGS.rebalanceAction.lecture.source.replace(/^讲义 §3.4：/, "")}，且最忙的 GPU 在途的请求比最轻的多（只有历史、没有在途的活，不值得把缓存扔掉）。E2 + 迁移：${READINGS.rebalanceAction.released.source.replace(/^gsw:377–462：/, "")}（gsw:377–462）。`,
        WARMUP_NOTE,
        OVERLOAD_NOTE,
      ],
    };
  },
  claims: HOT_SPOT_CLAIMS,
});
