// Bench for §1 (代码 01): how long the dispatch demos and their kernels take on this machine.
// Usage: npx tsx bench/dispatch.ts [--json]   (plain figures, or one JSON object { balls: {...}, queues: {...} })
import { rng } from "../lib/core/rng";
import { runDemo } from "../lib/demos/index";
import { ballsIntoBins, maxLoadTrial } from "../lib/dispatch/balls-into-bins";
import { simulateDispatch } from "../lib/dispatch/servers";

interface Metric {
  value: number;
  unit: string;
}

// CPU time (user + system) of this process, not wall-clock: the machine is shared, and CPU time is what
// "finishes within a few seconds on one core" means. The text output ends with the total wall-clock time.
function seconds(f: () => void): number {
  const c0 = process.cpuUsage();
  f();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1e6;
}

/** Median of `repeats` timings (after one untimed warm-up call for the JIT). */
function median(f: () => void, repeats = 3): number {
  f();
  const xs = Array.from({ length: repeats }, () => seconds(f)).sort((a, b) => a - b);
  return xs[Math.floor(repeats / 2)];
}

const round = (x: number, digits = 3) => Number(x.toPrecision(digits));

export function benchDispatch(): { balls: Record<string, Metric>; queues: Record<string, Metric> } {
  const n = 1_000_000;
  const loads = new Int32Array(n);
  const random1e6 = median(() => maxLoadTrial(n, 1, rng("bench").fork("d1"), loads));
  const two1e6 = median(() => maxLoadTrial(n, 2, rng("bench").fork("d2"), loads));
  // ballsIntoBins keeps one byte per bin (the same draws and answers as maxLoadTrial's Int32Array)
  const bytes1e6 = median(() => ballsIntoBins({ n, d: 2, trials: 1, seed: "bench" }));
  const demo011Lecture = seconds(() => runDemo("01.1", { ns: [1000, 10000, 100000], choices: [1, 2] }));
  const demo011 = seconds(() => runDemo("01.1"));

  const jobs = 200_000;
  const perJob = (policy: "random" | "jsq" | "leastWorkLeft") => median(() => simulateDispatch({ servers: 16, utilization: 0.9, jobs, policy, seed: "bench" }));
  const randomJobs = perJob("random");
  const jsqJobs = perJob("jsq");
  const lwlJobs = perJob("leastWorkLeft");
  runDemo("01.3", { jobs: 2000, seeds: 1 }); // warm-up
  const demo012 = seconds(() => runDemo("01.2"));
  const demo013 = seconds(() => runDemo("01.3"));
  const demo014 = seconds(() => runDemo("01.4"));
  return {
    balls: {
      demo01_1: { value: round(demo011), unit: "CPU s (defaults: n = 10^2…10^6, d = 1…4, 20 trials, ≤ 10^6 balls per point, ≥ 3 trials)" },
      demo01_1TwoChoicesToTenThousand: { value: round(demo011Lecture), unit: "CPU s (n = 10^3…10^5, d = 1 and 2, 20 / 20 / 10 trials)" },
      trialTwoChoice1e6Bytes: { value: round(bytes1e6 * 1000), unit: "ms per trial (n = 10^6, d = 2, one byte per bin as in ballsIntoBins)" },
      trialRandom1e6: { value: round(random1e6 * 1000), unit: "ms per trial (n = 10^6, d = 1)" },
      trialTwoChoice1e6: { value: round(two1e6 * 1000), unit: "ms per trial (n = 10^6, d = 2)" },
      ballsPerSecondTwoChoice: { value: round(n / two1e6), unit: "balls/s (d = 2)" },
    },
    queues: {
      demo01_2: { value: round(demo012), unit: "CPU s (16 servers, 5 policies; exponential 4 seeds × 50,000 jobs, heavy tail 3 seeds × 250,000 jobs)" },
      demo01_3: { value: round(demo013), unit: "CPU s (6 refresh intervals × 3 policies, 4 seeds × 50,000 jobs)" },
      demo01_4: { value: round(demo014), unit: "CPU s (3 policies, 4 seeds × 50,000 jobs, herding statistics)" },
      jobsPerSecondRandom: { value: round(jobs / randomJobs), unit: "jobs/s (16 servers)" },
      jobsPerSecondJsq: { value: round(jobs / jsqJobs), unit: "jobs/s (16 servers, live JSQ)" },
      jobsPerSecondLeastWorkLeft: { value: round(jobs / lwlJobs), unit: "jobs/s (16 servers)" },
    },
  };
}

if (require.main === module) {
  const started = Date.now();
  const result = benchDispatch();
  if (process.argv.includes("--json")) console.log(JSON.stringify(result));
  else {
    console.log(`bench/dispatch.ts — Node ${process.version}, ${require("os").cpus().length} CPU(s)`);
    for (const [group, metrics] of Object.entries(result)) {
      console.log(`${group}:`);
      for (const [name, m] of Object.entries(metrics)) console.log(`  ${name.padEnd(28)} ${String(m.value).padStart(10)}  ${m.unit}`);
    }
    console.log(`(wall-clock ${((Date.now() - started) / 1000).toFixed(1)} s in all; load average ${require("os").loadavg()[0].toFixed(1)})`);
  }
}
