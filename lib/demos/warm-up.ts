// A kernel's first simulation runs on a cold JIT: in a fresh process 02.4 takes 1.1–1.4 s the first time and 0.4–0.7 s
// the second (bench/RESULTS.md, Stop 31), and the slowest cells of the collection are such first runs (06.1's first
// cell, 07's 02.4). scripts/kernel-startup.cjs calls warmEngines() right after the kernel's start, behind the previous
// notebook: short runs through the paths the notebooks' cells take (the §2 routers on the radix trees, Preble's global
// tree, rebalancing and local policies, the §1 dispatch loop), whose results are thrown away.
//
// Nothing a later run computes depends on them: every run builds its state from its own seed, and what a process keeps
// between runs (pooled nodes and records, the session's job streams, keyed by seed) gives any later run the same
// numbers — the golden tables are computed in one process, each demo after many others. L11_WARM_RUNS=off turns it off.
import { simulateCluster } from "../cluster/simulate";
import { configurationRun } from "../cluster/preble/runs";
import { simulateDispatch } from "../dispatch/servers";
import { SECTION2_GPU, SECTION2_MODEL } from "./cache-balance/section2";

/** A seed no demo uses: the warm-up's job streams never stand in for a demo's own. */
export const WARM_SEED = "kernel-warm-up";

/** §2's runs: a cluster of A6000s with Mistral-7B, as runSection2 sets it. */
const SECTION2 = { replicas: 4, seed: WARM_SEED, model: SECTION2_MODEL, gpu: SECTION2_GPU, oracle: true };

let done = 0;

/** How many warm-up runs this process has done (the kernel's test reads it). */
export function warmRunsDone(): number {
  return done;
}

/** The warm-up runs (170–250 ms in all on the developers' machine), each with its results thrown away. */
const WARM_RUNS: ReadonlyArray<() => unknown> = [
  () => simulateCluster({ ...SECTION2, workload: "toolCalling", rate: 36, requestCount: 600, router: "thresholdAffinity" }),
  () => simulateCluster({ ...SECTION2, workload: "longDocQA", rate: 1, requestCount: 150, router: "cacheAwareGuarded" }),
  () => simulateCluster({ ...SECTION2, workload: "toolCalling", rate: 36, requestCount: 400, router: "roundRobin" }),
  () => simulateCluster(configurationRun({ workload: "agent", rate: 30, replicas: 4, configuration: "preble", requestCount: 300, seed: WARM_SEED })),
  // E2's rebalancing and the full Preble on the hot spot: 06.1's first cell (the lecture's six routers) 0.84–0.95 s
  // after the six runs above, 0.74–0.93 s with these two as well (seven alternating pairs in fresh processes)
  () => simulateCluster(configurationRun({ workload: "longDocQA", rate: 1, replicas: 4, configuration: "e2+rebalance", requestCount: 150, seed: WARM_SEED })),
  () => simulateCluster(configurationRun({ workload: "toolCallingHotSpot", rate: 70, replicas: 8, configuration: "preble", requestCount: 500, seed: WARM_SEED })),
  () => simulateDispatch({ utilization: 0.9, jobs: 4000, policy: "powerOfTwo", seed: WARM_SEED }),
  () => simulateDispatch({ utilization: 0.9, jobs: 4000, policy: "jsq", refresh: 1, seed: WARM_SEED }),
];

/** Does the warm-up runs; returns how many ran. */
export function warmEngines(): number {
  for (const run of WARM_RUNS) run();
  done += WARM_RUNS.length;
  return WARM_RUNS.length;
}
