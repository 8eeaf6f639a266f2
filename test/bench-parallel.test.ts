// mapParallel (lib/core/parallel): the same results in the same order as a plain map, with worker threads or
// without; a throwing call surfaces the genuine exception; simulateMany gives what simulateCluster gives.
import * as path from "path";
import { afterAll, describe, expect, it } from "vitest";
import { closeParallelPool, defaultThreads, mapParallel, parallelStatus, parallelTask } from "../lib/core/parallel";
import { simulateCluster } from "../lib/cluster/simulate";
import { simulateMany, simulateSummary } from "../lib/cluster/sweep";
import { configurationRun } from "../lib/cluster/preble/runs";

// eslint-disable-next-line @typescript-eslint/no-var-requires
const fixtureFile = path.join(__dirname, "fixtures", "parallel-task.cjs");
// eslint-disable-next-line @typescript-eslint/no-var-requires
const { walk } = require(fixtureFile) as { walk: (seed: number, steps: number) => { seed: number; sum: number; thread: number } };
const walkTask = parallelTask(fixtureFile, "walk", walk);

afterAll(async () => {
  await closeParallelPool();
});

describe("mapParallel", () => {
  const args: Array<[number, number]> = Array.from({ length: 24 }, (_, i) => [i * 7919 + 1, 20_000 + ((i * 37) % 11) * 5_000]);
  const expected = args.map(([s, n]) => walk(s, n));

  it("with worker threads: same values, in the order given, and some calls really ran in a worker", () => {
    const got = mapParallel(walkTask, args, { threads: 3, weights: args.map(([, n]) => n) });
    expect(got.map((r) => [r.seed, r.sum])).toEqual(expected.map((r) => [r.seed, r.sum]));
    expect(parallelStatus().lastWorkerError).toBeNull();
    // The calling thread is thread 0; the pool's threads have other ids. The calling thread also takes calls, so
    // a worker that starts slowly may get few of them, but over 24 calls at least one goes to a worker.
    expect(got.some((r) => r.thread !== 0)).toBe(true);
  });

  it("reports completions through onResult, each index once", () => {
    const seen: number[] = [];
    let last = 0;
    mapParallel(walkTask, args.slice(0, 8), { threads: 2, onResult: (i, done, total) => (seen.push(i), (last = done), expect(total).toBe(8)) });
    expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(last).toBe(8);
  });

  it("with one thread: a plain map in the calling thread", () => {
    const got = mapParallel(walkTask, args.slice(0, 5), { threads: 1 });
    expect(got).toEqual(expected.slice(0, 5));
    expect(got.every((r) => r.thread === 0)).toBe(true);
  });

  it("a call that throws in a worker rethrows the genuine exception here; the next call still works", () => {
    const bad: Array<[number, number]> = [[1, 10], [2, -1], [3, 10]];
    expect(() => mapParallel(walkTask, bad, { threads: 2 })).toThrow(/steps: must be ≥ 0, got -1/);
    expect(mapParallel(walkTask, args.slice(0, 6), { threads: 2 }).map((r) => r.sum)).toEqual(expected.slice(0, 6).map((r) => r.sum));
  });

  it("TypeScript sources under vitest run in the calling thread (workers could not load them), same results", () => {
    const runs = [
      configurationRun({ workload: "videoQA", rate: 4, replicas: 4, configuration: "preble", requestCount: 300, seed: 3 }),
      configurationRun({ workload: "toolCalling", rate: 32, replicas: 4, configuration: "baseline", requestCount: 300, seed: 3 }),
    ];
    const saved = process.env.LECTURE_THREADS;
    process.env.LECTURE_THREADS = "2";
    let many;
    try {
      many = simulateMany(runs);
    } finally {
      if (saved === undefined) delete process.env.LECTURE_THREADS;
      else process.env.LECTURE_THREADS = saved;
    }
    expect(parallelStatus().unavailable).toMatch(/TypeScript sources outside tsx/);
    expect(many).toEqual(runs.map((o) => simulateSummary(o)));
    expect(many[0].metrics).toEqual(simulateCluster(runs[0]).metrics);
  });

  it("LECTURE_THREADS sets the default thread count; ≤ 2 CPUs default to one thread", () => {
    const saved = process.env.LECTURE_THREADS;
    try {
      process.env.LECTURE_THREADS = "3";
      expect(defaultThreads()).toBe(3);
      delete process.env.LECTURE_THREADS;
      expect(defaultThreads()).toBeGreaterThanOrEqual(1);
    } finally {
      if (saved === undefined) delete process.env.LECTURE_THREADS;
      else process.env.LECTURE_THREADS = saved;
    }
  });
});
