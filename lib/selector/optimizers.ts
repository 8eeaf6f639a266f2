// §4.3 LLMSelector and its baselines. Every optimizer returns the allocation, its train / test accuracy and the
// number of allocations it evaluated (its budget, counted as in the lecture: K per round for the per-module methods).
import { checkInteger, checkNonEmpty, checkNumber, checkProbability, ParameterError } from "../core/errors";
import { rng } from "../core/rng";
import { allocationCount } from "./budget";
import { Diagnoser, VerdictMode } from "./diagnoser";
import type { AllocationInput, Evaluator, RunRecord } from "./evaluate";

export interface OptimizerResult {
  method: string;
  allocation: number[];
  /** e.g. "A+B" */
  label: string;
  trainAcc: number;
  testAcc: number;
  /** allocations evaluated on the training set (the budget) */
  evaluated: number;
  /** per-module methods: the allocation history, starting allocation first, one entry per round */
  path: number[][];
  rounds: number;
  /** per-module methods: stopped by the L + 1 rule (false when the budget ran out) */
  converged: boolean;
  /** deterministic per-module runs (cached verdicts, released greedy): the run came back to an earlier state and
   * cycles until the budget runs out (`path` then holds the rounds up to the detection, not all of them) */
  cycled?: boolean;
}

/** An OptimizerResult for `allocation` (its train / test accuracy looked up); shared with cost.ts. */
export function result(ev: Evaluator, method: string, allocation: number[], evaluated: number, path: number[][], rounds: number, converged: boolean): OptimizerResult {
  return {
    method,
    allocation: [...allocation],
    label: ev.label(allocation),
    trainAcc: ev.accuracy(allocation, "train"),
    testAcc: ev.accuracy(allocation, "test"),
    evaluated,
    path: path.map((a) => [...a]),
    rounds,
    converged,
  };
}

/** True when the last `count` entries of `history` are identical allocations. */
export function lastIdentical(history: readonly (readonly number[])[], count: number): boolean {
  if (history.length < count) return false;
  const last = history[history.length - 1].join(",");
  for (let i = history.length - count; i < history.length - 1; i++) if (history[i].join(",") !== last) return false;
  return true;
}

export interface TieAggregation {
  /** the chosen candidate */
  choice: number;
  /** candidate → number of questions on which it is tied-best, in insertion order */
  counts: Map<number, number>;
}

/** LLMSelector's aggregation (the authors' code): per question keep every candidate tied at the maximum score;
 * choose the candidate that is tied-best on the most questions; equal counts go to the first inserted (questions
 * in order, candidates in model order within a question). `scores[question][candidate]`. */
export function aggregateTiedBest(scores: ReadonlyArray<ArrayLike<number>>): TieAggregation {
  checkNonEmpty("scores", scores as unknown[]);
  // counts in a typed array and the candidates in the order they were first tied-best (a Map per call was a fifth of
  // 04.3's time); the Map returned is built from those at the end
  let width = 0;
  for (const row of scores) width = Math.max(width, row.length);
  const tally = new Int32Array(width);
  const order: number[] = [];
  for (const row of scores) {
    let max = -Infinity;
    for (let k = 0; k < row.length; k++) if (row[k] > max) max = row[k];
    for (let k = 0; k < row.length; k++) {
      if (row[k] === max && tally[k]++ === 0) order.push(k);
    }
  }
  let choice = -1;
  let best = -1;
  const counts = new Map<number, number>();
  for (const k of order) {
    counts.set(k, tally[k]);
    if (tally[k] > best) {
      best = tally[k];
      choice = k;
    }
  }
  return { choice, counts };
}

function startAllocation(ev: Evaluator, start: AllocationInput | undefined, seed: number | string): number[] {
  if (start !== undefined) return ev.allocation(start);
  const r = rng(seed).fork("start");
  return Array.from({ length: ev.moduleCount }, () => r.int(ev.modelCount));
}

function withModel(allocation: readonly number[], module: number, model: number): number[] {
  const a = [...allocation];
  a[module] = model;
  return a;
}

export interface LlmSelectorOptions {
  /** starting allocation; default a random one drawn from `seed` */
  start?: AllocationInput;
  /** diagnoser accuracy q ∈ [0, 1] */
  q?: number;
  /** weight of end-to-end correctness in the module score (any γ > 0 ranks the same way; 0 drops it) */
  gamma?: number;
  /** "fresh": a new diagnoser call every time (default); "cached": one verdict per (allocation, question, module),
   * as behind the authors' response cache */
  verdicts?: VerdictMode;
  seed?: number | string;
  /** stop (unconverged) before a round that would exceed this many evaluated allocations (counted K per round) */
  maxBudget?: number;
  /** cached verdicts: recognise a run that cycles and report what running to the budget gives (default true;
   * false runs every round, which tests use to check the shortcut) */
  detectCycles?: boolean;
}

