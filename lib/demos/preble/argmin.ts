// 03.12 — what E2's explore argmin sees (§3.3, pitfall 5): every candidate GPU's L, M and P at each explore decision
// past the warm-up and the GPU that won, under the lecture's and the released reading of the cost model. The router
// records them with its option recordCandidates (lib/cluster/preble/candidates.ts); exploit, rebalance and pairing
// decisions have no argmin over every GPU and are not recorded.
import { checkEachOneOf, checkInteger, checkNumber, checkOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { configurationRun } from "../../cluster/preble/runs";
import type { CandidateRecord } from "../../cluster/preble/candidates";
import { simulateConfigurations } from "../../cluster/preble/memo";
import { WORKLOAD_NAMES } from "../../cluster/workloads";
import { cannotJudge, Claim, f, needRows, pct } from "../claims";
import { READING_LABEL, REPLICAS_DOC, SEED_DOC, WARMUP_NOTE } from "./common";
import { defineDemo } from "../registry";

type ArgminParams = {
  workload: string;
  rate: number;
  readings: string[];
  configuration: string;
  replicas: number;
  requestCount: number;
  decisions: number;
  seed: number | string;
};

const num = (x: unknown): number => x as number;

/** The two readings of the cost model: router options, the row value, the reader's label. */
const READINGS = {
  lecture: { row: "argminLecture", label: READING_LABEL.lecture, options: {} },
  released: { row: "argminReleased", label: READING_LABEL.released, options: { decodeEstimate: "released", evictionEstimate: "memoryFull" } },
} as const;
type Reading = keyof typeof READINGS;

/** Share of the run's requests that only warm up (the §3 runs' rule, WARMUP_NOTE). */
const WARMUP = 0.2;

/** One recorded decision: its candidates' terms, as the judge reads them back from the table. */
interface Seen {
  chosen: number;
  /** the GPU with the fewest requests in the window (−1 when not recorded) */
  fewest: number;
  L: number[];
  M: number[];
  P: number[];
  total: number[];
}

const argmin = (xs: readonly number[]): number => xs.reduce((best, x, i) => (x < xs[best] ? i : best), 0);
const range = (xs: readonly number[]): number => Math.max(...xs) - Math.min(...xs);
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
};
/** Second-lowest minus lowest (0 with one GPU): how far the runner-up is behind. */
const margin = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length > 1 ? s[1] - s[0] : 0;
};

/** The recorded decisions of one reading, rebuilt from the table's candidate rows. */
function decisionsOf(t: Table, reading: Reading): Seen[] {
  const rows = t.rows.filter((r) => r.part === "argminCandidates" && r.reading === READINGS[reading].row);
  if (rows.length === 0 && t.rows.some((r) => r.part === "argminSummary" && r.reading === READINGS[reading].row))
    cannotJudge(`${READINGS[reading].label}下热身之后没有记下探索决定（这个负载的请求几乎都是利用；换一个负载或调大 requestCount）`);
  return seenOf(needRows(t, { part: "argminCandidates", reading: READINGS[reading].row }));
}

function seenOf(rows: readonly Row[]): Seen[] {
  const byDecision = new Map<number, Seen>();
  for (const r of rows) {
    const k = num(r.explore);
    let d = byDecision.get(k);
    if (!d) byDecision.set(k, (d = { chosen: -1, fewest: -1, L: [], M: [], P: [], total: [] }));
    if (r.chosen === true) d.chosen = d.L.length;
    if (r.fewest === true) d.fewest = d.L.length;
    d.L.push(num(r.L));
    d.M.push(num(r.M));
    d.P.push(num(r.P));
    d.total.push(num(r.total));
  }
  return [...byDecision.values()];
}

