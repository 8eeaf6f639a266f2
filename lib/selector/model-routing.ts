// §5–§6 request → model routing in the §4 toy world (代码 05): each request is one question answered by one model
// call, so a routing decision only picks which model(s) to call. A FrugalGPT-style cascade (try models from cheap to
// expensive, stop at the first answer a scorer trusts, pay for every call) and a RouteLLM-like two-model router (a
// noisy estimate of the question's difficulty; strong model above a threshold, else the weak one), compared with
// each model alone on accuracy and price per question. Parameters: data/model-routing.json (all assumed).
import { checkNonEmpty, checkNumber, checkProbability, ParameterError } from "../core/errors";
import { readDataJson } from "../core/data";
import { rng } from "../core/rng";
import type { Split } from "./evaluate";
import { buildWorld, caseStudyPrices, normalCdf, SelectorModel, skillIndex, successProbability, World } from "./world";

/** The one skill a routed request needs (a single call answers the question). */
export const ROUTING_SKILL = "answer" as const;
const ANSWER = skillIndex(ROUTING_SKILL);

export interface ModelRoutingData {
  seed: number;
  train: number;
  test: number;
  difficultySpread: number;
  noiseScale: number;
  models: SelectorModel[];
  /** defaults of demos 05.1–05.2 */
  cascade: { models: string[]; scorerNoises: number[] };
  router: { weak: string; strong: string; routerNoises: number[] };
}

let routingData: ModelRoutingData | undefined;

/** The parameters in data/model-routing.json. */
export function modelRoutingData(): ModelRoutingData {
  if (!routingData) routingData = readDataJson<ModelRoutingData>("model-routing.json");
  return routingData;
}

/** Standard normal draws behind the noisy signals, fixed per world so that every threshold and noise level sees the
 * same draws (common random numbers: curves are smooth, comparisons are paired). */
export interface RoutingSignals {
  /** scorer[model][question]: the scorer's error on that model's answer */
  scorer: Float64Array[];
  /** router[question]: the router's error on the question's difficulty */
  router: Float64Array;
}

export interface ModelRoutingWorld {
  world: World;
  /** price per call of every model */
  prices: Record<string, number>;
  signals: Record<Split, RoutingSignals>;
}

export interface ModelRoutingWorldOptions {
  seed?: number | string;
  train?: number;
  test?: number;
  /** default: the ladder A–E of data/model-routing.json */
  models?: SelectorModel[];
  /** price per call; default: the case study's (exercise 7: A 5, B 3, C 1, D 0.5, E 0.2) */
  prices?: Record<string, number>;
  difficultySpread?: number;
  noiseScale?: number;
}

/** Builds the routing world: questions, every model's outcome on them, and the signal noise draws. */
export function modelRoutingWorld(options: ModelRoutingWorldOptions = {}): ModelRoutingWorld {
  const d = modelRoutingData();
  const seed = options.seed ?? d.seed;
  const world = buildWorld({
    models: options.models ?? d.models,
    train: options.train ?? d.train,
    test: options.test ?? d.test,
    seed,
    difficultySpread: options.difficultySpread ?? d.difficultySpread,
    noiseScale: options.noiseScale ?? d.noiseScale,
  });
  const given = options.prices ?? caseStudyPrices();
  if (typeof given !== "object" || given === null || Array.isArray(given)) throw new ParameterError("prices", "应为对象 { 模型: 每次调用的价格 }");
  const prices: Record<string, number> = {};
  for (const name of world.names) {
    if (!Object.prototype.hasOwnProperty.call(given, name)) throw new ParameterError("prices", `没有模型 ${JSON.stringify(name)} 的价格；有价格的模型：${Object.keys(given).join("、")}`);
    prices[name] = checkNumber(`prices.${name}`, given[name], { min: 0 });
  }
  const base = rng(seed).fork("model-routing");
  const draw = (split: Split): RoutingSignals => {
    const size = world[split].size;
    const normals = (name: string) => {
      const r = base.fork(`${split}/${name}`);
      const out = new Float64Array(size);
      for (let z = 0; z < size; z++) out[z] = r.normal();
      return out;
    };
    // streams named by model, so adding a model leaves the others' scores unchanged
    return { scorer: world.names.map((name) => normals(`scorer/${name}`)), router: normals("router") };
  };
  return { world, prices, signals: { train: draw("train"), test: draw("test") } };
}

// ---- the two signals ----

/** The cascade's trust score of an answer, in (0, 1): Φ(±1 + noise · ε), +1 when the answer is right, −1 when
 * wrong. noise 0 = a perfect judge (right answers 0.84, wrong 0.16); larger noise blurs the two (AUC = Φ(√2 / noise)). */
export function trustScore(correct: boolean, epsilon: number, scorerNoise: number): number {
  return normalCdf((correct ? 1 : -1) + scorerNoise * epsilon);
}

/** Probability that the scorer ranks a random right answer above a random wrong one (the ROC AUC). */
export function scorerAuc(scorerNoise: number): number {
  checkNumber("scorerNoise", scorerNoise, { min: 0 });
  return scorerNoise === 0 ? 1 : normalCdf(Math.SQRT2 / scorerNoise);
}

