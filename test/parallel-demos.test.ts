// The multi-run cells spread over worker threads (issue 27): 02.1, 02.2, 02.3 and 06.4 give the same table with
// workers as in one thread. Runs the compiled library (build/lib, rebuilt if stale) in child processes, because
// workers cannot load TypeScript sources under vitest; smaller runs than the defaults, the same code paths.
import { spawnSync } from "child_process";
import * as path from "path";
import { beforeAll, describe, expect, it } from "vitest";

const ROOT = path.join(__dirname, "..");

const CHILD = `
const lib = process.env.LIB;
const { runDemo } = require(lib + "/demos/index");
const { parallelStatus } = require(lib + "/core/parallel");
const progress = [];
const ctx = { progress: (m) => progress.push(m) };
const tables = {
  "02.1": runDemo("02.1", { requestCounts: [240, 300, 600], policies: ["roundRobin", "leastLoad", "thresholdAffinity"], seeds: 2 }, ctx),
  "02.2": runDemo("02.2", { replicas: [2, 4], requestsPerReplica: 80, seeds: 2 }, ctx),
  "02.3": runDemo("02.3", { requestCounts: [240, 300, 600], seeds: 2 }, ctx),
  "06.4": runDemo("06.4", { minutes: 4, loads: [0.5, 1], policies: ["roundRobin", "cacheAwareGuarded", "e2"] }, ctx),
};
const strip = (t) => JSON.stringify({ rows: t.rows, notes: t.notes, claims: t.claims });
const out = {};
for (const [id, t] of Object.entries(tables)) out[id] = strip(t);
console.log(JSON.stringify({ out, status: parallelStatus(), progress }));
`;

function run(threads: string): { out: Record<string, string>; status: { unavailable: string | null; lastWorkerError: string | null; workers: number }; progress: string[] } {
  const r = spawnSync(process.execPath, ["-e", CHILD], { cwd: ROOT, encoding: "utf8", env: { ...process.env, LIB: path.join(ROOT, "build", "lib"), LECTURE_THREADS: threads, LECTURE_RESULT_CACHE: "off" }, maxBuffer: 64 << 20, timeout: 300_000 });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split("\n").pop() as string);
}

describe("multi-run cells on worker threads", () => {
  beforeAll(() => {
    const b = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build-lib.mjs")], { cwd: ROOT, encoding: "utf8" });
    if (b.status !== 0) throw new Error(b.stdout + b.stderr);
  }, 300_000);

  it("02.1, 02.2, 02.3 and 06.4: the same tables with two threads as with one, and a progress line per finished run", () => {
    const one = run("1");
    const two = run("2");
    expect(one.status.workers).toBe(0);
    expect(two.status.workers).toBeGreaterThan(0);
    expect(two.status.lastWorkerError).toBeNull();
    for (const id of ["02.1", "02.2", "02.3", "06.4"]) expect(two.out[id], id).toBe(one.out[id]);
    // 02.1: 3 workloads × 2 seeds × 3 policies; 06.4: 2 loads × 3 routers
    expect(two.progress).toContain("02.1：已完成 18/18 次模拟");
    expect(two.progress).toContain("06.4：已完成 6/6 次重放");
    expect(one.progress).toEqual(expect.arrayContaining(["02.1：已完成 1/18 次模拟", "02.3：已完成 1/30 次模拟"]));
  }, 600_000);

  // A worker thread loads the library's own registries: a router registered in the calling thread (here one under a
  // built-in's name) is unknown there, so once one is, sweeps run in the calling thread — with the router registered.
  it("a router registered in the calling thread is the one a sweep runs (not the worker's built-in of that name)", () => {
    const child = `
const lib = process.env.LIB;
const { registerRouter } = require(lib + "/cluster/routers");
const { simulateMany } = require(lib + "/cluster/sweep");
registerRouter("roundRobin", "test: everything to replica 0", () => ({ name: "zero", route: () => 0 }));
const runs = Array.from({ length: 20 }, (_, k) => ({ workload: "videoQA", rate: 2, replicas: 4, router: "roundRobin", requestCount: 5000, seed: k }));
console.log(JSON.stringify(simulateMany(runs).map((s) => s.metrics.maxShare)));
`;
    const r = spawnSync(process.execPath, ["-e", child], { cwd: ROOT, encoding: "utf8", env: { ...process.env, LIB: path.join(ROOT, "build", "lib"), LECTURE_THREADS: "2", LECTURE_RESULT_CACHE: "off" }, maxBuffer: 64 << 20, timeout: 300_000 });
    if (r.status !== 0) throw new Error(r.stderr);
    const shares = JSON.parse(r.stdout.trim().split("\n").pop() as string) as number[];
    expect(shares).toEqual(Array(20).fill(1));
  }, 600_000);
});