/** What the claims measure on one reading's decisions (also the summary row). */
function measures(ds: readonly Seen[]) {
  const n = ds.length;
  const share = (test: (d: Seen) => boolean) => (n ? ds.filter(test).length / n : NaN);
  // Decisions the argmin of L alone gets wrong, and whether M (not P) is what moved them.
  const flipped = ds.filter((d) => argmin(d.L) !== d.chosen);
  const byM = flipped.filter((d) => {
    const a = argmin(d.L);
    return Math.abs(d.M[a] - d.M[d.chosen]) > Math.abs(d.P[a] - d.P[d.chosen]);
  });
  return {
    explores: n,
    chosenIsArgmin: share((d) => d.total.every((x) => d.total[d.chosen] <= x)),
    sameAsL: share((d) => argmin(d.L) === d.chosen),
    sameAsFewest: share((d) => d.fewest === d.chosen),
    medianLSpread: median(ds.map((d) => range(d.L))),
    medianMSpread: median(ds.map((d) => range(d.M))),
    medianPSpread: median(ds.map((d) => range(d.P))),
    maxPSpread: n ? Math.max(...ds.map((d) => range(d.P))) : NaN,
    pCouldFlip: share((d) => range(d.P) >= margin(d.L) && d.L.length > 1),
    flipped: flipped.length,
    flippedByM: byM.length,
  };
}

function perReading<T>(p: ArgminParams, t: Table, judge: (m: ReturnType<typeof measures>, reading: Reading) => T): Array<T & { reading: string }> {
  const list = (p.readings as Reading[]).filter((r) => r in READINGS);
  if (list.length === 0) cannotJudge("参数 readings 里没有可判断的读法");
  return list.map((r) => {
    const m = measures(decisionsOf(t, r));
    return { reading: READINGS[r].label, ...judge(m, r) };
  });
}

const CLAIMS: Claim<ArgminParams>[] = [
  {
    id: "chosen-is-argmin",
    says: "每个探索决定选中的 GPU 都是 L + M + P 最小的那块（表里记下的每一组候选都满足）",
    lecture: "否则在所有 GPU 里挑负载代价最低的",
    judge: (t, p) => perReading(p, t, (m) => ({ holds: m.chosenIsArgmin === 1, ours: `${m.explores} 个探索决定里 ${pct(m.chosenIsArgmin, 1)} 选中的是 L + M + P 最小的 GPU` })),
  },
  {
    id: "argmin-L-alone",
    says: "三项里 L 一枝独大：只看 L 选出的 GPU 和 L + M + P 选出的几乎总是同一块（至少 95% 的探索决定）",
    lecture: "三项里 L 一枝独大；L 项比 M、P 大 40–2 万倍",
    judge: (t, p) =>
      perReading(p, t, (m, reading) => ({
        holds: m.sameAsL >= 0.95,
        ours: `${pct(m.sameAsL, 1)}（${m.explores} 个探索决定里有 ${m.flipped} 个不同，其中 ${m.flippedByM} 个是 M 的差别造成的）`,
        why: `${m.explores} 个探索决定里有 ${m.flipped} 个 L 最低的 GPU 没被选中，其中 ${m.flippedByM} 个是 M 的差别造成的${reading === "released" ? "：这种读法的 M 按“显存总是满的”计，每个探索请求都要淘汰别的节点" : ""}`,
      })),
  },
  {
    id: "explore-is-fewest",
    says: "探索近似于“选最近 3 分钟派得最少的副本”：L + M + P 选中的就是窗口内请求最少的那块（至少 80% 的探索决定）",
    lecture: "探索时 E2 近似于“选最近 3 分钟派得最少的副本”",
    judge: (t, p) =>
      perReading(p, t, (m) => ({
        holds: m.sameAsFewest >= 0.8,
        ours: `${m.explores} 个探索决定里 ${pct(m.sameAsFewest, 1)} 选中的是窗口内派得最少的 GPU（与 L 最低的一致 ${pct(m.sameAsL, 1)}）`,
        why: `只有 ${pct(m.sameAsFewest, 1)} 的探索决定选中窗口内派得最少的 GPU：L 按每个请求没命中的 prefill 加 decode 估计来算，请求大小相差悬殊时，请求个数最少的不一定 L 最低（03.2 在五种负载上数了同一件事）`,
      })),
  },
  {
    id: "P-cannot-flip",
    says: "候选 GPU 之间 P 的差别比 L 的差别小得多：P 的差距几乎从来追不上 L 最低和次低两块之间的差距（少于 5% 的探索决定），它改变不了选择",
    lecture: "L 项比 M、P 大 40–2 万倍",
    judge: (t, p) =>
      perReading(p, t, (m) => ({
        holds: m.pCouldFlip < 0.05,
        ours: `各 GPU 之间的差距（中位数）：L ${f(m.medianLSpread, 2)} 秒、P ${m.maxPSpread === 0 ? "0 秒（每个决定都是 0）" : `${f(m.medianPSpread, 4)} 秒（最大 ${f(m.maxPSpread, 3)} 秒）`}；P 的差距 ≥ L 的领先幅度的决定占 ${pct(m.pCouldFlip, 1)}`,
        remark: m.maxPSpread === 0 ? "这些探索请求在哪块 GPU 上都没有命中前缀：P 在各 GPU 上完全一样" : m.medianPSpread === 0 ? "多数探索请求在哪块 GPU 上都没有命中前缀：P 在各 GPU 上一样" : undefined,
      })),
  },
];

