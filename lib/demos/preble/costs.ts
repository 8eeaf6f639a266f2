// 03.2 — the load cost L + M + P (§3.3) term by term, what explore's argmin agrees with (pitfall 5), and
// prefill/decode pairing on / off (§3.4, pitfall 6).
import { checkEachOneOf, checkInteger, checkNumber, checkOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { configurationRun } from "../../cluster/preble/runs";
import { READINGS } from "../../cluster/preble/index";
import { simulateConfigurations } from "../../cluster/preble/memo";
import type { ClusterOptions } from "../../cluster/simulate";
import { cannotJudge, Claim, f, needParam, needRows, pct, seedsAgreeing, spread } from "../claims";
import { checkWorkloadRates, COLUMNS, OVERLOAD_NOTE, READING_LABEL, REPLICAS_DOC, requestsFor, SEED_DOC, seedsOf, WARMUP_NOTE } from "./common";
import { presentColumns } from "./common";
import { defineDemo } from "../registry";
import { changeWords, insideBand, overloadedSeedsWords, speedChange, withinBand } from "./effect-band";

export const COST_RATES: Readonly<Record<string, number>> = { longDocQA: 1, videoQA: 4, toolCalling: 32, programming: 8, agent: 40 };
export const PAIRING_RATES: Readonly<Record<string, number>> = { toolCalling: 48, longDocQA: 1, videoQA: 8 };

type CostParams = {
  parts: string[];
  readings: string[];
  costRates: Record<string, number>;
  costConfiguration: string;
  pairingRates: Record<string, number>;
  pairingSeeds: number;
  replicas: number;
  minRequests: number;
  minSeconds: number;
  seed: number | string;
};

const num = (x: unknown): number => x as number;

/** The two readings of the cost model and of pairing (lib/cluster/preble/options.ts READINGS). */
const READING_PARTS = {
  lecture: { costs: "costs", pairing: "pairing", label: READING_LABEL.lecture },
  released: { costs: "costsReleased", pairing: "pairingReleased", label: READING_LABEL.released },
} as const;
type Reading = keyof typeof READING_PARTS;

/** Router options of a reading: the cost model (decode term, M) and the pairing rule. */
const COST_OPTIONS: Record<Reading, Record<string, unknown>> = { lecture: {}, released: { decodeEstimate: "released", evictionEstimate: "memoryFull" } };
const PAIRING_OPTIONS: Record<Reading, Record<string, unknown>> = { lecture: {}, released: { pairingRule: "released" } };

function readingsOf(p: CostParams): Reading[] {
  return (p.readings as Reading[]).filter((r) => r in READING_PARTS);
}

/** Per-seed values of a pairing row (hidden keys p99Seed0 …). */
function perSeed(r: Row, key: "p99" | "tpot", seeds: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < seeds; k++) out.push(num(r[`${key}Seed${k}`]));
  return out;
}

/** One judgement per reading run (the lecture's first). */
function perReading<T>(p: CostParams, judge: (reading: Reading) => T): Array<T & { reading: string }> {
  const list = readingsOf(p);
  if (list.length === 0) cannotJudge("参数 readings 里没有可判断的读法");
  return list.map((r) => ({ reading: READING_PARTS[r].label, ...judge(r) }));
}

const costRows = (t: Table, reading: Reading) => needRows(t, { part: READING_PARTS[reading].costs });

/** Pairing on (under `reading`'s rule) vs off for one workload: P99 and TPOT per seed and their means, and which
 * seeds overloaded on either side. */
function pairingEffect(t: Table, p: CostParams, workload: string, reading: Reading) {
  needParam(p.pairingRates[workload] !== undefined, `需要 pairingRates 里有 ${workload}`);
  const on = needRows(t, { part: READING_PARTS[reading].pairing, workload, pairing: true })[0];
  const off = needRows(t, { part: "pairing", workload, pairing: false })[0];
  const n = p.pairingSeeds;
  const overloaded = (r: Row) => Array.from({ length: n }, (_, k) => r[`overloadedSeed${k}`] === true);
  const overloadWords = (short = false) => overloadedSeedsWords(seedsOf(p.seed, n), overloaded(off), overloaded(on), ["搭配关", "搭配开"], short);
  return { on, off, p99On: perSeed(on, "p99", n), p99Off: perSeed(off, "p99", n), tpotOn: perSeed(on, "tpot", n), tpotOff: perSeed(off, "tpot", n), n, overloadWords };
}

