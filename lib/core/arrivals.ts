// Arrival processes any simulator can consume (§2.1, issue 9): Poisson, replay of a recorded trace (optionally
// time-scaled, as Preble replays Azure timing ×0.7), time scaling / rescaling to a target rate, and a two-state
// Markov-modulated Poisson process (MMPP) with its fit to a trace's mean rate, gap CV and one gap quantile.
import { checkInteger, checkNumber, ParameterError } from "./errors";
import { poissonArrivals, Rng } from "./rng";

/** A source of arrival times. Every simulator takes one of these instead of generating its own timing. */
export interface ArrivalProcess {
  /** short label for tables and notes, e.g. "Poisson 2 req/s" */
  readonly name: string;
  /** long-run arrivals per second */
  readonly meanRate: number;
  /**
   * `count` arrival times in seconds, non-decreasing and ≥ 0, in a new array. Random processes draw only from
   * `r` (same stream state → same times); a trace replay ignores `r`.
   */
  times(r: Rng, count: number): Float64Array;
}

/** Anything with recorded arrival times (seconds, non-decreasing), e.g. a Trace from lib/traces. */
export interface ArrivalTimes {
  readonly name?: string;
  readonly arrivalSeconds: ArrayLike<number>;
}

function short(x: number): string {
  return Number(x.toPrecision(3)).toString();
}

/** Poisson arrivals at `rate` per second (exponential gaps, CV 1); the first arrival falls after time 0. */
export function poissonProcess(rate: number): ArrivalProcess {
  checkNumber("rate", rate, { above: 0 });
  return {
    name: `Poisson ${short(rate)} req/s`,
    meanRate: rate,
    times: (r, count) => poissonArrivals(r, rate, count),
  };
}

/**
 * Time scaling: every arrival time — hence every gap — is multiplied by `factor`, so the rate is divided by it.
 * factor 0.7 compresses the timing (1/0.7 ≈ 1.43× the rate; Preble's replay of the Azure trace), 2 stretches it.
 * The burst pattern (gap CV, order of gaps) is unchanged.
 */
export function timeScaled(process: ArrivalProcess, factor: number): ArrivalProcess {
  checkNumber("timeScale", factor, { above: 0 });
  if (factor === 1) return process;
  return {
    name: `${process.name} ×${short(factor)} time`,
    meanRate: process.meanRate / factor,
    times(r, count) {
      const t = process.times(r, count);
      for (let i = 0; i < t.length; i++) t[i] *= factor;
      return t;
    },
  };
}

/**
 * The same process time-scaled so its mean rate is `rate` req/s: the way to compare a replayed (bursty) trace
 * with Poisson arrivals, or with the same trace, at one load.
 */
export function rescaledToRate(process: ArrivalProcess, rate: number): ArrivalProcess {
  checkNumber("rate", rate, { above: 0 });
  const scaled = timeScaled(process, process.meanRate / rate);
  return { name: `${process.name} at ${short(rate)} req/s`, meanRate: rate, times: scaled.times };
}

export interface TraceReplayOptions {
  /** multiplies every gap (default 1; Preble used 0.7 on the Azure trace); must be > 0 */
  timeScale?: number;
  /** start the replay at this arrival (default 0); times stay relative to it */
  startIndex?: number;
  /**
   * when more arrivals are asked for than the trace holds from startIndex: false (default) throws; true repeats
   * the whole trace, the copies separated by one mean gap so the long-run rate stays the trace's mean rate
   */
  wrap?: boolean;
}

/**
 * Replays recorded arrival times: arrival i is (t[startIndex + i] − t[startIndex]) × timeScale, so the first is at 0.
 * The mean rate is the whole trace's (arrivals − 1) / span, divided by timeScale.
 */
