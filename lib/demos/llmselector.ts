// 代码 04: LLMSelector in the toy world of compound AI systems (§4.4–§4.6, exercises 6–7).
import { checkInteger, checkNonEmpty, checkNumber, checkProbability, ParameterError } from "../core/errors";
import { mean } from "../core/stats";
import type { Row } from "../core/table";
import { allocationCost } from "../selector/budget";
import { accuracyMatrix, Evaluator } from "../selector/evaluate";
import {
  bestSingleModel,
  costFrontier,
  exhaustive,
  exhaustiveWhere,
  greedy,
  llmSelector,
  OptimizerResult,
  randomSearch,
} from "../selector/optimizers";
import { debate, getSystem, locateSolve, sameModelCriticFactor, selfRefine, SYSTEM_NAMES } from "../selector/systems";
import { caseStudyPrices, caseStudyWorld, randomPoolWorld, selectorWorldData } from "../selector/world";
import { defineDemo } from "./registry";

/** "A+B ×20; C+C ×5" — final allocations of many runs, most frequent first. */
function tally(results: OptimizerResult[]): string {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.label, (counts.get(r.label) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([label, n]) => `${label} ×${n}`)
    .join("; ");
}

// ---------------------------------------------------------------------------------------------------------------

/** Allocation counts: whole numbers with separators (25, 15,625), run averages with one decimal (17.8). */
const countOrMean = (v: unknown): string =>
  typeof v !== "number" ? String(v) : Number.isInteger(v) ? v.toLocaleString("en-US") : v.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });

export const llmSelectorCase = defineDemo({
  id: "04.1",
  section: "§4.4",
  title: "LLMSelector vs greedy on the locate–solve case (models A–E)",
  defaults: { seed: selectorWorldData().caseStudy.seed, train: 100, test: 200, q: 1, lowQ: 0.8, gamma: 0.5 },
  describe: {
    seed: "world seed (the questions and every model's outcomes)",
    train: "training questions",
    test: "test questions",
    q: "diagnoser accuracy for the main runs",
    lowQ: "a less accurate diagnoser for the second LLMSelector run",
    gamma: "weight of end-to-end correctness in the module score",
  },
  run(p) {
    const q = checkProbability("q", p.q);
    const lowQ = checkProbability("lowQ", p.lowQ);
    const world = caseStudyWorld({ seed: p.seed, train: p.train, test: p.test });
    const ev = new Evaluator(world, locateSolve());
    const m = accuracyMatrix(ev, "train");
    const idx = (name: string) => world.names.indexOf(name);
    const [A, B, C] = [idx("A"), idx("B"), idx("C")];
    const best = exhaustive(ev);
    const rows: Row[] = [];
    const add = (r: OptimizerResult, start: string, qValue: number | null, failedStarts: number | null = null, allocation?: string) =>
      rows.push({
        method: r.method,
        start,
        allocation: allocation ?? r.label,
        trainAcc: r.trainAcc,
        testAcc: r.testAcc,
        evaluated: r.evaluated,
        q: qValue,
        failedStarts,
      });
    add(best, "—", null);
    add(bestSingleModel(ev), "—", null);
    const g = greedy(ev, { start: "C+C" });
    add(g, "C+C", null);
    const l = llmSelector(ev, { start: "C+C", q, gamma: p.gamma, seed: p.seed });
    add(l, "C+C", q);
    const l2 = llmSelector(ev, { start: "C+C", q: lowQ, gamma: p.gamma, seed: p.seed });
    add(l2, "C+C", lowQ);
    // every one of the K² starting allocations
    const starts: number[][] = [];
    for (let i = 0; i < ev.modelCount; i++) for (let j = 0; j < ev.modelCount; j++) starts.push([i, j]);
    const summary = (results: OptimizerResult[], qValue: number | null) => {
      const failed = results.filter((r) => r.trainAcc < best.trainAcc).length;
      rows.push({
        method: results[0].method,
        start: `all ${starts.length}`,
        allocation: tally(results),
        trainAcc: mean(results.map((r) => r.trainAcc)),
        testAcc: mean(results.map((r) => r.testAcc)),
        evaluated: mean(results.map((r) => r.evaluated)),
        q: qValue,
        failedStarts: failed,
      });
    };
    summary(starts.map((s) => greedy(ev, { start: s })), null);
    summary(starts.map((s, i) => llmSelector(ev, { start: s, q, gamma: p.gamma, seed: `${p.seed}/start/${i}` })), q);
    summary(starts.map((s, i) => llmSelector(ev, { start: s, q: lowQ, gamma: p.gamma, seed: `${p.seed}/start/${i}` })), lowQ);
    return {
      title: this.title,
      columns: [
        { key: "method", label: "method" },
        { key: "start", label: "start" },
        { key: "allocation", label: "allocation (locate+solve)" },
        { key: "trainAcc", label: "train accuracy", format: "fixed2" },
        { key: "testAcc", label: "test accuracy", format: "fixed2" },
        { key: "evaluated", label: "allocations evaluated", format: countOrMean },
        { key: "q", label: "diagnoser accuracy q", format: "fixed1" },
        { key: "failedStarts", label: "starts not reaching the optimum", format: "int" },
      ],
      rows,
      notes: [
        `Training accuracy: C+C ${m[C][C].toFixed(2)}, A+C ${m[A][C].toFixed(2)}, C+B ${m[C][B].toFixed(2)}, A+B ${m[A][B].toFixed(2)} (${world.train.size} training, ${world.test.size} test questions, seed ${String(p.seed)}).`,
        `LLMSelector path from C+C: ${l.path.map((a) => ev.label(a)).join(" → ")} (${l.rounds} rounds × ${ev.modelCount} = ${l.evaluated} allocations).`,
        "Greedy = coordinate ascent on training accuracy (switches only to a strictly better model). A run fails when its final training accuracy is below the exhaustive optimum's.",
      ],
    };
  },
});

