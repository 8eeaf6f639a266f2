// Bench "sim-throughput", part 2 (with bench/cluster.ts): how the cluster simulator scales with the run's length —
// 1,000 → 10,000 → 100,000 requests of long-document QA (4 replicas, round robin, 1 req/s) and of tool calling with
// a hot tool (8 replicas, cacheAwareGuarded, 70 req/s) — and the peak memory of each run.
//
// Each run is a fresh `node` process on the compiled library (build/lib, rebuilt first if lib/ changed), so its
// peak resident set (maxRSS) is its own. Three 2,000-request runs on other seeds warm the JIT first; the time then
// covers generating the workload and simulating it (not starting node or loading the library). Best of
// --repeats=N (default 2) by wall time.
//
// Usage: npx tsx bench/sim-scaling.ts [--json] [--repeats=N]
//   JSON: { "sim-throughput": { "<workload>.<n>.requestsPerSecond": {…}, ….peakRssMB, … } }
import { spawnSync } from "child_process";
import * as os from "os";
import * as path from "path";

const ROOT = path.join(__dirname, "..");

interface Metric {
  value: number;
  unit: string;
}

interface RunFigures {
  wall: number;
  cpu: number;
  iterations: number;
  rssMB: number;
  heapMB: number;
}

const CASES = [
  { key: "longDoc", workload: "longDocQA", rate: 1, replicas: 4, router: "roundRobin", label: "long-document QA, 4 replicas, round robin, 1 req/s" },
  { key: "toolCalling", workload: "toolCallingHotSpot", rate: 70, replicas: 8, router: "cacheAwareGuarded", label: "tool calling with a hot tool, 8 replicas, cacheAwareGuarded, 70 req/s" },
];

// Runs in the child: one simulation, then its figures as JSON on stdout.
const CHILD = `
const { simulateCluster } = require(process.env.SIM_LIB);
const o = JSON.parse(process.env.SIM_CASE);
// JIT warm-up on other seeds (so the measured run's workload is generated inside the timing too).
for (let k = 0; k < 3; k++) simulateCluster({ workload: o.workload, rate: o.rate, replicas: o.replicas, router: o.router, requestCount: 2000, seed: "warm-up " + k });
const c0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const r = simulateCluster({ workload: o.workload, rate: o.rate, replicas: o.replicas, router: o.router, requestCount: o.n, seed: "bench" });
const wall = Number(process.hrtime.bigint() - t0) / 1e9;
const c = process.cpuUsage(c0);
const m = process.memoryUsage();
console.log(JSON.stringify({ wall, cpu: (c.user + c.system) / 1e6, iterations: r.iterations, rssMB: process.resourceUsage().maxRSS / 1024, heapMB: m.heapUsed / 1048576 }));
`;

function runOnce(c: (typeof CASES)[number], n: number): RunFigures {
  const r = spawnSync(process.execPath, ["-e", CHILD], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, SIM_LIB: path.join(ROOT, "build", "lib", "cluster", "index.js"), SIM_CASE: JSON.stringify({ ...c, n }) },
    maxBuffer: 1 << 20,
  });
  if (r.status !== 0) throw new Error(`sim-scaling: ${c.key} n = ${n} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop() as string) as RunFigures;
}

const round = (x: number, digits = 3) => Number(x.toPrecision(digits));

export function benchSimScaling(repeats = 2, progress?: (m: string) => void): { "sim-throughput": Record<string, Metric> } {
  const build = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build-lib.mjs")], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`sim-scaling: npm run build failed:\n${build.stdout}${build.stderr}`);
  const out: Record<string, Metric> = {};
  for (const c of CASES) {
    const perRequest: number[] = [];
    for (const n of [1_000, 10_000, 100_000]) {
      progress?.(`sim-scaling: ${c.key}, ${n} requests`);
      let best: RunFigures | null = null;
      for (let k = 0; k < repeats; k++) {
        const f = runOnce(c, n);
        if (!best || f.wall < best.wall) best = f;
      }
      const b = best as RunFigures;
      const key = `${c.key}.${n}`;
      perRequest.push(b.wall / n);
      out[`${key}.requestsPerSecond`] = { value: round(n / b.wall), unit: `simulated requests per wall-second (${c.label}; ${n.toLocaleString("en")} requests, best of ${repeats})` };
      out[`${key}.iterationsPerSecond`] = { value: round(b.iterations / b.wall), unit: "engine iterations per wall-second (same run)" };
      out[`${key}.cpuSeconds`] = { value: round(b.cpu), unit: "CPU s of the run (user + system, GC threads included)" };
      out[`${key}.peakRssMB`] = { value: round(b.rssMB), unit: "MB, peak resident set of the process (node itself ≈ 40–50 MB)" };
      out[`${key}.heapUsedMB`] = { value: round(b.heapMB), unit: "MB of JS heap in use at the end (records of every request kept)" };
    }
    out[`${c.key}.secondsPerRequest100kOver1k`] = { value: round(perRequest[2] / perRequest[0]), unit: "wall s per request at 100,000 ÷ at 1,000 (1 = linear scaling)" };
  }
  return { "sim-throughput": out };
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const r = argv.find((a) => a.startsWith("--repeats="));
  const tty = process.stderr.isTTY;
  const result = benchSimScaling(r ? Number(r.slice("--repeats=".length)) : 2, (m) => tty && process.stderr.write(`\r${m}\x1b[K`));
  if (tty) process.stderr.write("\r\x1b[K");
  if (argv.includes("--json")) console.log(JSON.stringify(result));
  else {
    console.log(`bench/sim-scaling.ts — Node ${process.version}, ${os.cpus().length} CPU(s), load average ${os.loadavg()[0].toFixed(1)}`);
    for (const [name, m] of Object.entries(result["sim-throughput"])) console.log(`  ${name.padEnd(44)} ${String(m.value).padStart(10)}  ${m.unit}`);
  }
}
