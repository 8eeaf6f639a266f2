// 03.11 — the paper's ablation (its Figure 5) on paper: tool calling with Zipf 1.1 tool popularity, E2 alone, then
// + rebalancing, + prefill/decode pairing, + priority groups, beside the round-robin baseline (§3.6).
import { checkEachOneOf, checkInteger, checkNumber } from "../../core/errors";
import type { Row, Table } from "../../core/table";
import { simulateConfigurations } from "../../cluster/preble/memo";
import { configurationRun } from "../../cluster/preble/runs";
import { PREBLE_DEFAULTS } from "../../cluster/preble/options";
import type { RunSummary } from "../../cluster/sweep";
import { Claim, f, Judgement, needParam, needRows, notActed, pct, spread, times } from "../claims";
import { COLUMNS, OVERLOAD_NOTE, READING_LABEL, REPLICAS_DOC, requestsFor, SEED_DOC, seedsOf, WARMUP_NOTE } from "./common";
import { defineDemo } from "../registry";
import { changeWords, EFFECT_BAND, insideBand, overloadedSeedsWords, ratioChange, withinBand } from "./effect-band";

/** The rungs: a configuration and what is switched on over the previous rung. */
const LADDER = [
  { rung: "baseline", configuration: "baseline", routerOptions: {}, localPolicy: undefined },
  { rung: "e2", configuration: "e2", routerOptions: {}, localPolicy: undefined },
  { rung: "e2+rebalance", configuration: "e2+rebalance", routerOptions: {}, localPolicy: undefined },
  { rung: "e2+rebalance+pairing", configuration: "e2+rebalance", routerOptions: { pairing: true }, localPolicy: undefined },
  { rung: "e2+rebalance+pairing+priority", configuration: "e2+rebalance", routerOptions: { pairing: true }, localPolicy: "priority" },
] as const;

/** The same ladder as the released code reads each rung (lib/cluster/preble/options.ts READINGS): the paper's baseline
 * (LPM, no chunking), the released load cost (decode term, M), migrating rebalancing, the hit-ratio pairing rule and
 * one priority group per iteration (k = 10). Each rung's id is the lecture rung's plus "Released" (baselinePaper). */
const RELEASED_COST = { decodeEstimate: "released", evictionEstimate: "memoryFull" };
const RELEASED_LADDER = [
  { rung: "baselinePaper", configuration: "baselinePaper", routerOptions: {}, localPolicy: undefined },
  { rung: "e2Released", configuration: "e2", routerOptions: { ...RELEASED_COST }, localPolicy: undefined },
  { rung: "e2+migrateReleased", configuration: "e2+rebalance", routerOptions: { ...RELEASED_COST, rebalanceAction: "migrate" }, localPolicy: undefined },
  { rung: "e2+rebalance+pairingReleased", configuration: "e2+rebalance", routerOptions: { ...RELEASED_COST, rebalanceAction: "migrate", pairing: true, pairingRule: "released" }, localPolicy: undefined },
  { rung: "e2+rebalance+pairing+priorityReleased", configuration: "e2+rebalance", routerOptions: { ...RELEASED_COST, rebalanceAction: "migrate", pairing: true, pairingRule: "released" }, localPolicy: "priorityReleased" },
] as const;
const ABLATION_READINGS = [
  { id: "lecture", label: READING_LABEL.lecture, ladder: LADDER.map((r) => r.rung) as string[] },
  { id: "released", label: READING_LABEL.released, ladder: RELEASED_LADDER.map((r) => r.rung) as string[] },
] as const;
type AblationReading = (typeof ABLATION_READINGS)[number];

/** One judgement per reading in `readings` (the lecture's first); `name(k)` = the id of rung k under that reading. */
function perLadder(p: AblationParams, judge: (name: (k: number) => string, r: AblationReading) => Judgement) {
  const list = ABLATION_READINGS.filter((r) => p.readings.includes(r.id));
  needParam(list.length > 0, "需要参数 readings 里有 lecture 或 released");
  return list.map((r) => ({ reading: r.label, ...judge((k) => r.ladder[k], r) }));
}