/** "Pairing makes `workload`'s P99 worse" (`worse`) or better, judged on the seed-mean P99 with the effect band
 * (./effect-band.ts): a change inside ±10% is neither, and the claim is unjudged, saying so; overloaded seeds named. */
function pairingClaim(id: string, workload: string, worse: boolean, says: string, lecture: string): Claim<CostParams> {
  return {
    id,
    says,
    lecture,
    applies: (p) => p.parts.includes("pairing"),
    judge: (t, p) =>
      perReading(p, (reading) => {
        const e = pairingEffect(t, p, workload, reading);
        const a = num(e.off.p99Latency);
        const b = num(e.on.p99Latency);
        const change = speedChange(a, b);
        const holds = worse ? change < 0 : change > 0;
        const over = e.overloadWords() ? `；${e.overloadWords()}` : "";
        const diffs = e.p99On.map((x, k) => x - e.p99Off[k]);
        return {
          holds,
          unjudged: withinBand(change) ? `${insideBand(`P99 ${changeWords(change)}`)}${over}` : undefined,
          why: `P99 ${changeWords(change)}，${change < 0 ? "变差" : "变好"}了${reading === "released" ? "（开源代码的规则：命中率 ≥ 70% 的 GPU 先收下探索请求，不看负载）" : ""}${over}`,
          ours: `P99 ${f(a)} → ${f(b)} 秒，搭配了 ${f(num(e.on.paired), 0)} 个请求`,
          // the seeds where the claim holds: none counted inside the band, where there is no verdict
          seeds: withinBand(change) ? undefined : seedsAgreeing(diffs, (d) => (worse ? d > 0 : d < 0)),
          remark: holds && !withinBand(change) ? e.overloadWords(true) || undefined : undefined,
        };
      }),
  };
}