// ---------------------------------------------------------------------------------------------------------------

const POOL_METHODS = ["bestSingle", "greedy", "llmSelector", "randomSearch", "exhaustive"] as const;

export const llmSelectorPools = defineDemo({
  id: "04.2",
  section: "§4.4",
  title: "Random model pools: mixing models vs the best single model",
  defaults: { seed: selectorWorldData().randomPools.seed, pools: 10, runsPerPool: 3, train: 200, test: 300, q: 1, systems: [...SYSTEM_NAMES] as string[] },
  describe: {
    pools: "random pools of 5 models (ability = general level + per-skill expertise)",
    runsPerPool: "runs of greedy / LLMSelector / random search per pool (different random starts), averaged",
    q: "diagnoser accuracy",
    systems: "compound systems to optimize",
    train: "training questions per pool",
    test: "test questions per pool",
  },
  run(p, context) {
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    const runs = checkInteger("runsPerPool", p.runsPerPool, { min: 1, max: 100 });
    const q = checkProbability("q", p.q);
    const rows: Row[] = [];
    for (const systemName of checkNonEmpty("systems", p.systems)) {
      const system = getSystem(systemName);
      // per method, per pool: the runs on that pool
      const byMethod = new Map<string, OptimizerResult[][]>(POOL_METHODS.map((m) => [m, []]));
      const push = (r: OptimizerResult, pool: number) => {
        const perPool = byMethod.get(r.method) as OptimizerResult[][];
        (perPool[pool] ??= []).push(r);
      };
      for (let pool = 0; pool < pools; pool++) {
        context.progress?.(`${systemName}: pool ${pool + 1}/${pools}`);
        const ev = new Evaluator(randomPoolWorld({ seed: p.seed, pool, train: p.train, test: p.test }), system);
        push(bestSingleModel(ev), pool);
        push(exhaustive(ev), pool);
        for (let run = 0; run < runs; run++) {
          const runSeed = `${String(p.seed)}/pool/${pool}/run/${run}`;
          const l = llmSelector(ev, { q, seed: runSeed });
          push(l, pool);
          push(greedy(ev, { seed: runSeed }), pool);
          // random search gets exactly the budget LLMSelector used in this run
          push(randomSearch(ev, { budget: l.evaluated, seed: runSeed }), pool);
        }
      }
      const poolMean = (method: string, key: "testAcc" | "trainAcc" | "evaluated") =>
        (byMethod.get(method) as OptimizerResult[][]).map((rs) => mean(rs.map((r) => r[key])));
      const singleTest = poolMean("bestSingle", "testAcc");
      for (const method of POOL_METHODS) {
        const test = poolMean(method, "testAcc");
        const testAcc = mean(test);
        rows.push({
          system: systemName,
          method,
          testAcc,
          gainPoints: (testAcc - mean(singleTest)) * 100,
          trainAcc: mean(poolMean(method, "trainAcc")),
          evaluated: mean(poolMean(method, "evaluated")),
          poolsBeatingSingle: test.filter((t, i) => t > singleTest[i]).length,
        });
      }
    }
    return {
      title: this.title,
      columns: [
        { key: "system", label: "system" },
        { key: "method", label: "method" },
        { key: "testAcc", label: "test accuracy (pool mean)", format: "fixed3" },
        { key: "gainPoints", label: "vs best single model", unit: "points", format: "fixed1" },
        { key: "trainAcc", label: "train accuracy (pool mean)", format: "fixed3" },
        { key: "evaluated", label: "allocations evaluated (pool mean)", format: countOrMean },
        { key: "poolsBeatingSingle", label: "pools above best single (test)", format: "int" },
      ],
      rows,
      notes: [
        `${pools} pools of ${selectorWorldData().randomPools.models} random models (seed ${String(p.seed)}); ${p.train} training and ${p.test} test questions per pool; diagnoser accuracy q = ${q}.`,
        `Greedy, LLMSelector and random search: ${runs} run(s) per pool, averaged. In each run greedy and LLMSelector start from the same random allocation, and random search draws as many distinct allocations as LLMSelector evaluated.`,
      ],
    };
  },
});

