// 代码 04 演示 3 (§4.4): a less accurate diagnoser — LLMSelector's budget and accuracy, with verdicts drawn fresh per
// call (the lecture) or cached per prompt (the authors' code), over several world seeds.
import { checkInteger, checkNonEmpty, checkOneOf, checkProbability } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { VERDICT_MODES, VerdictMode } from "../../selector/diagnoser";
import { Evaluator } from "../../selector/evaluate";
import { llmSelector, OptimizerResult } from "../../selector/optimizers";
import { getSystem, SYSTEM_NAMES } from "../../selector/systems";
import { randomPoolWorld, selectorWorldData } from "../../selector/world";
import { cannotJudge, f, needParam, needRow, needRows, pct, seedsAgreeing, spread } from "../claims";
import { rangeText as rangeBetween } from "../../core/format";
import { mean, perSeed, POOLS_DOC, rangeText, SEED_DOC, seedList, seedsText, SEEDS_DOC, TEST_DOC, TRAIN_DOC } from "./common";
import { defineDemo } from "../registry";

interface DiagnoserCell {
  results: OptimizerResult[];
  bySeed: OptimizerResult[][];
}

/** Test accuracy at the highest and the lowest q (verdicts fresh): the change, per-seed changes, and a phrase. */
function accuracyEnds(t: Table, p: Record<string, unknown>) {
  const qs = p.qs as number[];
  const hi = Math.max(...qs);
  const lo = Math.min(...qs);
  needParam(hi > lo, "需要至少两个不同的 q");
  const rs = needRows(t, { verdicts: "fresh" });
  const a = needRow(t, { verdicts: "fresh", q: hi });
  const b = needRow(t, { verdicts: "fresh", q: lo });
  const accs = rs.map((r) => Number(r.testAcc));
  const diffs = perSeed(b, "testBySeed").map((x, i) => x - perSeed(a, "testBySeed")[i]);
  const byQ = [...rs].sort((x, y) => Number(y.q) - Number(x.q)).map((r) => Number(r.testAcc));
  const monotone = byQ.every((x, i) => i === 0 || x <= byQ[i - 1]) || byQ.every((x, i) => i === 0 || x >= byQ[i - 1]);
  const ours = `每次重新判断：q = ${f(hi, 1)} 时 ${f(Number(a.testAcc), 3)}，q = ${f(lo, 1)} 时 ${f(Number(b.testAcc), 3)}（全程 ${f(Math.min(...accs), 3)}–${f(Math.max(...accs), 3)}）`;
  return { hi, lo, change: Number(b.testAcc) - Number(a.testAcc), diffs, monotone, ours, evaluatedHi: Number(a.evaluated), evaluatedLo: Number(b.evaluated) };
}

/** Per-seed ratios as "a–b" (one value when both ends read the same). */
function rangeOf(xs: number[]): string {
  return rangeBetween(f(spread(xs).min, 1), f(spread(xs).max, 1));
}

/** "；其中 95% 由预算上限 5000 定" — the part of a row's mean made by the runs the cap stopped (each counted at the
 * cap, as in the cap note); "" when no run reached it. */
function capShareText(r: Row, maxBudget: number): string {
  const stopped = Number(r.stopped);
  if (!(stopped > 0)) return "";
  const share = (stopped * maxBudget) / Number(r.runs) / Number(r.evaluated);
  return `；其中 ${pct(Math.min(1, share))} 由预算上限 ${maxBudget} 定`;
}

/** One row's runs stopped by the budget cap: how many, and how much of the row's mean they make up. */
interface CappedCell {
  verdicts: VerdictMode;
  q: number;
  stopped: number;
  runs: number;
  /** the stopped runs' evaluations ÷ all runs: their part of the row's mean */
  fromCapped: number;
  mean: number;
}

/** What the budget cap (maxBudget) changed in this run: the rows where runs reached it, and how much of each row's
 * mean number of evaluations those runs make up; or that no run reached it. */
