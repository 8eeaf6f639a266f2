// 代码 05: request → model routing in the §4 toy world (§5, §6 "模型路由与级联"): a FrugalGPT-style cascade and a
// RouteLLM-like two-model router against every model alone, on accuracy and price per question (exercise 7 prices).
import { checkInteger, checkNonEmpty, checkNumber } from "../core/errors";
import type { Row } from "../core/table";
import {
  cascadeCurve,
  cheapestReaching,
  modelRoutingData,
  modelRoutingWorld,
  ModelRoutingWorld,
  routerCorrelation,
  routerCurve,
  RoutingResult,
  ROUTING_THRESHOLDS,
  scorerAuc,
  singleModels,
} from "../selector/model-routing";
import { defineDemo } from "./registry";

const routingDefaults = () => {
  const d = modelRoutingData();
  return { seed: d.seed, train: d.train, test: d.test, cascade: [...d.cascade.models], weak: d.router.weak, strong: d.router.strong };
};

/** The most accurate model alone (ties: the cheaper one). */
function strongestOf(singles: RoutingResult[]): RoutingResult {
  return singles.reduce((best, r) => (r.accuracy > best.accuracy || (r.accuracy === best.accuracy && r.costPerQuestion < best.costPerQuestion) ? r : best));
}

function checkNoises(name: string, values: unknown): number[] {
  return checkNonEmpty(name, values as number[]).map((x, i) => checkNumber(`${name}[${i}]`, x, { min: 0 }));
}

