import { describe, expect, it } from "vitest";
import { ParameterError, rng } from "../lib/core";
import {
  aggregateTiedBest,
  allocationCost,
  allocationCount,
  bestSingleModel,
  buildWorld,
  caseStudyPrices,
  caseStudyWorld,
  costAware,
  countedEvaluations,
  exhaustiveWhere,
  releasedGreedy,
  surveyAllocations,
  Diagnoser,
  Evaluator,
  exhaustive,
  getSystem,
  greedy,
  lastIdentical,
  llmSelector,
  locateSolve,
  minimumEvaluations,
  randomPoolWorld,
  randomSearch,
  selfRefine,
  debate,
  SelectorModel,
  SKILLS,
  skillIndex,
  successProbability,
} from "../lib/selector";

/** A world where every model succeeds exactly on the questions easier than its ability: a better model's successes
 * are a superset of a worse one's, at every skill (both monotonicity assumptions of the paper hold). */
function monotoneWorld(seed: number, models = 5): ReturnType<typeof buildWorld> {
  const r = rng(seed).fork("monotone");
  const specs: SelectorModel[] = Array.from({ length: models }, (_, i) => {
    const expertise: SelectorModel["expertise"] = {};
    for (const s of SKILLS) expertise[s] = 2 * r.normal();
    return { name: String.fromCharCode(65 + i), general: 0, expertise, consistency: 0.5 };
  });
  return buildWorld({ models: specs, train: 200, test: 100, seed, difficultySpread: 1, noiseScale: 0 });
}

function allAllocations(K: number, L: number): number[][] {
  const out: number[][] = [[]];
  for (let j = 0; j < L; j++) {
    const next: number[][] = [];
    for (const a of out) for (let k = 0; k < K; k++) next.push([...a, k]);
    out.splice(0, out.length, ...next);
  }
  return out;
}

describe("toy world", () => {
  it("is determined by its seed; another seed gives other outcomes", () => {
    const a = caseStudyWorld({ seed: 3 });
    const b = caseStudyWorld({ seed: 3 });
    const c = caseStudyWorld({ seed: 4 });
    expect(Array.from(a.train.success[2][skillIndex("solve")])).toEqual(Array.from(b.train.success[2][skillIndex("solve")]));
    expect(Array.from(a.test.wrongAnswer[0])).toEqual(Array.from(b.test.wrongAnswer[0]));
    expect(Array.from(a.train.success[2][skillIndex("solve")])).not.toEqual(Array.from(c.train.success[2][skillIndex("solve")]));
  });

  it("success rates follow Φ(ability / √(spread² + noise²)) within sampling error", () => {
    const models: SelectorModel[] = [
      { name: "X", general: 0.5, expertise: { solve: -1 }, consistency: 0.7 },
      { name: "Y", general: 1.2, expertise: {}, consistency: 0.2 },
    ];
    const w = buildWorld({ models, train: 20000, test: 10, seed: 1, difficultySpread: 0.8, noiseScale: 1 });
    for (const [m, spec] of models.entries()) {
      for (const skill of ["locate", "solve"] as const) {
        const xs = w.train.success[m][skillIndex(skill)];
        const rate = xs.reduce((s, x) => s + x, 0) / xs.length;
        expect(Math.abs(rate - successProbability(w, spec, skill))).toBeLessThan(0.015);
      }
    }
  });

  it("a consistent model's skills succeed together on the same question more often than an inconsistent one's", () => {
    const base = { general: 0, expertise: {} };
    const w = buildWorld({ models: [{ name: "tight", ...base, consistency: 0.95 }, { name: "loose", ...base, consistency: 0.05 }], train: 5000, test: 10, seed: 2, difficultySpread: 0.3 });
    const agreement = (m: number) => {
      const a = w.train.success[m][skillIndex("locate")];
      const b = w.train.success[m][skillIndex("solve")];
      let same = 0;
      for (let z = 0; z < a.length; z++) same += a[z] === b[z] ? 1 : 0;
      return same / a.length;
    };
    expect(agreement(0)).toBeGreaterThan(agreement(1) + 0.2);
  });

  it("rejects bad input with the parameter's name", () => {
    expect(() => buildWorld({ models: [], train: 10, test: 10, seed: 1 })).toThrow(ParameterError);
    expect(() => buildWorld({ models: [], train: 10, test: 10, seed: 1 })).toThrow(/models/);
    const m: SelectorModel = { name: "A", general: 0, expertise: {}, consistency: 0.5 };
    expect(() => buildWorld({ models: [m, m], train: 10, test: 10, seed: 1 })).toThrow(/models：模型的名字不能重复/);
    expect(() => buildWorld({ models: [{ ...m, consistency: 1.5 }], train: 10, test: 10, seed: 1 })).toThrow(/consistency/);
    expect(() => buildWorld({ models: [{ ...m, expertise: { juggling: 1 } as never }], train: 10, test: 10, seed: 1 })).toThrow(/没有技能 "juggling"/);
    expect(() => buildWorld({ models: [m], train: 0, test: 10, seed: 1 })).toThrow(/train/);
    expect(() => getSystem("pipeline")).toThrow(ParameterError);
    expect(() => getSystem("pipeline")).toThrow(/system.*locateSolve/);
    expect(() => selfRefine({ sameModelCriticFactor: 2 })).toThrow(/sameModelCriticFactor/);
  });
});

