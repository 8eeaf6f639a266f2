// Independent runs on several cores: `mapParallel(task, argsList)` calls `task(...args)` for each entry, spreading
// the calls over worker threads plus the calling thread, and returns the results in the order of `argsList` — the
// same values, in the same order, as `argsList.map((a) => task.fn(...a))` (each call is a pure function of its
// plain-data arguments, like a seeded simulation).
//
// It is synchronous (demos return a Table, not a Promise): the calling thread runs tasks itself and, when it has
// none left, blocks on a shared counter (Atomics.wait) until a worker posts a result, which it then reads with
// receiveMessageOnPort. Workers load the task's own module file (`parallelTask(__filename, "name", fn)`): the
// compiled build/lib JavaScript in the notebook and under node; the TypeScript sources under tsx (the worker
// registers tsx's require hook). Where a worker cannot load it — TypeScript under vitest, a bundle, a browser —
// or starting one fails, every call runs in the calling thread, with the same results. Workers stay alive
// (unref'd, so they never keep a process alive) and are reused by later calls.
//
// How many threads: see defaultThreads() — on the 2-vCPU bench machine the default is the calling thread alone,
// because a second simulation thread did not pay there (bench/RESULTS.md); LECTURE_THREADS=N overrides.
//
// Arguments and results cross threads by structured clone: pass and return plain data (numbers, strings, arrays,
// plain objects); class instances lose their prototype (a ClusterResult's records would lose their getters), so a
// task returns the summary the caller needs rather than a whole run.
import * as os from "os";

/** A function that worker threads can find again: the module file that exports it, and the export's name. */
export interface ParallelTask<A extends unknown[], R> {
  readonly file: string;
  readonly name: string;
  readonly fn: (...args: A) => R;
}

/** Declares `fn`, exported as `name` from the module `file` (pass `__filename`), as runnable in a worker. */
export function parallelTask<A extends unknown[], R>(file: string, name: string, fn: (...args: A) => R): ParallelTask<A, R> {
  return { file, name, fn };
}

export interface ParallelOptions {
  /** threads in all, the calling one included; default: LECTURE_THREADS or the number of CPUs */
  threads?: number;
  /** relative cost of each call (same order as argsList): the most expensive start first; default all equal */
  weights?: readonly number[];
  /** called in the calling thread as results arrive (completion order; results are still returned in order) */
  onResult?: (index: number, done: number, total: number) => void;
}

interface Slot {
  worker: import("worker_threads").Worker;
  port: import("worker_threads").MessagePort;
  /** index of the call it runs, −1 when idle */
  busy: number;
  /** when that call was sent (ms) */
  sentAt: number;
  /** went silent: not used again */
  broken: boolean;
}

/** A call running longer than this in a worker is taken back and run here (the worker is assumed dead). */
const SILENT_MS = 15 * 60_000;

// One pool per thread that calls mapParallel (a worker's own calls run inline: no nesting).
let pool: Slot[] | null = null;
let signal: Int32Array | null = null;
let unavailable: string | null = null;
let lastWorkerError: string | null = null;
/** why the last call with more than one thread ran in the calling thread only (null: it used workers) */
let lastReason: string | null = null;
/** task files a worker failed to load (their calls run in the calling thread from then on) */
const unloadable = new Set<string>();
/** numbers each mapParallel call, so that a reply left over from an interrupted call is recognised and dropped */
let callCounter = 0;

/** Threads mapParallel uses by default: LECTURE_THREADS if set (≥ 1); else one per CPU but one (left to V8's
 * garbage-collector threads and the kernel) on machines with 4 CPUs or more, and just the calling thread on
 * smaller ones. Measured on the 2-vCPU bench machine (bench/RESULTS.md): one simulation thread already keeps
 * the second CPU about 40% busy with concurrent GC, and two simulation threads ran each other ~1.5× slower per
 * run, so 03.1 took as long or longer with a worker than without. */
