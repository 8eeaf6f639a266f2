// Demos 01.1–01.4: exact column keys and the lecture's conclusions (§1.2–§1.3), at sizes small enough for a test.
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { cell, rowsWhere } from "../lib/core/table";
import { runDemo } from "../lib/demos/index";

const keys = (id: string, overrides: Record<string, unknown> = {}) => runDemo(id, overrides).columns.map((c) => c.key);

describe("demo 01.1 balls into bins", () => {
  const t = runDemo("01.1", { ns: [1000, 100000], trials: 10 });
  it("has the issue's columns and one row per n", () => {
    expect(t.columns.map((c) => c.key)).toEqual(["n", "random", "twoChoice", "randomFormula", "twoChoiceFormula"]);
    expect(t.rows.map((r) => r.n)).toEqual([1000, 100000]);
  });
  it("two-choice is far below random and grows far slower", () => {
    for (const r of t.rows) expect(Number(r.twoChoice)).toBeLessThan(Number(r.random) * 0.7);
    const growRandom = cell(t, { n: 100000 }, "random") - cell(t, { n: 1000 }, "random");
    const growTwo = cell(t, { n: 100000 }, "twoChoice") - cell(t, { n: 1000 }, "twoChoice");
    expect(growTwo).toBeLessThan(growRandom / 2.5);
    // the lecture measured ≈ 5.4 / 3.0 at 1,000 and ≈ 8.2 / 3.4 at 100,000: same neighbourhood
    expect(cell(t, { n: 1000 }, "random")).toBeGreaterThan(4.5);
    expect(cell(t, { n: 1000 }, "random")).toBeLessThan(6.5);
    expect(cell(t, { n: 100000 }, "twoChoice")).toBeGreaterThanOrEqual(3);
    expect(cell(t, { n: 100000 }, "twoChoice")).toBeLessThanOrEqual(4);
    expect(cell(t, { n: 100000 }, "randomFormula")).toBeCloseTo(Math.log(1e5) / Math.log(Math.log(1e5)), 10);
  });
  it("notes state units, seeds and the warm-up rule", () => {
    const notes = (t.notes ?? []).join(" ");
    expect(notes).toMatch(/balls in the fullest bin/);
    expect(notes).toMatch(/seed/);
    expect(notes).toMatch(/warm-up/i);
  });
});

describe("demo 01.2 five policies", () => {
  // full size: the lecture's 16 servers, ρ = 0.9, 50,000 jobs, 8 seeds for heavy tails (≈ 2 s)
  const t = runDemo("01.2");
  const mean = (sizes: string, policy: string) => cell(t, { sizes, policy }, "mean");
  const p99 = (sizes: string, policy: string) => cell(t, { sizes, policy }, "p99");
  it("has the issue's columns and every size × policy row", () => {
    expect(t.columns.map((c) => c.key)).toEqual(["sizes", "policy", "mean", "p99"]);
    expect(t.rows).toHaveLength(10);
    expect(rowsWhere(t, { sizes: "boundedPareto" })).toHaveLength(5);
  });
  it("exponential sizes: random ≈ 1/(1−ρ), round robin about 2× better, JSQ nearly no queueing", () => {
    expect(mean("exponential", "random")).toBeGreaterThan(7);
    expect(mean("exponential", "random")).toBeLessThan(14);
    const ratio = mean("exponential", "random") / mean("exponential", "roundRobin");
    expect(ratio).toBeGreaterThan(1.5);
    expect(ratio).toBeLessThan(2.6);
    expect(mean("exponential", "jsq")).toBeLessThan(1.75);
    expect(mean("exponential", "leastWorkLeft")).toBeLessThanOrEqual(mean("exponential", "jsq"));
    expect(mean("exponential", "powerOfTwo")).toBeLessThan(mean("exponential", "random") / 2);
  });
  it("heavy tails: round robin ≈ random, least-work-left's P99 far below JSQ's", () => {
    const ratio = mean("boundedPareto", "roundRobin") / mean("boundedPareto", "random");
    expect(ratio).toBeGreaterThan(0.8);
    expect(ratio).toBeLessThan(1.2);
    expect(p99("boundedPareto", "jsq")).toBeGreaterThan(1.8 * p99("boundedPareto", "leastWorkLeft"));
    expect(mean("boundedPareto", "jsq")).toBeLessThan(mean("boundedPareto", "random") / 5);
  });
  it("notes give units, seeds and warm-up", () => {
    const notes = (t.notes ?? []).join(" ");
    expect(notes).toMatch(/mean service times/);
    expect(notes).toMatch(/seeds 1\/0 … 1\/7/);
    expect(notes).toMatch(/Warm-up/);
  });
});

describe("demo 01.3 stale information", () => {
  const t = runDemo("01.3", { jobs: 20000, seeds: 2 });
  const mean = (refresh: number, policy: string) => cell(t, { refresh, policy }, "mean");
  it("has the issue's columns and a row per T × policy", () => {
    expect(t.columns.map((c) => c.key)).toEqual(["refresh", "policy", "mean", "p99"]);
    expect(t.rows).toHaveLength(18);
  });
  it("JSQ degrades fast and is worse than random by T = 4; power-of-two barely moves", () => {
    const Ts = [0, 0.5, 1, 2, 4, 8];
    for (let k = 1; k < Ts.length; k++) expect(mean(Ts[k], "jsq")).toBeGreaterThan(mean(Ts[k - 1], "jsq"));
    expect(mean(0, "jsq")).toBeLessThan(mean(0, "powerOfTwo"));
    expect(mean(4, "jsq")).toBeGreaterThan(mean(4, "random"));
    expect(mean(8, "powerOfTwo")).toBeLessThan(mean(8, "random") / 1.5);
    expect(mean(4, "powerOfTwo") / mean(0, "powerOfTwo")).toBeLessThan(1.8);
    expect(mean(4, "jsq") / mean(0, "jsq")).toBeGreaterThan(4);
    // random ignores the snapshot: one reference value
    expect(new Set(rowsWhere(t, { policy: "random" }).map((r) => r.mean)).size).toBe(1);
  });
});

describe("demo 01.4 herding", () => {
  const t = runDemo("01.4", { jobs: 10000 });
  it("stale JSQ sends a large share of each interval to one server; power-of-two keeps queues even", () => {
    expect(keys("01.4", { jobs: 2000 })).toEqual(["policy", "mean", "topServerShare", "queueSpread", "longestQueue"]);
    expect(cell(t, { policy: "jsq" }, "topServerShare")).toBeGreaterThan(2 * cell(t, { policy: "random" }, "topServerShare"));
    expect(cell(t, { policy: "powerOfTwo" }, "queueSpread")).toBeLessThan(cell(t, { policy: "random" }, "queueSpread") / 2);
    expect(cell(t, { policy: "jsq" }, "queueSpread")).toBeGreaterThan(cell(t, { policy: "random" }, "queueSpread"));
  });
});

describe("demo bad input", () => {
  it("throws ParameterErrors naming the parameter", () => {
    expect(() => runDemo("01.2", { utilization: 1 })).toThrow(/utilization: must be a finite number > 0 and < 1/);
    expect(() => runDemo("01.2", { policies: ["fastest"] })).toThrow(ParameterError);
    expect(() => runDemo("01.3", { refreshIntervals: [0, -2] })).toThrow(/refreshIntervals\[1\]/);
    expect(() => runDemo("01.1", { ns: [0] })).toThrow(/ns\[0\]/);
    expect(() => runDemo("01.4", { refresh: 0 })).toThrow(/refresh/);
    expect(() => runDemo("01.2", { jobs: 0 })).toThrow(/jobs/);
  });
});
