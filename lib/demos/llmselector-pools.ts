// 代码 04 演示 2–3 (§4.4): random model pools — mixing models vs the best single model, greedy (ours and the
// released α = 0 one) vs LLMSelector vs random search vs exhaustive; and a less accurate diagnoser, with verdicts
// drawn fresh per call (the lecture) or cached per prompt (the authors' code). Both over several world seeds.
import { checkInteger, checkNonEmpty, checkOneOf, checkProbability } from "../core/errors";
import { displayName } from "../core/glossary";
import type { Row } from "../core/table";
import { VERDICT_MODES, VerdictMode } from "../selector/diagnoser";
import { Evaluator } from "../selector/evaluate";
import { bestSingleModel, exhaustive, greedy, llmSelector, OptimizerResult, randomSearch, releasedGreedy } from "../selector/optimizers";
import { getSystem, SYSTEM_NAMES } from "../selector/systems";
import { randomPoolWorld, selectorWorldData } from "../selector/world";
import { cannotJudge, f, needParam, needRow, needRows, seedsAgreeing, spread } from "./claims";
import { countOrMean, mean, perSeed, POOLS_DOC, rangeText, SEED_DOC, seedList, seedsText, SEEDS_DOC, SYSTEMS_RANGE, TEST_DOC, TRAIN_DOC } from "./llmselector-common";
import { defineDemo } from "./registry";

const POOL_METHODS = ["bestSingle", "greedy", "releasedGreedy", "llmSelector", "randomSearch", "exhaustive"] as const;
type PoolMethod = (typeof POOL_METHODS)[number];

/** One seed's runs of one system: per method, per pool, the runs on that pool. */
type SeedRuns = Map<PoolMethod, OptimizerResult[][]>;

function runPools(systemName: string, seed: number | string, pools: number, runs: number, q: number, train: number, test: number): SeedRuns {
  const system = getSystem(systemName);
  const byMethod: SeedRuns = new Map(POOL_METHODS.map((m) => [m, []]));
  const push = (method: PoolMethod, r: OptimizerResult, pool: number) => ((byMethod.get(method) as OptimizerResult[][])[pool] ??= []).push(r);
  for (let pool = 0; pool < pools; pool++) {
    const ev = new Evaluator(randomPoolWorld({ seed, pool, train, test }), system);
    push("bestSingle", bestSingleModel(ev), pool);
    push("exhaustive", exhaustive(ev), pool);
    for (let run = 0; run < runs; run++) {
      const runSeed = `${String(seed)}/pool/${pool}/run/${run}`;
      const l = llmSelector(ev, { q, seed: runSeed });
      push("llmSelector", l, pool);
      push("greedy", greedy(ev, { seed: runSeed }), pool);
      push("releasedGreedy", releasedGreedy(ev, { seed: runSeed }), pool);
      // random search gets exactly the budget LLMSelector used in this run
      push("randomSearch", randomSearch(ev, { budget: l.evaluated, seed: runSeed }), pool);
    }
  }
  return byMethod;
}

const poolMeans = (runs: SeedRuns, method: PoolMethod, key: "testAcc" | "trainAcc" | "evaluated") => (runs.get(method) as OptimizerResult[][]).map((rs) => mean(rs.map((r) => r[key])));