export function defaultThreads(): number {
  const env = Number(process.env.LECTURE_THREADS);
  if (Number.isInteger(env) && env >= 1) return env;
  const o = os as unknown as { availableParallelism?: () => number };
  const cpus = Math.max(1, o.availableParallelism ? o.availableParallelism() : os.cpus().length);
  return cpus >= 4 ? cpus - 1 : 1;
}

/** Why workers are not used here (null when they are, or have not been tried yet), and the last error a worker
 * reported (its call was then run in the calling thread). */
export function parallelStatus(): { unavailable: string | null; lastWorkerError: string | null; workers: number } {
  return { unavailable: unavailable ?? lastReason, lastWorkerError, workers: pool ? pool.filter((s) => !s.broken).length : 0 };
}

function workersPossible(file: string): string | null {
  if (unavailable) return unavailable;
  if (typeof process === "undefined" || !process.versions?.node) return "not running in Node";
  let wt: typeof import("worker_threads");
  try {
    wt = require("worker_threads");
  } catch {
    return "worker_threads not available";
  }
  if (!wt.isMainThread) return "already in a worker";
  if (unloadable.has(file)) return `a worker could not load ${file}`;
  // TypeScript sources load in a worker only through tsx (vitest's transform does not reach worker threads).
  if (file.endsWith(".ts") && !process.execArgv.some((a) => a.includes("tsx"))) return "TypeScript sources outside tsx";
  return null;
}

// The worker: loads task modules on demand, runs calls, posts { id, ok, value | error }, then bumps the counter.
const WORKER_SOURCE = `
const { workerData } = require("worker_threads");
const { port, signal, tsxApi } = workerData;
const modules = new Map();
port.on("message", (m) => {
  let reply;
  let fn;
  try {
    let mod = modules.get(m.file);
    if (!mod) {
      if (m.file.endsWith(".ts") && !modules.has("tsx")) {
        // Under tsx the parent runs TypeScript sources: register tsx's require hook in this thread too.
        if (!tsxApi) throw new Error("tsx/cjs/api not found: cannot load " + m.file);
        require(tsxApi).register();
        modules.set("tsx", true);
      }
      mod = require(m.file);
      modules.set(m.file, mod);
    }
    fn = mod[m.name];
    if (typeof fn !== "function") throw new Error(m.file + " exports no function " + m.name);
  } catch (e) {
    reply = { call: m.call, id: m.id, ok: false, load: true, error: String((e && e.stack) || e) };
  }
  if (!reply) {
    try {
      reply = { call: m.call, id: m.id, ok: true, value: fn(...m.args) };
    } catch (e) {
      reply = { call: m.call, id: m.id, ok: false, load: false, error: String((e && e.stack) || e) };
    }
  }
  try {
    port.postMessage(reply);
  } catch (e) {
    port.postMessage({ call: m.call, id: m.id, ok: false, load: false, error: "result not cloneable: " + e });
  }
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});
`;

function ensurePool(size: number): Slot[] {
  const wt = require("worker_threads") as typeof import("worker_threads");
  if (!signal) signal = new Int32Array(new SharedArrayBuffer(4));
  pool = (pool ?? []).filter((s) => {
    if (s.broken) void s.worker.terminate();
    return !s.broken;
  });
  while (pool.length < size) {
    const { port1, port2 } = new wt.MessageChannel();
    let tsxApi: string | null = null;
    try {
      tsxApi = require.resolve("tsx/cjs/api");
    } catch {
      tsxApi = null; // compiled build: not needed
    }
    const worker = new wt.Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, signal, tsxApi }, transferList: [port2] });
    worker.unref();
    port1.unref();
    // Errors outside a call (the thread failed to start) surface as a missing reply: see the wait loop.
    worker.on("error", () => undefined);
    pool.push({ worker, port: port1, busy: -1, sentAt: 0, broken: false });
  }
  return pool;
}

/** Stops the pool's workers (they are unref'd anyway; for tests and long-lived kernels). */
export async function closeParallelPool(): Promise<void> {
  const p = pool;
  pool = null;
  if (p) await Promise.all(p.map((s) => s.worker.terminate()));
}