function capNote(cells: CappedCell[], maxBudget: number): string {
  const hit = cells.filter((c) => c.stopped > 0);
  if (hit.length === 0) return `预算上限 ${maxBudget} 这次没有起作用：每一次运行都在上限之前收敛，表里的数与上限无关。`;
  const untouched = [...new Set(cells.map((c) => c.verdicts))].filter((v) => !hit.some((c) => c.verdicts === v));
  const parts = hit.map((c) => `${displayName(c.verdicts)} q = ${c.q.toFixed(1)}：${c.runs} 次中 ${c.stopped} 次，占均值 ${c.mean.toFixed(0)} 里的 ${c.fromCapped.toFixed(0)}（${(100 * c.fromCapped / c.mean).toFixed(0)}%）`);
  return `预算上限 ${maxBudget} 改变了什么：到上限还没停下的运行，每次只记到上限为止评估的分配数（没有上限它们还会继续）；它们占"评估的分配数（均值）"的多少——${parts.join("；")}。${hit.every((c) => c.fromCapped > c.mean / 2) ? "这几行的均值因此主要由上限定（结论核对第一条里它们的倍数也是），" : ""}上限换一个值，这几行的均值就跟着变；"收敛的运行平均评估"一列不含这些运行，与上限无关${untouched.length ? `；${untouched.map(displayName).join("、")}的运行全在上限之前收敛，上限不影响它们` : ""}。`;
}