type AblationParams = { readings: string[]; rate: number; replicas: number; minRequests: number; minSeconds: number; seeds: number; seed: number | string };

const num = (x: unknown): number => x as number;

/** How often the rung's mechanisms acted, summed over seeds (null where the rung has no such mechanism). */
function actionCounts(runs: readonly RunSummary[], rebalances: boolean, pairs: boolean): Row {
  const sum = (key: string) => runs.reduce((s, x) => s + num(x.routerStats[key] ?? 0), 0);
  const migrates = runs.some((x) => num(x.routerStats.migrated ?? 0) > 0);
  return {
    rebalanced: rebalances ? (migrates ? sum("migrated") : sum("rebalance")) : null,
    migratedBack: rebalances && migrates ? sum("migratedBack") : null,
    maxLoadRatio: rebalances ? Math.max(...runs.map((x) => num(x.routerStats.maxLoadRatio ?? NaN))) : null,
    paired: pairs ? sum("pairing") : null,
  };
}
const rung = (t: Table, id: string) => needRows(t, { policy: id })[0];

/** A step of the ladder: mean and P99 ratio (before ÷ after; > 1 = faster), seed-averaged. */
function step(t: Table, from: string, to: string) {
  const a = rung(t, from);
  const b = rung(t, to);
  return { mean: num(a.meanLatency) / num(b.meanLatency), p99: num(a.p99Latency) / num(b.p99Latency), a, b };
}

/** "快 12%" / "慢 3%" for small changes, "快 2.6 倍" for large ones. */
const words = (x: number) => (x >= 1.5 ? `快 ${f(x, 1)} 倍` : x >= 1 ? `快 ${pct(x - 1)}` : `慢 ${pct(1 / x - 1)}`);
/** Why a small effect cannot be judged on one seed (a ranking whose every ratio is inside the effect band flips
 * between seeds), else undefined. */
const noise = (p: AblationParams, ...xs: number[]) =>
  p.seeds === 1 && xs.every((x) => withinBand(ratioChange(x))) ? `只有一个种子，这一步的变化又都不到 ${pct(EFFECT_BAND)}：换一个种子就可能反过来（把 seeds 设成 3 再看）` : undefined;

/** The seeds where rung `from` or rung `to` overloaded, in words ("" when none). */
function overloadedBetween(t: Table, p: AblationParams, from: string, to: string): string {
  const flags = (id: string) => Array.from({ length: p.seeds }, (_, k) => rung(t, id)[`overloadedSeed${k}`] === true);
  return overloadedSeedsWords(seedsOf(p.seed, p.seeds), flags(from), flags(to), ["搭配前", "搭配后"]);
}

/** Rebalancing on rung `id` never acted: why (the load ratio it saw), else undefined. */
function rebalanceIdle(t: Table, id: string, r: AblationReading): string | undefined {
  const row = rung(t, id);
  const ratio = num(row.maxLoadRatio);
  const above = num(row.aboveThBal);
  const thBal = PREBLE_DEFAULTS.thBal;
  const because = above > 0 ? `最忙 / 最轻窗口负载之比最高 ${f(ratio)}，有 ${above} 次超过 Th_bal = ${thBal}，但那时利用选中的不是最忙的 GPU，或最忙的 GPU 未完成的请求不比最轻的多` : `最忙 / 最轻窗口负载之比最高 ${f(ratio)}，低于 Th_bal = ${thBal}`;
  return notActed(num(row.rebalanced), r.id === "released" ? "再平衡（迁移重要节点）" : "再平衡（改派请求）", because);
}

/** Back-and-forth of the released migration on rung `id`, in words ("" when none). */
function migrationWords(t: Table, id: string): string {
  const row = rung(t, id);
  const moves = num(row.rebalanced);
  const back = num(row.migratedBack);
  return moves > 0 ? `迁移 ${f(moves, 0)} 次，${f(back, 0)} 次（${pct(back / moves)}）直接迁回上一次迁出的 GPU` : "";
}

