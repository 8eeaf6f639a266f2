import { describe, expect, it } from "vitest";
import { checkStrict, evaluate, listExercises, referenceAnswer, getExercise } from "../lib/exercises";
import { runDemo } from "../lib/demos";

const num = (id: string, i = 0) => {
  const a = referenceAnswer(id);
  return Number(Array.isArray(a) ? a[i] : a);
};

describe("reference answers agree with independent computations", () => {
  it("1a: the asymptotic formulas at n = 10^6 (5.26 and 3.79)", () => {
    const n = 1e6;
    expect(num("1a", 0)).toBeCloseTo(Math.log(n) / Math.log(Math.log(n)), 10);
    expect(num("1a", 1)).toBeCloseTo(Math.log(Math.log(n)) / Math.LN2, 10);
    expect(num("1a", 0).toFixed(2)).toBe("5.26");
    expect(num("1a", 1).toFixed(2)).toBe("3.79");
  });
  it("1b: the formulas at n = 10^5 (4.71 and 3.53), both below the measured random max load", () => {
    expect(num("1b", 0).toFixed(2)).toBe("4.71");
    expect(num("1b", 1).toFixed(2)).toBe("3.53");
    const t = runDemo("01.1", { ns: [100000], trials: 5 });
    expect(Number(t.rows[0].random)).toBeGreaterThan(num("1b", 0) + 2);
  });
  it("2a: M/M/1 at ρ = 0.9 is 10 service times", () => {
    expect(num("2a")).toBeCloseTo(10, 9);
  });
  it("3a/3b: E2's split and prefill times of exercise 3", () => {
    expect(referenceAnswer("3a")).toEqual([21013, 1987, "exploit", 2]);
    const [onHolder, onOther] = referenceAnswer("3b") as number[];
    expect(onHolder).toBeGreaterThan(0.2);
    expect(onHolder).toBeLessThan(0.2817); // fewer than 2,100 tokens
    expect(onOther).toBeGreaterThan(4); // the lecture: "more than 4 seconds"
    expect(onOther / onHolder).toBeGreaterThan(10);
  });
  it("4a–4c: KV capacity, documents per replica, Zipf-1.1 top-3 share by a direct sum", () => {
    expect(num("4a")).toBe(219089);
    expect(referenceAnswer("4b")).toEqual([Math.floor(219089 / 21000), 4 * Math.floor(219089 / 21000)]);
    let h = 0;
    for (let k = 1; k <= 300; k++) h += Math.pow(k, -1.1);
    const top3 = (1 + Math.pow(2, -1.1) + Math.pow(3, -1.1)) / h;
    expect(num("4c")).toBeCloseTo(top3, 12);
    expect(Math.round(num("4c") * 100)).toBe(36);
  });
  it("5a: 63 of 100 tokens cached → group 6", () => {
    expect(num("5a")).toBe(6);
  });
  it("6a: 10^6 allocations and a minimum of 60 by formula", () => {
    expect(referenceAnswer("6a")).toEqual([Math.pow(10, 6), 10 * 6]);
  });
  it("6b: LLMSelector's count from C+C is whole rounds of K = 5", () => {
    const v = num("6b");
    expect(v % 5).toBe(0);
    expect(v).toBeGreaterThanOrEqual(10);
  });
  it("7a/7b: costs by price sums; the 0.1-per-point rule", () => {
    expect(referenceAnswer("7a")).toEqual([5 + 3, 1 + 1]);
    const t = runDemo("04.1");
    const ab = Number(t.rows.find((r) => r.method === "llmSelector" && r.start === "C+C")?.testAcc);
    const cc = Number(t.rows.find((r) => r.method === "greedy" && r.start === "C+C")?.testAcc);
    expect(referenceAnswer("7b")).toBe(6 / ((ab - cc) * 100) > 0.1 ? "C+C" : "A+B");
  });
});

describe("check", () => {
  it("accepts every numeric reference and rejects a wrong value", () => {
    for (const e of listExercises()) {
      if (!e.reference) continue;
      const ref = referenceAnswer(e.id);
      expect(checkStrict(e.id, ref)).toBe(true);
      const wrong = Array.isArray(ref) ? ref.map((v) => (typeof v === "number" ? v * 1.5 + 1 : "nonsense")) : typeof ref === "number" ? ref * 1.5 + 1 : "nonsense";
      expect(() => checkStrict(e.id, wrong)).toThrow(new RegExp(`exercise ${e.id}`));
    }
  });
  it("takes the lecture's examples and tolerates rounding", () => {
    expect(evaluate("1a", [5.26, 3.79]).passed).toBe(true);
    expect(evaluate("4a", 219089).passed).toBe(true);
    expect(evaluate("4c", 0.36).passed).toBe(true);
    expect(evaluate("6a", [1000000, 60]).passed).toBe(true);
    expect(evaluate("7a", [8, 2]).passed).toBe(true);
    expect(evaluate("3a", [21013, 1987, " Exploit ", 2]).passed).toBe(true);
  });
  it("explains shape errors and gives the hint", () => {
    const r = evaluate("1a", 5.26);
    expect(r.passed).toBe(false);
    expect(r.message).toMatch(/expected 2 values/);
    expect(evaluate("4c", 0.2).message).toContain(getExercise("4c").hint);
  });
  it("free-text parts have explanations but no reference; unknown ids are refused", () => {
    expect(() => referenceAnswer("8")).toThrow(/reveal/);
    for (const e of listExercises()) expect(e.explanation().length).toBeGreaterThan(20);
    expect(() => referenceAnswer("10z")).toThrow(/unknown exercise/);
  });
});

describe("check in a reader's hands", () => {
  it("returns whether the answer passed (and shows the badge)", async () => {
    const { check } = await import("../lib/exercises");
    expect(check("4a", 219089)).toBe(true);
    expect(check("4a", 1)).toBe(false);
  });
});