describe("systems", () => {
  const world = caseStudyWorld();
  it("locate–solve is right exactly when both modules succeed, and blames the first failing module", () => {
    const ev = new Evaluator(world, locateSolve());
    const [A, C] = [0, 2];
    const run = ev.run([A, C]);
    const loc = world.train.success[A][skillIndex("locate")];
    const sol = world.train.success[C][skillIndex("solve")];
    for (let z = 0; z < world.train.size; z++) {
      expect(run.correct[z]).toBe(loc[z] && sol[z] ? 1 : 0);
      expect(run.fault[z]).toBe(!loc[z] ? 1 : !sol[z] ? 2 : 0);
    }
  });

  it("self-refine: a self-blind critic only hurts when critic and generator are the same model", () => {
    const w = randomPoolWorld({ pool: 0 });
    const plain = new Evaluator(w, selfRefine());
    const blind = new Evaluator(w, selfRefine({ sameModelCriticFactor: 0.3 }));
    let strictlyWorse = 0;
    for (const a of allAllocations(5, 3)) {
      if (a[0] !== a[1]) expect(blind.accuracy(a)).toBe(plain.accuracy(a));
      else {
        expect(blind.accuracy(a)).toBeLessThanOrEqual(plain.accuracy(a));
        if (blind.accuracy(a) < plain.accuracy(a)) strictlyWorse++;
      }
    }
    expect(strictlyWorse).toBeGreaterThan(0);
  });

  it("debate: three identical generators make identical mistakes, so the debaters cannot help", () => {
    const w = randomPoolWorld({ pool: 1 });
    const ev = new Evaluator(w, debate());
    for (let k = 0; k < 5; k++) {
      const answers = w.train.success[k][skillIndex("answer")];
      const rate = answers.reduce((s, x) => s + x, 0) / answers.length;
      for (let d = 0; d < 5; d++) expect(ev.accuracy([k, k, k, d, d, (d + 1) % 5])).toBeCloseTo(rate, 12);
    }
  });

  it("debate: accuracy depends only on which models generate and which debate, not their order (the cache key)", () => {
    const w = randomPoolWorld({ pool: 2 });
    const r = rng(9);
    for (let i = 0; i < 30; i++) {
      const a = Array.from({ length: 6 }, () => r.int(5));
      const b = [...r.shuffle(a.slice(0, 3)), ...r.shuffle(a.slice(3))];
      // fresh evaluators so nothing is served from the cache
      expect(new Evaluator(w, debate()).accuracy(b)).toBe(new Evaluator(w, debate()).accuracy(a));
    }
  });

  it("debate: the vote and the blame, question by question, on a hand-built set", () => {
    // models 0–5 fill the six modules in order (allocation [0, 1, 2, 3, 4, 5]); per question: which generators answer
    // right (else their wrong answer), which debaters see the truth, and the expected outcome
    type Case = { right: number[]; wrong?: number[]; sees: number[]; correct: 0 | 1; fault: number; ownFault?: number; ownCorrect?: 0 | 1 };
    const cases: Case[] = [
      { right: [0, 1, 2], sees: [], correct: 1, fault: 0 }, // unanimous: every debater picks the right answer
      { right: [0], sees: [3, 4], correct: 1, fault: 0 }, // present, two debaters see it
      { right: [1], sees: [5], correct: 0, fault: 8 | 16 }, // present, one sees it: debaters 1 and 2 are at fault
      { right: [], sees: [3, 4, 5], correct: 0, fault: 7, ownCorrect: 1, ownFault: 0 }, // no right answer: the generators
      { right: [], sees: [3], correct: 0, fault: 7, ownCorrect: 0, ownFault: 7 | 16 | 32 }, // … and with own knowledge, the debaters who did not see too
      { right: [], wrong: [0, 0, 0], sees: [], correct: 1, fault: 0 }, // a wrong answer of 0 is the right answer
      { right: [], wrong: [0, 2, 1], sees: [], correct: 0, fault: 8 | 16 | 32 }, // present through it; nobody sees it
    ];
    const size = cases.length;
    const success = Array.from({ length: 6 }, () => SKILLS.map(() => new Uint8Array(size)));
    const wrongAnswer = Array.from({ length: 6 }, () => new Uint8Array(size).fill(1));
    cases.forEach((c, z) => {
      for (const m of c.right) success[m][skillIndex("answer")][z] = 1;
      c.wrong?.forEach((w, m) => (wrongAnswer[m][z] = w));
      for (const m of c.sees) success[m][skillIndex("critique")][z] = 1;
    });
    const set = { split: "train" as const, size, difficulty: new Float64Array(size), success, wrongAnswer, selfCheck: success.map(() => new Float64Array(size)) };
    for (const own of [false, true]) {
      const correct = new Uint8Array(size);
      const fault = new Uint8Array(size);
      debate({ debatersOwnKnowledge: own }).run(set, [0, 1, 2, 3, 4, 5], correct, fault);
      expect([...correct]).toEqual(cases.map((c) => (own ? c.ownCorrect ?? c.correct : c.correct)));
      expect([...fault]).toEqual(cases.map((c) => (own ? c.ownFault ?? c.fault : c.fault)));
    }
  });

  it("debate: letting debaters answer from their own knowledge never hurts", () => {
    const w = randomPoolWorld({ pool: 3 });
    const only = new Evaluator(w, debate());
    const own = new Evaluator(w, debate({ debatersOwnKnowledge: true }));
    const r = rng(4);
    for (let i = 0; i < 50; i++) {
      const a = Array.from({ length: 6 }, () => r.int(5));
      expect(own.accuracy(a)).toBeGreaterThanOrEqual(only.accuracy(a));
    }
  });

  it("allocations may be given by names; wrong ones are rejected", () => {
    const ev = new Evaluator(world, locateSolve());
    expect(ev.allocation("A+B")).toEqual([0, 1]);
    expect(ev.allocation(["C", "C"])).toEqual([2, 2]);
    expect(() => ev.allocation("A+B+C")).toThrow(/allocation：locateSolve 有 2 个模块/);
    expect(() => ev.allocation("A+Z")).toThrow(/没有模型 "Z"/);
    expect(() => ev.allocation([0, 7])).toThrow(/allocation\[1\]/);
  });
});

