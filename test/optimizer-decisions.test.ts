// §4's baselines and LLMSelector's pieces (lib/selector/optimizers.ts) on a hand-made accuracy table: two modules,
// three models, acc(a) = TABLE[a0][a1]. Greedy's path, exhaustive's optimum and ties, random search's draws, the
// best single model, the survey's mean and shares — each computed here by hand.
import { describe, expect, it } from "vitest";
import { ParameterError, rng } from "../lib/core";
import { aggregateTiedBest, bestSingleModel, Evaluator, exhaustive, exhaustiveWhere, greedy, llmSelector, randomSearch, releasedGreedy, surveyAllocations } from "../lib/selector";

/** A fake evaluator over acc(a) = table[a0][a1] (K × K, two modules); test accuracy = train accuracy / 2. */
function tableEvaluator(table: number[][]): Evaluator {
  const K = table.length;
  const acc = (a: readonly number[]) => table[a[0]][a[1]];
  return {
    modelCount: K,
    moduleCount: 2,
    world: { train: { size: 1 } },
    system: { symmetry: undefined },
    allocation: (x: unknown) => x as number[],
    label: (a: readonly number[]) => a.join("+"),
    accuracy: (a: readonly number[], split = "train") => (split === "train" ? acc(a) : acc(a) / 2),
  } as unknown as Evaluator;
}

// rows: module 0's model, columns: module 1's
const TABLE = [
  [0.1, 0.2, 0.3],
  [0.2, 0.5, 0.4],
  [0.6, 0.3, 0.7],
];

describe("greedy: coordinate ascent on training accuracy, strictly better moves only", () => {
  it("from [0, 0]: module 0 → model 2 (0.6), module 1 → model 2 (0.7), then L rounds without change: converged", () => {
    const r = greedy(tableEvaluator(TABLE), { start: [0, 0] });
    expect(r.path).toEqual([[0, 0], [2, 0], [2, 2], [2, 2], [2, 2]]);
    expect(r.allocation).toEqual([2, 2]);
    expect([r.rounds, r.evaluated, r.converged]).toEqual([4, 12, true]);
    expect([r.trainAcc, r.testAcc, r.label, r.method]).toEqual([0.7, 0.35, "2+2", "greedy"]);
  });

  it("an equally good model is not a move (ties keep the current model)", () => {
    const flat = [
      [0.5, 0.5, 0.5],
      [0.5, 0.5, 0.5],
      [0.5, 0.5, 0.9],
    ];
    // from [1, 1]: module 0's candidates 0.5, 0.5, 0.5 → stays; module 1's 0.5, 0.5, 0.5 → stays: stuck below 0.9
    const r = greedy(tableEvaluator(flat), { start: [1, 1] });
    expect(r.path).toEqual([[1, 1], [1, 1], [1, 1]]);
    expect(r.allocation).toEqual([1, 1]);
  });

  it("the best of the module's models, not the first better one", () => {
    const r = greedy(tableEvaluator(TABLE), { start: [1, 0] }); // module 0: 0.1, 0.2, 0.6 → 2
    expect(r.path[1]).toEqual([2, 0]);
  });

  it("stops unconverged before a round that would exceed maxBudget (K = 3 a round)", () => {
    const six = greedy(tableEvaluator(TABLE), { start: [0, 0], maxBudget: 6 });
    expect([six.rounds, six.evaluated, six.converged]).toEqual([2, 6, false]);
    expect(six.allocation).toEqual([2, 2]);
    const five = greedy(tableEvaluator(TABLE), { start: [0, 0], maxBudget: 5 });
    expect([five.rounds, five.evaluated]).toEqual([1, 3]);
    expect(() => greedy(tableEvaluator(TABLE), { maxBudget: -1 })).toThrow(ParameterError);
  });

  it("without a seed the start is seed 1's", () => {
    const ev = tableEvaluator(TABLE);
    expect(greedy(ev).path[0]).toEqual(greedy(ev, { seed: 1 }).path[0]);
    expect(() => releasedGreedy(ev, { maxBudget: -1 })).toThrow(ParameterError);
  });
});

