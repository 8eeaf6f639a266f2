// Bench "router-burst": routing decisions per second of EVERY registered router, by Preble's method (paper §5):
// a burst of 50,000 requests arrives at once and the router decides them back to back; no replica runs, so only
// the router's work (and the view it reads) is timed. Trees: tool calling (the most complex one: 200 tool prefixes
// of 1.5–2.5k tokens, Zipf 1.1, a unique ~100-token question each — lib/cluster/burst's BURST_TOOL_OVERRIDES)
// and video QA (the simplest: one video and one question per request); 4 and 8 replicas.
//
// The view is the simulator's at arrival time with nothing finished yet: outstanding requests and tokens grow with
// every dispatch, and `viewMatch` reads an index of the prompts dispatched so far (the simulator's
// "dispatched but not computed" tree), so cache-aware routers do their real matching work; the replicas' caches are
// empty (nothing ran), so `cachedMatch` is 0 and no eviction or store notices arrive. A decision = route + the view's
// bookkeeping (counters, the dispatched-prompt index) + the router's onDispatch, as in simulateCluster's arrival step.
//
// The burst loop and its view live in lib/cluster/burst.ts (shared with bench/preble.ts and notebook 03).
// Usage: npx tsx bench/router-burst.ts [--json] [--requests=N] [--repeats=N] [--routers=a,b]
//   JSON: { "router-burst": { "<router>.<workload><replicas>": { value, unit }, … } }
import * as os from "os";
import { burstRequests, routerBurst } from "../lib/cluster/burst";
import { routerNames } from "../lib/cluster/routers";
import "../lib/cluster/index"; // registers Preble and the production routers
import { option } from "./options";

interface Metric {
  value: number;
  unit: string;
}

const gc = (globalThis as { gc?: () => void }).gc;

const round = (x: number, digits = 3) => Number(x.toPrecision(digits));

export interface RouterBurstOptions {
  requests?: number;
  repeats?: number;
  routers?: string[];
  workloads?: Array<"toolCalling" | "videoQA">;
  replicas?: number[];
  /** called before each (router, workload, replicas) cell */
  progress?: (message: string) => void;
}

/** Every router × workload × replica count: best of `repeats` bursts (after a 5,000-request warm-up burst), per
 * decile the best repetition too (the machine is shared: the fastest run is the least disturbed one). */
export function benchRouterBurst(o: RouterBurstOptions = {}): { "router-burst": Record<string, Metric> } {
  const count = o.requests ?? 50_000;
  const repeats = o.repeats ?? 5;
  const routers = o.routers ?? routerNames();
  const out: Record<string, Metric> = {};
  for (const workload of o.workloads ?? (["toolCalling", "videoQA"] as const)) {
    const requests = burstRequests(workload, count);
    for (const replicas of o.replicas ?? [4, 8]) {
      for (const name of routers) {
        o.progress?.(`router-burst: ${name}, ${workload}, ${replicas} replicas`);
        routerBurst(name, requests.slice(0, Math.min(5000, count)), replicas); // JIT warm-up
        const runs = Array.from({ length: repeats }, () => {
          gc?.(); // start each burst with a clean heap when node runs with --expose-gc (npm run bench does)
          return routerBurst(name, requests, replicas);
        });
        const best = Math.max(...runs.map((r) => r.decisionsPerSecond));
        const deciles = Array.from({ length: 10 }, (_, d) => Math.max(...runs.map((r) => r.decilePerSecond[d])));
        const key = `${name}.${workload}${replicas}`;
        const busiest = Math.max(...runs[0].perReplica) / count;
        out[key] = { value: round(best), unit: `decisions/s (${count.toLocaleString("en")} at once, ${replicas} replicas, best of ${repeats}; busiest replica got ${(100 * busiest).toFixed(0)}%)` };
        out[`${key}.firstDecile`] = { value: round(deciles[0]), unit: "decisions/s over the first tenth of the burst" };
        out[`${key}.lastDecile`] = { value: round(deciles[9]), unit: "decisions/s over the last tenth" };
        out[`${key}.lastOverFirst`] = { value: round(deciles[9] / deciles[0]), unit: "ratio (1 = per-decision cost flat over the burst)" };
      }
    }
  }
  return { "router-burst": out };
}


if (require.main === module) {
  const started = Date.now();
  const argv = process.argv.slice(2);
  const json = argv.includes("--json");
  const requests = option(argv, "requests");
  const repeats = option(argv, "repeats");
  const routers = option(argv, "routers");
  const tty = process.stderr.isTTY;
  const result = benchRouterBurst({
    requests: requests ? Number(requests) : undefined,
    repeats: repeats ? Number(repeats) : undefined,
    routers: routers ? routers.split(",") : undefined,
    progress: (m) => tty && process.stderr.write(`\r${m}\x1b[K`),
  });
  if (tty) process.stderr.write("\r\x1b[K");
  if (json) console.log(JSON.stringify(result));
  else {
    console.log(`bench/router-burst.ts — Node ${process.version}, ${os.cpus().length} CPU(s)`);
    for (const [name, m] of Object.entries(result["router-burst"])) console.log(`  ${name.padEnd(44)} ${String(m.value).padStart(10)}  ${m.unit}`);
    console.log(`(wall-clock ${((Date.now() - started) / 1000).toFixed(1)} s in all; load average ${os.loadavg()[0].toFixed(1)})`);
  }
}