const CLAIMS: Claim<AblationParams>[] = [
  {
    id: "e2-already-better",
    says: "只有 E2 就已经明显好于轮转基线（平均和 P99 都快 20% 以上）",
    lecture: "论文图 5：基本 E2 已经有明显改善",
    judge: (t, p) =>
      perLadder(p, (name) => {
        const s = step(t, name(0), name(1));
        return { holds: s.mean >= 1.2 && s.p99 >= 1.2, ours: `平均 ${words(s.mean)}，P99 ${words(s.p99)}`, why: `E2 比基线平均${words(s.mean)}、P99 ${words(s.p99)}，没有都快 20% 以上` };
      }),
  },
  {
    id: "rebalance-mainly-p99",
    says: "加上再平衡，主要是 P99 变好：P99 的改善大于平均的改善，平均不变差（慢不到 5%）",
    lecture: "论文图 5：再平衡主要改善 P99",
    judge: (t, p) =>
      perLadder(p, (name, r) => {
        const s = step(t, name(1), name(2));
        const idle = rebalanceIdle(t, name(2), r);
        const moved = r.id === "released" ? migrationWords(t, name(2)) : "";
        return {
          holds: s.p99 > s.mean && s.p99 > 1 && s.mean >= 1 / 1.05,
          unjudged: idle ?? noise(p, s.mean, s.p99),
          ours: `平均 ${words(s.mean)}，P99 ${words(s.p99)}${idle ? "（两行是同一组决定）" : ""}`,
          remark: idle ? undefined : moved || undefined,
          why: `打开再平衡后平均${words(s.mean)}、P99 ${words(s.p99)}${moved ? `；${moved}（为什么来回搬见附录 A.8）` : ""}`,
        };
      }),
  },
  {
    id: "pairing-improves-both",
    says: "再加上 prefill/decode 搭配，平均和 P99 都变好",
    lecture: "论文图 5：搭配让两者都改善",
    // judged with the effect band whatever the seeds (as 03.2's pairing claims): holds when both get faster by 10% or
    // more, fails when either gets slower by 10% or more, otherwise unjudged naming the changes inside the band
    judge: (t, p) =>
      perLadder(p, (name) => {
        const s = step(t, name(2), name(3));
        const paired = num(rung(t, name(3)).paired);
        const changes = [["平均", ratioChange(s.mean)], ["P99", ratioChange(s.p99)]] as const;
        const inside = changes.filter(([, c]) => withinBand(c));
        const worse = changes.some(([, c]) => c <= -EFFECT_BAND);
        const over = overloadedBetween(t, p, name(2), name(3));
        const figures = changes.map(([m, c]) => `${m}${changeWords(c)}`).join("，");
        return {
          holds: inside.length === 0 && !worse,
          unjudged: notActed(paired, "prefill/decode 搭配") ?? (!worse && inside.length > 0 ? `${insideBand(inside.map(([m, c]) => `${m}${changeWords(c)}`).join("、"), inside.length === changes.length)}${over ? `；${over}` : ""}` : undefined),
          ours: `${figures}，搭配了 ${f(paired, 0)} 个请求`,
          why: `打开搭配后${figures}（搭配了 ${f(paired, 0)} 个请求）${over ? `；${over}` : ""}`,
        };
      }),
  },
  {
    id: "priority-p99-not-mean",
    says: "再加上优先级组，P99 变好（快 5% 以上）而平均几乎不变（变化不到 5%）",
    lecture: "论文图 5：优先级队列改善 P99、不改善平均延迟",
    judge: (t, p) =>
      perLadder(p, (name) => {
        const s = step(t, name(3), name(4));
        return { holds: s.p99 >= 1.05 && Math.abs(s.mean - 1) < 0.05, unjudged: noise(p, s.mean, s.p99), ours: `平均 ${words(s.mean)}，P99 ${words(s.p99)}`, why: `加上优先级组后平均${words(s.mean)}、P99 ${words(s.p99)}${s.p99 < 1.05 ? "：P99 没有快 5% 以上" : "：平均变化超过 5%"}` };
      }),
  },
  {
    id: "full-vs-baseline",
    says: "整条阶梯走完，平均延迟比基线低 1.5 倍以上（论文在这个负载上报告数倍）",
    lecture: "论文报告平均延迟低 1.5–14.5 倍",
    judge: (t, p) =>
      perLadder(p, (name, r) => {
        const s = step(t, name(0), name(4));
        return { holds: s.mean >= 1.5, why: `整条阶梯走完平均只快 ${times(s.mean)}，不到 1.5 倍`, ours: `平均 ${f(num(s.a.meanLatency))} → ${f(num(s.b.meanLatency))} 秒（${times(s.mean)}）`, remark: r.id === "released" ? "开源代码的读法从论文的基线（LPM，不分块）算起" : undefined };
      }),
  },
];