/** Module scores of one round: scores[question][candidate]. */
type RoundScorer = (runs: RunRecord[], candidates: number[][], module: number, scores: Float64Array[]) => void;

/** The loop shared by LLMSelector and the released α = 0 optimizer: nominate modules in turn (round r → module
 * r mod L); try every model for it on the training set; score each (question, candidate); move to the candidate
 * tied-best on the most questions (aggregateTiedBest); stop when the last L + 1 allocations (the start included)
 * are identical, or before a round that would exceed the budget.
 * `deterministic`: the next allocation is a function of (allocation, nominated module) — cached verdicts, or no
 * diagnoser at all. Such a run that comes back to a state it has been in repeats itself forever; once a whole
 * period plus L rounds pass without convergence it is known to cycle until the budget runs out, and the result is
 * what running to the budget would give (same allocation count and final allocation), without the wasted rounds. */
function perModuleSearch(ev: Evaluator, method: string, start: number[], maxBudget: number, score: RoundScorer, deterministic: boolean): OptimizerResult {
  const K = ev.modelCount;
  const L = ev.moduleCount;
  let current = start;
  const history: number[][] = [current];
  let evaluated = 0;
  let rounds = 0;
  const size = ev.world.train.size;
  const scores: Float64Array[] = Array.from({ length: size }, () => new Float64Array(K));
  const seen = new Map<string, number>();
  let repeat: { first: number; period: number } | null = null;
  while (!lastIdentical(history, L + 1)) {
    if (evaluated + K > maxBudget) return result(ev, method, current, evaluated, history, rounds, false);
    const module = rounds % L;
    if (deterministic) {
      const state = `${current.join(",")}#${module}`;
      const first = seen.get(state);
      if (first === undefined) seen.set(state, rounds);
      else if (repeat === null) repeat = { first, period: rounds - first };
      if (repeat !== null && rounds >= repeat.first + repeat.period + L) {
        // every window of L + 1 allocations of the period has been checked: the run cycles until the budget runs out
        const budgetRounds = Math.floor(maxBudget / K);
        const final = history[repeat.first + ((budgetRounds - repeat.first) % repeat.period)];
        return { ...result(ev, method, final, budgetRounds * K, history, budgetRounds, false), cycled: true };
      }
    }
    const candidates = Array.from({ length: K }, (_, k) => withModel(current, module, k));
    const runs = candidates.map((a) => ev.run(a, "train"));
    score(runs, candidates, module, scores);
    current = candidates[aggregateTiedBest(scores).choice];
    history.push(current);
    evaluated += K;
    rounds++;
  }
  return result(ev, method, current, evaluated, history, rounds, true);
}

/** LLMSelector (paper Alg. 1 with the authors' tie rule): per question, module score = diagnoser judgment + γ ×
 * end-to-end correct (a correct run scores 1 + γ, a wrong one 1 if the diagnoser does not blame the module, else 0);
 * keep the tied-best models per question and take the one tied-best on the most questions. Each round evaluates K
 * allocations (the lecture's count; the released code counts K − 1, see budget.ts). */
export function llmSelector(ev: Evaluator, options: LlmSelectorOptions = {}): OptimizerResult {
  const q = checkProbability("q", options.q ?? 1);
  const gamma = checkNumber("gamma", options.gamma ?? 0.5, { min: 0 });
  const seed = options.seed ?? 1;
  const maxBudget = checkInteger("maxBudget", options.maxBudget ?? 5000, { min: 0 });
  const diagnoser = new Diagnoser(q, rng(seed).fork("diagnoser"), ev.moduleCount, options.verdicts ?? "fresh", ev.world.train.size);
  const size = ev.world.train.size;
  return perModuleSearch(ev, "llmSelector", startAllocation(ev, options.start, seed), maxBudget, (runs, candidates, module, scores) => {
    // cached verdicts: each candidate's prompt looked up once a round, on its first wrong answer (so a candidate that
    // is never wrong asks nothing, as with judge())
    const cached = diagnoser.mode === "cached";
    const prompts: Array<Int8Array | null> = candidates.map(() => null);
    // questions outer, candidates inner: the order in which a fresh diagnoser draws its verdicts
    for (let z = 0; z < size; z++) {
      for (let k = 0; k < runs.length; k++) {
        const run = runs[k];
        if (run.correct[z]) {
          scores[z][k] = 1 + gamma;
          continue;
        }
        if (cached && prompts[k] === null) prompts[k] = diagnoser.prompt(candidates[k].join(","), module);
        scores[z][k] = diagnoser.judgeIn(prompts[k], run.fault[z], module, z);
      }
    }
  }, diagnoser.mode === "cached" && options.detectCycles !== false);
}