describe("diagnoser", () => {
  it("at q = 1 blames exactly the faulty modules; successful runs are never blamed", () => {
    const d = new Diagnoser(1, rng(1), 6);
    for (const mask of [0b000111, 0b001000, 0b110000, 0]) expect(d.blame(mask)).toBe(mask);
    expect(d.judge(0, 3)).toBe(1);
  });

  it("at q < 1 is right with probability q, and a wrong judgment blames an innocent module", () => {
    const q = 0.7;
    const d = new Diagnoser(q, rng(2), 2);
    let right = 0;
    const n = 20000;
    for (let i = 0; i < n; i++) {
      const b = d.blame(0b01);
      if (b === 0b01) right++;
      else expect(b).toBe(0b10);
    }
    expect(Math.abs(right / n - q)).toBeLessThan(0.015);
  });

  it("rejects an accuracy outside [0, 1]", () => {
    expect(() => new Diagnoser(1.2, rng(1), 2)).toThrow(/q/);
    const ev = new Evaluator(caseStudyWorld(), locateSolve());
    expect(() => llmSelector(ev, { q: -0.1 })).toThrow(ParameterError);
    expect(() => llmSelector(ev, { q: Number.NaN })).toThrow(/q/);
  });
});

describe("LLMSelector's tie rule", () => {
  it("counts, per question, every candidate tied at the maximum and picks the most frequent, first inserted on equal counts", () => {
    // q0: candidates 1 and 2 tie; q1: candidate 0; q2: candidates 0 and 2 tie → counts 1:1, 2:2, 0:2 → 2 (inserted before 0)
    const agg = aggregateTiedBest([
      [0, 1, 1],
      [1, 0, 0],
      [1, 0, 1],
    ]);
    expect([...agg.counts.entries()]).toEqual([
      [1, 1],
      [2, 2],
      [0, 2],
    ]);
    expect(agg.choice).toBe(2);
  });

  it("is not the best average score: being tied-best on more questions wins", () => {
    // candidate 1 has the higher mean score (1.17 vs 1.0) but is tied-best on fewer questions
    const agg = aggregateTiedBest([
      [1.5, 1],
      [1.5, 1],
      [0, 1.5],
    ]);
    expect(agg.choice).toBe(0);
  });

  it("needs at least one question", () => {
    expect(() => aggregateTiedBest([])).toThrow(/scores/);
  });
});