function world(p: { seed: number | string; train: number; test: number }): ModelRoutingWorld {
  checkInteger("train", p.train, { min: 10 });
  checkInteger("test", p.test, { min: 10 });
  return modelRoutingWorld({ seed: p.seed, train: p.train, test: p.test });
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

/** "cascade E→C→A, scorer noise 0.5" — one curve of the chart. */
export function routingCurveLabel(r: Pick<RoutingResult, "method" | "setting" | "signalNoise">): string {
  if (r.method === "single") return "single models";
  return `${r.method} ${r.setting}, ${r.method === "cascade" ? "scorer" : "router"} noise ${r.signalNoise}`;
}

// ---------------------------------------------------------------------------------------------------------------

export const cascadeVsRouter = defineDemo({
  id: "05.1",
  section: "§5–§6",
  title: "Request → model: cascade vs router vs single models (accuracy and price per question)",
  defaults: {
    ...routingDefaults(),
    scorerNoises: [...modelRoutingData().cascade.scorerNoises],
    routerNoises: [...modelRoutingData().router.routerNoises],
    thresholds: [...ROUTING_THRESHOLDS],
  },
  describe: {
    seed: "world seed (questions, outcomes, signal draws)",
    train: "training questions (unused here; 05.2 picks thresholds on them)",
    test: "test questions: every row is measured on them",
    cascade: "models the cascade tries, in order (FrugalGPT: cheap to expensive)",
    weak: "the router's weak (cheap) model",
    strong: "the router's strong (expensive) model",
    scorerNoises: "cascade scorer noise levels (0 = a perfect judge of each answer)",
    routerNoises: "router noise levels on the difficulty estimate (0 = exact difficulty)",
    thresholds: "thresholds τ ∈ [0, 1] swept for both (cascade: trust when score ≥ τ; router: strong when signal ≥ τ)",
  },
  run(p, { progress }) {
    const rw = world(p);
    const scorerNoises = checkNoises("scorerNoises", p.scorerNoises);
    const routerNoises = checkNoises("routerNoises", p.routerNoises);
    const singles = singleModels(rw, "test");
    const strongest = strongestOf(singles);
    const results: RoutingResult[] = [...singles].sort((a, b) => a.costPerQuestion - b.costPerQuestion);
    for (const noise of scorerNoises) {
      progress?.(`05.1: cascade, scorer noise ${noise}`);
      results.push(...cascadeCurve(rw, { models: p.cascade, scorerNoise: noise, thresholds: p.thresholds, split: "test" }));
    }
    for (const noise of routerNoises) {
      progress?.(`05.1: router, router noise ${noise}`);
      results.push(...routerCurve(rw, { weak: p.weak, strong: p.strong, routerNoise: noise, thresholds: p.thresholds, split: "test" }));
    }
    const rows: Row[] = results.map((r) => ({
      curve: routingCurveLabel(r),
      method: r.method,
      setting: r.setting,
      signalNoise: r.signalNoise,
      threshold: r.threshold,
      accuracy: r.accuracy,
      costPerQuestion: r.costPerQuestion,
      costShare: r.costPerQuestion / strongest.costPerQuestion,
      callsPerQuestion: r.callsPerQuestion,
      strongestShare: r.answeredBy[strongest.setting],
    }));
    // within one point of the strongest model alone, on the test questions themselves (05.2 picks on train)
    const target = Math.max(0, strongest.accuracy - 0.01);
    const reach: string[] = [];
    for (const curve of [...new Set(rows.map((r) => r.curve as string))].filter((c) => c !== "single models")) {
      const best = cheapestReaching(results.filter((r) => routingCurveLabel(r) === curve), target);
      reach.push(best ? `${curve}: τ = ${best.threshold}, ${pct(best.costPerQuestion / strongest.costPerQuestion)} of ${strongest.setting}'s price` : `${curve}: never`);
    }
    return {
      title: this.title,
      columns: [
        { key: "curve", label: "curve", format: "text" },
        { key: "method", label: "method", format: "text" },
        { key: "setting", label: "models", format: "text" },
        { key: "signalNoise", label: "signal noise", format: "sig3" },
        { key: "threshold", label: "threshold τ", format: "fixed2" },
        { key: "accuracy", label: "accuracy", format: "fixed3" },
        { key: "costPerQuestion", label: "price per question", unit: "price units", format: "fixed2" },
        { key: "costShare", label: `price ÷ ${strongest.setting}'s`, format: "percent0" },
        { key: "callsPerQuestion", label: "calls per question", format: "fixed2" },
        { key: "strongestShare", label: `answered by ${strongest.setting}`, format: "percent0" },
      ],
      rows,
      notes: [
        `${rw.world.test.size} test questions, seed ${String(p.seed)}. Prices per call: ${rw.world.names.map((n) => `${n} ${rw.prices[n]}`).join(", ")} (exercise 7). Alone: ${singles.map((s) => `${s.setting} ${s.accuracy.toFixed(3)}`).join(", ")}; the most accurate is ${strongest.setting}.`,
        `Cascade ${p.cascade.join("→")}: call the models in order and keep the first answer whose trust score Φ(±1 + noise·ε) ≥ τ (+1 if the answer is right, −1 if wrong); the last model's answer is kept whatever its score; every call is paid. Scorer AUC: ${scorerNoises.map((n) => `noise ${n} → ${scorerAuc(n).toFixed(3)}`).join(", ")}.`,
        `Router ${p.weak}/${p.strong}: one call, to ${p.strong} when the difficulty estimate's percentile ≥ τ (so about a share τ goes to ${p.weak}). Correlation of the estimate with the true difficulty: ${routerNoises.map((n) => `noise ${n} → ${routerCorrelation(n, rw.world.difficultySpread).toFixed(2)}`).join(", ")}.`,
        `Cheapest setting within 1 point of ${strongest.setting} alone (${strongest.accuracy.toFixed(3)}), read off these test rows: ${reach.join("; ")}.`,
      ],
    };
  },
});

// ---------------------------------------------------------------------------------------------------------------

const FINE_THRESHOLDS: readonly number[] = Array.from({ length: 101 }, (_, i) => i / 100);

export const signalWorth = defineDemo({
  id: "05.2",
  section: "§5",
  title: "What the signal is worth: the price of matching the strongest model vs signal noise",
  defaults: {
    ...routingDefaults(),
    scorerNoises: [0, 0.25, 0.5, 0.75, 1, 1.5, 2],
    routerNoises: [0, 0.25, 0.5, 1, 2, 4],
    tolerancePoints: 1,
  },
  describe: {
    train: "training questions: the threshold is the cheapest one within the tolerance on them",
    test: "test questions: accuracy and price of that threshold",
    scorerNoises: "cascade scorer noise levels",
    routerNoises: "router noise levels",
    tolerancePoints: "how far below the strongest model's training accuracy still counts as matching (points)",
  },
  run(p, { progress }) {
    const rw = world(p);
    const scorerNoises = checkNoises("scorerNoises", p.scorerNoises);
    const routerNoises = checkNoises("routerNoises", p.routerNoises);
    const tolerance = checkNumber("tolerancePoints", p.tolerancePoints, { min: 0, max: 100 }) / 100;
    const trainStrongest = strongestOf(singleModels(rw, "train"));
    const testSingles = singleModels(rw, "test");
    const strongest = testSingles.find((s) => s.setting === trainStrongest.setting) as RoutingResult;
    const target = Math.max(0, trainStrongest.accuracy - tolerance);
    const rows: Row[] = [];
    const add = (method: "cascade" | "router", noise: number, train: RoutingResult[], test: (t: number) => RoutingResult) => {
      // the cheapest τ on the training questions; when no τ matches (cannot happen at the ends: τ = 1 for the cascade
      // ending in the strongest model, τ = 0 for the router), the most accurate one
      const chosen = cheapestReaching(train, target) ?? train.reduce((a, b) => (b.accuracy > a.accuracy ? b : a));
      const r = test(chosen.threshold as number);
      rows.push({
        method,
        setting: r.setting,
        signalNoise: noise,
        scorerAuc: method === "cascade" ? scorerAuc(noise) : null,
        routerCorrelation: method === "router" ? routerCorrelation(noise, rw.world.difficultySpread) : null,
        threshold: chosen.threshold,
        trainAccuracy: chosen.accuracy,
        accuracy: r.accuracy,
        accuracyGapPoints: (strongest.accuracy - r.accuracy) * 100,
        costPerQuestion: r.costPerQuestion,
        costShare: r.costPerQuestion / strongest.costPerQuestion,
      });
    };
    for (const noise of scorerNoises) {
      progress?.(`05.2: cascade, scorer noise ${noise}`);
      const base = { models: p.cascade, scorerNoise: noise };
      const train = cascadeCurve(rw, { ...base, thresholds: FINE_THRESHOLDS, split: "train" });
      add("cascade", noise, train, (t) => cascadeCurve(rw, { ...base, thresholds: [t], split: "test" })[0]);
    }
    for (const noise of routerNoises) {
      progress?.(`05.2: router, router noise ${noise}`);
      const base = { weak: p.weak, strong: p.strong, routerNoise: noise };
      const train = routerCurve(rw, { ...base, thresholds: FINE_THRESHOLDS, split: "train" });
      add("router", noise, train, (t) => routerCurve(rw, { ...base, thresholds: [t], split: "test" })[0]);
    }
    return {
      title: this.title,
      columns: [
        { key: "method", label: "method", format: "text" },
        { key: "setting", label: "models", format: "text" },
        { key: "signalNoise", label: "signal noise", format: "sig3" },
        { key: "scorerAuc", label: "scorer AUC", format: "fixed3" },
        { key: "routerCorrelation", label: "estimate–difficulty correlation", format: "fixed2" },
        { key: "threshold", label: "τ (chosen on train)", format: "fixed2" },
        { key: "trainAccuracy", label: "train accuracy", format: "fixed3" },
        { key: "accuracy", label: "test accuracy", format: "fixed3" },
        { key: "accuracyGapPoints", label: `below ${strongest.setting} alone (test)`, unit: "points", format: "fixed1" },
        { key: "costPerQuestion", label: "price per question (test)", unit: "price units", format: "fixed2" },
        { key: "costShare", label: `price ÷ ${strongest.setting}'s`, format: "percent0" },
      ],
      rows,
      notes: [
        `Per noise level: τ = the cheapest of 0, 0.01, …, 1 whose training accuracy is within ${p.tolerancePoints} point(s) of ${strongest.setting} alone (train ${trainStrongest.accuracy.toFixed(3)}); accuracy and price are then measured on the ${rw.world.test.size} test questions (${strongest.setting} alone: ${strongest.accuracy.toFixed(3)} at ${strongest.costPerQuestion} per question). Seed ${String(p.seed)}, ${rw.world.train.size} training questions.`,
        `Cascade ${p.cascade.join("→")} (scorer AUC = Φ(√2 / noise)); router ${p.weak}/${p.strong} (correlation = spread / √(spread² + noise²), difficulty spread ${rw.world.difficultySpread}). A price share above 100% means the cascade cannot match ${strongest.setting} more cheaply than ${strongest.setting} alone.`,
      ],
    };
  },
});

export const modelRoutingDemos = [cascadeVsRouter, signalWorth];

