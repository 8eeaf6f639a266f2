// §1 on the page (notebook 01): the five dispatch policies written as plain functions in the notebook's `algorithm`
// cells make exactly the decisions of the library's named policies — every job of demo 01.2's runs (same seeds, same
// job counts), and under stale information (01.3) — an edit of the page (power of two → power of three) changes the
// decisions and the table, and a broken policy stops the run with one Chinese line naming the job and what it did.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { UserCodeError } from "../lib/core/errors";
import { RESULT_CACHE_VARIABLE } from "../lib/demos/result-cache";
import { runDemo } from "../lib/demos/registry";
import "../lib/demos/index";
import { DispatchOptions, DispatchPolicy, seedList, simulateDispatch } from "../lib/dispatch/index";
import { algorithmCells, loadPageCode } from "./support/page-code";

const NOTEBOOK = "01-classic-load-balancing.ipynb";
const page = loadPageCode(NOTEBOOK);
const NAMES: DispatchPolicy[] = ["random", "roundRobin", "jsq", "powerOfTwo", "leastWorkLeft"];
const pagePolicies = () => NAMES.map((n) => page[n]);

/** The server every job went to. */
function decisions(options: Omit<DispatchOptions, "recordJobs">): Int32Array {
  return simulateDispatch({ ...options, recordJobs: true }).records!.server;
}

/** Index of the first job where two runs differ (-1 when none). */
function firstDifference(a: Int32Array, b: Int32Array): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

// demo 01.2's defaults: the runs its table is made of
const P12 = { servers: 16, utilization: 0.9, jobs: 50000, exponentialSeeds: 4, heavyTailJobs: 250000, heavyTailSeeds: 3, warmupFraction: 0.2, seed: 1 };
const RUNS = [
  ...seedList(P12.seed, P12.exponentialSeeds).map((seed) => ({ sizes: "exponential" as const, jobs: P12.jobs, seed })),
  ...seedList(P12.seed, P12.heavyTailSeeds).map((seed) => ({ sizes: "boundedPareto" as const, jobs: P12.heavyTailJobs, seed })),
];

describe("the page's dispatch policies", () => {
  it("are in cells tagged algorithm, each at most ~30 lines, and their names are not lib/index exports", async () => {
    const lib = await import("../lib/index");
    const cells = algorithmCells(NOTEBOOK);
    expect(cells.length).toBeGreaterThanOrEqual(3);
    for (const c of cells) expect(c.source.split("\n").length).toBeLessThanOrEqual(32);
    for (const name of Object.keys(page)) expect(Object.keys(lib)).not.toContain(name);
    for (const n of NAMES) expect(typeof page[n]).toBe("function");
  });

  for (const name of NAMES) {
    it(`${name}: every decision of demo 01.2's runs equals the library's`, () => {
      for (const run of RUNS) {
        const options = { servers: P12.servers, utilization: P12.utilization, warmupFraction: P12.warmupFraction, ...run };
        const library = decisions({ ...options, policy: name });
        const onPage = decisions({ ...options, policy: page[name] });
        expect(library.length).toBe(run.jobs);
        expect(firstDifference(onPage, library), `${name}, ${run.sizes}, seed ${run.seed}`).toBe(-1);
      }
    });
  }

  it("under stale information (01.3's snapshots) every decision equals the library's", () => {
    for (const name of ["jsq", "powerOfTwo", "leastWorkLeft"] as const) {
      for (const refresh of [0.5, 4]) {
        const options = { servers: 16, utilization: 0.9, jobs: 20000, refresh, seed: "1/0" };
        expect(firstDifference(decisions({ ...options, policy: page[name] }), decisions({ ...options, policy: name })), `${name}, T = ${refresh}`).toBe(-1);
      }
    }
  });

  it("demo 01.2 with the page's functions gives the library's table (row for row), and 01.3 and 01.4 take them too", () => {
    const small = { jobs: 4000, heavyTailJobs: 4000, exponentialSeeds: 2, heavyTailSeeds: 2 };
    const library = runDemo("01.2", small);
    const onPage = runDemo("01.2", { ...small, policies: pagePolicies() });
    expect(onPage.rows).toEqual(library.rows);
    expect(onPage.claims).toEqual(library.claims);
    expect((onPage.notes ?? []).join("\n")).toContain("你传入的策略函数");
    const stale = { jobs: 3000, seeds: 2, refreshIntervals: [0, 2] };
    expect(runDemo("01.3", { ...stale, policies: [page.jsq, page.powerOfTwo, page.random] }).rows).toEqual(runDemo("01.3", stale).rows);
    const herd = { jobs: 3000, seeds: 2 };
    expect(runDemo("01.4", { ...herd, policies: [page.random, page.jsq, page.powerOfTwo] }).rows).toEqual(runDemo("01.4", herd).rows);
  });
});