describe("optimizers", () => {
  it("monotone world: the per-module best is the global optimum, and LLMSelector reaches it within L rounds from any start", () => {
    for (const seed of [1, 2, 3]) {
      const w = monotoneWorld(seed);
      for (const system of [locateSolve(), selfRefine()]) {
        const ev = new Evaluator(w, system);
        const L = ev.moduleCount;
        const best = exhaustive(ev);
        // per-module best: each module's model with the highest ability at that module's skill
        const perModule = system.modules.map((m) => {
          let k = 0;
          for (let i = 1; i < w.models.length; i++) if ((w.models[i].expertise[m.skill] ?? 0) > (w.models[k].expertise[m.skill] ?? 0)) k = i;
          return k;
        });
        expect(ev.accuracy(perModule)).toBe(best.trainAcc);
        for (const start of allAllocations(5, L)) {
          const r = llmSelector(ev, { start, q: 1 });
          expect(r.converged).toBe(true);
          expect(ev.accuracy(r.path[L])).toBe(best.trainAcc);
        }
      }
    }
  });

  it("stopping rule: a run that starts at the optimum still evaluates L rounds (K × L allocations)", () => {
    const ev = new Evaluator(monotoneWorld(4), selfRefine());
    const opt = llmSelector(ev, { q: 1, seed: 1 }).allocation;
    const again = llmSelector(ev, { start: opt, q: 1 });
    expect(again.rounds).toBe(ev.moduleCount);
    expect(again.evaluated).toBe(minimumEvaluations(ev.modelCount, ev.moduleCount));
    expect(again.path.length).toBe(ev.moduleCount + 1);
    expect(again.path.every((a) => a.join() === opt.join())).toBe(true);
  });

  it("exercise 6(a): ten models, six modules (debate) — 10^6 allocations, and 60 evaluations from a converged allocation", () => {
    expect(allocationCount(10, 6)).toBe(1_000_000);
    expect(minimumEvaluations(10, 6)).toBe(60);
    const ev = new Evaluator(randomPoolWorld({ pool: 0, train: 60, test: 10, poolOptions: { models: 10 } }), debate());
    const first = llmSelector(ev, { q: 1, seed: 2 });
    expect(first.converged).toBe(true);
    // at q = 1 the diagnoser is deterministic, so a converged allocation re-confirms itself in L rounds
    const again = llmSelector(ev, { start: first.allocation, q: 1 });
    expect(again.evaluated).toBe(60);
    expect(again.allocation).toEqual(first.allocation);
  });

  it("budget accounting: K per round for LLMSelector and greedy, the draws for random search, K^L for exhaustive, K for single", () => {
    const ev = new Evaluator(randomPoolWorld({ pool: 4 }), selfRefine());
    for (const r of [llmSelector(ev, { q: 0.7, seed: 3 }), greedy(ev, { seed: 3 })]) {
      expect(r.evaluated).toBe(r.rounds * ev.modelCount);
      expect(r.path.length).toBe(r.rounds + 1);
      expect(lastIdentical(r.path, ev.moduleCount + 1)).toBe(true);
    }
    expect(randomSearch(ev, { budget: 17, seed: 1 }).evaluated).toBe(17);
    expect(randomSearch(ev, { budget: 1000, seed: 1 }).evaluated).toBe(125);
    expect(exhaustive(ev).evaluated).toBe(125);
    expect(bestSingleModel(ev).evaluated).toBe(5);
    const capped = llmSelector(ev, { q: 0.6, seed: 3, maxBudget: 12 });
    expect(capped.converged).toBe(false);
    expect(capped.evaluated).toBe(10);
    expect(() => randomSearch(ev, { budget: 0 })).toThrow(/budget/);
  });

  it("exhaustive is an upper bound on training accuracy for every method; random search with the whole space equals it", () => {
    const ev = new Evaluator(randomPoolWorld({ pool: 5 }), locateSolve());
    const best = exhaustive(ev);
    for (const r of [llmSelector(ev, { seed: 1 }), greedy(ev, { seed: 1 }), bestSingleModel(ev), randomSearch(ev, { budget: 10, seed: 1 })]) {
      expect(r.trainAcc).toBeLessThanOrEqual(best.trainAcc);
    }
    expect(randomSearch(ev, { budget: 25, seed: 1 }).trainAcc).toBe(best.trainAcc);
  });

  it("greedy only moves to strictly better allocations", () => {
    const ev = new Evaluator(randomPoolWorld({ pool: 6 }), debate());
    const r = greedy(ev, { seed: 5 });
    for (let i = 1; i < r.path.length; i++) {
      if (r.path[i].join() !== r.path[i - 1].join()) expect(ev.accuracy(r.path[i])).toBeGreaterThan(ev.accuracy(r.path[i - 1]));
    }
  });

  it("same seed → same run; a noisy diagnoser with another seed takes another path", () => {
    const ev = new Evaluator(randomPoolWorld({ pool: 7 }), debate());
    const a = llmSelector(ev, { q: 0.7, seed: 11 });
    const b = llmSelector(new Evaluator(randomPoolWorld({ pool: 7 }), debate()), { q: 0.7, seed: 11 });
    expect(b).toEqual(a);
    const others = [12, 13, 14].map((s) => llmSelector(ev, { q: 0.7, seed: s }).path.map((x) => x.join()).join("|"));
    expect(others.some((p) => p !== a.path.map((x) => x.join()).join("|"))).toBe(true);
  });

  it("rejects a start that does not fit the system", () => {
    const ev = new Evaluator(caseStudyWorld(), locateSolve());
    expect(() => llmSelector(ev, { start: "A" })).toThrow(/allocation/);
    expect(() => greedy(ev, { start: [0, 9] })).toThrow(/allocation\[1\]/);
  });
});