export const llmSelectorPools = defineDemo({
  id: "04.2",
  section: "§4.4",
  title: "随机模型池：混用模型与最好的单一模型，各种搜索方法比一比",
  defaults: { seed: selectorWorldData().randomPools.seed, seeds: 3, pools: 10, runsPerPool: 3, train: 200, test: 300, q: 1, systems: [...SYSTEM_NAMES] as string[] },
  describe: {
    seed: SEED_DOC,
    seeds: SEEDS_DOC,
    pools: POOLS_DOC,
    runsPerPool: { meaning: "每个池上贪心、LLMSelector、随机搜索各跑几次（不同的随机起点）取平均", range: "1–100 的整数" },
    train: TRAIN_DOC,
    test: TEST_DOC,
    q: { meaning: "诊断器判断正确的概率 q", range: "0–1" },
    systems: { meaning: "要优化的复合系统", range: SYSTEMS_RANGE },
  },
  run(p, context) {
    const seeds = seedList(p.seed, p.seeds);
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    const runs = checkInteger("runsPerPool", p.runsPerPool, { min: 1, max: 100 });
    const q = checkProbability("q", p.q);
    const train = checkInteger("train", p.train, { min: 1 });
    const test = checkInteger("test", p.test, { min: 1 });
    const systems = checkNonEmpty("systems", p.systems).map((s, i) => checkOneOf(`systems[${i}]`, s, SYSTEM_NAMES));
    const rows: Row[] = [];
    for (const systemName of systems) {
      const bySeed = seeds.map((seed, i) => {
        context.progress?.(`04.2：${displayName(systemName)}，种子 ${i + 1}/${seeds.length}`);
        return runPools(systemName, seed, pools, runs, q, train, test);
      });
      const singleTest = bySeed.map((r) => poolMeans(r, "bestSingle", "testAcc"));
      for (const method of POOL_METHODS) {
        const testBySeed = bySeed.map((r) => mean(poolMeans(r, method, "testAcc")));
        const gainBySeed = testBySeed.map((t, i) => (t - mean(singleTest[i])) * 100);
        const row: Row = {
          system: systemName,
          method,
          testAcc: mean(testBySeed),
          gainPoints: mean(gainBySeed),
          gainRange: rangeText(gainBySeed, 1),
          gainLow: Math.min(...gainBySeed),
          gainHigh: Math.max(...gainBySeed),
          trainAcc: mean(bySeed.map((r) => mean(poolMeans(r, method, "trainAcc")))),
          evaluated: mean(bySeed.map((r) => mean(poolMeans(r, method, "evaluated")))),
          poolsBeatingSingle: bySeed.reduce((s, r, i) => s + poolMeans(r, method, "testAcc").filter((t, k) => t > singleTest[i][k]).length, 0),
          testBySeed: JSON.stringify(testBySeed),
          gainBySeed: JSON.stringify(gainBySeed),
          trainBySeed: JSON.stringify(bySeed.map((r) => mean(poolMeans(r, method, "trainAcc")))),
        };
        // run by run, same random start: does the released greedy end elsewhere than ours; does LLMSelector beat greedy?
        const paired = (other: PoolMethod) => bySeed.flatMap((r) => (r.get(method) as OptimizerResult[][]).flatMap((rs, pool) => rs.map((x, i) => [x, (r.get(other) as OptimizerResult[][])[pool][i]] as const)));
        if (method === "releasedGreedy") {
          const pairs = paired("greedy");
          row.differsFromGreedy = pairs.filter(([a, b]) => a.label !== b.label).length;
          row.pairedRuns = pairs.length;
        }
        if (method === "llmSelector") {
          const pairs = paired("greedy");
          row.winsOverGreedy = pairs.filter(([a, b]) => a.testAcc > b.testAcc).length;
          row.tiesWithGreedy = pairs.filter(([a, b]) => a.testAcc === b.testAcc).length;
          row.lossesToGreedy = pairs.filter(([a, b]) => a.testAcc < b.testAcc).length;
        }
        rows.push(row);
      }
    }
    const totalPools = seeds.length * pools;
    return {
      title: `随机模型池：${seeds.length} 个种子 × ${pools} 个池，每池 ${selectorWorldData().randomPools.models} 个模型（测试集，先按池、再按种子平均）`,
      columns: [
        { key: "system", label: "复合系统", format: "name" },
        { key: "method", label: "方法", format: "name" },
        { key: "testAcc", label: "测试准确率", format: "fixed3" },
        { key: "gainPoints", label: "比最好的单一模型高", unit: "百分点", format: "fixed1" },
        { key: "gainRange", label: "各种子的范围", unit: "百分点", format: "text" },
        { key: "trainAcc", label: "训练准确率", format: "fixed3" },
        { key: "evaluated", label: "评估的分配数", format: countOrMean },
        { key: "poolsBeatingSingle", label: `测试集上胜过单一模型的池（共 ${totalPools} 个）`, format: "int" },
      ],
      rows,
      notes: [
        `种子 ${seedsText(seeds)}，每个种子 ${pools} 个随机池；每池训练题 ${train} 道、测试题 ${test} 道；诊断器准确率 q = ${q}。`,
        `贪心、贪心（发布代码）、LLMSelector 和随机搜索每池各跑 ${runs} 次取平均：同一次里它们从同一个随机分配出发，随机搜索抽的分配数等于这次 LLMSelector 评估的个数。穷举挑训练准确率最高的分配。`,
      ],
    };
  },
  claims: [
    {
      id: "mixing-pays",
      says: "混用模型比最好的单一模型好：LLMSelector 和穷举在每种系统上都更高",
      lecture: "LLMSelector 高 1.6–7.5 个百分点，穷举高 2.6–8.4",
      judge: (t) => {
        const ls = needRows(t, { method: "llmSelector" });
        const ex = needRows(t, { method: "exhaustive" });
        const range = (rs: typeof ls) => `${f(Math.min(...rs.map((r) => Number(r.gainPoints))), 1)}–${f(Math.max(...rs.map((r) => Number(r.gainPoints))), 1)}`;
        const perSeedOk = perSeed(ls[0], "gainBySeed").map((_, s) => [...ls, ...ex].every((r) => perSeed(r, "gainBySeed")[s] > 0));
        return {
          holds: [...ls, ...ex].every((r) => Number(r.gainPoints) > 0),
          ours: `LLMSelector 高 ${range(ls)}，穷举高 ${range(ex)} 个百分点`,
          seeds: seedsAgreeing(perSeedOk, (x) => x),
        };
      },
    },
    {
      id: "greedy-matches",
      says: "在随机池上贪心与 LLMSelector 差不多（每种系统上相差不到一个百分点）",
      lecture: "随机池上贪心和 LLMSelector 差不多",
      judge: (t) => {
        const systems = [...new Set(needRows(t, { method: "llmSelector" }).map((r) => String(r.system)))];
        const gaps = systems.map((s) => Number(needRow(t, { system: s, method: "llmSelector" }).gainPoints) - Number(needRow(t, { system: s, method: "greedy" }).gainPoints));
        const perSeedGap = perSeed(needRow(t, { system: systems[0], method: "greedy" }), "gainBySeed").map((_, k) =>
          Math.max(...systems.map((s) => Math.abs(perSeed(needRow(t, { system: s, method: "llmSelector" }), "gainBySeed")[k] - perSeed(needRow(t, { system: s, method: "greedy" }), "gainBySeed")[k]))),
        );
        return {
          holds: gaps.every((g) => Math.abs(g) < 1),
          ours: `LLMSelector − 贪心：${systems.map((s, i) => `${displayName(s)} ${f(gaps[i], 1)}`).join("，")} 个百分点`,
          seeds: seedsAgreeing(perSeedGap, (g) => g < 1),
        };
      },
    },
    {
      id: "near-exhaustive",
      says: "在随机池上贪心与 LLMSelector 都接近穷举（离穷举不到一个百分点）",
      lecture: "都接近穷举",
      judge: (t) => {
        const systems = [...new Set(needRows(t, { method: "exhaustive" }).map((r) => String(r.system)))];
        const g = (s: string, m: string) => Number(needRow(t, { system: s, method: m }).gainPoints);
        const worst = systems.map((s) => Math.max(g(s, "exhaustive") - g(s, "greedy"), g(s, "exhaustive") - g(s, "llmSelector")));
        const far = systems.filter((_, i) => worst[i] >= 1);
        return {
          holds: far.length === 0,
          ours: systems.map((s) => `${displayName(s)}：贪心 ${f(g(s, "greedy"), 1)}、LLMSelector ${f(g(s, "llmSelector"), 1)}、穷举 ${f(g(s, "exhaustive"), 1)}`).join("；") + " 个百分点（都是比最好的单一模型高出的量）",
          remark: far.length
            ? `${far.map((s) => `${displayName(s)}上两者只拿到穷举收益的 ${f((100 * g(s, "greedy")) / g(s, "exhaustive"), 0)}% 和 ${f((100 * g(s, "llmSelector")) / g(s, "exhaustive"), 0)}%`).join("；")}：模块一多，逐模块搜索离最优还有距离`
            : undefined,
        };
      },
    },
    {
      id: "random-search-worse",
      says: "同样的预算下，随机搜索比 LLMSelector 差：空间大时，一次改一个模块这个结构本身就有用",
      lecture: "同样的预算下随机搜索更差",
      judge: (t) => {
        const systems = [...new Set(needRows(t, { method: "randomSearch" }).map((r) => String(r.system)))];
        const pairs = systems.map((s) => [needRow(t, { system: s, method: "randomSearch" }), needRow(t, { system: s, method: "llmSelector" })] as const);
        const perSeedOk = perSeed(pairs[0][0], "testBySeed").map((_, k) => pairs.every(([r, l]) => perSeed(r, "testBySeed")[k] < perSeed(l, "testBySeed")[k]));
        return {
          holds: pairs.every(([r, l]) => Number(r.testAcc) < Number(l.testAcc)),
          ours: pairs.map(([r, l]) => `${displayName(r.system)} ${f(Number(r.testAcc), 3)} 对 ${f(Number(l.testAcc), 3)}`).join("，"),
          seeds: seedsAgreeing(perSeedOk, (x) => x),
        };
      },
    },
    {
      id: "exhaustive-is-train-optimum",
      says: "穷举挑的是训练集上最好的分配，训练准确率总是最高；测试集上别的方法偶尔略高于它，那只是训练集与测试集的抽样差异",
      judge: (t) => {
        const systems = [...new Set(needRows(t, { method: "exhaustive" }).map((r) => String(r.system)))];
        const above: string[] = [];
        let trainOk = true;
        for (const s of systems) {
          const ex = needRow(t, { system: s, method: "exhaustive" });
          for (const r of needRows(t, { system: s })) {
            if (Number(r.trainAcc) > Number(ex.trainAcc) + 1e-12) trainOk = false;
            if (r.method !== "exhaustive" && Number(r.testAcc) > Number(ex.testAcc)) {
              above.push(`${displayName(s)}：${displayName(r.method)} 测试 ${f(Number(r.testAcc), 3)} > 穷举 ${f(Number(ex.testAcc), 3)}（训练 ${f(Number(r.trainAcc), 3)} ≤ ${f(Number(ex.trainAcc), 3)}）`);
            }
          }
        }
        return { holds: trainOk, ours: above.length ? above.join("；") : "测试集上也没有方法高过穷举" };
      },
    },
    {
      id: "released-greedy",
      says: "作者代码默认的 α = 0 贪心（打平时也换模型）和我们的贪心（只换到严格更好的）终点常常不同，准确率却相近",
      judge: (t) => {
        const rows = needRows(t, { method: "releasedGreedy" });
        const gaps = rows.map((r) => Number(r.gainPoints) - Number(needRow(t, { system: r.system, method: "greedy" }).gainPoints));
        const differs = rows.reduce((s, r) => s + Number(r.differsFromGreedy), 0);
        const total = rows.reduce((s, r) => s + Number(r.pairedRuns), 0);
        return {
          holds: gaps.every((g) => Math.abs(g) < 1),
          ours: `${differs} / ${total} 次运行终点不同；发布代码 − 我们：${rows.map((r, i) => `${displayName(r.system)} ${f(gaps[i], 1)}`).join("，")} 个百分点`,
        };
      },
    },
    {
      id: "pitfall-8",
      says: "误区 8 不成立：LLMSelector 并不总比贪心强——逐次比较（同一个起点），贪心打平或更好的次数不少",
      lecture: "它的优势在贪心会卡住的结构里；在随机模型池上两者相当",
      judge: (t) => {
        const rows = needRows(t, { method: "llmSelector" });
        const sum = (k: string) => rows.reduce((s, r) => s + Number(r[k]), 0);
        const [w, ti, l] = [sum("winsOverGreedy"), sum("tiesWithGreedy"), sum("lossesToGreedy")];
        return { holds: ti + l >= w, ours: `LLMSelector 更好 ${w} 次、打平 ${ti} 次、贪心更好 ${l} 次` };
      },
    },
  ],
});