describe("editing the page", () => {
  const edited = loadPageCode(NOTEBOOK, [{ from: "d = 2", to: "d = 3" }]);

  it("power of two → power of three: different decisions, and a different 01.2 table", () => {
    const options = { servers: 16, utilization: 0.9, jobs: 20000, seed: "1/0" };
    const two = decisions({ ...options, policy: page.powerOfTwo });
    const three = decisions({ ...options, policy: edited.powerOfTwo });
    expect(firstDifference(three, two)).toBeGreaterThanOrEqual(0);
    // the other policies are untouched by the edit
    expect(firstDifference(decisions({ ...options, policy: edited.jsq }), decisions({ ...options, policy: "jsq" }))).toBe(-1);
    const small = { jobs: 4000, heavyTailJobs: 4000, exponentialSeeds: 2, heavyTailSeeds: 2 };
    const before = runDemo("01.2", { ...small, policies: pagePolicies() });
    const after = runDemo("01.2", { ...small, policies: NAMES.map((n) => edited[n]) });
    const rowOf = (t: typeof before, sizes: string) => t.rows.find((r) => r.policy === "powerOfTwo" && r.sizes === sizes)!;
    expect(rowOf(after, "exponential").mean).not.toBe(rowOf(before, "exponential").mean);
    // a third look helps (the mean-field limit falls from d = 2 to d = 3)
    expect(rowOf(after, "exponential").mean as number).toBeLessThan(rowOf(before, "exponential").mean as number);
    expect(after.rows.filter((r) => r.policy !== "powerOfTwo")).toEqual(before.rows.filter((r) => r.policy !== "powerOfTwo"));
  });

  it("an edited function is never answered from the result cache", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "l11-page-cache-"));
    const saved = process.env[RESULT_CACHE_VARIABLE];
    process.env[RESULT_CACHE_VARIABLE] = dir;
    try {
      const small = { jobs: 2000, heavyTailJobs: 2000, exponentialSeeds: 1, heavyTailSeeds: 1, sizes: ["exponential"] };
      // the same source text and name, different behaviour (d comes from outside the function)
      const make = (d: number) => ({ name: "mine", choose: (s: any, r: any) => page.powerOfTwo(s, r, d) });
      const a = runDemo("01.2", { ...small, policies: [make(2)] });
      const b = runDemo("01.2", { ...small, policies: [make(5)] });
      expect(b.rows[0].mean).not.toBe(a.rows[0].mean);
      expect(fs.readdirSync(dir).flatMap((d) => fs.readdirSync(path.join(dir, d)))).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env[RESULT_CACHE_VARIABLE];
      else process.env[RESULT_CACHE_VARIABLE] = saved;
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a student's broken policy", () => {
  const options = { servers: 16, utilization: 0.9, jobs: 1000, seed: "s" };
  /** The error simulateDispatch throws for `policy` (a UserCodeError, one line). */
  function failure(policy: DispatchOptions["policy"], extra: Partial<DispatchOptions> = {}): UserCodeError {
    try {
      simulateDispatch({ ...options, ...extra, policy });
    } catch (e) {
      expect(e).toBeInstanceOf(UserCodeError);
      const message = (e as Error).message;
      expect(message).not.toContain("\n");
      return e as UserCodeError;
    }
    throw new Error("expected the run to stop");
  }
  // job #7: the arrival time the message must name
  const arrival7 = simulateDispatch({ ...options, policy: "random", recordJobs: true }).records!.arrival[7];
  const at7 = (value: unknown) => function mine(servers: { job: number }) {
    return servers.job === 7 ? (value as number) : 0;
  };

  for (const [value, shown] of [[-1, "-1"], [NaN, "NaN"], [3.5, "3.5"], [16, "16"], ["3", '"3"'], [undefined, "undefined"]] as const) {
    it(`returning ${shown} names the job and the value`, () => {
      const m = failure(at7(value)).message;
      expect(m).toContain("派发策略 mine");
      expect(m).toContain("请求 #7");
      expect(m).toContain(`到达时刻 ${arrival7.toFixed(3)}`);
      expect(m).toContain(`返回了 ${shown}`);
      expect(m).toContain("0–15 的整数");
    });
  }

  it("throwing names the job and what was thrown (first line only)", () => {
    const m = failure({ name: "炸了", choose: (s) => (s.job === 3 ? (null as any).x : 0) }).message;
    expect(m).toMatch(/^派发策略 炸了 在请求 #3（.*到达时刻 \d+\.\d{3}.*）抛出了错误：TypeError: /);
    const m2 = failure((s) => s.queueLength(99)).message;
    expect(m2).toContain("请求 #0");
    expect(m2).toContain("queueLength(99)");
  });

  it("looping forever (or just too long) stops the run at its time limit, naming the job being dispatched", () => {
    const loops = { name: "转圈", timeLimit: 0.3, choose: (s: { job: number }) => { if (s.job === 40) for (;;) { /* a student's endless loop */ } return 0; } };
    const m = failure(loops).message;
    expect(m).toMatch(/^派发策略 转圈 在请求 #40（.*到达时刻 \d+\.\d{3}.*）时还没算完，这次运行超过了时间上限 0.3 秒/);
    const slow = { name: "慢", timeLimit: 0.05, choose: () => { const until = Date.now() + 5; while (Date.now() < until); return 0; } };
    expect(failure(slow).message).toMatch(/^派发策略 慢 在请求 #\d+（.*）时还没算完/);
    // the guard leaves the next run alone
    expect(simulateDispatch({ ...options, policy: page.jsq }).mean).toBe(simulateDispatch({ ...options, policy: "jsq" }).mean);
  });

  it("in a demo: the same one line, and no table", () => {
    expect(() => runDemo("01.2", { jobs: 500, heavyTailJobs: 500, exponentialSeeds: 1, heavyTailSeeds: 1, policies: ["jsq", at7(-1)] })).toThrow(/^派发策略 mine 在请求 #7（.*）返回了 -1/);
  });

  it("a bad policy object is a ParameterError naming it", () => {
    expect(() => runDemo("01.2", { policies: [{ name: "", choose: () => 0 }] })).toThrow(/policies\[0\]\.name/);
    expect(() => runDemo("01.2", { policies: [{ name: "x", choose: () => 0, timeLimit: -1 }] })).toThrow(/policies\[0\]\.timeLimit/);
    expect(() => runDemo("01.2", { policies: [page.jsq, "jsq"] })).toThrow(/重复/);
  });
});