describe("exhaustive, constrained and single-model search", () => {
  it("exhaustive: the best of all K^L = 9, ties → the first in lexicographic order; path = [best], converged", () => {
    const r = exhaustive(tableEvaluator(TABLE));
    expect([r.allocation, r.evaluated, r.path, r.converged, r.rounds]).toEqual([[2, 2], 9, [[2, 2]], true, 0]);
    const tied = [
      [0.1, 0.9, 0.3],
      [0.2, 0.5, 0.4],
      [0.9, 0.3, 0.7],
    ];
    expect(exhaustive(tableEvaluator(tied)).allocation).toEqual([0, 1]);
    expect(() => exhaustive(tableEvaluator(TABLE), { limit: 8 })).toThrow(ParameterError);
    expect(exhaustive(tableEvaluator(TABLE), { limit: 9 }).allocation).toEqual([2, 2]);
    expect(() => exhaustive(tableEvaluator(TABLE), { limit: 0 })).toThrow(ParameterError);
  });

  it("exhaustiveWhere: the best among those kept, counting only those; null when none is kept", () => {
    const ev = tableEvaluator(TABLE);
    const r = exhaustiveWhere(ev, (a) => a[0] === a[1]); // diagonal: 0.1, 0.5, 0.7
    expect([r?.allocation, r?.evaluated, r?.path, r?.converged, r?.method]).toEqual([[2, 2], 3, [[2, 2]], true, "constrained"]);
    expect(exhaustiveWhere(ev, (a) => a[0] === 0, "first")?.allocation).toEqual([0, 2]);
    expect(exhaustiveWhere(ev, (a) => a[0] === 0 && a[1] === 0)?.evaluated).toBe(1);
    expect(exhaustiveWhere(ev, () => false)).toBeNull();
  });

  it("bestSingleModel: the best of [k, k], ties → the lower k; K evaluated", () => {
    const r = bestSingleModel(tableEvaluator(TABLE));
    expect([r.allocation, r.evaluated, r.path, r.converged]).toEqual([[2, 2], 3, [[2, 2]], true]);
    const middle = [
      [0.1, 0, 0],
      [0, 0.8, 0],
      [0, 0, 0.8],
    ];
    expect(bestSingleModel(tableEvaluator(middle)).allocation).toEqual([1, 1]);
  });
});

describe("random search: distinct uniform draws, the best of them (ties → drawn first)", () => {
  it("a budget below K^L: the same draws as a shadow stream, and the best among exactly those", () => {
    const table = [
      [0.11, 0.52, 0.33],
      [0.24, 0.45, 0.96],
      [0.67, 0.38, 0.79],
    ];
    const ev = tableEvaluator(table);
    for (let seed = 1; seed <= 12; seed++) {
      for (const budget of [1, 3, 5]) {
        const shadow = rng(seed).fork("randomSearch");
        const drawn: number[] = [];
        while (drawn.length < budget) {
          const i = shadow.int(9);
          if (!drawn.includes(i)) drawn.push(i);
        }
        let best = drawn[0];
        for (const i of drawn) if (table[Math.floor(i / 3)][i % 3] > table[Math.floor(best / 3)][best % 3]) best = i;
        const r = randomSearch(ev, { budget, seed });
        expect(r.allocation, `seed ${seed}, budget ${budget}`).toEqual([Math.floor(best / 3), best % 3]);
        expect([r.evaluated, r.path, r.converged]).toEqual([budget, [r.allocation], true]);
      }
    }
  });

  it("a budget of the whole space (or more) enumerates it in order: ties → lexicographically first", () => {
    const tied = [
      [0.1, 0.9, 0.3],
      [0.2, 0.5, 0.4],
      [0.9, 0.3, 0.9],
    ];
    for (const budget of [9, 20]) {
      const r = randomSearch(tableEvaluator(tied), { budget, seed: 3 });
      expect([r.allocation, r.evaluated]).toEqual([[0, 1], 9]);
    }
    expect(randomSearch(tableEvaluator(TABLE), { budget: 4 }).allocation).toEqual(randomSearch(tableEvaluator(TABLE), { budget: 4, seed: 1 }).allocation);
  });
});

describe("surveyAllocations: one pass over K^L", () => {
  it("the mean accuracy, the shares, the best overall and under each predicate (null when none)", () => {
    const s = surveyAllocations(tableEvaluator(TABLE), { where: [(a) => a[0] === a[1], (a) => a[0] > 5], share: [(a) => a[0] === a[1], () => true] });
    const mean = TABLE.flat().reduce((x, y) => x + y, 0) / 9; // 3.3 / 9
    expect(s.meanAccuracy).toBeCloseTo(mean, 12);
    expect(s.shares).toEqual([3 / 9, 1]);
    expect([s.optimum.allocation, s.optimum.evaluated, s.optimum.path, s.optimum.converged]).toEqual([[2, 2], 9, [[2, 2]], true]);
    expect(s.bestWhere[0]?.allocation).toEqual([2, 2]);
    expect([s.bestWhere[0]?.path, s.bestWhere[0]?.converged]).toEqual([[[2, 2]], true]);
    expect(s.bestWhere[1]).toBeNull();
  });
});

describe("LLMSelector's pieces", () => {
  it("aggregateTiedBest on one question: its argmax; on several, the most often tied-best", () => {
    expect(aggregateTiedBest([[0, 5, 3]]).choice).toBe(1);
    expect(aggregateTiedBest([[2, 2, 1], [0, 1, 1], [0, 0, 3]]).choice).toBe(1);
  });

  it("options are checked: γ ≥ 0, maxBudget ≥ 0", () => {
    const ev = tableEvaluator(TABLE);
    expect(() => llmSelector(ev, { gamma: -0.1 })).toThrow(ParameterError);
    expect(() => llmSelector(ev, { maxBudget: -1 })).toThrow(ParameterError);
  });
});