/** Calls `task.fn(...args)` for every entry of `argsList`, on worker threads and this one; results in order. */
export function mapParallel<A extends unknown[], R>(task: ParallelTask<A, R>, argsList: readonly A[], options: ParallelOptions = {}): R[] {
  const n = argsList.length;
  const results: R[] = new Array(n);
  const threads = Math.max(1, Math.min(options.threads ?? defaultThreads(), n));
  let done = 0;
  const finish = (i: number, value: R) => {
    results[i] = value;
    done++;
    options.onResult?.(i, done, n);
  };
  const why = threads > 1 ? workersPossible(task.file) : "one thread";
  if (threads > 1) lastReason = why;
  if (why !== null) {
    for (let i = 0; i < n; i++) finish(i, task.fn(...argsList[i]));
    return results;
  }
  // Most expensive first (stable for equal weights: original order).
  const order = Array.from({ length: n }, (_, i) => i);
  if (options.weights) {
    const w = options.weights;
    order.sort((a, b) => (w[b] ?? 0) - (w[a] ?? 0) || a - b);
  }
  let slots: Slot[];
  try {
    slots = ensurePool(threads - 1);
  } catch (e) {
    unavailable = `starting a worker failed: ${(e as Error).message}`;
    for (let i = 0; i < n; i++) finish(i, task.fn(...argsList[i]));
    return results;
  }
  const wt = require("worker_threads") as typeof import("worker_threads");
  const sig = signal as Int32Array;
  const call = ++callCounter;
  let next = 0;
  const inline: number[] = []; // calls a worker could not run: redone here (same result, or the real exception)
  const dispatch = () => {
    for (const s of slots) {
      if (s.busy >= 0 || s.broken || next >= n || unloadable.has(task.file)) continue;
      const i = order[next++];
      try {
        s.port.postMessage({ call, id: i, file: task.file, name: task.name, args: argsList[i] });
      } catch (e) {
        // Arguments that cannot be cloned (a function, a class with private state…): this call runs here.
        lastWorkerError = `arguments not cloneable: ${(e as Error).message}`;
        inline.push(i);
        continue;
      }
      s.busy = i;
      s.sentAt = Date.now();
    }
  };
  const collect = (): number => {
    let got = 0;
    for (const s of slots) {
      if (s.busy < 0) continue;
      const m = wt.receiveMessageOnPort(s.port);
      if (!m) continue;
      const reply = m.message as { call: number; id: number; ok: boolean; load?: boolean; value?: R; error?: string };
      s.busy = -1;
      if (reply.call !== call) continue; // from a call that ended in an exception: its result is not wanted
      got++;
      if (reply.ok) finish(reply.id, reply.value as R);
      else {
        // The module did not load there, or the call threw: run it here (the same result, or the genuine
        // exception); after a failed load, this file's calls stay in the calling thread.
        lastWorkerError = reply.error ?? "";
        if (reply.load) unloadable.add(task.file);
        inline.push(reply.id);
      }
    }
    return got;
  };
  dispatch();
  while (done < n) {
    collect();
    while (inline.length) {
      const i = inline.shift() as number;
      finish(i, task.fn(...argsList[i]));
    }
    if (done >= n) break;
    dispatch();
    if (next < n) {
      // This thread's share: the next call in line.
      const i = order[next++];
      finish(i, task.fn(...argsList[i]));
      continue;
    }
    if (slots.every((s) => s.busy < 0 || s.broken)) continue;
    // Nothing left to start: wait for a worker's result (short slices, so that a worker that died without
    // replying — it cannot run our catch — is noticed after SILENT_MS and its call is taken back).
    const seen = Atomics.load(sig, 0);
    if (collect() === 0) {
      Atomics.wait(sig, 0, seen, 200);
      const now = Date.now();
      for (const s of slots) {
        if (s.busy >= 0 && now - s.sentAt > SILENT_MS) {
          inline.push(s.busy);
          s.busy = -1;
          s.broken = true;
        }
      }
    }
  }
  return results;
}