export const argminDemo = defineDemo<ArgminParams>({
  id: "03.12",
  section: "§3.3",
  title: "E2 探索时的 argmin 看到什么：每块候选 GPU 的 L、M、P",
  // Size: 300 requests, the first 40 exploration decisions recorded with their candidates: enough decisions for the ≥ 95% / ≥ 80% shares.
  defaults: { workload: "longDocQA", rate: 1, readings: ["lecture", "released"], configuration: "e2+rebalance", replicas: 4, requestCount: 300, decisions: 40, seed: 1 },
  describe: {
    workload: { meaning: "负载", range: `${WORKLOAD_NAMES.join("、")} 之一` },
    rate: { meaning: "请求率（请求/秒）", range: "> 0 的数" },
    readings: { meaning: "按哪几种读法算代价：lecture（讲义：窗口请求 × 平均输出 × 单请求 TPOT、放不下才淘汰）、released（开源代码：在途请求 × 实测 TPOT、显存总是满的 M）", range: "非空数组，每项为 lecture、released 之一" },
    configuration: { meaning: "记录哪个配置的决定（两者探索的规则相同；e2+rebalance 还会把利用请求改派给最轻的 GPU）", range: "e2、e2+rebalance 之一" },
    replicas: REPLICAS_DOC,
    requestCount: { meaning: "每次模拟的请求数（前 20% 只预热，其间的决定不记）", range: "≥ 50 的整数" },
    decisions: { meaning: "每种读法记下热身之后的前多少个探索决定（表里每个决定 × 每块 GPU 一行）", range: "1–2,000 的整数" },
    seed: SEED_DOC,
  },
  run(p) {
    const workload = checkOneOf("workload", p.workload, WORKLOAD_NAMES as unknown as string[]);
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const readings = checkEachOneOf("readings", p.readings, ["lecture", "released"]) as Reading[];
    const configuration = checkOneOf("configuration", p.configuration, ["e2", "e2+rebalance"]);
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 30 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 50 });
    const decisions = checkInteger("decisions", p.decisions, { min: 1, max: 2000 });
    const warmup = Math.floor(WARMUP * requestCount);
    // Record every explore decision (at most one per request); keep the first `decisions` past the warm-up.
    const runs = readings.map((r) => configurationRun({ workload, rate, replicas, configuration, routerOptions: { ...READINGS[r].options, recordCandidates: requestCount }, requestCount, seed: p.seed }));
    const results = simulateConfigurations(runs);
    const rows: Row[] = [];
    const summaries: Row[] = [];
    readings.forEach((reading, i) => {
      const c = results[i].routerStats.candidates as CandidateRecord;
      const R = c.replicas;
      const mine: Row[] = [];
      let k = 0;
      for (let j = 0; j < c.decision.length && k < decisions; j++) {
        if (c.decision[j] < warmup) continue;
        const at = (terms: number[], g: number) => terms[j * R + g];
        const gpus = Array.from({ length: R }, (_, g) => g);
        const minL = Math.min(...gpus.map((g) => at(c.L, g)));
        const minMP = Math.min(...gpus.map((g) => at(c.M, g) + at(c.P, g)));
        for (const g of gpus) {
          const [L, M, P] = [at(c.L, g), at(c.M, g), at(c.P, g)];
          mine.push({ part: "argminCandidates", reading: READINGS[reading].row, explore: k, decision: c.decision[j], time: c.time[j], gpu: g, L, M, P, MP: M + P, total: L + M + P, Lgap: L - minL, MPgap: M + P - minMP, chosen: c.chosen[j] === g, fewest: c.fewest[j] === g });
        }
        k++;
      }
      rows.push(...mine);
      const m = measures(seenOf(mine));
      summaries.push({ part: "argminSummary", reading: READINGS[reading].row, allExplores: c.explores, ...m });
    });
    rows.unshift(...summaries);
    const notes = [
      `每种读法一次模拟：${displayName(workload)}，${rate} 请求/秒，${replicas} 个副本，配置 ${displayName(configuration)}，${requestCount} 个请求，种子 ${String(p.seed)}；记下第 ${warmup + 1} 个决定以后的前 ${decisions} 个探索决定。利用、再平衡和搭配的决定不是在全部 GPU 里取最小，不记。`,
      "“汇总”每种读法一行；“每块候选 GPU”每个探索决定 × 每块 GPU 一行：L = 窗口负载，M = 淘汰代价，P = 这个请求在这块 GPU 上的 prefill（单位都是秒），“选中”= argmin 选的那块。差距 = 同一个决定里各 GPU 的最大值 − 最小值；“比最低的多” = 这块 GPU 的值 − 同一个决定里各 GPU 的最小值；“P 可能翻转” = P 的差距不小于 L 最低和次低两块之差的决定。",
      WARMUP_NOTE,
    ];
    return {
      title: `E2 探索时每块候选 GPU 的负载代价：${displayName(workload)}，${rate} 请求/秒，${replicas} 个副本`,
      // legend: what the charts of §3.3 and the appendix call each term (the lecture's L / M / P with their meaning)
      columns: [
        { key: "part", label: "部分", format: "name" },
        { key: "reading", label: "读法", format: "name" },
        { key: "allExplores", label: "全部探索决定", format: "int" },
        { key: "explores", label: "记下的探索决定", format: "int" },
        { key: "chosenIsArgmin", label: "选中的是 L + M + P 最小", format: "percent1" },
        { key: "sameAsL", label: "与 argmin L 一致", format: "percent1" },
        { key: "sameAsFewest", label: "与窗口内派得最少的一致", format: "percent1" },
        { key: "medianLSpread", label: "L 的差距（中位数）", unit: "秒", format: "sig3" },
        { key: "medianMSpread", label: "M 的差距（中位数）", unit: "秒", format: "sig3" },
        { key: "medianPSpread", label: "P 的差距（中位数）", unit: "秒", format: "sig3" },
        { key: "pCouldFlip", label: "P 可能翻转", format: "percent1" },
        { key: "explore", label: "探索决定序号", format: "int" },
        { key: "decision", label: "决定序号（全部决定中）", format: "int" },
        { key: "time", label: "时刻", unit: "秒", format: "fixed1" },
        { key: "gpu", label: "GPU", format: "int" },
        { key: "L", label: "L（窗口负载）", unit: "秒", format: "sig3", legend: "L（窗口负载）" },
        { key: "M", label: "M（淘汰代价）", unit: "秒", format: "sig3", legend: "M（淘汰代价）" },
        { key: "P", label: "P（本请求的 prefill）", unit: "秒", format: "sig3", legend: "P（本请求的 prefill）" },
        { key: "MP", label: "M + P", unit: "秒", format: "sig3" },
        { key: "total", label: "L + M + P", unit: "秒", format: "sig3" },
        { key: "Lgap", label: "L 比最低的多", unit: "秒", format: "sig3", legend: "L（窗口负载）" },
        { key: "MPgap", label: "M + P 比最低的多", unit: "秒", format: "sig3", legend: "M + P（淘汰代价 + 本请求的 prefill）" },
        { key: "chosen", label: "选中", legend: "被选中的 GPU（L + M + P 最小）" },
      ],
      rows,
      notes,
    };
  },
  claims: CLAIMS,
});
