// §1.2 "balls into bins": n balls into n bins; each ball looks at d random bins and joins the least loaded one.
// d = 1 is pure random placement (max load ≈ ln n / ln ln n), d = 2 is two-choice (≈ ln ln n / ln 2; Azar et al. 1994).
import { checkInteger } from "../core/errors";
import { rng, Rng } from "../core/rng";
import { mean, standardDeviation } from "../core/stats";

/** One trial: the maximum bin load after n balls. `loads` (length ≥ n) is reused scratch space, so no allocation. */
export function maxLoadTrial(n: number, d: number, r: Rng, loads: Int32Array = new Int32Array(n)): number {
  checkInteger("n", n, { min: 1 });
  checkInteger("d", d, { min: 1 });
  if (loads.length < n) throw new RangeError(`loads: scratch array must hold n = ${n} bins, has ${loads.length}`);
  loads.fill(0, 0, n);
  let max = 0;
  for (let ball = 0; ball < n; ball++) {
    let best = r.int(n);
    // the first sampled of the least loaded wins a tie: the samples are random, so ties are broken at random
    for (let k = 1; k < d; k++) {
      const other = r.int(n);
      if (loads[other] < loads[best]) best = other;
    }
    const load = ++loads[best];
    if (load > max) max = load;
  }
  return max;
}

export interface BallsIntoBinsOptions {
  /** balls = bins */
  n: number;
  /** bins each ball looks at: 1 = random, 2 = two-choice */
  d: number;
  /** independent trials averaged (default 10) */
  trials?: number;
  seed: number | string;
}

export interface BallsIntoBinsResult {
  n: number;
  d: number;
  trials: number;
  /** max load averaged over trials */
  meanMaxLoad: number;
  /** standard deviation of the max load across trials */
  sdMaxLoad: number;
  minMaxLoad: number;
  maxMaxLoad: number;
  /** the max load of each trial */
  perTrial: number[];
}

/** Average maximum load over `trials` independent trials (trial k uses stream fork(`d${d}/trial${k}`)). */
export function ballsIntoBins(options: BallsIntoBinsOptions): BallsIntoBinsResult {
  const n = checkInteger("n", options.n, { min: 1 });
  const d = checkInteger("d", options.d, { min: 1 });
  const trials = checkInteger("trials", options.trials ?? 10, { min: 1 });
  const root = rng(options.seed);
  const loads = new Int32Array(n);
  const perTrial: number[] = [];
  for (let k = 0; k < trials; k++) perTrial.push(maxLoadTrial(n, d, root.fork(`d${d}/trial${k}`), loads));
  return {
    n,
    d,
    trials,
    meanMaxLoad: mean(perTrial),
    sdMaxLoad: standardDeviation(perTrial),
    minMaxLoad: Math.min(...perTrial),
    maxMaxLoad: Math.max(...perTrial),
    perTrial,
  };
}

/** The asymptotic max load of random placement, ln n / ln ln n (defined for n ≥ 3). */
export function randomMaxLoadFormula(n: number): number {
  checkInteger("n", n, { min: 3 });
  return Math.log(n) / Math.log(Math.log(n));
}

/** The asymptotic max load with d ≥ 2 choices, ln ln n / ln d (defined for n ≥ 3). */
export function choiceMaxLoadFormula(n: number, d = 2): number {
  checkInteger("n", n, { min: 3 });
  checkInteger("d", d, { min: 2 });
  return Math.log(Math.log(n)) / Math.log(d);
}
