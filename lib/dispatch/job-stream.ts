// The jobs of a dispatch run (servers.ts): arrival times and sizes, drawn from the run's own streams (seed/arrivals,
// seed/sizes), so every policy sees the same jobs for a seed (common random numbers). A table of several policies — or
// 01.3's refresh intervals — runs the same seeds again and again: the session keeps each seed's jobs once, and a run
// reads them instead of drawing them again (the same doubles, so the same results; drawing was a sixth of 01.2's time).
import { rng } from "../core/rng";
import { JobSizeDistribution, jobSizeSampler } from "./job-sizes";

export interface JobStream {
  /** arrival time of job i (mean service times), increasing */
  readonly arrival: Float64Array;
  /** size of job i (mean 1) */
  readonly size: Float64Array;
}

/** Jobs kept at most (16 bytes each, outside the JS heap): 01.2's defaults hold 950,000. */
const KEPT_JOBS = 2_000_000;
const kept = new Map<string, JobStream>();
let keptJobs = 0;

/** The first `jobs` jobs of seed `seed` at mean inter-arrival gap `meanGap`: Poisson arrivals (t += exponential(meanGap))
 * and sizes of `sizes`, one uniform per size. A longer stream of the same seed answers a shorter request. */
export function jobStream(seed: number | string, sizes: JobSizeDistribution, meanGap: number, jobs: number): JobStream {
  const key = `${String(seed)}|${sizes}|${meanGap}`;
  const have = kept.get(key);
  if (have !== undefined && have.arrival.length >= jobs) return have;
  const made = drawJobs(seed, sizes, meanGap, jobs);
  if (jobs <= KEPT_JOBS) {
    if (have !== undefined) keptJobs -= have.arrival.length;
    if (keptJobs + jobs > KEPT_JOBS) {
      kept.clear();
      keptJobs = 0;
    }
    kept.set(key, made);
    keptJobs += jobs;
  }
  return made;
}

/** Draws the jobs as the simulator always did: arrival gaps from seed/arrivals, sizes from seed/sizes. */
function drawJobs(seed: number | string, sizes: JobSizeDistribution, meanGap: number, jobs: number): JobStream {
  const root = rng(seed);
  const arrivals = root.fork("arrivals");
  const size = jobSizeSampler(sizes, root.fork("sizes"));
  const arrival = new Float64Array(jobs);
  const sized = new Float64Array(jobs);
  let t = 0;
  for (let i = 0; i < jobs; i++) {
    t += arrivals.exponential(meanGap);
    arrival[i] = t;
    sized[i] = size();
  }
  return { arrival, size: sized };
}

/** Jobs the session keeps now (tests). */
export function keptJobCount(): number {
  return keptJobs;
}
