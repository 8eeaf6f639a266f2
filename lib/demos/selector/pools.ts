// 代码 04 演示 2 (§4.4): random model pools — mixing models vs the best single model, greedy (ours and the released
// α = 0 one) vs LLMSelector vs random search vs exhaustive, over several world seeds.
import { checkInteger, checkNonEmpty, checkOneOf, checkProbability } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { Evaluator } from "../../selector/evaluate";
import { bestSingleModel, exhaustive, greedy, llmSelector, OptimizerResult, randomSearch, releasedGreedy } from "../../selector/optimizers";
import { getSystem, SYSTEM_NAMES } from "../../selector/systems";
import { randomPoolWorld, selectorWorldData } from "../../selector/world";
import { f, needRow, needRows, seedsAgreeing } from "../claims";
import { mean, perSeed, POOLS_DOC, rangeText, SEED_DOC, seedList, seedsText, SEEDS_DOC, SYSTEMS_RANGE, TEST_DOC, TRAIN_DOC } from "./common";
import { defineDemo } from "../registry";

/** How far each system's searches ended from the optimum on the training set (exhaustive − method, in points), with
 * the system's module count: the reason a "close to each other / to exhaustive" claim fails, read off the table. */
function shortfallText(t: Table, systems: readonly string[], methods: readonly string[]): string {
  const train = (s: string, m: string) => Number(needRow(t, { system: s, method: m }).trainAcc);
  const parts = systems.map((s) => `${displayName(s)}（${getSystem(s).modules.length} 个模块）${methods.map((m) => `${displayName(m)} ${f(100 * (train(s, "exhaustive") - train(s, m)), 1)}`).join("、")}`);
  return `训练准确率比穷举低（百分点）：${parts.join("；")}`;
}

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
  // Size: 3 seeds × 10 pools × 3 runs per pool: greedy-most-pools and pitfall-8 count pools and runs.
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
          // pool by pool (mean over the pool's runs): pools where greedy is not worse than LLMSelector (05.4)
          row.poolsGreedyNotWorse = bySeed.reduce((s, r) => s + poolMeans(r, "greedy", "testAcc").filter((g, k) => g >= poolMeans(r, "llmSelector", "testAcc")[k]).length, 0);
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
        { key: "evaluated", label: "评估的分配数", format: "countOrMean" },
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
        const wide = systems.filter((_, i) => Math.abs(gaps[i]) >= 1);
        return {
          holds: gaps.every((g) => Math.abs(g) < 1),
          why: `${wide.map((s) => `${displayName(s)}上 LLMSelector 比贪心${gaps[systems.indexOf(s)] > 0 ? "高" : "低"} ${f(Math.abs(gaps[systems.indexOf(s)]), 1)} 个百分点`).join("，")}，超过一个百分点；${shortfallText(t, systems, ["greedy", "llmSelector"])}`,
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
          why: `${far.map((s) => `${displayName(s)}上贪心和 LLMSelector 只拿到穷举收益的 ${f((100 * g(s, "greedy")) / g(s, "exhaustive"), 0)}% 和 ${f((100 * g(s, "llmSelector")) / g(s, "exhaustive"), 0)}%`).join("；")}；${shortfallText(t, systems, ["greedy", "llmSelector"])}`,
          ours: systems.map((s) => `${displayName(s)}：贪心 ${f(g(s, "greedy"), 1)}、LLMSelector ${f(g(s, "llmSelector"), 1)}、穷举 ${f(g(s, "exhaustive"), 1)}`).join("；") + " 个百分点（都是比最好的单一模型高出的量）",
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
          why: `${rows.filter((_, i) => Math.abs(gaps[i]) >= 1).map((r) => `${displayName(r.system)}上发布代码的贪心和我们的相差 ${f(Math.abs(gaps[rows.indexOf(r)]), 1)} 个百分点`).join("，")}，超过一个百分点`,
          ours: `${differs} / ${total} 次运行终点不同；发布代码 − 我们：${rows.map((r, i) => `${displayName(r.system)} ${f(gaps[i], 1)}`).join("，")} 个百分点`,
        };
      },
    },
    {
      id: "pitfall-8",
      says: "LLMSelector 并不总比贪心强——逐次比较（同一个起点），贪心打平或更好的次数不少",
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
