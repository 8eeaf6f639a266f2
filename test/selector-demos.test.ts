// The lecture's conclusions in §4.4–§4.6, checked on the demos (代码 04) and, where the effect is a tendency, on
// several seeds.
import { describe, expect, it } from "vitest";
import { cell, rowsWhere, rowWhere } from "../lib/core";
import { runDemo } from "../lib/demos";
import { accuracyMatrix, caseStudyWorld, Evaluator, greedy, llmSelector, locateSolve } from "../lib/selector";

describe("04.1 the locate–solve case", () => {
  const t = runDemo("04.1");
  const row = (method: string, start: string, q: number | null = null) => rowWhere(t, { method, start, q });

  it("C+C is a local optimum that greedy cannot leave, while LLMSelector walks to A+B (also with q = 0.8)", () => {
    expect(row("exhaustive", "—").allocation).toBe("A+B");
    expect(row("greedy", "C+C").allocation).toBe("C+C");
    expect(row("llmSelector", "C+C", 1).allocation).toBe("A+B");
    expect(row("llmSelector", "C+C", 0.8).allocation).toBe("A+B");
    expect(row("llmSelector", "C+C", 1).testAcc as number).toBeGreaterThan((row("greedy", "C+C").testAcc as number) + 0.3);
    expect(row("llmSelector", "C+C", 1).testAcc as number).toBeGreaterThan(0.9);
  });

  it("exercise 6(b): from C+C LLMSelector evaluates 4 rounds × 5 = 20 allocations", () => {
    expect(row("llmSelector", "C+C", 1).evaluated).toBe(20);
    expect(t.notes?.join(" ")).toContain("C+C → A+C → A+B → A+B → A+B");
  });

  it("from all 25 starts greedy fails on some and LLMSelector on none", () => {
    expect(row("greedy", "all 25").failedStarts as number).toBeGreaterThan(0);
    expect(row("llmSelector", "all 25", 1).failedStarts).toBe(0);
    expect(row("llmSelector", "all 25", 0.8).failedStarts).toBe(0);
  });

  it("on other seeds C+C is still never beaten by a one-module change, greedy stays and LLMSelector escapes", () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const ev = new Evaluator(caseStudyWorld({ seed }), locateSolve());
      const m = accuracyMatrix(ev);
      for (let k = 0; k < 5; k++) {
        expect(m[k][2]).toBeLessThanOrEqual(m[2][2]);
        expect(m[2][k]).toBeLessThanOrEqual(m[2][2]);
      }
      expect(greedy(ev, { start: "C+C" }).label).toBe("C+C");
      expect(llmSelector(ev, { start: "C+C", q: 1, seed }).label).toBe("A+B");
      expect(llmSelector(ev, { start: "C+C", q: 0.8, seed }).label).toBe("A+B");
    }
  });
});

describe("04.2 random pools", () => {
  const t = runDemo("04.2");
  const gain = (system: string, method: string) => cell(t, { system, method }, "gainPoints");

  it("mixing models beats the best single model on every system, for LLMSelector and for exhaustive search", () => {
    for (const system of ["locateSolve", "selfRefine", "debate"]) {
      expect(gain(system, "exhaustive")).toBeGreaterThan(1);
      expect(gain(system, "llmSelector")).toBeGreaterThan(1);
    }
  });

  it("greedy is about as good as LLMSelector; random search with LLMSelector's budget is worse", () => {
    for (const system of ["locateSolve", "selfRefine", "debate"]) {
      expect(Math.abs(gain(system, "greedy") - gain(system, "llmSelector"))).toBeLessThan(2);
      expect(gain(system, "randomSearch")).toBeLessThan(gain(system, "llmSelector"));
      expect(cell(t, { system, method: "randomSearch" }, "evaluated")).toBe(cell(t, { system, method: "llmSelector" }, "evaluated"));
    }
    expect(cell(t, { system: "debate", method: "exhaustive" }, "evaluated")).toBe(15625);
  });

  it("on other seeds mixing still pays off (smaller setting)", () => {
    for (const seed of [1, 2]) {
      const s = runDemo("04.2", { seed, pools: 6, runsPerPool: 1, systems: ["selfRefine", "debate"] });
      for (const system of ["selfRefine", "debate"]) expect(cell(s, { system, method: "exhaustive" }, "gainPoints")).toBeGreaterThan(0);
    }
  });
});

describe("04.3 a less accurate diagnoser", () => {
  it("costs several times more evaluations while accuracy barely moves", () => {
    const t = runDemo("04.3");
    const first = t.rows[0];
    const last = t.rows[t.rows.length - 1];
    expect(first.q).toBe(1);
    expect(last.q).toBe(0.6);
    expect(last.evaluated as number).toBeGreaterThan(3 * (first.evaluated as number));
    expect(Math.abs((last.testAcc as number) - (first.testAcc as number))).toBeLessThan(0.03);
    // at q = 1 the budget is close to the minimum K × L = 30
    expect(first.evaluated as number).toBeLessThan(100);
  });
});

describe("04.4 when monotonicity fails", () => {
  const t = runDemo("04.4");
  it("self-blind critic: the optimum always pairs a different critic with the generator, and LLMSelector finds that", () => {
    const rows = rowsWhere(t, { experiment: "selfBlindCritic" });
    expect(rows.length).toBe(10);
    expect(rows.every((r) => r.mixesModels === true)).toBe(true);
    expect(rows.filter((r) => r.foundByLlmSelector).length).toBeGreaterThanOrEqual(9);
    expect(rows.reduce((s, r) => s + (r.gain as number), 0) / rows.length).toBeGreaterThan(3);
  });

  it("debate: the optimum mixes generator models in some pools but not all, and gains when it does", () => {
    const rows = rowsWhere(t, { experiment: "debateDiversity" });
    const mixing = rows.filter((r) => r.mixesModels);
    expect(mixing.length).toBeGreaterThanOrEqual(3);
    expect(mixing.length).toBeLessThanOrEqual(9);
    expect(mixing.reduce((s, r) => s + (r.gain as number), 0) / mixing.length).toBeGreaterThan(1);
    // where three identical generators are optimal, nothing is gained over them
    for (const r of rows.filter((x) => !x.mixesModels)) expect(r.gain).toBe(0);
  });
});

describe("04.5 cost-aware selection", () => {
  it("traces a frontier: λ = 0 takes A+B, larger λ takes cheaper and less accurate allocations", () => {
    const t = runDemo("04.5");
    expect(t.rows[0].lambda).toBe(0);
    expect(t.rows[0].allocation).toBe("A+B");
    expect(t.rows[0].cost).toBe(8);
    for (let i = 1; i < t.rows.length; i++) {
      expect(t.rows[i].cost as number).toBeLessThanOrEqual(t.rows[i - 1].cost as number);
      expect(t.rows[i].trainAcc as number).toBeLessThanOrEqual(t.rows[i - 1].trainAcc as number);
    }
    expect(new Set(t.rows.map((r) => r.allocation)).size).toBeGreaterThanOrEqual(3);
  });
  it("rejects a price list that misses a model", () => {
    expect(() => runDemo("04.5", { prices: { A: 1, B: 1 } })).toThrow(/no price for model "C"/);
  });
});
