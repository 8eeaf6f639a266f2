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

/** Join the shortest queue on N exponential servers (Poisson arrivals at rate Nρ, service rate 1 each), solved as
 * a Markov chain: the state is m_1 ≥ m_2 ≥ … ≥ m_K, m_i = servers holding at least i jobs; an arrival joins a
 * shortest queue (m_{L+1} += 1 where L = number of i with m_i = N), a server with exactly i jobs finishes one at
 * rate 1 (m_i −= 1). Truncated at K jobs a server (an arrival finding every server at K is lost; `lostShare` says
 * how often). Solved by Gauss–Seidel on the balance equations; mean response by Little's law. */
export function jsqMeanResponse(servers: number, rho: number, maxQueue = 6): { mean: number; meanJobs: number; lostShare: number; states: number } {
  const N = checkInteger("servers", servers, { min: 1, max: 64 });
  checkRho(rho);
  const K = checkInteger("maxQueue", maxQueue, { min: 1, max: 12 });
  const states = jsqStates(N, K);
  const S = states.length / K;
  const lambda = N * rho;
  const index = new Map<number, number>();
  const code = (m: Int32Array | number[], from: number) => {
    let c = 0;
    for (let i = 0; i < K; i++) c = c * (N + 1) + m[from + i];
    return c;
  };
  for (let s = 0; s < S; s++) index.set(code(states, s * K), s);
  const { out, start, from, rate } = jsqTransitions(states, N, K, lambda, (m) => index.get(code(m, 0)) as number);
  const pi = new Float64Array(S).fill(1 / S);
  for (let sweep = 0; sweep < 100000; sweep++) {
    let change = 0;
    let total = 0;
    for (let t = 0; t < S; t++) {
      let flow = 0;
      for (let k = start[t]; k < start[t + 1]; k++) flow += pi[from[k]] * rate[k];
      const next = flow / out[t];
      change += Math.abs(next - pi[t]);
      pi[t] = next;
      total += next;
    }
    for (let t = 0; t < S; t++) pi[t] /= total;
    if (change / total < 1e-11) break;
  }
  let jobs = 0;
  let lost = 0;
  for (let s = 0; s < S; s++) {
    let n = 0;
    for (let i = 0; i < K; i++) n += states[s * K + i];
    jobs += pi[s] * n;
    if (states[s * K + K - 1] === N) lost += pi[s];
  }
  return { mean: jobs / (lambda * (1 - lost)), meanJobs: jobs, lostShare: lost, states: S };
}

/** The chain's transitions, grouped by target (CSR: start[t] … start[t+1] index from/rate), and each state's out-rate. */
function jsqTransitions(states: Int32Array, N: number, K: number, lambda: number, indexOf: (m: number[]) => number) {
  const S = states.length / K;
  const out = new Float64Array(S);
  const edges: number[] = []; // target, from, rate
  const m = new Array<number>(K);
  for (let s = 0; s < S; s++) {
    for (let i = 0; i < K; i++) m[i] = states[s * K + i];
    let L = 0;
    while (L < K && m[L] === N) L++;
    if (L < K) {
      m[L]++;
      edges.push(indexOf(m), s, lambda);
      m[L]--;
      out[s] += lambda;
    }
    for (let i = 0; i < K; i++) {
      const exactly = m[i] - (i + 1 < K ? m[i + 1] : 0);
      if (exactly <= 0) continue;
      m[i]--;
      edges.push(indexOf(m), s, exactly);
      m[i]++;
      out[s] += exactly;
    }
  }
  const E = edges.length / 3;
  const start = new Int32Array(S + 1);
  for (let e = 0; e < E; e++) start[edges[3 * e] + 1]++;
  for (let t = 0; t < S; t++) start[t + 1] += start[t];
  const fill = start.slice(0, S);
  const from = new Int32Array(E);
  const rate = new Float64Array(E);
  for (let e = 0; e < E; e++) {
    const k = fill[edges[3 * e]]++;
    from[k] = edges[3 * e + 1];
    rate[k] = edges[3 * e + 2];
  }
  return { out, start, from, rate };
}

/** Every m_1 ≥ … ≥ m_K with values 0 … N, flattened (K numbers a state). */
function jsqStates(N: number, K: number): Int32Array {
  const list: number[] = [];
  const m = new Array<number>(K).fill(0);
  const fill = (i: number, cap: number) => {
    if (i === K) {
      list.push(...m);
      return;
    }
    for (let v = 0; v <= cap; v++) {
      m[i] = v;
      fill(i + 1, v);
    }
  };
  fill(0, N);
  return Int32Array.from(list);
}