export interface ReleasedGreedyOptions {
  start?: AllocationInput;
  seed?: number | string;
  maxBudget?: number;
  /** as in LlmSelectorOptions (the released greedy is deterministic) */
  detectCycles?: boolean;
}

/** The authors' OptimizerLLMDiagnoser with its released defaults (α = 0, β = 1: no diagnoser): the same loop as
 * LLMSelector with the module score = end-to-end correctness alone. Per question the tied-best candidates are the
 * correct ones (all of them when none is correct), so the most-often tied-best candidate is the most accurate one —
 * coordinate ascent on training accuracy that, on equal accuracy, MOVES to the candidate inserted first (questions in
 * order, models in order), even away from the current model. */
export function releasedGreedy(ev: Evaluator, options: ReleasedGreedyOptions = {}): OptimizerResult {
  const seed = options.seed ?? 1;
  const maxBudget = checkInteger("maxBudget", options.maxBudget ?? 5000, { min: 0 });
  const size = ev.world.train.size;
  return perModuleSearch(ev, "releasedGreedy", startAllocation(ev, options.start, seed), maxBudget, (runs, _candidates, _module, scores) => {
    for (let z = 0; z < size; z++) for (let k = 0; k < runs.length; k++) scores[z][k] = runs[k].correct[z];
  }, options.detectCycles !== false);
}

export interface GreedyOptions {
  start?: AllocationInput;
  seed?: number | string;
  maxBudget?: number;
}

/** Coordinate ascent on end-to-end training accuracy, same nomination order and stopping rule as LLMSelector:
 * the nominated module switches only to a strictly better model (the best one; equal ones to the first). */
export function greedy(ev: Evaluator, options: GreedyOptions = {}): OptimizerResult {
  const seed = options.seed ?? 1;
  const maxBudget = checkInteger("maxBudget", options.maxBudget ?? 5000, { min: 0 });
  const K = ev.modelCount;
  const L = ev.moduleCount;
  let current = startAllocation(ev, options.start, seed);
  const history: number[][] = [current];
  let evaluated = 0;
  let rounds = 0;
  while (!lastIdentical(history, L + 1)) {
    if (evaluated + K > maxBudget) return result(ev, "greedy", current, evaluated, history, rounds, false);
    const module = rounds % L;
    let bestAcc = ev.accuracy(current, "train");
    let bestModel = current[module];
    for (let k = 0; k < K; k++) {
      const acc = ev.accuracy(withModel(current, module, k), "train");
      if (acc > bestAcc) {
        bestAcc = acc;
        bestModel = k;
      }
    }
    current = withModel(current, module, bestModel);
    history.push(current);
    evaluated += K;
    rounds++;
  }
  return result(ev, "greedy", current, evaluated, history, rounds, true);
}

/** The allocation with lexicographic index `index` (K models, L modules); shared with cost.ts. */
export function decode(index: number, K: number, L: number): number[] {
  const a = new Array<number>(L);
  for (let j = L - 1; j >= 0; j--) {
    a[j] = index % K;
    index = Math.floor(index / K);
  }
  return a;
}

/** Every allocation (K^L), the best on the training set (ties: the first in lexicographic order). */
export function exhaustive(ev: Evaluator, options: { limit?: number } = {}): OptimizerResult {
  const total = allocationCount(ev.modelCount, ev.moduleCount);
  const limit = checkInteger("limit", options.limit ?? 1_000_000, { min: 1 });
  if (total > limit) throw new ParameterError("limit", `穷举 ${total} 个分配超过了上限 ${limit}`);
  let best: number[] = decode(0, ev.modelCount, ev.moduleCount);
  let bestAcc = -1;
  const symmetry = ev.system.symmetry;
  for (let i = 0; i < total; i++) {
    const a = decode(i, ev.modelCount, ev.moduleCount);
    // the first allocation of a class of equivalent ones comes first in this order: skipping the rest keeps the ties
    if (symmetry && !symmetry.canonical(a)) continue;
    const acc = ev.accuracy(a, "train");
    if (acc > bestAcc) {
      bestAcc = acc;
      best = a;
    }
  }
  return result(ev, "exhaustive", best, total, [best], 0, true);
}