// ---------------------------------------------------------------------------------------------------------------

interface DiagnoserCell {
  results: OptimizerResult[];
  bySeed: OptimizerResult[][];
}

export const llmSelectorNoisyDiagnoser = defineDemo({
  id: "04.3",
  section: "§4.4",
  title: "诊断器不准时：LLMSelector 的预算与准确率（判断每次重来，或按提示缓存）",
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
              ours: `q = ${f(hi, 1)} → ${f(lo, 1)}：${f(Number(a.evaluated), 0)} → ${f(Number(b.evaluated), 0)}（${f(Number(b.evaluated) / Number(a.evaluated), 1)} 倍；各种子 ${f(spread(ratios).min, 1)}–${f(spread(ratios).max, 1)} 倍）`,
              seeds: seedsAgreeing(ratios, (r) => r >= 2),
            };
        });
      },
    },
    {
      id: "accuracy-holds",
      says: "诊断器不准时最终的测试准确率变化不大（多评估的分配里总有差不多好的）",
      lecture: "准确率下降得比较慢（并且不单调）",
      judge: (t, p) => {
        const qs = p.qs as number[];
        const hi = Math.max(...qs);
        const lo = Math.min(...qs);
        needParam(hi > lo, "需要至少两个不同的 q");
        const rs = needRows(t, { verdicts: "fresh" });
        const a = needRow(t, { verdicts: "fresh", q: hi });
        const b = needRow(t, { verdicts: "fresh", q: lo });
        const accs = rs.map((r) => Number(r.testAcc));
        const diffs = perSeed(b, "testBySeed").map((x, i) => x - perSeed(a, "testBySeed")[i]);
        const change = Number(b.testAcc) - Number(a.testAcc);
        return {
          holds: Math.abs(change) < 0.03,
          ours: `每次重新判断：q = ${f(hi, 1)} 时 ${f(Number(a.testAcc), 3)}，q = ${f(lo, 1)} 时 ${f(Number(b.testAcc), 3)}（全程 ${f(Math.min(...accs), 3)}–${f(Math.max(...accs), 3)}）`,
          remark: change >= 0 ? "这里没有下降" : "略有下降",
          seeds: seedsAgreeing(diffs, (d) => Math.abs(d) < 0.03),
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
});
