// Exact queueing results for the §1 server simulations (mean service time 1, utilization ρ per server), to stand
// beside the simulated values:
//   random, exponential sizes        each server an M/M/1 queue (a Poisson stream split at random stays Poisson)
//   round robin, exponential sizes   each server an E_N/M/1 queue (every N-th arrival: Erlang-N gaps)
//   least-work-left                  the central FCFS queue M/G/N (M/M/N with exponential sizes: Erlang C)
//   random, any sizes                M/G/1, mean by Pollaczek–Khinchine
//   power of d, exponential sizes    the N → ∞ mean-field limit (Mitzenmacher 1996; Vvedenskaya et al. 1996), not
//                                    exact at finite N
import { checkInteger, checkNumber } from "../core/errors";

const checkRho = (rho: number) => checkNumber("utilization", rho, { above: 0, below: 1 });
const checkQuantile = (q: number) => checkNumber("quantile", q, { above: 0, below: 1 });

/** A response time that is exponential with `rate`: its q-quantile. */
const exponentialQuantile = (rate: number, q: number) => -Math.log(1 - q) / rate;

/** M/M/1: mean response 1/(1−ρ); the response time is exponential with rate 1−ρ. */
export function mm1(rho: number, q = 0.99): { mean: number; quantile: number } {
  checkRho(rho);
  return { mean: 1 / (1 - rho), quantile: exponentialQuantile(1 - rho, checkQuantile(q)) };
}

/** GI/M/1 with Erlang-k interarrival times (mean 1/ρ): σ is the root in (0, 1) of σ = (kρ / (kρ + 1 − σ))^k, the
 * probability an arrival finds the server busy; the response time is exponential with rate 1−σ. Round robin over
 * k servers fed by a Poisson stream gives each server exactly these gaps. */
export function erlangArrivalsM1(k: number, rho: number, q = 0.99): { sigma: number; mean: number; quantile: number } {
  checkInteger("servers", k, { min: 1 });
  checkRho(rho);
  checkQuantile(q);
  // Iterating from 0 climbs monotonically to the smallest root (σ = 1 is always a root; the one below it is ours).
  let sigma = 0;
  for (let i = 0; i < 100000; i++) {
    const next = Math.pow((k * rho) / (k * rho + 1 - sigma), k);
    if (Math.abs(next - sigma) < 1e-15) {
      sigma = next;
      break;
    }
    sigma = next;
  }
  return { sigma, mean: 1 / (1 - sigma), quantile: exponentialQuantile(1 - sigma, q) };
}

/** Erlang C: the probability that an arrival waits in an M/M/c queue with offered load a = λ/μ < c. */
export function erlangC(c: number, a: number): number {
  checkInteger("servers", c, { min: 1 });
  checkNumber("a", a, { above: 0, below: c });
  let term = 1;
  let sum = 1;
  for (let k = 1; k < c; k++) {
    term *= a / k;
    sum += term;
  }
  const last = ((term * a) / c) * (c / (c - a));
  return last / (sum + last);
}

/** M/M/c (one queue, c servers, service rate 1 each, utilization ρ): mean response and its q-quantile. The wait is 0
 * with probability 1 − C, else exponential with rate c(1−ρ); the response adds an exponential service. */
export function mmc(c: number, rho: number, q = 0.99): { waitProbability: number; mean: number; quantile: number } {
  checkRho(rho);
  checkQuantile(q);
  const C = erlangC(c, rho * c);
  const theta = c * (1 - rho);
  const tail = (t: number) => {
    const serviceOnly = Math.exp(-t);
    // P(W + S > t) for W ~ Exp(θ), S ~ Exp(1); θ = 1 is the Erlang-2 limit
    const both = Math.abs(theta - 1) < 1e-9 ? (1 + t) * Math.exp(-t) : (theta * Math.exp(-t) - Math.exp(-theta * t)) / (theta - 1);
    return (1 - C) * serviceOnly + C * both;
  };
  let lo = 0;
  let hi = 1;
  while (tail(hi) > 1 - q) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (tail(mid) > 1 - q) lo = mid;
    else hi = mid;
  }
  return { waitProbability: C, mean: 1 + C / theta, quantile: (lo + hi) / 2 };
}

/** M/G/1 (Pollaczek–Khinchine) with mean size 1 and second moment m2: mean response 1 + ρ·m2 / (2(1−ρ)). */
export function mg1Mean(rho: number, secondMoment: number): number {
  checkRho(rho);
  checkNumber("secondMoment", secondMoment, { min: 1 });
  return 1 + (rho * secondMoment) / (2 * (1 - rho));
}

/** Power of d choices with exponential sizes as N → ∞: the share of servers with ≥ i jobs is ρ^((d^i − 1)/(d − 1)),
 * so the mean response is Σ_i ρ^((d^i − 1)/(d − 1)) / ρ (Little's law). d = 1 gives M/M/1's 1/(1−ρ). */
export function powerOfDMeanField(d: number, rho: number): number {
  checkInteger("d", d, { min: 1 });
  checkRho(rho);
  if (d === 1) return 1 / (1 - rho);
  let sum = 0;
  for (let i = 1; i < 200; i++) {
    const term = Math.pow(rho, (Math.pow(d, i) - 1) / (d - 1));
    sum += term;
    if (term < 1e-16) break;
  }
  return sum / rho;
}
