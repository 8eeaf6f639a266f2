// What the §4–§5 algorithms on the page read (notebooks 04 and 05), as small objects a cell can call:
// - selectorTask: a compound system, its training set and a diagnoser — evaluate an allocation on the training set,
//   ask the diagnoser whether a module is to blame for a question — so that greedy and LLMSelector fit in a cell.
//   Its diagnoser is the one llmSelector() makes for the same q and seed, asked in the same order it draws the same
//   verdicts; the evaluator (and its caches) is shared between tasks of one world.
// - routingTask: the request → model world of 05.1 — every model's answer to a question (right or not) and the
//   scorer's trust in it at one scorer noise, and each model's price — so that the cascade fits in a cell.
import { checkProbability, ParameterError } from "../core/errors";
import { rng } from "../core/rng";
import { Diagnoser, VerdictMode } from "./diagnoser";
import { Evaluator, Split } from "./evaluate";
import { ModelRoutingWorld, modelRoutingWorld, trustScore } from "./model-routing";
import { locateSolve } from "./systems";
import { caseStudyWorld, selectorWorldData, skillIndex } from "./world";

export interface SelectorTaskOptions {
  /** the system and question sets; default: 04.1's case (locate–solve, models A–E) built from seed/train/test */
  evaluator?: Evaluator;
  /** world seed of the case (default 04.1's) */
  seed?: number | string;
  /** training / test questions of the case (default 100 / 200, as 04.1) */
  train?: number;
  test?: number;
  /** diagnoser accuracy q (default 1) */
  q?: number;
  /** seed of the diagnoser's verdicts (default 1, as llmSelector) */
  diagnoserSeed?: number | string;
  /** "fresh" (default) or "cached" verdicts, as llmSelector */
  verdicts?: VerdictMode;
}

/** A compound system on its training set, with a diagnoser: what greedy and LLMSelector may ask. */
export interface SelectorTask {
  /** model names (K of them; an allocation gives a model index per module) */
  readonly models: string[];
  /** module names in nomination order (L of them) */
  readonly modules: string[];
  /** training questions */
  readonly questions: number;
  /** the world seed */
  readonly seed: number | string;
  readonly evaluator: Evaluator;
  /** end-to-end accuracy of an allocation on the training set */
  accuracy(allocation: readonly number[]): number;
  /** the same on the test set (for reporting only: the optimizers never look at it) */
  testAccuracy(allocation: readonly number[]): number;
  /** the run of an allocation on the training set: correct[z] = 1 when question z is answered right */
  run(allocation: readonly number[]): { correct: ArrayLike<number>; accuracy: number };
  /** the diagnoser, reading the run of `allocation` on training question `question`: 1 when it does not blame
   * module `module` (always 1 for a right answer), 0 when it does */
  diagnose(allocation: readonly number[], module: number, question: number): number;
  /** "A+B" */
  label(allocation: readonly number[]): string;
  /** "C+C" or ["C", "C"] → model indices */
  allocation(input: string | readonly string[] | readonly number[]): number[];
}

const caseEvaluators = new Map<string, Evaluator>();

function caseEvaluator(seed: number | string, train: number, test: number): Evaluator {
  const key = JSON.stringify([seed, train, test]);
  let ev = caseEvaluators.get(key);
  if (!ev) {
    ev = new Evaluator(caseStudyWorld({ seed, train, test }), locateSolve());
    if (caseEvaluators.size > 20) caseEvaluators.clear();
    caseEvaluators.set(key, ev);
  }
  return ev;
}