describe("cost (exercise 7)", () => {
  const prices = caseStudyPrices();
  it("A+B costs 8 per question, C+C 2: four times as much", () => {
    expect(allocationCost("A+B", prices)).toBe(8);
    expect(allocationCost(["C", "C"], prices)).toBe(2);
    expect(() => allocationCost(["A", "Q"], prices)).toThrow(/prices：没有模型 "Q" 的价格/);
  });

  it("a larger λ never buys a more expensive allocation, and λ = 0 is plain exhaustive search", () => {
    const ev = new Evaluator(caseStudyWorld(), locateSolve());
    const lambdas = [0, 0.01, 0.03, 0.1, 0.3, 1];
    const rs = lambdas.map((lambda) => costAware(ev, { prices, lambda }));
    expect(rs[0].trainAcc).toBe(exhaustive(ev).trainAcc);
    for (let i = 1; i < rs.length; i++) {
      expect(rs[i].cost).toBeLessThanOrEqual(rs[i - 1].cost);
      expect(rs[i].trainAcc).toBeLessThanOrEqual(rs[i - 1].trainAcc);
    }
    expect(() => costAware(ev, { prices, lambda: -1 })).toThrow(/lambda/);
  });
});

// Issue 17 (5): LLMSelector as released — verdicts behind a response cache, the α = 0 greedy, the K − 1 counter.