/** The best allocation on the training set among those satisfying `keep` (e.g. "critic = generator"), or null. */
export function exhaustiveWhere(ev: Evaluator, keep: (allocation: readonly number[]) => boolean, method = "constrained"): OptimizerResult | null {
  const total = allocationCount(ev.modelCount, ev.moduleCount);
  if (total > 1_000_000) throw new ParameterError("system", `${total} 个分配太多，不能穷举`);
  let best: number[] | null = null;
  let bestAcc = -1;
  let evaluated = 0;
  for (let i = 0; i < total; i++) {
    const a = decode(i, ev.modelCount, ev.moduleCount);
    if (!keep(a)) continue;
    evaluated++;
    const acc = ev.accuracy(a, "train");
    if (acc > bestAcc) {
      bestAcc = acc;
      best = a;
    }
  }
  return best ? result(ev, method, best, evaluated, [best], 0, true) : null;
}

/** `budget` distinct allocations drawn uniformly at random; the best on the training set (ties: drawn first). */
export function randomSearch(ev: Evaluator, options: { budget: number; seed?: number | string }): OptimizerResult {
  const budget = checkInteger("budget", options.budget, { min: 1 });
  const total = allocationCount(ev.modelCount, ev.moduleCount);
  const r = rng(options.seed ?? 1).fork("randomSearch");
  const draws = Math.min(budget, total);
  const seen = new Set<number>();
  let best: number[] = [];
  let bestAcc = -1;
  while (seen.size < draws) {
    const i = budget >= total ? seen.size : r.int(total);
    if (seen.has(i)) continue;
    seen.add(i);
    const a = decode(i, ev.modelCount, ev.moduleCount);
    const acc = ev.accuracy(a, "train");
    if (acc > bestAcc) {
      bestAcc = acc;
      best = a;
    }
  }
  return result(ev, "randomSearch", best, draws, [best], 0, true);
}

/** The best of the K allocations that use one model everywhere. */
export function bestSingleModel(ev: Evaluator): OptimizerResult {
  let best: number[] = [];
  let bestAcc = -1;
  for (let k = 0; k < ev.modelCount; k++) {
    const a = new Array<number>(ev.moduleCount).fill(k);
    const acc = ev.accuracy(a, "train");
    if (acc > bestAcc) {
      bestAcc = acc;
      best = a;
    }
  }
  return result(ev, "bestSingle", best, ev.modelCount, [best], 0, true);
}

// ---- baselines over the whole allocation space (§4.5: what a random allocation would score) ----

/** One pass over all K^L allocations on the training set: the exhaustive optimum, the best allocation satisfying
 * each of `where` (null when none does), the mean accuracy (= the expected training accuracy of a uniformly random
 * allocation) and the share of allocations satisfying each of `share` (= the chance a random allocation has it).
 * Ties: the first allocation in lexicographic order, as exhaustive(). */
export function surveyAllocations(
  ev: Evaluator,
  options: { where?: ReadonlyArray<(a: readonly number[]) => boolean>; share?: ReadonlyArray<(a: readonly number[]) => boolean> } = {},
): { optimum: OptimizerResult; bestWhere: Array<OptimizerResult | null>; meanAccuracy: number; shares: number[] } {
  const total = allocationCount(ev.modelCount, ev.moduleCount);
  if (total > 1_000_000) throw new ParameterError("system", `${total} 个分配太多，不能逐个枚举`);
  const where = options.where ?? [];
  const shareOf = options.share ?? [];
  let best: number[] = decode(0, ev.modelCount, ev.moduleCount);
  let bestAcc = -1;
  const bestW: Array<number[] | null> = where.map(() => null);
  const bestWAcc = where.map(() => -1);
  const counts = shareOf.map(() => 0);
  let sum = 0;
  const symmetry = ev.system.symmetry;
  for (let i = 0; i < total; i++) {
    const a = decode(i, ev.modelCount, ev.moduleCount);
    // equivalent allocations (permuted interchangeable roles) count once with their class size; the predicates
    // must not tell them apart (those of §4.5 — "three identical generators", "generators mixed" — do not)
    if (symmetry && !symmetry.canonical(a)) continue;
    const weight = symmetry ? symmetry.multiplicity(a) : 1;
    const acc = ev.accuracy(a, "train");
    sum += acc * weight;
    if (acc > bestAcc) {
      bestAcc = acc;
      best = a;
    }
    for (let w = 0; w < where.length; w++) {
      if (acc > bestWAcc[w] && where[w](a)) {
        bestWAcc[w] = acc;
        bestW[w] = a;
      }
    }
    for (let w = 0; w < shareOf.length; w++) if (shareOf[w](a)) counts[w] += weight;
  }
  return {
    optimum: result(ev, "exhaustive", best, total, [best], 0, true),
    bestWhere: bestW.map((a) => (a ? result(ev, "constrained", a, total, [a], 0, true) : null)),
    meanAccuracy: sum / total,
    shares: counts.map((c) => c / total),
  };
}