// ---------------------------------------------------------------------------------------------------------------

export const llmSelectorNoisyDiagnoser = defineDemo({
  id: "04.3",
  section: "§4.4",
  title: "A less accurate diagnoser: LLMSelector's budget and accuracy",
  defaults: { seed: selectorWorldData().randomPools.seed, pools: 10, runsPerPool: 3, qs: [1, 0.9, 0.8, 0.7, 0.6], system: "debate", train: 200, test: 300, maxBudget: 5000 },
  describe: {
    qs: "diagnoser accuracies to sweep",
    runsPerPool: "LLMSelector runs per pool (different random starts and diagnoser draws)",
    maxBudget: "a run stops unconverged before exceeding this many evaluated allocations",
  },
  run(p, context) {
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    const runs = checkInteger("runsPerPool", p.runsPerPool, { min: 1, max: 100 });
    const qs = checkNonEmpty("qs", p.qs).map((q, i) => checkProbability(`qs[${i}]`, q));
    const system = getSystem(p.system);
    const evaluators = Array.from({ length: pools }, (_, pool) => new Evaluator(randomPoolWorld({ seed: p.seed, pool, train: p.train, test: p.test }), system));
    const rows: Row[] = qs.map((q) => {
      context.progress?.(`q = ${q}`);
      const results: OptimizerResult[] = [];
      evaluators.forEach((ev, pool) => {
        for (let r = 0; r < runs; r++) results.push(llmSelector(ev, { q, seed: `${String(p.seed)}/pool/${pool}/run/${r}`, maxBudget: p.maxBudget }));
      });
      return {
        q,
        testAcc: mean(results.map((r) => r.testAcc)),
        trainAcc: mean(results.map((r) => r.trainAcc)),
        evaluated: mean(results.map((r) => r.evaluated)),
        rounds: mean(results.map((r) => r.rounds)),
        unconverged: results.filter((r) => !r.converged).length,
      };
    });
    return {
      title: `${this.title} (${system.title}, ${system.modules.length} modules)`,
      columns: [
        { key: "q", label: "diagnoser accuracy q", format: "fixed1" },
        { key: "testAcc", label: "test accuracy (mean)", format: "fixed3" },
        { key: "trainAcc", label: "train accuracy (mean)", format: "fixed3" },
        { key: "evaluated", label: "allocations evaluated (mean)", format: "fixed0" },
        { key: "rounds", label: "rounds (mean)", format: "fixed1" },
        { key: "unconverged", label: "runs stopped by the budget cap", format: "int" },
      ],
      rows,
      notes: [
        `${pools} random pools × ${runs} runs each; a run stops when the last ${system.modules.length + 1} allocations are identical (or at ${p.maxBudget} evaluated allocations).`,
        "A wrong diagnosis blames a module that did nothing wrong, so module scores get noisy and the allocation keeps flipping between near-equivalent models.",
      ],
    };
  },
});

