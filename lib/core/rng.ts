// Seeded random streams (seedrandom's Alea: fast, portable, same numbers on any machine) and samplers.
import seedrandom from "seedrandom";
import { checkInteger, checkNumber, ParameterError } from "./errors";

/** A seeded random stream. Derive independent sub-streams with `fork(name)`. */
export class Rng {
  private readonly next: () => number;
  constructor(readonly seed: string | number) {
    this.next = seedrandom.alea(String(seed));
  }
  /** Uniform on [0, 1). */
  uniform(): number {
    return this.next();
  }
  /** Uniform integer on 0 … n−1. */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  /** An independent stream whose numbers depend only on (seed, name). */
  fork(name: string | number): Rng {
    return new Rng(`${this.seed}/${name}`);
  }
  /** Exponential with the given mean. */
  exponential(mean = 1): number {
    return -mean * Math.log(1 - this.next());
  }
  /** Standard normal (Box–Muller; one value per call for reproducibility). */
  normal(): number {
    const u = 1 - this.next();
    const v = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  /** Lognormal with parameters of the underlying normal. */
  lognormal(mu: number, sigma: number): number {
    return Math.exp(mu + sigma * this.normal());
  }
  /** Bounded Pareto on [low, high] with tail index alpha (inverse CDF). */
  boundedPareto(alpha: number, low: number, high: number): number {
    return this.boundedParetoSampler(alpha, low, high)();
  }
  /** A sampler of boundedPareto(alpha, low, high) with its constants computed once (the same numbers). */
  boundedParetoSampler(alpha: number, low: number, high: number): () => number {
    const la = Math.pow(low, alpha);
    const ha = Math.pow(high, alpha);
    const exponent = -1 / alpha;
    const denominator = ha * la;
    return () => {
      const u = this.next();
      return Math.pow(-(u * ha - u * la - ha) / denominator, exponent);
    };
  }
  /** Uniform integer on [lo, hi]. */
  intBetween(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  /** Fisher–Yates shuffle in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const t = items[i];
      items[i] = items[j];
      items[j] = t;
    }
    return items;
  }
  /** Poisson-distributed count with the given mean (Knuth for small means, normal approximation above 60). */
  poisson(mean: number): number {
    if (mean > 60) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let k = 0;
    let p = this.next();
    while (p > limit) {
      k++;
      p *= this.next();
    }
    return k;
  }
}

export function rng(seed: string | number): Rng {
  if (typeof seed === "number") checkNumber("seed", seed);
  else if (typeof seed !== "string") throw new ParameterError("seed", `must be a number or a string, got ${String(seed)}`);
  return new Rng(seed);
}

/** Zipf(s) over ranks 0 … n−1 (rank 0 the most popular): probabilities and an O(log n) sampler. */
export class Zipf {
  readonly probabilities: Float64Array;
  private readonly cdf: Float64Array;
  constructor(readonly n: number, readonly exponent: number) {
    checkInteger("n", n, { min: 1 });
    checkNumber("exponent", exponent, { min: 0 });
    this.probabilities = new Float64Array(n);
    this.cdf = new Float64Array(n);
    let total = 0;
    for (let k = 0; k < n; k++) total += 1 / Math.pow(k + 1, exponent);
    let acc = 0;
    for (let k = 0; k < n; k++) {
      this.probabilities[k] = 1 / Math.pow(k + 1, exponent) / total;
      acc += this.probabilities[k];
      this.cdf[k] = acc;
    }
    this.cdf[n - 1] = 1;
  }
  sample(r: Rng): number {
    const u = r.uniform();
    let lo = 0;
    let hi = this.n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
  /** Share of the top k ranks. */
  topShare(k: number): number {
    return this.cdf[Math.min(k, this.n) - 1];
  }
}

/** Arrival times of a Poisson process at `rate` per second: `count` arrivals starting after time 0. */
export function poissonArrivals(r: Rng, rate: number, count: number): Float64Array {
  checkNumber("rate", rate, { above: 0 });
  checkInteger("count", count, { min: 0 });
  const times = new Float64Array(count);
  let t = 0;
  for (let i = 0; i < count; i++) {
    t += r.exponential(1 / rate);
    times[i] = t;
  }
  return times;
}
