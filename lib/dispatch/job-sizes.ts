// Job-size distributions for the dispatch simulations (§1.2), every one scaled to mean 1 so that times are in
// units of the mean service time.
import { checkOneOf } from "../core/errors";
import type { Rng } from "../core/rng";

export const JOB_SIZE_DISTRIBUTIONS = ["exponential", "boundedPareto"] as const;
export type JobSizeDistribution = (typeof JOB_SIZE_DISTRIBUTIONS)[number];

/**
 * The heavy tail: bounded Pareto with tail index α = 1.1 on [k, 1000·k], k chosen so the mean is 1.
 * Why this one: sizes span three orders of magnitude (a chat of tens of tokens next to a document question of tens
 * of thousands, §1.2 point 2); with α near 1 the largest 1% of jobs carry about a third of all work and the largest
 * 10% about 60%; the squared coefficient of variation is ≈ 19 (exponential: 1). Waiting then comes from big jobs
 * blocking small ones, so how evenly round robin spaces the arrivals hardly matters (it is within seed noise of
 * random), and a count of jobs (JSQ) says little about the work queued (its P99 is far above least-work-left's).
 * Bounded, unlike a plain Pareto, so the variance is finite and 50,000-job averages settle across 8 seeds.
 */
export const BOUNDED_PARETO = { alpha: 1.1, range: 1e3 } as const;

function boundedParetoMean(alpha: number, low: number, high: number): number {
  // E[X] for X ~ BP(α, L, H), α ≠ 1
  const norm = alpha * Math.pow(low, alpha) / (1 - Math.pow(low / high, alpha));
  return (norm * (Math.pow(low, 1 - alpha) - Math.pow(high, 1 - alpha))) / (alpha - 1);
}

function boundedParetoSecondMoment(alpha: number, low: number, high: number): number {
  const norm = alpha * Math.pow(low, alpha) / (1 - Math.pow(low / high, alpha));
  return (norm * (Math.pow(high, 2 - alpha) - Math.pow(low, 2 - alpha))) / (2 - alpha);
}

/** The lower bound k of the bounded Pareto that makes its mean exactly 1 (the mean scales linearly with k). */
export const BOUNDED_PARETO_LOW = 1 / boundedParetoMean(BOUNDED_PARETO.alpha, 1, BOUNDED_PARETO.range);

export interface JobSizeMoments {
  mean: number;
  secondMoment: number;
  /** squared coefficient of variation Var/mean² */
  scv: number;
  /** a short description for table notes */
  description: string;
}

export function jobSizeMoments(distribution: JobSizeDistribution): JobSizeMoments {
  const d = checkOneOf("sizes", distribution, JOB_SIZE_DISTRIBUTIONS);
  if (d === "exponential") return { mean: 1, secondMoment: 2, scv: 1, description: "exponential, mean 1" };
  const low = BOUNDED_PARETO_LOW;
  const high = low * BOUNDED_PARETO.range;
  const m2 = boundedParetoSecondMoment(BOUNDED_PARETO.alpha, low, high);
  return {
    mean: 1,
    secondMoment: m2,
    scv: m2 - 1,
    description: `bounded Pareto α = ${BOUNDED_PARETO.alpha} on [${low.toPrecision(3)}, ${high.toPrecision(3)}], mean 1, squared coefficient of variation ${(m2 - 1).toFixed(1)}`,
  };
}

/** A sampler of job sizes with mean 1 drawing from `r`. */
export function jobSizeSampler(distribution: JobSizeDistribution, r: Rng): () => number {
  const d = checkOneOf("sizes", distribution, JOB_SIZE_DISTRIBUTIONS);
  if (d === "exponential") return () => r.exponential(1);
  const low = BOUNDED_PARETO_LOW;
  const high = low * BOUNDED_PARETO.range;
  return r.boundedParetoSampler(BOUNDED_PARETO.alpha, low, high);
}