export const llmSelectorNoisyDiagnoser = defineDemo({
  id: "04.3",
  section: "§4.4",
  title: "诊断器不准时：LLMSelector 的预算与准确率（判断每次重来，或按提示缓存）",
  // Size: 3 seeds × 10 pools × 2 runs at each q: budgets are compared on means over pools and runs.
  defaults: {
    seed: selectorWorldData().randomPools.seed,
    seeds: 3,
    pools: 10,
    runsPerPool: 2,
    qs: [1, 0.9, 0.8, 0.7, 0.6],
    verdicts: [...VERDICT_MODES] as string[],
    system: "debate",
    train: 200,
    test: 300,
    maxBudget: 5000,
  },
  describe: {
    seed: SEED_DOC,
    seeds: SEEDS_DOC,
    pools: POOLS_DOC,
    runsPerPool: { meaning: "每个池上 LLMSelector 跑几次（不同的随机起点与诊断器抽样）", range: "1–100 的整数" },
    qs: { meaning: "要扫的诊断器准确率 q", range: "非空数组，每项在 0–1 之间" },
    verdicts: { meaning: "诊断器的判断：fresh = 每次调用重新判断（讲义）；cached = 同一个分配、同一道题、同一个模块只判断一次，之后照搬（作者代码的响应缓存）", range: "非空数组，每项为 fresh 或 cached" },
    system: { meaning: "复合系统", range: `${SYSTEM_NAMES.join("、")} 之一` },
    train: TRAIN_DOC,
    test: TEST_DOC,
    maxBudget: { meaning: "一次运行最多评估多少个分配（每轮 K 个；到了还没收敛就停下）", range: "≥ 0 的整数" },
  },
  run(p, context) {
    const seeds = seedList(p.seed, p.seeds);
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    const runs = checkInteger("runsPerPool", p.runsPerPool, { min: 1, max: 100 });
    const qs = checkNonEmpty("qs", p.qs).map((q, i) => checkProbability(`qs[${i}]`, q));
    const modes = checkNonEmpty("verdicts", p.verdicts).map((v, i) => checkOneOf(`verdicts[${i}]`, v, VERDICT_MODES)) as VerdictMode[];
    const maxBudget = checkInteger("maxBudget", p.maxBudget, { min: 0 });
    const system = getSystem(p.system);
    const train = checkInteger("train", p.train, { min: 1 });
    const test = checkInteger("test", p.test, { min: 1 });
    const evaluators = seeds.map((seed) => Array.from({ length: pools }, (_, pool) => new Evaluator(randomPoolWorld({ seed, pool, train, test }), system)));
    const rows: Row[] = [];
    const capped: CappedCell[] = [];
    for (const verdicts of modes) {
      for (const q of qs) {
        context.progress?.(`04.3：${displayName(verdicts)}，q = ${q}`);
        const cell: DiagnoserCell = { results: [], bySeed: [] };
        evaluators.forEach((evs, s) => {
          const mine: OptimizerResult[] = [];
          evs.forEach((ev, pool) => {
            for (let r = 0; r < runs; r++) mine.push(llmSelector(ev, { q, verdicts, seed: `${String(seeds[s])}/pool/${pool}/run/${r}`, maxBudget }));
          });
          cell.bySeed.push(mine);
          cell.results.push(...mine);
        });
        const converged = cell.results.filter((r) => r.converged);
        capped.push({ verdicts, q, stopped: cell.results.length - converged.length, runs: cell.results.length, fromCapped: cell.results.filter((r) => !r.converged).reduce((sum, r) => sum + r.evaluated, 0) / cell.results.length, mean: mean(cell.results.map((r) => r.evaluated)) });
        const evalBySeed = cell.bySeed.map((rs) => mean(rs.map((r) => r.evaluated)));
        rows.push({
          verdicts,
          q,
          evaluated: mean(cell.results.map((r) => r.evaluated)),
          evalLow: Math.min(...evalBySeed),
          evalHigh: Math.max(...evalBySeed),
          evalRange: rangeText(evalBySeed, 0),
          convergedEvaluated: converged.length ? mean(converged.map((r) => r.evaluated)) : null,
          stopped: cell.results.length - converged.length,
          runs: cell.results.length,
          testAcc: mean(cell.results.map((r) => r.testAcc)),
          trainAcc: mean(cell.results.map((r) => r.trainAcc)),
          evalBySeed: JSON.stringify(evalBySeed),
          testBySeed: JSON.stringify(cell.bySeed.map((rs) => mean(rs.map((r) => r.testAcc)))),
          stoppedBySeed: JSON.stringify(cell.bySeed.map((rs) => rs.filter((r) => !r.converged).length)),
        });
      }
    }
    const runCount = seeds.length * pools * runs;
    return {
      title: `诊断器不准时：LLMSelector 的预算与准确率（${displayName(system.name)}，${system.modules.length} 个模块，${runCount} 次运行）`,
      columns: [
        { key: "verdicts", label: "诊断器的判断", format: "name" },
        { key: "q", label: "诊断器准确率 q", format: "fixed1" },
        { key: "evaluated", label: "评估的分配数（均值）", format: "fixed0" },
        { key: "evalRange", label: "各种子的均值范围", format: "text" },
        { key: "convergedEvaluated", label: "收敛的运行平均评估", format: "fixed0" },
        { key: "stopped", label: `到预算还没停下的运行（共 ${runCount} 次）`, format: "int" },
        { key: "testAcc", label: "测试准确率（均值）", format: "fixed3" },
      ],
      rows,
      notes: [
        `种子 ${seedsText(seeds)}，每个种子 ${pools} 个随机池 × 每池 ${runs} 次；连续 ${system.modules.length + 1} 次分配相同就停，最多评估 ${maxBudget} 个分配（每轮计 K 个）。`,
        "诊断一错，就会冤枉一个没出错的模块，模块得分带上噪声。每次重新判断时，几个差不多好的候选轮流胜出，停止条件迟迟凑不齐；判断被缓存时，同一个分配下的冤枉永远不变，搜索可能在几个分配之间绕圈，直到预算用完。",
        capNote(capped, maxBudget),
      ],
    };
  },
  claims: [
    {
      id: "budget-grows",
      says: "诊断器越不准，LLMSelector 要评估的分配越多（几倍地涨）",
      lecture: "q 从 1.0 降到 0.6：68 → 633",
      judge: (t, p) => {
        const qs = p.qs as number[];
        const hi = Math.max(...qs);
        const lo = Math.min(...qs);
        needParam(hi > lo, "需要至少两个不同的 q");
        const modes = VERDICT_MODES.filter((v) => t.rows.some((r) => r.verdicts === v));
        if (modes.length === 0) cannotJudge("没有任何诊断器模式的行");
        return modes.map((v) => {
            const a = needRow(t, { verdicts: v, q: hi });
            const b = needRow(t, { verdicts: v, q: lo });
            const ratios = perSeed(b, "evalBySeed").map((x, i) => x / perSeed(a, "evalBySeed")[i]);
            return {
              reading: v === "fresh" ? "每次重新判断（讲义）" : "按提示缓存（作者代码）",
              holds: Number(b.evaluated) >= 2 * Number(a.evaluated),
              ours: `q = ${f(hi, 1)} → ${f(lo, 1)}：${f(Number(a.evaluated), 0)} → ${f(Number(b.evaluated), 0)}（${f(Number(b.evaluated) / Number(a.evaluated), 1)} 倍；各种子 ${rangeOf(ratios)} 倍${capShareText(b, Number(p.maxBudget))}）`,
              seeds: seedsAgreeing(ratios, (r) => r >= 2),
            };
        });
      },
    },
    {
      id: "accuracy-holds",
      says: "诊断器变得不准时，最终的测试准确率会下降，但下降得比较慢（q 从最高到最低，降幅不到 5 个百分点）",
      lecture: "准确率下降得比较慢（并且不单调）",
      judge: (t, p) => {
        const s = accuracyEnds(t, p);
        return {
          holds: s.change < 0 && s.change > -0.05,
          ours: s.ours,
          remark: s.monotone ? "随 q 单调" : "随 q 不单调",
          seeds: seedsAgreeing(s.diffs, (d) => d < 0 && d > -0.05),
          why: s.change >= 0 ? `q 从 ${f(s.hi, 1)} 降到 ${f(s.lo, 1)}，测试准确率没有下降，反而${s.change > 0 ? `升了 ${f(s.change * 100, 1)} 个百分点` : "不变"}（同时每次运行评估的分配从 ${f(s.evaluatedHi, 0)} 个增加到 ${f(s.evaluatedLo, 0)} 个：看得更多，终点不比原来差）` : `降了 ${f(-s.change * 100, 1)} 个百分点，不算慢`,
        };
      },
    },
    {
      id: "accuracy-stable",
      ourStatement: true,
      says: "诊断器不准时最终的测试准确率变化不大（不到 3 个百分点）：多评估的分配里总有差不多好的",
      judge: (t, p) => {
        const s = accuracyEnds(t, p);
        return {
          holds: Math.abs(s.change) < 0.03,
          ours: s.ours,
          seeds: seedsAgreeing(s.diffs, (d) => Math.abs(d) < 0.03),
          why: `准确率变化了 ${f(s.change * 100, 1)} 个百分点，超过 3 个`,
        };
      },
    },
    {
      id: "minimum-budget",
      says: "诊断器全对时，预算在理论下限 K × L 的三倍以内（到达最优后还要几轮确认）",
      judge: (t, p) => {
        needParam((p.qs as number[]).includes(1), "需要 q = 1 的行");
        const r = needRow(t, { verdicts: needRows(t, { q: 1 })[0].verdicts, q: 1 });
        const L = getSystem(p.system).modules.length;
        const K = selectorWorldData().randomPools.models;
        const ratio = Number(r.evaluated) / (K * L);
        return { holds: ratio < 3, ours: `${f(Number(r.evaluated), 0)} 个，是 K × L = ${K * L} 的 ${f(ratio, 1)} 倍` };
      },
    },
    {
      id: "cached-cycles",
      says: "判断被缓存（作者代码）时，噪声会让一部分运行在几个分配之间绕圈，直到预算用完；每次重新判断时不会",
      judge: (t, p) => {
        const noisy = (p.qs as number[]).filter((q) => q < 1);
        needParam(noisy.length > 0, "需要 q < 1 的行");
        const q = noisy.includes(0.8) ? 0.8 : noisy[0];
        const c = needRow(t, { verdicts: "cached", q });
        const fr = needRow(t, { verdicts: "fresh", q });
        const cachedStops = needRows(t, { verdicts: "cached" }).filter((r) => Number(r.q) < 1).reduce((s, r) => s + Number(r.stopped), 0);
        const freshStops = needRows(t, { verdicts: "fresh" }).reduce((s, r) => s + Number(r.stopped), 0);
        return {
          holds: cachedStops > 0 && freshStops === 0,
          ours: `q = ${f(q, 1)}：缓存时 ${c.runs} 次中 ${c.stopped} 次绕圈到预算用完，平均评估 ${f(Number(c.evaluated), 0)} 个（每次重新判断时 ${f(Number(fr.evaluated), 0)} 个，${fr.stopped} 次）`,
          seeds: seedsAgreeing(perSeed(c, "stoppedBySeed"), (n) => n > 0),
        };
      },
    },
    {
      id: "cached-converged-quick",
      says: "判断被缓存时，没有绕圈的运行反而收敛得快：诊断器的冤枉固定了，停止条件容易凑齐",
      judge: (t, p) => {
        const noisy = (p.qs as number[]).filter((q) => q < 1);
        needParam(noisy.length > 0, "需要 q < 1 的行");
        const parts = noisy.map((q) => [needRow(t, { verdicts: "cached", q }), needRow(t, { verdicts: "fresh", q })] as const);
        const ok = parts.every(([c, fr]) => c.convergedEvaluated !== null && Number(c.convergedEvaluated) < Number(fr.convergedEvaluated));
        return {
          holds: ok,
          ours: parts.map(([c, fr]) => `q = ${f(Number(c.q), 1)}：${f(Number(c.convergedEvaluated), 0)} 对 ${f(Number(fr.convergedEvaluated), 0)}`).join("，") + "（收敛的运行平均评估的分配数：缓存 对 每次重新判断）",
        };
      },
    },
  ],
  // 07 shows budget-grows alone, and a summary line shows a claim's first reading only: with fresh verdicts first, the
  // cached runs (their own loop, same seeds) are not needed for it
  narrowForClaims: (ids, p) => (ids.length > 0 && ids.every((id) => id === "budget-grows") && p.verdicts[0] === "fresh" && p.verdicts.length > 1 ? { verdicts: ["fresh"] } : undefined),
});