describe("the diagnoser's verdict modes", () => {
  it("fresh: the same run can be judged differently on another call; cached: one verdict per (allocation, question, module)", () => {
    const fresh = new Diagnoser(0.5, rng(3), 2);
    const cached = new Diagnoser(0.5, rng(3), 2, "cached", 4);
    const freshVerdicts = new Set<number>();
    const cachedVerdicts = new Set<number>();
    for (let i = 0; i < 50; i++) {
      freshVerdicts.add(fresh.judge(0b01, 1));
      cachedVerdicts.add(cached.judge(0b01, 1, "2,2", 0));
    }
    expect(freshVerdicts.size).toBe(2);
    expect(cachedVerdicts.size).toBe(1);
    // another question, module or allocation is another prompt: asked afresh (and then fixed)
    const other = [cached.judge(0b01, 0, "2,2", 0), cached.judge(0b01, 1, "2,2", 1), cached.judge(0b01, 1, "0,2", 0)];
    expect(cached.cachedPrompts()).toBe(3); // "2,2|1", "2,2|0", "0,2|1"
    expect([cached.judge(0b01, 0, "2,2", 0), cached.judge(0b01, 1, "2,2", 1), cached.judge(0b01, 1, "0,2", 0)]).toEqual(other);
    expect(() => new Diagnoser(0.5, rng(3), 2, "sticky" as never, 4)).toThrow(/verdicts/);
  });

  it("with cached verdicts a noisy diagnoser makes some debate runs cycle until the budget runs out; fresh verdicts never do", () => {
    let cycled = 0;
    let freshStopped = 0;
    for (let pool = 0; pool < 4; pool++) {
      const ev = new Evaluator(randomPoolWorld({ seed: 7, pool }), debate());
      for (let run = 0; run < 3; run++) {
        const seed = `7/pool/${pool}/run/${run}`;
        const c = llmSelector(ev, { q: 0.7, seed, verdicts: "cached", maxBudget: 2000 });
        if (c.cycled) {
          cycled++;
          expect(c.converged).toBe(false);
          expect(c.evaluated).toBe(2000);
        }
        if (!llmSelector(ev, { q: 0.7, seed, maxBudget: 2000 }).converged) freshStopped++;
      }
    }
    expect(cycled).toBeGreaterThan(0);
    expect(freshStopped).toBe(0);
  });

  it("the cycle shortcut gives exactly what running every round to the budget gives", () => {
    for (const pool of [7, 8]) {
      const ev = new Evaluator(randomPoolWorld({ seed: 7, pool }), debate());
      for (let run = 0; run < 3; run++) {
        const o = { q: 0.8, seed: `7/pool/${pool}/run/${run}`, verdicts: "cached" as const, maxBudget: 1500 };
        const a = llmSelector(ev, o);
        const b = llmSelector(ev, { ...o, detectCycles: false });
        expect([a.label, a.evaluated, a.converged, a.rounds]).toEqual([b.label, b.evaluated, b.converged, b.rounds]);
      }
    }
  });

  it("at q = 1 both modes take the same path (a right diagnoser draws nothing to cache)", () => {
    const ev = new Evaluator(randomPoolWorld({ seed: 7, pool: 2 }), debate());
    const a = llmSelector(ev, { q: 1, seed: "x" });
    const b = llmSelector(ev, { q: 1, seed: "x", verdicts: "cached" });
    expect(b.path).toEqual(a.path);
  });
});