const CLAIMS: Claim<CostParams>[] = [
  {
    id: "L-dominates",
    applies: (p) => p.parts.includes("costs"),
    says: "三项里 L 一枝独大（占总代价至少 95%）：窗口里各请求的 decode 估计加起来，把 P 和 M 淹没了",
    lecture: "L 比 M、P 大 40–2 万倍",
    judge: (t, p) =>
      perReading(p, (reading) => {
        const rows = costRows(t, reading);
        const ratios = rows.map((r) => num(r.LoverP));
        const shares = rows.map((r) => num(r.LShare));
        const low = rows.reduce((a, b) => (num(b.LShare) < num(a.LShare) ? b : a));
        return { holds: shares.every((x) => x >= 0.95), why: `${displayName(low.workload)}上 L 只占总代价的 ${pct(num(low.LShare), 1)}`, ours: `L ÷ P = ${Math.round(Math.min(...ratios)).toLocaleString("en-US")}–${Math.round(Math.max(...ratios)).toLocaleString("en-US")} 倍，L 占总代价至少 ${pct(Math.min(...shares), 1)}` };
      }),
  },
  {
    id: "M-almost-zero",
    applies: (p) => p.parts.includes("costs"),
    says: "淘汰代价 M 几乎总是 0：只有显存放不下时才要淘汰（每种负载里 M > 0 的决定都不到 20%）",
    lecture: "M 几乎总是 0",
    judge: (t, p) =>
      perReading(p, (reading) => {
        const rows = costRows(t, reading);
        const worst = rows.reduce((a, b) => (num(b.withEviction) > num(a.withEviction) ? b : a));
        const longest = rows.reduce((a, b) => (num(b.P) > num(a.P) ? b : a));
        const prompt = longest === worst ? `它的提示最长（P 平均 ${f(num(worst.P), 2)} 秒，几种负载里最大），空闲显存常放不下新提示，要先淘汰` : `P 最大的却是${displayName(longest.workload)}（${f(num(longest.P), 2)} 秒）：要淘汰的多少不只看提示多长`;
        const why = reading === "released" ? `开源代码按“显存总是满的”算 M：${displayName(worst.workload)}上 ${pct(num(worst.withEviction), 1)} 的决定要淘汰别的节点` : `${displayName(worst.workload)}上 ${pct(num(worst.withEviction), 1)} 的决定 M > 0：${prompt}`;
        return { holds: rows.every((r) => num(r.withEviction) < 0.2), ours: `M > 0 的决定最多占 ${pct(num(worst.withEviction), 1)}（${displayName(worst.workload)}）`, why };
      }),
  },
  {
    id: "M-negligible",
    applies: (p) => p.parts.includes("costs"),
    says: "即使要淘汰，M 也小到可以忽略（不到 P 的 10%）：要淘汰的通常是窗口里没人用的冷门节点",
    lecture: "要淘汰的通常是冷门节点",
    judge: (t, p) =>
      perReading(p, (reading) => {
        const rows = costRows(t, reading);
        const worst = rows.reduce((a, b) => (num(b.M) / num(b.P) > num(a.M) / num(a.P) ? b : a));
        return { holds: rows.every((r) => num(r.M) < 0.1 * num(r.P)), ours: `M 最多是 P 的 ${pct(num(worst.M) / num(worst.P), 1)}（${displayName(worst.workload)}）`, why: `${displayName(worst.workload)}上 M 平均是 P 的 ${pct(num(worst.M) / num(worst.P), 1)}${reading === "released" ? "：开源代码的 M 按窗口内的命中次数给被淘汰的重要节点计价，淘汰到热门文档时不小" : ""}` };
      }),
  },
  {
    id: "explore-is-argmin-L",
    applies: (p) => p.parts.includes("costs"),
    says: "探索时 L + M + P 最低的 GPU 几乎总是 L 最低的那块（至少 95% 的探索决定）：去掉 M 和 P 几乎不改变决定",
    lecture: "收益主要来自利用 / 探索的规则和再平衡，不是代价模型",
    judge: (t, p) =>
      perReading(p, (reading) => {
        const rows = costRows(t, reading).filter((r) => num(r.explores) > 0);
        if (rows.length === 0) return { holds: false, ours: "没有探索决定", why: "这次运行没有探索决定" };
        const off = rows.filter((r) => num(r.sameAsL) < 0.95);
        return { holds: off.length === 0, ours: rows.map((r) => `${displayName(r.workload)} ${pct(num(r.sameAsL), 1)}`).join("、"), why: `${off.map((r) => `${displayName(r.workload)}只有 ${pct(num(r.sameAsL), 1)}`).join("、")} 的探索决定选中 L 最低的 GPU${reading === "released" ? "：开源代码的 M 按“显存总是满的”计，改变了一部分决定（03.12 逐个决定看）" : ""}` };
      }),
  },
  {
    id: "explore-is-fewest-dispatched",
    applies: (p) => p.parts.includes("costs"),
    says: "探索近似于“选最近 3 分钟派得最少的副本”：与只数窗口内请求个数的选法一致（至少 80% 的探索决定）",
    lecture: "探索近似于选最近 3 分钟派得最少的副本",
    judge: (t, p) =>
      perReading(p, (reading) => {
        const rows = costRows(t, reading).filter((r) => num(r.explores) > 0);
        if (rows.length === 0) return { holds: false, ours: "没有探索决定", why: "这次运行没有探索决定" };
        const short = rows.filter((r) => num(r.sameAsCount) < 0.8);
        return { holds: short.length === 0, ours: rows.map((r) => `${displayName(r.workload)} ${pct(num(r.sameAsCount))}`).join("、"), why: `${short.map((r) => `${displayName(r.workload)}只有 ${pct(num(r.sameAsCount))}`).join("、")}：L 按没命中的 prefill 加 decode 估计来算，提示长短相差悬殊的负载上，请求个数最少的副本不一定 L 最低` };
      }),
  },
  pairingClaim("pairing-helps-tool", "toolCalling", false, "工具调用上 prefill/decode 搭配降低 P99：探索请求是一两千 token 的中等 prefill，正好塞进 decode 多、算力闲着的 GPU", "6.1 → 4.6 秒"),
  pairingClaim("pairing-hurts-long", "longDocQA", true, "长文档上搭配让 P99 变差：两万多 token 的 prefill 塞给正在 decode 的副本，挡住那里的 decode", "变差"),
  pairingClaim("pairing-hurts-video", "videoQA", true, "视频问答上搭配让 P99 变差", "变差"),
  {
    id: "pairing-slows-decode",
    applies: (p) => p.parts.includes("pairing"),
    says: "长文档上搭配打开后，正在生成的请求每个 token 变慢（TPOT 上升）：被塞进来的长 prefill 要占那块 GPU 几十个迭代",
    lecture: "误区 6：搭配并不总是有益",
    judge: (t, p) =>
      perReading(p, (reading) => {
        const e = pairingEffect(t, p, "longDocQA", reading);
        const a = spread(e.tpotOff, 1);
        const b = spread(e.tpotOn, 1);
        return { holds: b.mean > a.mean, why: `TPOT 没有上升（${f(a.mean, 1)} → ${f(b.mean, 1)} 毫秒）`, ours: `TPOT ${f(a.mean, 1)} → ${f(b.mean, 1)} 毫秒`, seeds: seedsAgreeing(e.tpotOn.map((x, k) => x - e.tpotOff[k]), (d) => d > 0) };
      }),
  },
];