// ---------------------------------------------------------------------------------------------------------------

export const llmSelectorViolations = defineDemo({
  id: "04.4",
  section: "§4.5",
  title: "When monotonicity fails: self-blind critics and debate diversity",
  defaults: { seed: selectorWorldData().randomPools.seed, pools: 10, train: 200, test: 300, sameModelCriticFactor: sameModelCriticFactor(), q: 1 },
  describe: {
    sameModelCriticFactor: "a critic that is the generator's own model detects errors with probability × this factor",
    q: "diagnoser accuracy for LLMSelector",
  },
  run(p, context) {
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    const factor = checkNumber("sameModelCriticFactor", p.sameModelCriticFactor, { min: 0, max: 1 });
    const q = checkProbability("q", p.q);
    const rows: Row[] = [];
    for (let pool = 0; pool < pools; pool++) {
      context.progress?.(`pool ${pool + 1}/${pools}`);
      const world = randomPoolWorld({ seed: p.seed, pool, train: p.train, test: p.test });
      const runSeed = `${String(p.seed)}/pool/${pool}`;
      // (1) self-refine with a self-blind critic: does the optimum use a different critic model than the generator?
      {
        const ev = new Evaluator(world, selfRefine({ sameModelCriticFactor: factor }));
        const opt = exhaustive(ev);
        const same = exhaustiveWhere(ev, (a) => a[0] === a[1], "sameModelCritic") as OptimizerResult;
        const l = llmSelector(ev, { q, seed: runSeed });
        rows.push({
          experiment: "selfBlindCritic",
          pool,
          bestAllocation: opt.label,
          mixesModels: opt.allocation[0] !== opt.allocation[1],
          gain: (opt.testAcc - same.testAcc) * 100,
          comparator: same.label,
          llmSelectorAllocation: l.label,
          foundByLlmSelector: (l.allocation[0] !== l.allocation[1]) === (opt.allocation[0] !== opt.allocation[1]),
        });
      }
      // (2) debate: does the optimum use two or three different generator models?
      {
        const ev = new Evaluator(world, debate());
        const opt = exhaustive(ev);
        const same = exhaustiveWhere(ev, (a) => a[0] === a[1] && a[1] === a[2], "sameGenerators") as OptimizerResult;
        const l = llmSelector(ev, { q, seed: runSeed });
        const generators = (a: number[]) => new Set(a.slice(0, 3)).size;
        rows.push({
          experiment: "debateDiversity",
          pool,
          bestAllocation: opt.label,
          mixesModels: generators(opt.allocation) > 1,
          gain: (opt.testAcc - same.testAcc) * 100,
          comparator: same.label,
          llmSelectorAllocation: l.label,
          foundByLlmSelector: generators(l.allocation) > 1 === generators(opt.allocation) > 1,
        });
      }
    }
    const summary = (experiment: string) => {
      const rs = rows.filter((r) => r.experiment === experiment);
      const mixing = rs.filter((r) => r.mixesModels);
      return `${experiment}: the optimum mixes models in ${mixing.length}/${rs.length} pools; gain over the best same-model allocation ${mean(rs.map((r) => r.gain as number)).toFixed(1)} points on average (${mixing.length ? mean(mixing.map((r) => r.gain as number)).toFixed(1) : "—"} over the mixing pools); LLMSelector finds the structure in ${rs.filter((r) => r.foundByLlmSelector).length}/${rs.length}.`;
    };
    return {
      title: this.title,
      columns: [
        { key: "experiment", label: "experiment" },
        { key: "pool", label: "pool", format: "int" },
        { key: "bestAllocation", label: "optimum (exhaustive, train)" },
        { key: "mixesModels", label: "mixes models" },
        { key: "gain", label: "gain over best same-model (test)", unit: "points", format: "fixed1" },
        { key: "comparator", label: "best same-model allocation" },
        { key: "llmSelectorAllocation", label: "LLMSelector's allocation" },
        { key: "foundByLlmSelector", label: "LLMSelector finds the structure" },
      ],
      rows,
      notes: [
        `Self-blind critic: generator+critic+refiner, a critic that is the generator's model detects errors × ${factor}; "mixes" = critic model ≠ generator model; comparator = best allocation with critic = generator.`,
        `Debate: 3 generators / 3 debaters who only choose among the initial answers; "mixes" = two or three generator models; comparator = best allocation with three identical generators.`,
        summary("selfBlindCritic"),
        summary("debateDiversity"),
      ],
    };
  },
});