/** The router's difficulty signal, in (0, 1): the estimated difficulty (true + noise · ε) as a percentile of all
 * questions' estimates, Φ(estimate / √(spread² + noise²)) — uniform whatever the noise, so a threshold τ sends
 * about a share τ of questions to the weak model. */
export function routerSignal(difficulty: number, epsilon: number, routerNoise: number, difficultySpread: number): number {
  const sd = Math.sqrt(difficultySpread ** 2 + routerNoise ** 2);
  const estimate = difficulty + routerNoise * epsilon;
  return sd === 0 ? 0.5 : normalCdf(estimate / sd);
}

/** Correlation between the router's estimate and the true difficulty: spread / √(spread² + noise²). */
export function routerCorrelation(routerNoise: number, difficultySpread: number): number {
  checkNumber("routerNoise", routerNoise, { min: 0 });
  const sd = Math.sqrt(difficultySpread ** 2 + routerNoise ** 2);
  return sd === 0 ? 0 : difficultySpread / sd;
}

/** τ = 0 passes every score, τ = 1 none; in between, score ≥ τ. */
function passes(score: number, threshold: number): boolean {
  return threshold < 1 && score >= threshold;
}

// ---- results ----

export interface RoutingResult {
  method: "single" | "cascade" | "router";
  /** "A", "E→C→A" (cascade order), "C/A" (weak/strong) */
  setting: string;
  /** τ ∈ [0, 1]; null for a single model */
  threshold: number | null;
  /** scorer noise (cascade) or router noise (router); null for a single model */
  signalNoise: number | null;
  split: Split;
  questions: number;
  /** share of questions answered right */
  accuracy: number;
  /** price units per question: every call made is paid */
  costPerQuestion: number;
  /** model calls per question */
  callsPerQuestion: number;
  /** share of questions whose final answer came from each model (sums to 1) */
  answeredBy: Record<string, number>;
  /** cascade: per question, the model whose answer was kept (its index in the world) */
  keptModel?: Int32Array;
}

function modelIndex(rw: ModelRoutingWorld, name: string, parameter: string): number {
  const k = typeof name === "string" ? rw.world.names.indexOf(name) : -1;
  if (k < 0) throw new ParameterError(parameter, `没有模型 ${JSON.stringify(name)}；可选：${rw.world.names.join("、")}`);
  return k;
}

function checkSplit(split: unknown): Split {
  if (split !== "train" && split !== "test") throw new ParameterError("split", `应为 "train" 或 "test"，实际是 ${JSON.stringify(split)}`);
  return split;
}

function shares(rw: ModelRoutingWorld, counts: Float64Array, questions: number): Record<string, number> {
  const out: Record<string, number> = {};
  rw.world.names.forEach((name, k) => (out[name] = counts[k] / questions));
  return out;
}

/** One model answers every question. */
export function singleModel(rw: ModelRoutingWorld, model: string, split: Split = "test"): RoutingResult {
  const k = modelIndex(rw, model, "model");
  const set = rw.world[checkSplit(split)];
  const ok = set.success[k][ANSWER];
  let right = 0;
  for (let z = 0; z < set.size; z++) right += ok[z];
  const counts = new Float64Array(rw.world.names.length);
  counts[k] = set.size;
  return {
    method: "single",
    setting: model,
    threshold: null,
    signalNoise: null,
    split,
    questions: set.size,
    accuracy: right / set.size,
    costPerQuestion: rw.prices[model],
    callsPerQuestion: 1,
    answeredBy: shares(rw, counts, set.size),
  };
}

export interface CascadeOptions {
  /** models in the order tried (FrugalGPT: cheap to expensive); distinct, at least one */
  models: readonly string[];
  /** trust threshold τ ∈ [0, 1]: 0 = always keep the first answer, 1 = always go on to the last model */
  threshold: number;
  /** standard deviation of the scorer's error (≥ 0; 0 = a perfect judge of correctness) */
  scorerNoise: number;
  split?: Split;
}

/** FrugalGPT-style cascade: call the models in order, stop at the first answer whose trust score ≥ τ (the last
 * model's answer is kept whatever its score); every call made is paid. */
export function cascade(rw: ModelRoutingWorld, options: CascadeOptions): RoutingResult {
  const names = checkNonEmpty("models", options.models as string[]);
  const order = names.map((name, i) => modelIndex(rw, name, `models[${i}]`));
  if (new Set(order).size !== order.length) throw new ParameterError("models", `不能重复（同一个模型两次给出同一个答案），实际是 ${names.join("、")}`);
  const threshold = checkProbability("threshold", options.threshold);
  const noise = checkNumber("scorerNoise", options.scorerNoise, { min: 0 });
  const split = checkSplit(options.split ?? "test");
  const set = rw.world[split];
  const eps = rw.signals[split].scorer;
  const price = order.map((k) => rw.prices[rw.world.names[k]]);
  const counts = new Float64Array(rw.world.names.length);
  const kept = new Int32Array(set.size);
  let right = 0;
  let cost = 0;
  let calls = 0;
  const last = order.length - 1;
  for (let z = 0; z < set.size; z++) {
    for (let i = 0; i <= last; i++) {
      const k = order[i];
      const correct = set.success[k][ANSWER][z] === 1;
      cost += price[i];
      calls++;
      if (i === last || passes(trustScore(correct, eps[k][z], noise), threshold)) {
        if (correct) right++;
        counts[k]++;
        kept[z] = k;
        break;
      }
    }
  }
  return {
    method: "cascade",
    setting: names.join("→"),
    threshold,
    signalNoise: noise,
    split,
    questions: set.size,
    accuracy: right / set.size,
    costPerQuestion: cost / set.size,
    callsPerQuestion: calls / set.size,
    answeredBy: shares(rw, counts, set.size),
    keptModel: kept,
  };
}

