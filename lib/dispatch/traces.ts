// Queue-length traces of a dispatch run (§1.3): rebuilt from a run's job records, or sampled as a run goes.
import { checkInteger, checkNumber, ParameterError } from "../core/errors";
import { DispatchOptions, DispatchRun, simulateDispatch } from "./servers";

export interface QueueLengthTrace {
  /** sample instants (mean service times) */
  times: number[];
  /** lengths[s][k]: jobs in system (waiting + in service) on server s at times[k] */
  lengths: number[][];
  /** snapshot refreshes inside the window */
  refreshTimes: number[];
}

/** Queue lengths of every server sampled every `step` on [from, to), rebuilt from a run's job records
 * (simulateDispatch with recordJobs: true). */
export function queueLengthTrace(run: DispatchRun, window: { from: number; to: number; step: number }): QueueLengthTrace {
  const from = checkNumber("from", window.from, { min: 0 });
  const to = checkNumber("to", window.to, { above: from });
  const step = checkNumber("step", window.step, { above: 0 });
  const rec = run.records;
  if (!rec) throw new ParameterError("run", "需要带逐个请求记录的运行（simulateDispatch 的 recordJobs: true）");
  const samples = Math.ceil((to - from) / step);
  const times = Array.from({ length: samples }, (_, k) => from + k * step);
  const lengths = Array.from({ length: run.servers }, () => new Array<number>(samples).fill(0));
  for (let i = 0; i < run.jobs; i++) {
    const a = rec.arrival[i];
    const c = rec.completion[i];
    if (a >= to || c <= from) continue;
    // the job is counted at sample times τ with a ≤ τ < c
    const first = Math.max(0, Math.ceil((a - from) / step));
    const last = Math.min(samples - 1, Math.ceil((c - from) / step) - 1);
    const row = lengths[rec.server[i]];
    for (let k = first; k <= last; k++) row[k]++;
  }
  return { times, lengths, refreshTimes: rec.refreshTimes.filter((r) => r >= from && r < to) };
}

/** Jobs needed for the arrivals of a Poisson process at `rate` to pass time `to` (mean + 6 standard deviations). */
export function jobsToCover(rate: number, to: number): number {
  const expected = rate * to;
  return Math.ceil(expected + 6 * Math.sqrt(expected) + 10);
}

export interface HerdingTraceOptions extends Omit<DispatchOptions, "jobs" | "warmupFraction" | "queueWindow"> {
  // from / to / step also reach simulateDispatch, which ignores options it does not know
  /** window start and end (mean service times) and sampling step */
  from: number;
  to: number;
  step?: number;
}

/** Simulates just long enough to cover [from, to) and returns every server's queue length over that window (§1.3),
 * sampled as the run goes (memory: the window, not the jobs). */
export function herdingTrace(options: HerdingTraceOptions): QueueLengthTrace & { run: DispatchRun } {
  const servers = checkInteger("servers", options.servers ?? 16, { min: 1 });
  const utilization = checkNumber("utilization", options.utilization, { above: 0, below: 1 });
  const from = checkNumber("from", options.from, { min: 0 });
  const to = checkNumber("to", options.to, { above: from });
  const step = checkNumber("step", options.step ?? 0.25, { above: 0 });
  const run = simulateDispatch({ ...options, servers, utilization, jobs: jobsToCover(utilization * servers, to), warmupFraction: 0, queueWindow: { from, to, step } });
  const q = run.queueSamples as QueueLengthTrace;
  return { ...q, run };
}