export const ablationDemo = defineDemo<AblationParams>({
  id: "03.11",
  section: "§3.6",
  title: "论文图 5 的纸上版：工具调用（Zipf 1.1）上一项项加上 Preble 的机制",
  // Size: 03.1's run sizes, one seed (the ladder's steps are unjudged when a step moves less than the noise, saying so).
  defaults: { readings: ["lecture", "released"], rate: 48, replicas: 4, minRequests: 1000, minSeconds: 200, seeds: 1, seed: 1 },
  describe: {
    readings: { meaning: "按哪几种读法走这条阶梯：lecture（讲义：我们的基线、改派请求的再平衡、我们的搭配规则、配额轮转的优先级组）、released（开源代码：论文的基线、开源的负载代价、迁移重要节点、命中率 ≥ 70% 的搭配、每迭代一组的优先级组）；讲义的阶梯总是跑", range: "非空数组，每项为 lecture、released 之一" },
    rate: { meaning: "工具调用的请求率（请求/秒）", range: "> 0 的数" },
    replicas: REPLICAS_DOC,
    minRequests: { meaning: "每次模拟至少多少个请求", range: "≥ 100 的整数" },
    minSeconds: { meaning: "每次模拟至少覆盖多少秒的到达（与 03.1 相同时共用同样的模拟）", range: "≥ 0 的数" },
    seeds: { meaning: "几个种子取平均（种子 seed、seed + 1 …）", range: "1–10 的整数" },
    seed: SEED_DOC,
  },
  run(p, { progress }) {
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 30 });
    const minRequests = checkInteger("minRequests", p.minRequests, { min: 100 });
    const minSeconds = checkNumber("minSeconds", p.minSeconds, { min: 0 });
    const nSeeds = checkInteger("seeds", p.seeds, { min: 1, max: 10 });
    const seeds = seedsOf(p.seed, nSeeds);
    const requestCount = requestsFor(rate, minRequests, minSeconds);
    const released = checkEachOneOf("readings", p.readings, ["lecture", "released"]).includes("released");
    const ladder: ReadonlyArray<(typeof LADDER)[number] | (typeof RELEASED_LADDER)[number]> = released ? [...LADDER, ...RELEASED_LADDER] : LADDER;
    const results = simulateConfigurations(
      ladder.flatMap((r) => seeds.map((seed) => configurationRun({ workload: "toolCalling", rate, replicas, configuration: r.configuration, routerOptions: r.routerOptions, localPolicy: r.localPolicy, requestCount, seed }))),
      (done, total) => progress?.(`03.11：已完成 ${done}/${total} 次模拟`),
    );
    const rows: Row[] = ladder.map((r, i) => {
      const runs = results.slice(i * nSeeds, (i + 1) * nSeeds);
      const mean = spread(runs.map((x) => x.metrics.meanLatency));
      const p99 = spread(runs.map((x) => x.metrics.p99Latency));
      const perSeedOverload = Object.fromEntries(runs.map((x, k) => [`overloadedSeed${k}`, x.metrics.overloaded]));
      return { policy: r.rung, ...perSeedOverload, ...actionCounts(runs, r.configuration !== "baseline" && r.configuration !== "baselinePaper" && r.configuration !== "e2", "pairing" in r.routerOptions), meanLatency: mean.mean, meanRange: nSeeds > 1 ? `${f(mean.min)}–${f(mean.max)}` : null, p99Latency: p99.mean, p99Range: nSeeds > 1 ? `${f(p99.min)}–${f(p99.max)}` : null, hitRate: runs.reduce((s, x) => s + x.metrics.hitRate, 0) / nSeeds, overloaded: runs.some((x) => x.metrics.overloaded) };
    });
    return {
      title: `论文图 5 的纸上版：工具调用（Zipf 1.1），${rate} 请求/秒，${replicas} 个副本`,
      columns: [
        { key: "policy", label: "阶梯", format: "name" },
        COLUMNS.meanLatency,
        { key: "meanRange", label: "平均延迟的范围", unit: "秒", format: "text" },
        COLUMNS.p99Latency,
        { key: "p99Range", label: "P99 的范围", unit: "秒", format: "text" },
        COLUMNS.hitRate,
        COLUMNS.overloaded,
        { key: "rebalanced", label: `再平衡的动作（改派的请求 / 迁移的节点${nSeeds > 1 ? "，各种子合计" : ""}）`, format: "int" },
        { key: "migratedBack", label: "其中迁回原处的", format: "int" },
        { key: "maxLoadRatio", label: "最忙 ÷ 最轻窗口负载（最高）", format: "fixed2" },
        { key: "paired", label: `搭配的请求${nSeeds > 1 ? "（各种子合计）" : ""}`, format: "int" },
      ].filter((c) => (nSeeds > 1 || !c.key.endsWith("Range")) && (released || c.key !== "migratedBack")) as Table["columns"],
      rows,
      notes: [
        `每一级在上一级上多打开一项：E2（副本内 FCFS）→ + 再平衡 → + prefill/decode 搭配（我们的规则）→ + 副本内优先级组（讲义的轮转）；自动扩展不开（论文的消融里没有它）。基线 = 轮转 + 每个副本最长前缀优先。${requestCount} 个请求，${nSeeds} 个种子（${seeds.join("、")}）的均值。`,
        ...(released
          ? [
              "开源代码的读法另走一遍阶梯：论文的基线（轮转 + LPM，不分块）→ E2（开源的 decode 项和 M）→ + 迁移重要节点的再平衡 → + 命中率 ≥ 70% 的搭配 → + 每迭代一组的优先级组（k = 10）。",
              "开源代码的迁移为什么来回搬：它按一个节点在最忙 GPU 上的代价（窗口内的 prefill + 这个节点在那块 GPU 上在途请求的 decode）挑最便宜的节点先搬，搬到的 GPU 只接过 prefill 那部分，在途请求的 decode 留在原处、随请求完成消失（gsw:152–159 按每块 GPU 的在途请求数算 decode）；之后这些节点的新请求都去新 GPU，它很快又成了最忙的。最热的工具往往一个节点的代价就超过最忙与最轻之差的一半，搬它会让最轻的反超，所以它不动，被来回搬的是其余的工具。我们照开源代码的规则实现，来回迁移是这条规则本身的行为。",
            ]
          : []),
        `“再平衡的动作”：讲义的读法数改派给最轻 GPU 的请求${released ? "；开源代码的读法数迁移的重要节点，“迁回原处” = 一个节点被直接迁回它上一次迁出的 GPU" : ""}。“最忙 ÷ 最轻窗口负载”是再平衡开始起作用之后（每块 GPU 平均派过 50 个请求）每次派发时看到的最大值，Th_bal = ${PREBLE_DEFAULTS.thBal}；低于它时再平衡不会动。`,
        WARMUP_NOTE,
        OVERLOAD_NOTE,
      ],
    };
  },
  claims: CLAIMS,
});