// ---------------------------------------------------------------------------------------------------------------

export const llmSelectorCost = defineDemo({
  id: "04.5",
  section: "§4.6",
  title: "Cost-aware selection on the locate–solve case: accuracy − λ × price",
  defaults: {
    seed: selectorWorldData().caseStudy.seed,
    train: 100,
    test: 200,
    prices: caseStudyPrices() as Record<string, number>,
    lambdas: [0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5],
  },
  describe: {
    prices: "price per call of each model (exercise 7: A 5, B 3, C 1, D 0.5, E 0.2)",
    lambdas: "price weights λ (accuracy units per price unit; 0.1 = one accuracy point is worth 0.1)",
  },
  run(p) {
    const world = caseStudyWorld({ seed: p.seed, train: p.train, test: p.test });
    const ev = new Evaluator(world, locateSolve());
    if (typeof p.prices !== "object" || p.prices === null || Array.isArray(p.prices)) throw new ParameterError("prices", "must be an object { model: price }");
    const frontier = costFrontier(ev, { prices: p.prices, lambdas: p.lambdas });
    const rows: Row[] = frontier.map((r) => ({
      lambda: r.lambda,
      allocation: r.label,
      cost: r.cost,
      trainAcc: r.trainAcc,
      testAcc: r.testAcc,
      objective: r.trainAcc - r.lambda * r.cost,
    }));
    const ab = allocationCost(["A", "B"], p.prices);
    const cc = allocationCost(["C", "C"], p.prices);
    return {
      title: this.title,
      columns: [
        { key: "lambda", label: "λ", unit: "accuracy per price unit", format: "sig3" },
        { key: "allocation", label: "allocation (locate+solve)" },
        { key: "cost", label: "price per question", unit: "price units", format: "fixed1" },
        { key: "trainAcc", label: "train accuracy", format: "fixed2" },
        { key: "testAcc", label: "test accuracy", format: "fixed2" },
        { key: "objective", label: "train accuracy − λ × price", format: "fixed3" },
      ],
      rows,
      notes: [
        `Prices per call: ${Object.entries(p.prices).map(([k, v]) => `${k} ${v}`).join(", ")}. A+B costs ${ab} per question, C+C ${cc}: ${(ab / cc).toFixed(1)} times as much.`,
        "Each row: the allocation maximizing training accuracy − λ × price over all 25 (exhaustive). Larger λ buys cheaper, less accurate allocations.",
      ],
    };
  },
});

export const llmSelectorDemos = [llmSelectorCase, llmSelectorPools, llmSelectorNoisyDiagnoser, llmSelectorViolations, llmSelectorCost];
