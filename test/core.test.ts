import { describe, expect, it } from "vitest";
import { checkInteger, checkNumber, checkOneOf, checkEachOneOf, EventQueue, mean, poissonArrivals, quantile, rng, summarize, Zipf, ParameterError } from "../lib/core";

describe("rng", () => {
  it("same seed, same numbers; forks are independent of each other and of the order they are made", () => {
    const a = rng(7);
    const b = rng(7);
    expect(Array.from({ length: 5 }, () => a.uniform())).toEqual(Array.from({ length: 5 }, () => b.uniform()));
    const x1 = rng(7).fork("x").uniform();
    const r = rng(7);
    r.fork("y").uniform();
    expect(r.fork("x").uniform()).toBe(x1);
    expect(rng(7).fork("y").uniform()).not.toBe(x1);
  });
  it("exponential sample mean and Poisson arrivals rate match theory within sampling error", () => {
    const r = rng(1);
    const xs = Array.from({ length: 200000 }, () => r.exponential(2));
    expect(mean(xs)).toBeGreaterThan(1.97);
    expect(mean(xs)).toBeLessThan(2.03);
    const times = poissonArrivals(rng(2), 5, 100000);
    expect(100000 / times[times.length - 1]).toBeCloseTo(5, 1);
  });
  it("bounded Pareto stays in bounds; lognormal median is exp(mu)", () => {
    const r = rng(3);
    for (let i = 0; i < 10000; i++) {
      const x = r.boundedPareto(1.5, 0.3, 1000);
      expect(x).toBeGreaterThanOrEqual(0.3 - 1e-9);
      expect(x).toBeLessThanOrEqual(1000 + 1e-6);
    }
    const ys = Array.from({ length: 50001 }, () => r.lognormal(1, 2));
    expect(quantile(ys, 0.5)).toBeGreaterThan(Math.exp(1) * 0.95);
    expect(quantile(ys, 0.5)).toBeLessThan(Math.exp(1) * 1.05);
  });
  it("rejects a seed that is neither number nor string", () => {
    expect(() => rng(NaN)).toThrow(/seed/);
  });
});

describe("Zipf", () => {
  it("probabilities sum to one and follow 1/k^s; top-3 share of Zipf(1.1) over 300 is about 36%", () => {
    const z = new Zipf(300, 1.1);
    let sum = 0;
    for (const p of z.probabilities) sum += p;
    expect(sum).toBeCloseTo(1, 12);
    expect(z.probabilities[0] / z.probabilities[1]).toBeCloseTo(Math.pow(2, 1.1), 10);
    let h = 0;
    for (let k = 1; k <= 300; k++) h += Math.pow(k, -1.1);
    expect(z.topShare(3)).toBeCloseTo((1 + Math.pow(2, -1.1) + Math.pow(3, -1.1)) / h, 12);
    expect(z.topShare(3)).toBeGreaterThan(0.35);
    expect(z.topShare(3)).toBeLessThan(0.37);
  });
  it("samples follow the probabilities", () => {
    const z = new Zipf(10, 1);
    const r = rng(4);
    const counts = new Array(10).fill(0);
    for (let i = 0; i < 100000; i++) counts[z.sample(r)]++;
    for (let k = 0; k < 10; k++) expect(Math.abs(counts[k] / 100000 - z.probabilities[k])).toBeLessThan(0.01);
  });
});

describe("EventQueue", () => {
  it("pops in time order, ties in insertion order", () => {
    const q = new EventQueue<string>();
    const r = rng(5);
    const items: Array<[number, string]> = [];
    for (let i = 0; i < 2000; i++) {
      const t = Math.floor(r.uniform() * 50);
      items.push([t, `e${i}`]);
      q.push(t, `e${i}`);
    }
    const expected = [...items].sort((a, b) => a[0] - b[0] || Number(a[1].slice(1)) - Number(b[1].slice(1))).map((x) => x[1]);
    const got: string[] = [];
    while (q.size) got.push((q.pop() as { item: string }).item);
    expect(got).toEqual(expected);
    expect(q.pop()).toBeUndefined();
  });

  // The simulator's iteration: peek the earliest, push notices while handling it, then put the next iteration in its
  // place (or remove it). The events must come out exactly as with popItem() first and push() last.
  it("peekItem + pushes + replaceTop / removeTop pop the same sequence as popItem + pushes + push", () => {
    for (const seed of [1, 2, 3]) {
      const a = new EventQueue<string>();
      const b = new EventQueue<string>();
      const r = rng(seed);
      let k = 0;
      const both = (t: number) => {
        const item = `e${k++}`;
        a.push(t, item);
        b.push(t, item);
      };
      for (let i = 0; i < 8; i++) both(Math.floor(r.uniform() * 5));
      const gotA: string[] = [];
      const gotB: string[] = [];
      for (let step = 0; step < 3000 && a.size > 0; step++) {
        const itemA = a.peekItem() as string;
        const itemB = b.popItem() as string;
        expect(a.lastTime).toBe(b.lastTime);
        gotA.push(itemA);
        gotB.push(itemB);
        const now = a.lastTime;
        // notices pushed while the event is handled: no earlier than now, ties included
        const notices = Math.floor(r.uniform() * 3);
        for (let j = 0; j < notices; j++) both(now + Math.floor(r.uniform() * 3));
        if (r.uniform() < 0.85 || step < 100) {
          const next = now + Math.floor(r.uniform() * 4); // the same time included
          const item = `e${k++}`;
          a.replaceTop(next, item);
          b.push(next, item);
        } else a.removeTop();
        expect(a.size).toBe(b.size);
      }
      while (a.size > 0) gotA.push(a.popItem() as string);
      while (b.size > 0) gotB.push(b.popItem() as string);
      expect(gotA).toEqual(gotB);
      expect(gotA.length).toBeGreaterThan(3000);
    }
  });

  it("replaceTop and removeTop on an empty queue throw", () => {
    const q = new EventQueue<number>();
    expect(() => q.replaceTop(1, 1)).toThrow(/empty/);
    expect(() => q.removeTop()).toThrow(/empty/);
    expect(q.peekItem()).toBeUndefined();
  });
});

describe("stats", () => {
  it("summary of 1..100", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    const s = summarize(xs);
    expect(s.mean).toBe(50.5);
    expect(s.max).toBe(100);
    expect(s.p99).toBeGreaterThanOrEqual(99);
    expect(Number.isNaN(summarize([]).mean)).toBe(true);
  });
});

describe("parameter checks", () => {
  it("name the parameter and the range", () => {
    expect(() => checkNumber("rho", 1, { min: 0, below: 1 })).toThrow("参数 rho：应为 ≥ 0 且 < 1 的有限数，实际是 1");
    expect(() => checkInteger("n", 2.5, { min: 1 })).toThrow("参数 n：应为 ≥ 1 的整数，实际是 2.5");
    expect(() => checkOneOf("policy", "best", ["random", "jsq"])).toThrow('参数 policy：应为以下之一："random"、"jsq"，实际是 "best"');
    expect(() => checkEachOneOf("policies", ["jsq", "fastest"], ["random", "jsq"])).toThrow('参数 policies[1]：应为以下之一："random"、"jsq"，实际是 "fastest"');
    expect(() => checkEachOneOf("policies", [], ["random"])).toThrow("参数 policies：应为非空数组");
    expect(() => checkNumber("x", NaN)).toThrow(ParameterError);
    expect(checkNumber("x", 0.5, { min: 0, max: 1 })).toBe(0.5);
  });
});