describe("the released α = 0 optimizer (greedy that moves on ties)", () => {
  it("scores end-to-end correctness only, so it moves to the first-inserted candidate on equal accuracy, where ours stays", () => {
    // on question sets where C+C ties a one-module change, our greedy stays and the released one moves
    let moved = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const ev = new Evaluator(caseStudyWorld({ seed }), locateSolve());
      const g = greedy(ev, { start: "C+C" });
      const r = releasedGreedy(ev, { start: "C+C" });
      expect(g.label).toBe("C+C");
      if (ev.label(r.path[1]) !== "C+C" || ev.label(r.path[2]) !== "C+C") {
        moved++;
        // it only ever moves to an allocation at least as accurate
        for (let i = 1; i < r.path.length; i++) expect(ev.accuracy(r.path[i])).toBeGreaterThanOrEqual(ev.accuracy(r.path[i - 1]));
      }
    }
    expect(moved).toBeGreaterThan(6);
  });

  it("on the lecture's seed, where C+C is strictly better than both neighbours, it stays at C+C like ours", () => {
    const ev = new Evaluator(caseStudyWorld(), locateSolve());
    expect(releasedGreedy(ev, { start: "C+C" }).label).toBe("C+C");
    expect(llmSelector(ev, { start: "C+C" }).label).toBe("A+B");
  });
});

describe("budget counted both ways (exercise 6)", () => {
  it("the lecture counts K a round, the released counter K − 1", () => {
    expect(countedEvaluations(4, 5)).toBe(20);
    expect(countedEvaluations(4, 5, "released")).toBe(16);
    expect(minimumEvaluations(10, 6)).toBe(60);
    expect(minimumEvaluations(10, 6, "released")).toBe(54);
    expect(() => countedEvaluations(4, 5, "paper" as never)).toThrow(/counting/);
  });
});

describe("enumerating allocations with interchangeable roles", () => {
  it("debate: skipping permuted allocations changes neither the optimum, nor the mean, nor the shares", () => {
    const world = randomPoolWorld({ seed: 7, pool: 3, train: 60, test: 60 });
    const sym = new Evaluator(world, debate());
    const plain = new Evaluator(world, { ...debate(), symmetry: undefined });
    const same = (a: readonly number[]) => a[0] === a[1] && a[1] === a[2];
    const mixes = (a: readonly number[]) => new Set(a.slice(0, 3)).size > 1;
    const s = surveyAllocations(sym, { where: [same], share: [mixes] });
    const p = surveyAllocations(plain, { where: [same], share: [mixes] });
    expect(s.optimum.label).toBe(p.optimum.label);
    expect(s.optimum.label).toBe(exhaustive(plain).label);
    expect(exhaustive(sym).label).toBe(exhaustive(plain).label);
    expect(s.bestWhere[0]?.label).toBe(exhaustiveWhere(plain, same)?.label);
    expect(s.meanAccuracy).toBeCloseTo(p.meanAccuracy, 12);
    expect(s.shares[0]).toBeCloseTo(1 - 5 / 125, 12); // three generators not all the same: 1 − 1/K²
    expect(p.shares[0]).toBeCloseTo(s.shares[0], 12);
  });
});