/** The task greedy and LLMSelector work on (default: 04.1's case with a perfect diagnoser). */
export function selectorTask(options: SelectorTaskOptions = {}): SelectorTask {
  const data = selectorWorldData().caseStudy;
  const seed = options.seed ?? data.seed;
  const ev = options.evaluator ?? caseEvaluator(seed, options.train ?? 100, options.test ?? 200);
  const q = checkProbability("q", options.q ?? 1);
  const size = ev.world.train.size;
  const diagnoser = new Diagnoser(q, rng(options.diagnoserSeed ?? 1).fork("diagnoser"), ev.moduleCount, options.verdicts ?? "fresh", size);
  const checked = (a: readonly number[]) => ev.allocation(a);
  return {
    models: [...ev.world.names],
    modules: ev.system.modules.map((m) => m.name),
    questions: size,
    seed: options.evaluator ? ev.world.seed : seed,
    evaluator: ev,
    accuracy: (a) => ev.accuracy(checked(a), "train"),
    testAccuracy: (a) => ev.accuracy(checked(a), "test"),
    run: (a) => ev.run(checked(a), "train"),
    diagnose(a, module, question) {
      if (!Number.isInteger(module) || module < 0 || module >= ev.moduleCount) throw new ParameterError("module", `应为 0–${ev.moduleCount - 1} 的整数，实际是 ${module}`);
      if (!Number.isInteger(question) || question < 0 || question >= size) throw new ParameterError("question", `应为 0–${size - 1} 的整数，实际是 ${question}`);
      const allocation = checked(a);
      return diagnoser.judge(ev.run(allocation, "train").fault[question], module, allocation.join(","), question);
    },
    label: (a) => ev.label(a),
    allocation: (input) => ev.allocation(input),
  };
}

// ---- §5 request → model ----

export interface RoutingTaskOptions {
  /** world seed and question counts (default: data/model-routing.json's, as 05.1) */
  seed?: number | string;
  train?: number;
  test?: number;
  /** the scorer's noise σ (≥ 0; 0 = a perfect judge of correctness) */
  scorerNoise: number;
  /** the questions answered (default "test", as 05.1) */
  split?: Split;
}

/** One model's answer to one question, as the cascade sees it. */
export interface RoutedAnswer {
  correct: boolean;
  /** the scorer's trust in the answer, in (0, 1) */
  trust: number;
}

/** The request → model world of 05.1 at one scorer noise: what a cascade may ask. */
export interface RoutingTask {
  readonly models: string[];
  readonly questions: number;
  readonly scorerNoise: number;
  /** price of one call to `model` */
  price(model: string): number;
  /** `model`'s answer to question `question` and the scorer's trust in it */
  ask(model: string, question: number): RoutedAnswer;
}

const routingWorlds = new Map<string, ModelRoutingWorld>();

/** The task a cascade works on. */
export function routingTask(options: RoutingTaskOptions): RoutingTask {
  if (options === null || typeof options !== "object") throw new ParameterError("options", "应为对象 { scorerNoise, … }");
  const key = JSON.stringify([options.seed ?? null, options.train ?? null, options.test ?? null]);
  let rw = routingWorlds.get(key);
  if (!rw) {
    rw = modelRoutingWorld({ seed: options.seed, train: options.train, test: options.test });
    if (routingWorlds.size > 20) routingWorlds.clear();
    routingWorlds.set(key, rw);
  }
  const world = rw.world;
  const split = options.split ?? "test";
  if (split !== "train" && split !== "test") throw new ParameterError("split", `应为 "train" 或 "test"，实际是 ${JSON.stringify(split)}`);
  const noise = options.scorerNoise;
  if (typeof noise !== "number" || !Number.isFinite(noise) || noise < 0) throw new ParameterError("scorerNoise", `应为 ≥ 0 的有限数，实际是 ${String(noise)}`);
  const set = world[split];
  const eps = rw.signals[split].scorer;
  const answer = skillIndex("answer");
  const prices = rw.prices;
  const indexOf = (model: string) => {
    const k = world.names.indexOf(model);
    if (k < 0) throw new ParameterError("model", `没有模型 ${JSON.stringify(model)}；可选：${world.names.join("、")}`);
    return k;
  };
  return {
    models: [...world.names],
    questions: set.size,
    scorerNoise: noise,
    price: (model) => prices[world.names[indexOf(model)]],
    ask(model, question) {
      const k = indexOf(model);
      if (!Number.isInteger(question) || question < 0 || question >= set.size) throw new ParameterError("question", `应为 0–${set.size - 1} 的整数，实际是 ${question}`);
      const correct = set.success[k][answer][question] === 1;
      return { correct, trust: trustScore(correct, eps[k][question], noise) };
    },
  };
}
