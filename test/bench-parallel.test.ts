// mapParallel (lib/core/parallel): the same results in the same order as a plain map, with worker threads or
// without; a throwing call surfaces the genuine exception; simulateMany gives what simulateCluster gives.
import * as path from "path";
import { afterAll, describe, expect, it } from "vitest";
import { closeParallelPool, defaultThreads, mapParallel, parallelStatus, parallelTask, SMALL_MACHINE_MIN_TASKS, SMALL_MACHINE_MIN_WORK, threadsFor } from "../lib/core/parallel";
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
  // long enough (≈ 5–15 ms each) for a worker to start within the call: a worker that is not running yet when the
  // calling thread runs out of calls has its queued calls taken back
  const args: Array<[number, number]> = Array.from({ length: 24 }, (_, i) => [i * 7919 + 1, 2_000_000 + ((i * 37) % 11) * 500_000]);
  const expected = args.map(([s, n]) => walk(s, n));

  it("with worker threads: same values, in the order given, and some calls really ran in a worker", () => {
    // The calling thread is thread 0; the pool's threads have other ids. The calling thread also takes back calls a
    // worker has not started, so a cold worker on a busy machine may get none of a call's (CI once saw that): the
    // values are checked on every round, and over a few rounds with the pool started at least one call must go to
    // a worker — the property is that workers are used, not how soon.
    let inWorker = false;
    for (let round = 0; round < 6 && !inWorker; round++) {
      const got = mapParallel(walkTask, args, { threads: 3, weights: args.map(([, n]) => n) });
      expect(got.map((r) => [r.seed, r.sum])).toEqual(expected.map((r) => [r.seed, r.sum]));
      expect(parallelStatus().lastWorkerError).toBeNull();
      inWorker = got.some((r) => r.thread !== 0);
    }
    expect(inWorker, "no call of six rounds of 24 ran in a worker thread").toBe(true);
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

  it("LECTURE_THREADS sets the default thread count", () => {
    const saved = process.env.LECTURE_THREADS;
    try {
      process.env.LECTURE_THREADS = "3";
      expect(defaultThreads()).toBe(3);
      expect(defaultThreads(2)).toBe(3);
      delete process.env.LECTURE_THREADS;
      expect(defaultThreads()).toBeGreaterThanOrEqual(1);
    } finally {
      if (saved === undefined) delete process.env.LECTURE_THREADS;
      else process.env.LECTURE_THREADS = saved;
    }
  });

  it("the default: CPUs − 1 from 4 CPUs up; on 2–3 CPUs two threads only for a call of ≥ 16 tasks (and ≥ 90,000 simulated requests when it says); one on 1 CPU", () => {
    expect(SMALL_MACHINE_MIN_TASKS).toBe(16);
    expect(threadsFor(8, 3)).toBe(7);
    expect(threadsFor(4, 1000)).toBe(3);
    expect(threadsFor(2, 16)).toBe(2);
    expect(threadsFor(3, 16)).toBe(2);
    expect(threadsFor(2, 15)).toBe(1);
    expect(threadsFor(2, 162)).toBe(2);
    expect(threadsFor(1, 1000)).toBe(1);
    // LECTURE_THREADS wins, whatever the call's size; junk is ignored
    expect(threadsFor(2, 3, "2")).toBe(2);
    expect(threadsFor(16, 3, "1")).toBe(1);
    expect(threadsFor(2, 3, "zwei")).toBe(1);
    // a call that says its work (simulated requests): on 2–3 CPUs a worker only from SMALL_MACHINE_MIN_WORK up
    expect(SMALL_MACHINE_MIN_WORK).toBe(90_000);
    expect(threadsFor(2, 16, undefined, 90_000)).toBe(2);
    expect(threadsFor(2, 16, undefined, 89_999)).toBe(1);
    expect(threadsFor(3, 100, undefined, 21_000)).toBe(1);
    expect(threadsFor(2, 15, undefined, 1e6)).toBe(1);
    expect(threadsFor(4, 16, undefined, 10)).toBe(3);
    expect(threadsFor(2, 16, "2", 10)).toBe(2);
    expect(threadsFor(2, 3, "0")).toBe(1);
  });

  it("a call waiting in a worker's queue is taken back when this thread runs out of its own: each call runs once", () => {
    mapParallel(walkTask, args.slice(0, 4), { threads: 2 }); // the pool is up
    // the long call first in line: the worker runs it and queues the next; this thread runs the last two (long
    // enough for the worker to have started the first), then takes back the one queued behind the long call instead
    // of waiting for the worker to reach it. Each call runs once with its own value on every round; the take-back
    // needs the worker to have started in time, which a loaded machine can deny one round (seen once beside other
    // test runs), so it must show in one of five.
    const calls: Array<[number, number]> = [[101, 30_000_000], [102, 2_000], [103, 1_000_000], [104, 1_000_000]];
    const want = calls.map(([s, n]) => walk(s, n).sum);
    const threads: number[][] = [];
    for (let round = 0; round < 5; round++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200); // the worker idle again
      const seen = [0, 0, 0, 0];
      const got = mapParallel(walkTask, calls, { threads: 2, weights: [10, 3, 2, 2], onResult: (i) => seen[i]++ });
      expect(seen).toEqual([1, 1, 1, 1]);
      expect(got.map((r) => r.sum)).toEqual(want);
      threads.push(got.map((r) => r.thread));
      if (got[0].thread !== 0 && got[1].thread === 0) return;
    }
    throw new Error(`no round of five ran the long call in the worker and took the next one back (threads per round: ${JSON.stringify(threads)})`);
  });

  it("workers keep two calls queued: 40 short calls on two threads, each index once, the same values; after an exception with calls still queued, the next call gets only its own results", () => {
    const many: Array<[number, number]> = Array.from({ length: 40 }, (_, i) => [i + 11, 1_000_000 + (i % 5) * 200_000]);
    const seen = new Array(40).fill(0);
    const got = mapParallel(walkTask, many, { threads: 2, onResult: (i) => seen[i]++ });
    expect(seen.every((c) => c === 1)).toBe(true);
    expect(got.map((r) => r.sum)).toEqual(many.map(([s, n]) => walk(s, n).sum));
    expect(got.some((r) => r.thread !== 0)).toBe(true);
    // the throwing call comes first in line, long calls queue behind it in the worker
    const bad: Array<[number, number]> = [[5, -1], [6, 400_000], [7, 400_000], [8, 400_000]];
    expect(() => mapParallel(walkTask, bad, { threads: 2 })).toThrow(/steps: must be ≥ 0, got -1/);
    const after = mapParallel(walkTask, many.slice(0, 10), { threads: 2 });
    expect(after.map((r) => [r.seed, r.sum])).toEqual(many.slice(0, 10).map(([s, n]) => [walk(s, n).seed, walk(s, n).sum]));
  });
});