export interface DifficultyRouterOptions {
  weak: string;
  strong: string;
  /** τ ∈ [0, 1]: a question goes to the strong model when its difficulty signal ≥ τ (0 = all strong, 1 = all weak) */
  threshold: number;
  /** standard deviation of the router's error on a question's difficulty (≥ 0, same units as the difficulty) */
  routerNoise: number;
  split?: Split;
}

/** RouteLLM-like router: one call per question, to the strong model when the estimated difficulty percentile ≥ τ. */
export function difficultyRouter(rw: ModelRoutingWorld, options: DifficultyRouterOptions): RoutingResult {
  const weak = modelIndex(rw, options.weak, "weak");
  const strong = modelIndex(rw, options.strong, "strong");
  if (weak === strong) throw new ParameterError("strong", `应与 weak 不同（两者都是 ${JSON.stringify(options.weak)}）`);
  const threshold = checkProbability("threshold", options.threshold);
  const noise = checkNumber("routerNoise", options.routerNoise, { min: 0 });
  const split = checkSplit(options.split ?? "test");
  const set = rw.world[split];
  const eps = rw.signals[split].router;
  const okWeak = set.success[weak][ANSWER];
  const okStrong = set.success[strong][ANSWER];
  let right = 0;
  let toStrong = 0;
  for (let z = 0; z < set.size; z++) {
    if (passes(routerSignal(set.difficulty[z], eps[z], noise, rw.world.difficultySpread), threshold)) {
      toStrong++;
      right += okStrong[z];
    } else right += okWeak[z];
  }
  const counts = new Float64Array(rw.world.names.length);
  counts[strong] = toStrong;
  counts[weak] = set.size - toStrong;
  const n = set.size;
  return {
    method: "router",
    setting: `${options.weak}/${options.strong}`,
    threshold,
    signalNoise: noise,
    split,
    questions: n,
    accuracy: right / n,
    costPerQuestion: (toStrong * rw.prices[options.strong] + (n - toStrong) * rw.prices[options.weak]) / n,
    callsPerQuestion: 1,
    answeredBy: shares(rw, counts, n),
  };
}

// ---- curves ----

/** The default threshold sweep: 0, 0.05, …, 1. */
export const ROUTING_THRESHOLDS: readonly number[] = Array.from({ length: 21 }, (_, i) => i / 20);

function checkThresholds(thresholds: readonly number[]): number[] {
  return checkNonEmpty("thresholds", thresholds as number[]).map((t, i) => checkProbability(`thresholds[${i}]`, t));
}

/** The cascade at every threshold of the sweep (same draws throughout). */
export function cascadeCurve(rw: ModelRoutingWorld, options: Omit<CascadeOptions, "threshold"> & { thresholds?: readonly number[] }): RoutingResult[] {
  return checkThresholds(options.thresholds ?? ROUTING_THRESHOLDS).map((threshold) => cascade(rw, { ...options, threshold }));
}

/** The router at every threshold of the sweep (same draws throughout). */
export function routerCurve(rw: ModelRoutingWorld, options: Omit<DifficultyRouterOptions, "threshold"> & { thresholds?: readonly number[] }): RoutingResult[] {
  return checkThresholds(options.thresholds ?? ROUTING_THRESHOLDS).map((threshold) => difficultyRouter(rw, { ...options, threshold }));
}

/** Every model alone. */
export function singleModels(rw: ModelRoutingWorld, split: Split = "test"): RoutingResult[] {
  return rw.world.names.map((name) => singleModel(rw, name, split));
}

/** The cheapest result whose accuracy is at least `accuracy` (null when none reaches it). */
export function cheapestReaching(results: readonly RoutingResult[], accuracy: number): RoutingResult | null {
  checkProbability("accuracy", accuracy);
  let best: RoutingResult | null = null;
  for (const r of results) if (r.accuracy >= accuracy && (best === null || r.costPerQuestion < best.costPerQuestion)) best = r;
  return best;
}

/** The expected accuracy of a model alone (from its ability; the simulated value varies around it). */
export function expectedAccuracy(rw: ModelRoutingWorld, model: string): number {
  const k = modelIndex(rw, model, "model");
  return successProbability(rw.world, rw.world.models[k], ROUTING_SKILL);
}