export const costTermsDemo = defineDemo<CostParams>({
  id: "03.2",
  section: "§3.3–§3.4",
  title: "负载代价 L、M、P 各有多大，以及 prefill/decode 搭配的开与关",
  // Size: cost decisions from one run per workload at 03.1's sizes (shared runs); 3 pairing seeds: the pairing P99 claims are judged on seed means.
  defaults: {
    parts: ["costs", "pairing"],
    readings: ["lecture", "released"],
    costRates: COST_RATES as Record<string, number>,
    costConfiguration: "e2+rebalance",
    pairingRates: PAIRING_RATES as Record<string, number>,
    pairingSeeds: 3,
    replicas: 4,
    minRequests: 1000,
    minSeconds: 200,
    seed: 1,
  },
  describe: {
    parts: { meaning: "跑哪几部分：costs（每次决定的三项代价）、pairing（搭配开 / 关）", range: "非空数组，每项为 costs、pairing 之一" },
    readings: { meaning: "按哪几种读法跑：lecture（讲义：窗口请求 × 平均输出 × 单请求 TPOT、放不下才淘汰、decode 偏重的搭配）、released（开源代码：在途请求 × 实测 TPOT、显存总是满的 M、命中率 ≥ 70% 的搭配）", range: "非空数组，每项为 lecture、released 之一" },
    costRates: { meaning: "代价分解用的负载和请求率（请求/秒）", range: "对象 { 负载名: 请求率 }，请求率 > 0" },
    costConfiguration: { meaning: "记录哪个配置的决定（两者代价模型相同；e2 在编程负载上会挤到一块 GPU）", range: "e2、e2+rebalance 之一" },
    pairingRates: { meaning: "搭配开 / 关用的负载和请求率（配置 preble）", range: "对象 { 负载名: 请求率 }，请求率 > 0" },
    pairingSeeds: { meaning: "搭配开 / 关各跑几个种子取平均（效应只有几个百分点）", range: "≥ 1 的整数" },
    replicas: REPLICAS_DOC,
    minRequests: { meaning: "每次模拟至少多少个请求", range: "≥ 100 的整数" },
    minSeconds: { meaning: "每次模拟至少覆盖多少秒的到达", range: "≥ 0 的数" },
    seed: { ...SEED_DOC, meaning: "随机种子（搭配部分用种子 seed、seed + 1 …）" },
  },
  run(p, { progress }) {
    const parts = checkEachOneOf("parts", p.parts, ["costs", "pairing"]);
    const readings = checkEachOneOf("readings", p.readings, ["lecture", "released"]) as Reading[];
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 30 });
    const minRequests = checkInteger("minRequests", p.minRequests, { min: 100 });
    const minSeconds = checkNumber("minSeconds", p.minSeconds, { min: 0 });
    const costConfiguration = checkOneOf("costConfiguration", p.costConfiguration, ["e2", "e2+rebalance"]);
    const pairingSeeds = checkInteger("pairingSeeds", p.pairingSeeds, { min: 1 });
    const costRates = parts.includes("costs") ? checkWorkloadRates("costRates", p.costRates) : [];
    const pairingRates = parts.includes("pairing") ? checkWorkloadRates("pairingRates", p.pairingRates) : [];
    const seeds = seedsOf(p.seed, pairingSeeds);
    const runs: ClusterOptions[] = [];
    for (const reading of readings)
      for (const [workload, rate] of costRates) runs.push(configurationRun({ workload, rate, replicas, configuration: costConfiguration, routerOptions: COST_OPTIONS[reading], requestCount: requestsFor(rate, minRequests, minSeconds), seed: p.seed }));
    // Pairing off once, then on under each rule.
    const pairingCases: Array<{ part: string; pairing: boolean; options: Record<string, unknown> }> = [{ part: "pairing", pairing: false, options: { pairing: false } }];
    for (const reading of readings) pairingCases.push({ part: READING_PARTS[reading].pairing, pairing: true, options: { pairing: true, ...PAIRING_OPTIONS[reading] } });
    for (const [workload, rate] of pairingRates) {
      for (const c of pairingCases) {
        for (const seed of seeds) runs.push(configurationRun({ workload, rate, replicas, configuration: "preble", routerOptions: c.options, requestCount: requestsFor(rate, minRequests, minSeconds), seed }));
      }
    }
    const results = simulateConfigurations(runs, (done, total) => progress?.(`03.2：已完成 ${done}/${total} 次模拟`));
    const rows: Row[] = [];
    let next = 0;
    for (const reading of readings)
    for (const [workload, rate] of costRates) {
      const res = results[next++];
      const s = res.routerStats as Record<string, number>;
      const total = s.meanL + s.meanM + s.meanP;
      const explores = s.explore + s.pairing;
      rows.push({
        part: READING_PARTS[reading].costs,
        workload,
        rate,
        L: s.meanL,
        M: s.meanM,
        P: s.meanP,
        LShare: s.meanL / total,
        MShare: s.meanM / total,
        PShare: s.meanP / total,
        LoverP: s.meanL / s.meanP,
        LoverM: s.meanM > 0 ? s.meanL / s.meanM : Infinity,
        withEviction: s.decisionsWithEviction / (s.exploit + s.explore + s.rebalance + s.pairing),
        explores,
        sameAsL: explores ? s.exploreSameAsL / explores : NaN,
        sameAsCount: explores ? s.exploreSameAsCount / explores : NaN,
        meanLatency: res.metrics.meanLatency,
        p99Latency: res.metrics.p99Latency,
        overloaded: res.metrics.overloaded,
      });
    }
    for (const [workload, rate] of pairingRates) {
      for (const { part, pairing } of pairingCases) {
        const row: Row = { part, workload, rate, pairing, setting: !pairing ? "pairingOff" : part === "pairing" ? "pairingOurs" : "pairingReleased" };
        let mean = 0;
        let p99 = 0;
        let tpot = 0;
        let paired = 0;
        let overloaded = false;
        seeds.forEach((_, k) => {
          const res = results[next++];
          mean += res.metrics.meanLatency / pairingSeeds;
          p99 += res.metrics.p99Latency / pairingSeeds;
          tpot += (res.metrics.meanTPOT * 1000) / pairingSeeds;
          paired += (res.routerStats.pairing as number) / pairingSeeds;
          overloaded ||= res.metrics.overloaded;
          row[`p99Seed${k}`] = res.metrics.p99Latency;
          row[`tpotSeed${k}`] = res.metrics.meanTPOT * 1000;
          row[`overloadedSeed${k}`] = res.metrics.overloaded;
        });
        Object.assign(row, { paired, meanLatency: mean, p99Latency: p99, meanTPOT: tpot, overloaded, p99PerSeed: seeds.map((_, k) => f(num(row[`p99Seed${k}`]))).join(" / ") });
        rows.push(row);
      }
    }
    const notes: string[] = [];
    if (parts.includes("costs")) {
      notes.push(
        `三项代价：配置 ${displayName(costConfiguration)}，记录每次决定时被选中的 GPU 的 L、M、P，取平均；窗口 H = 180 秒。“探索决定”之后两列：与只看 L、与只数窗口内请求个数的选法一致的比例。`,
      );
      if (readings.includes("lecture")) notes.push(`三项代价（讲义的读法）：decode 项 = ${READINGS.decodeEstimate.lecture.source.replace(/^讲义 §3.3：/, "")}（约 24 毫秒）；M：${READINGS.evictionEstimate.lecture.source.replace(/^讲义 §3.3：/, "")}。`);
      if (readings.includes("released")) notes.push(`三项代价（开源代码的读法）：decode 项 = ${READINGS.decodeEstimate.released.source}；M：${READINGS.evictionEstimate.released.source}。`);
    }
    if (parts.includes("pairing")) {
      notes.push(`搭配：完整 Preble，搭配关，或按某条规则打开；${pairingSeeds} 个种子（${seeds.join("、")}）的均值，最后一列是每个种子的 P99。`);
      if (readings.includes("lecture")) notes.push("搭配（讲义的读法，我们的定义）：GPU 算 decode 偏重 = 至少在跑 1 个请求，且身上还没算的 prefill 少于 2,048 token；缺 ≥ 512 token 的探索请求先派给 decode 偏重的 GPU 里负载代价最低的那块。");
      if (readings.includes("released")) notes.push(`搭配（开源代码的读法）：${READINGS.pairingRule.released.source}（路由器从请求记录里读接纳时的命中）。`);
    }
    notes.push(`${replicas} 个副本，每次模拟 max(${minRequests}, 请求率 × ${minSeconds} 秒) 个请求，种子 ${String(p.seed)}。`, WARMUP_NOTE, OVERLOAD_NOTE);
    return {
      title: `负载代价的三项与 prefill/decode 搭配：${replicas} 个副本（Mistral-7B / A6000）`,
      columns: presentColumns([
        { key: "part", label: "部分", format: "name" },
        COLUMNS.workload,
        COLUMNS.rate,
        { key: "L", label: "L（窗口负载）", unit: "秒", format: "sig3" },
        { key: "M", label: "M（淘汰代价）", unit: "秒", format: "sig3" },
        { key: "P", label: "P（本请求的 prefill）", unit: "秒", format: "sig3" },
        { key: "LShare", label: "L 的占比", format: "percent1" },
        { key: "LoverP", label: "L ÷ P", unit: "倍", format: "sig3" },
        { key: "withEviction", label: "M > 0 的决定", format: "percent1" },
        { key: "explores", label: "探索决定", format: "int" },
        { key: "sameAsL", label: "与 argmin L 一致", format: "percent1" },
        { key: "sameAsCount", label: "与“窗口内派得最少”一致", format: "percent1" },
        { key: "pairing", label: "搭配" },
        { key: "setting", label: "搭配的规则", format: "name" },
        { key: "paired", label: "被搭配的请求", format: "fixed0" },
        COLUMNS.meanLatency,
        COLUMNS.p99Latency,
        COLUMNS.meanTPOT,
        COLUMNS.overloaded,
        { key: "p99PerSeed", label: "各种子的 P99", unit: "秒", format: "text" },
      ], rows),
      rows,
      notes,
    };
  },
  claims: CLAIMS,
  narrowForClaims: pairingForClaims,
});

/** The workload each pairing claim reads (its runs with pairing on and off are its own). */
const PAIRING_CLAIM_WORKLOAD: Readonly<Record<string, string>> = { "pairing-helps-tool": "toolCalling", "pairing-hurts-long": "longDocQA", "pairing-hurts-video": "videoQA", "pairing-slows-decode": "longDocQA" };

/** Only pairing claims shown (07): the pairing part, on the workloads they read. */
function pairingForClaims(ids: readonly string[], p: CostParams): Partial<CostParams> | undefined {
  if (ids.length === 0 || !ids.every((id) => id in PAIRING_CLAIM_WORKLOAD) || !p.parts.includes("pairing")) return undefined;
  const needed = new Set(ids.map((id) => PAIRING_CLAIM_WORKLOAD[id]));
  const pairingRates = Object.fromEntries(Object.entries(p.pairingRates).filter(([w]) => needed.has(w)));
  return Object.keys(pairingRates).length === needed.size ? { parts: ["pairing"], pairingRates } : undefined;
}