export function traceReplay(trace: ArrivalTimes, options: TraceReplayOptions = {}): ArrivalProcess {
  const timeScale = checkNumber("timeScale", options.timeScale ?? 1, { above: 0 });
  const t = trace.arrivalSeconds;
  const n = t.length;
  if (n < 2) throw new ParameterError("trace", `needs at least 2 arrivals to define a rate, got ${n}`);
  for (let i = 1; i < n; i++) {
    if (!(t[i] >= t[i - 1])) throw new ParameterError("trace", `arrival times must be non-decreasing; index ${i} (${t[i]} s) < index ${i - 1} (${t[i - 1]} s)`);
  }
  const span = t[n - 1] - t[0];
  if (!(span > 0) || !Number.isFinite(span)) throw new ParameterError("trace", `must span a positive, finite time, got ${span} s`);
  const startIndex = checkInteger("startIndex", options.startIndex ?? 0, { min: 0, max: n - 1 });
  const wrap = options.wrap ?? false;
  const meanGap = span / (n - 1);
  const period = span + meanGap;
  const label = trace.name ?? "trace";
  return {
    name: `${label} replay${timeScale !== 1 ? ` ×${short(timeScale)} time` : ""}`,
    meanRate: 1 / (meanGap * timeScale),
    times(_r, count) {
      checkInteger("count", count, { min: 0 });
      const available = n - startIndex;
      if (count > available && !wrap) {
        throw new ParameterError("count", `must be ≤ ${available} (the trace's arrivals from index ${startIndex}), got ${count}; pass wrap: true to repeat the trace`);
      }
      const out = new Float64Array(count);
      const origin = t[startIndex];
      for (let i = 0; i < count; i++) {
        const k = startIndex + i;
        const copy = Math.floor(k / n);
        out[i] = (t[k - copy * n] - origin + copy * period) * timeScale;
      }
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Two-state Markov-modulated Poisson process.

/** State 0 ("burst") and state 1 ("quiet"): arrival rate in each, and the rate of leaving each (per second). */
export interface MmppParameters {
  /** arrivals per second in [burst, quiet]; ≥ 0, not both 0 */
  rates: [number, number];
  /** [burst → quiet, quiet → burst] switches per second; > 0 (mean stay in a state = 1 / its rate) */
  switchRates: [number, number];
}

function checkMmpp(p: MmppParameters): void {
  if (!p || !Array.isArray(p.rates) || p.rates.length !== 2) throw new ParameterError("rates", "must be a pair [burst, quiet] of arrival rates");
  if (!Array.isArray(p.switchRates) || p.switchRates.length !== 2) throw new ParameterError("switchRates", "must be a pair [burst → quiet, quiet → burst]");
  checkNumber("rates[0]", p.rates[0], { min: 0 });
  checkNumber("rates[1]", p.rates[1], { min: 0 });
  if (p.rates[0] + p.rates[1] === 0) throw new ParameterError("rates", "must not both be 0");
  checkNumber("switchRates[0]", p.switchRates[0], { above: 0 });
  checkNumber("switchRates[1]", p.switchRates[1], { above: 0 });
}

/** Share of time in the burst state. */
function burstShare(p: MmppParameters): number {
  return p.switchRates[1] / (p.switchRates[0] + p.switchRates[1]);
}

/**
 * A two-state MMPP: arrivals are Poisson at rates[s] while the hidden state s (burst or quiet) holds, and the
 * state flips after exponential stays. It starts in its long-run state mix, so it is stationary from time 0.
 */
export function mmppProcess(params: MmppParameters, name?: string): ArrivalProcess {
  checkMmpp(params);
  const rates = [params.rates[0], params.rates[1]];
  const leave = [params.switchRates[0], params.switchRates[1]];
  const share = burstShare(params);
  const meanRate = share * rates[0] + (1 - share) * rates[1];
  return {
    name: name ?? `two-state MMPP ${short(meanRate)} req/s`,
    meanRate,
    times(r, count) {
      checkInteger("count", count, { min: 0 });
      const out = new Float64Array(count);
      let state = r.uniform() < share ? 0 : 1;
      let t = 0;
      let i = 0;
      while (i < count) {
        // competing exponentials: the next event is an arrival or a state switch
        const total = rates[state] + leave[state];
        t += r.exponential(1 / total);
        if (r.uniform() * total < rates[state]) out[i++] = t;
        else state = 1 - state;
      }
      return out;
    },
  };
}

/** Closed-form properties of a two-state MMPP (its gaps are phase-type of order 2: S(t) = c₁e^{−a₁t} + c₂e^{−a₂t}). */
export interface MmppStatistics {
  meanRate: number;
  /** mean gap between arrivals (s) = 1 / meanRate */
  gapMean: number;
  /** coefficient of variation of the gaps (1 for Poisson) */
  gapCv: number;
  /** the p-quantile of the gap (s) */
  gapQuantile(p: number): number;
  /** index of dispersion of counts: Var N(w) / E N(w) in windows of w seconds (1 for Poisson) */
  countDispersion(windowSeconds: number): number;
}

export function mmppStatistics(params: MmppParameters): MmppStatistics {
  checkMmpp(params);
  const [l0, l1] = params.rates;
  const [s0, s1] = params.switchRates;
  const share = burstShare(params);
  const meanRate = share * l0 + (1 - share) * l1;
  // Gap = time to the next arrival, starting in the state mix seen at arrivals, α ∝ (π₀λ₀, π₁λ₁);
  // sub-generator T = Q − Λ. Both eigenvalues of T are real and negative (T is Metzler and invertible).
  const alpha = [(share * l0) / meanRate, ((1 - share) * l1) / meanRate];
  const a = -(s0 + l0);
  const d = -(s1 + l1);
  const disc = Math.sqrt((a - d) * (a - d) + 4 * s0 * s1);
  const e1 = (a + d + disc) / 2;
  const e2 = (a + d - disc) / 2;
  // exp(Tt) = e^{e1 t}(T − e2 I)/(e1 − e2) + e^{e2 t}(T − e1 I)/(e2 − e1); c_k = α P_k 1
  const rowSums = (shift: number) => [a - shift + s0, s1 + d - shift];
  const r1 = rowSums(e2);
  const r2 = rowSums(e1);
  const c1 = (alpha[0] * r1[0] + alpha[1] * r1[1]) / (e1 - e2);
  const c2 = (alpha[0] * r2[0] + alpha[1] * r2[1]) / (e2 - e1);
  const survival = (t: number) => c1 * Math.exp(e1 * t) + c2 * Math.exp(e2 * t);
  const m1 = c1 / -e1 + c2 / -e2;
  const m2 = 2 * (c1 / (e1 * e1) + c2 / (e2 * e2));
  const gapCv = Math.sqrt(Math.max(0, m2 - m1 * m1)) / m1;
  const switching = s0 + s1;
  // Var N(w) = λ̄w + 2π₀π₁(λ₀−λ₁)²/s · (w − (1 − e^{−sw})/s), s = total switching rate
  const burstiness = (2 * share * (1 - share) * (l0 - l1) * (l0 - l1)) / (meanRate * switching);
  return {
    meanRate,
    gapMean: 1 / meanRate,
    gapCv,
    gapQuantile(p: number): number {
      checkNumber("p", p, { above: 0, below: 1 });
      return solveDecreasing(survival, 1 - p, (Math.log(1 / (1 - p)) + Math.log(Math.abs(c1) + Math.abs(c2) + 1)) / -e1);
    },
    countDispersion(windowSeconds: number): number {
      checkNumber("windowSeconds", windowSeconds, { above: 0 });
      const x = switching * windowSeconds;
      return 1 + burstiness * (1 - (1 - Math.exp(-x)) / x);
    },
  };
}

/** The t ≥ 0 where a decreasing f crosses `level`, by bisection on [0, hi] (hi grown until f(hi) ≤ level). */
function solveDecreasing(f: (t: number) => number, level: number, hi: number): number {
  let high = Math.max(hi, 1e-12);
  while (f(high) > level) high *= 2;
  let low = 0;
  for (let i = 0; i < 200 && high - low > 1e-15 * high; i++) {
    const mid = (low + high) / 2;
    if (f(mid) > level) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

// ---------------------------------------------------------------------------------------------------------------
// Fitting a two-state MMPP to a trace.

export interface BurstyFitTargets {
  /** arrivals per second */
  meanRate: number;
  /** coefficient of variation of the gaps; must be > 1 (bursty) */
  gapCv: number;
  /** one gap quantile to match: probability p and the gap at it in seconds, e.g. the median { p: 0.5, seconds } */
  gapQuantile: { p: number; seconds: number };
}

export interface BurstyFit {
  params: MmppParameters;
  /** the gap distribution: with probability `shortShare` exponential of mean `shortMean`, else of mean `longMean` (s) */
  gaps: { shortShare: number; shortMean: number; longMean: number };
  /** mean stay in each state (s) */
  meanBurstSeconds: number;
  meanQuietSeconds: number;
  /** true when the quantile is matched exactly; false: the closest reachable value was taken */
  exact: boolean;
  /** the fitted process's own figures, to compare with the targets */
  achieved: { meanRate: number; gapCv: number; gapQuantileSeconds: number };
}

function hyperexponentialMeans(mean: number, cv: number, p: number): [number, number] {
  const k = (cv * cv - 1) / 2;
  return [mean * (1 - Math.sqrt(((1 - p) / p) * k)), mean * (1 + Math.sqrt((p / (1 - p)) * k))];
}

function hyperexponentialQuantile(p: number, m1: number, m2: number, q: number): number {
  const survival = (t: number) => p * Math.exp(-t / m1) + (1 - p) * Math.exp(-t / m2);
  return solveDecreasing(survival, 1 - q, Math.max(m1, m2) * Math.log(1 / (1 - q)));
}

/**
 * Fits a two-state MMPP whose quiet state is silent (an interrupted Poisson process) to a trace's mean rate, gap CV
 * and one gap quantile.
 *
 * Why this works: the gaps of an interrupted Poisson process are independent and hyperexponential — exponential of
 * mean m₁ with probability p, of mean m₂ otherwise (Kuczura 1973) — and every such mixture is one. Fixing the mean gap
 * (1 / rate) and the CV leaves one free parameter p ∈ ((cv²−1)/(cv²+1), 1):
 *   m₁ = m(1 − √((1−p)/p · (cv²−1)/2)),  m₂ = m(1 + √(p/(1−p) · (cv²−1)/2)).
 * p is then chosen so the gap quantile matches (scanning p and bisecting at a sign change; if several p match,
 * the largest — the mildest bursts; if none, the closest, with exact = false). Converting back with μᵢ = 1/mᵢ:
 *   burst rate λ = pμ₁ + (1−p)μ₂,  quiet → burst = μ₁μ₂/λ,  burst → quiet = μ₁ + μ₂ − λ − μ₁μ₂/λ.
 * A two-state MMPP with a non-silent quiet state has gaps of the same family, so allowing it cannot match more of
 * the gap distribution; it would only add correlation between successive gaps, which this fit leaves out.
 */
export function fitBurstyProcess(targets: BurstyFitTargets): BurstyFit {
  const rate = checkNumber("meanRate", targets.meanRate, { above: 0 });
  const cv = checkNumber("gapCv", targets.gapCv, { above: 1 });
  if (!targets.gapQuantile) throw new ParameterError("gapQuantile", "must be { p, seconds }");
  const q = checkNumber("gapQuantile.p", targets.gapQuantile.p, { above: 0, below: 1 });
  const target = checkNumber("gapQuantile.seconds", targets.gapQuantile.seconds, { above: 0 });
  const mean = 1 / rate;
  const pMin = (cv * cv - 1) / (cv * cv + 1);
  // p = pMin + (1 − pMin)·logistic(u): the logistic spreads the grid toward both ends of the open interval
  const pAt = (u: number) => pMin + (1 - pMin) / (1 + Math.exp(-u));
  const misfit = (u: number) => {
    const p = pAt(u);
    const [m1, m2] = hyperexponentialMeans(mean, cv, p);
    return Math.log(hyperexponentialQuantile(p, m1, m2, q) / target);
  };
  const step = 0.01;
  const grid: { u: number; f: number }[] = [];
  for (let u = -16; u <= 16 + 1e-9; u += step) {
    const f = misfit(u);
    if (Number.isFinite(f)) grid.push({ u, f });
  }
  let chosen: number | undefined;
  for (let i = grid.length - 1; i > 0 && chosen === undefined; i--) {
    const hiPoint = grid[i];
    const loPoint = grid[i - 1];
    if (hiPoint.f === 0) chosen = hiPoint.u;
    else if (Math.sign(hiPoint.f) !== Math.sign(loPoint.f)) {
      let lo = loPoint.u;
      let hi = hiPoint.u;
      const flo = loPoint.f;
      for (let k = 0; k < 100; k++) {
        const mid = (lo + hi) / 2;
        const fm = misfit(mid);
        if (Math.sign(fm) === Math.sign(flo)) lo = mid;
        else hi = mid;
      }
      chosen = (lo + hi) / 2;
    }
  }
  let exact = true;
  if (chosen === undefined) {
    exact = false;
    let best = grid[0];
    for (const g of grid) if (Math.abs(g.f) < Math.abs(best.f)) best = g;
    // golden-section refinement of |misfit| around the best grid point
    let lo = best.u - step;
    let hi = best.u + step;
    const ratio = (Math.sqrt(5) - 1) / 2;
    for (let k = 0; k < 80; k++) {
      const x1 = hi - ratio * (hi - lo);
      const x2 = lo + ratio * (hi - lo);
      if (Math.abs(misfit(x1)) < Math.abs(misfit(x2))) hi = x2;
      else lo = x1;
    }
    chosen = (lo + hi) / 2;
  }
  const p = pAt(chosen);
  const [m1, m2] = hyperexponentialMeans(mean, cv, p);
  const mu1 = 1 / m1;
  const mu2 = 1 / m2;
  const burstRate = p * mu1 + (1 - p) * mu2;
  const quietToBurst = (mu1 * mu2) / burstRate;
  const burstToQuiet = mu1 + mu2 - burstRate - quietToBurst;
  const params: MmppParameters = { rates: [burstRate, 0], switchRates: [burstToQuiet, quietToBurst] };
  const stats = mmppStatistics(params);
  return {
    params,
    gaps: { shortShare: p, shortMean: m1, longMean: m2 },
    meanBurstSeconds: 1 / burstToQuiet,
    meanQuietSeconds: 1 / quietToBurst,
    exact,
    achieved: { meanRate: stats.meanRate, gapCv: stats.gapCv, gapQuantileSeconds: stats.gapQuantile(q) },
  };
}
