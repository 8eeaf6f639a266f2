// Bench "trace-replay" (issue 18): the whole Mooncake conversation trace (12,031 requests) replayed through one
// router on 8 replicas of the paper GPU — target < 2 s on 2 vCPUs — plus what comes before it (inflating and
// parsing the .gz, building the requests) and the CPU time of demo 06.4 at its defaults.
// Usage: npx tsx bench/trace-replay.ts [--json] [--repeats=3] [--routers=leastLoad,e2,dynamoKvRouter] [--load=0.5]
// Wall and CPU seconds are both reported: on a shared machine the wall time includes waiting for a CPU.
import * as os from "os";
import { configurationOptions } from "../lib/cluster/preble/configs";
import "../lib/cluster/routers-production/index";
import { aloneLatency, simulateCluster } from "../lib/cluster/simulate";
import type { ClusterRequest } from "../lib/cluster/workloads";
import { runDemo } from "../lib/demos/index";
import { resolveGpu, resolveModel } from "../lib/hardware/specs";
import { StepModel } from "../lib/hardware/step-model";
import { blockTraceRequests, loadMooncakeTraceSync, mooncakeConversationFile } from "../lib/traces";
import { option } from "./options";

interface Metric {
  value: number;
  unit: string;
}

const round = (x: number, digits = 3) => Number(x.toPrecision(digits));

function timed<T>(f: () => T): { wall: number; cpu: number; value: T } {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const value = f();
  const c = process.cpuUsage(c0);
  return { wall: Number(process.hrtime.bigint() - t0) / 1e9, cpu: (c.user + c.system) / 1e6, value };
}

export function benchTraceReplay(argv: readonly string[]): { "trace-replay": Record<string, Metric> } {
  const repeats = Number(option(argv, "repeats") ?? 3);
  const load = Number(option(argv, "load") ?? 0.5);
  const routers = (option(argv, "routers") ?? "leastLoad,cacheAwareGuarded,e2,dynamoKvRouter").split(",");
  const replicas = 8;
  const out: Record<string, Metric> = {};

  // 1. Inflate and parse the shipped trace (cold: the first call in this process).
  const loaded = timed(() => loadMooncakeTraceSync(mooncakeConversationFile()));
  const trace = loaded.value;
  const n = trace.inputTokens.length;
  out.loadSeconds = { value: round(loaded.wall), unit: `wall s to inflate and parse conversation_trace.jsonl.gz (${n} requests; CPU ${loaded.cpu.toFixed(2)} s; first call, cold JIT)` };

  // 2. Requests for the whole trace at the demo's load on 8 replicas (load = rate × mean prefill from scratch / replicas).
  const step = new StepModel(resolveModel("MISTRAL_7B"), resolveGpu("A6000"));
  let prefill = 0;
  for (let i = 0; i < n; i++) prefill += aloneLatency(step, trace.inputTokens[i], 0, 1, 512);
  const rate = (load * replicas) / (prefill / n);
  const timeScale = (n - 1) / trace.arrivalSeconds[n - 1] / rate;
  const built = timed(() => blockTraceRequests(trace, { first: 0, count: n }, timeScale) as ClusterRequest[]);
  const requests = built.value;
  out.buildSeconds = { value: round(built.wall), unit: `wall s to build the ${n} requests (${requests.reduce((s, r) => s + r.segments.length, 0)} segments; CPU ${built.cpu.toFixed(2)} s)` };

  // 3. The whole trace through one router on 8 replicas: one warm-up run (JIT), then the best of `repeats`.
  const run = (router: string) =>
    simulateCluster({ requests, replicas, seed: "bench", replicationSamples: 0, ...(router === "e2" ? configurationOptions("e2") : { router }) });
  routers.forEach((router, k) => {
    run(router);
    let best = { wall: Infinity, cpu: Infinity, iterations: 0 };
    for (let i = 0; i < (k === 0 ? repeats : 1); i++) {
      const t = timed(() => run(router));
      if (t.wall < best.wall) best = { wall: t.wall, cpu: t.cpu, iterations: t.value.iterations };
    }
    const what = `the whole trace (${n} requests, load ${load} = ${rate.toFixed(2)} req/s, arrival times ×${timeScale.toFixed(2)}) through ${router} on ${replicas} replicas of Mistral-7B / A6000`;
    out[`${router}WholeTraceSeconds`] = { value: round(best.wall), unit: `wall s, ${what}; ${k === 0 ? `best of ${repeats} after a warm-up` : "one run after a warm-up"} (target < 2 s)` };
    out[`${router}WholeTraceCpuSeconds`] = { value: round(best.cpu), unit: `CPU s of the same run (${best.iterations} engine iterations)` };
  });

  // 4. Demo 06.4 at its defaults (what a notebook cell runs).
  const demo = timed(() => runDemo("06.4"));
  out.demo06_4 = { value: round(demo.cpu), unit: `CPU s (demo 06.4, default parameters: ${demo.value.rows.length} runs; wall ${demo.wall.toFixed(1)} s)` };
  return { "trace-replay": out };
}

if (require.main === module) {
  const started = Date.now();
  const result = benchTraceReplay(process.argv.slice(2));
  if (process.argv.includes("--json")) console.log(JSON.stringify(result));
  else {
    console.log(`bench/trace-replay.ts — Node ${process.version}, ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ""}`);
    for (const [group, metrics] of Object.entries(result)) {
      console.log(`${group}:`);
      for (const [name, m] of Object.entries(metrics)) console.log(`  ${name.padEnd(36)} ${String(m.value).padStart(8)}  ${m.unit}`);
    }
    console.log(`(wall-clock ${((Date.now() - started) / 1000).toFixed(1)} s in all; load average ${os.loadavg()[0].toFixed(1)})`);
  }
}
