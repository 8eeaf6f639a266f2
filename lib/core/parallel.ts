// Independent runs on several cores: `mapParallel(task, argsList)` calls `task(...args)` for each entry, spreading
// the calls over worker threads plus the calling thread, and returns the results in the order of `argsList` — the
// same values, in the same order, as `argsList.map((a) => task.fn(...a))` (each call is a pure function of its
// plain-data arguments, like a seeded simulation).
//
// It is synchronous (demos return a Table, not a Promise): the calling thread runs tasks itself and, when it has
// none left, takes back a task still waiting in a worker's queue (each worker keeps two queued, so that it never
// waits for the busy calling thread to send the next) or blocks on a shared counter (Atomics.wait) until a worker
// posts a result, which it then reads with receiveMessageOnPort. Workers load the task's own module file
// (`parallelTask(__filename, "name", fn)`): the compiled build/lib JavaScript in the notebook and under node; the
// TypeScript sources under tsx (the worker registers tsx's require hook). Where a worker cannot load it —
// TypeScript under vitest, a bundle, a browser — or starting one fails, every call runs in the calling thread, with
// the same results. Workers stay alive (unref'd, so they never keep a process alive) and are reused by later calls.
//
// How many threads: see defaultThreads() — on the 2-vCPU bench machine two for a call of 16 tasks or more (and of
// 90,000 simulated requests or more, when the call says its work) and the calling thread alone otherwise (a worker
// pays only once it is warm: bench/RESULTS.md, Stops 17 and 20); LECTURE_THREADS=N overrides.
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
  /** the whole call's work in simulated requests, when the caller knows it (simulateMany: its runs' request
   * counts): on a 2–3 CPU machine a call of less than SMALL_MACHINE_MIN_WORK runs in the calling thread */
  work?: number;
  /** called in the calling thread as results arrive (completion order; results are still returned in order) */
  onResult?: (index: number, done: number, total: number) => void;
}

interface Slot {
  worker: import("worker_threads").Worker;
  port: import("worker_threads").MessagePort;
  /** indices of the calls sent to it and not answered yet, in the order sent (it answers in that order) */
  inFlight: number[];
  /** when the oldest of them started running there (ms): when it was sent or when the one before it was answered */
  headSince: number;
  /** went silent: not used again */
  broken: boolean;
}

/** Calls sent ahead to each worker: the next one waits in its queue, so a worker finishing a call does not sit idle
 * until the calling thread, busy with a call of its own, sends it another. */
const WORKER_QUEUE = 2;

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

/** Calls with fewer tasks than this run in the calling thread on machines with fewer than 4 CPUs (unless
 * LECTURE_THREADS says otherwise): there a worker pays only once it is warm (bench/RESULTS.md, Stop 17). */
export const SMALL_MACHINE_MIN_TASKS = 16;

/** …and so do calls that say their work is less than this many simulated requests: a worker's first runs are
 * several times slower than its later ones (its JIT compiles the engine while it runs: a 12,800-request tool-calling
 * run takes ≈ 310 ms the first time in a thread and ≈ 70 ms the fourth time), so on two vCPUs a worker started
 * for a smaller call costs more CPU than it saves — the collection ran with 7 CPU s less on one thread, only 03.1
 * (≈ 330,000 + 280,000 requests) was slower (bench/RESULTS.md, Stop 20). */
export const SMALL_MACHINE_MIN_WORK = 90_000;

function cpuCount(): number {
  const o = os as unknown as { availableParallelism?: () => number };
  return Math.max(1, o.availableParallelism ? o.availableParallelism() : os.cpus().length);
}

/** Threads mapParallel uses by default for a call of `tasks` tasks: LECTURE_THREADS if set (≥ 1); else one per
 * CPU but one (left to V8's garbage-collector threads and the kernel) on machines with 4 CPUs or more; on 2–3 CPUs
 * two threads for a call of at least SMALL_MACHINE_MIN_TASKS tasks — and of at least SMALL_MACHINE_MIN_WORK simulated
 * requests when the call says its work (`work`) — and the calling thread alone for a smaller one.
 * Measured on the 2-vCPU bench machine (bench/RESULTS.md, Stop 17): with its worker warm (JIT-compiled by earlier
 * calls), 03.1's 162 runs took 2.0–2.1 s on two threads against 3.0 s on one; a worker's first call is no faster
 * than the calling thread alone (it loads the library and compiles it), so a few short runs are not worth one. */
export function defaultThreads(tasks = Infinity, work?: number): number {
  return threadsFor(cpuCount(), tasks, process.env.LECTURE_THREADS, work);
}

/** defaultThreads' rule on a machine of `cpus` CPUs, for a call of `tasks` tasks (and `work` simulated requests, if
 * known), with LECTURE_THREADS = `env`. */
export function threadsFor(cpus: number, tasks: number, env?: string, work?: number): number {
  const fixed = Number(env);
  if (env !== undefined && env !== "" && Number.isInteger(fixed) && fixed >= 1) return fixed;
  if (cpus >= 4) return cpus - 1;
  const bigEnough = tasks >= SMALL_MACHINE_MIN_TASKS && (work === undefined || work >= SMALL_MACHINE_MIN_WORK);
  return cpus >= 2 && bigEnough ? 2 : 1;
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
  // A queued call the calling thread has taken back (it ran out of calls of its own): not run here.
  if (!reply && Atomics.compareExchange(m.claimed, m.id, 0, 1) !== 0) reply = { call: m.call, id: m.id, ok: false, skipped: true };
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
    pool.push({ worker, port: port1, inFlight: [], headSince: 0, broken: false });
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
  const threads = Math.max(1, Math.min(options.threads ?? defaultThreads(n, options.work), n));
  let done = 0;
  const finish = (i: number, value: R) => {
    results[i] = value;
    done++;
    options.onResult?.(i, done, n);
  };
  const why = threads > 1 ? workersPossible(task.file) : "one thread";
  if (threads > 1) lastReason = why;
  let slots: Slot[] | null = null;
  if (why === null) {
    try {
      slots = ensurePool(threads - 1).slice(0, threads - 1); // a pool grown by an earlier call may hold more
    } catch (e) {
      unavailable = `starting a worker failed: ${(e as Error).message}`;
    }
  }
  if (slots === null) {
    for (let i = 0; i < n; i++) finish(i, task.fn(...argsList[i]));
    return results;
  }
  const run = new WorkerCall(task, argsList, slots, options.weights);
  run.dispatch();
  while (done < n) {
    run.collect(finish);
    for (let i = run.nextInline(); i >= 0; i = run.nextInline()) finish(i, task.fn(...argsList[i]));
    if (done >= n) break;
    run.dispatch();
    // This thread's share: the next call in line; with none left, one still waiting in a worker's queue (a worker
    // that has just started, slow until its JIT has compiled the task, would otherwise keep this thread waiting for
    // two calls); else wait for a worker's result.
    const i = run.takeNext();
    if (i >= 0) finish(i, task.fn(...argsList[i]));
    else if (run.waiting()) run.wait(finish);
  }
  return results;
}

/** One mapParallel call's calls on the workers: the line of calls (most expensive first), each worker's queue, the
 * calls taken back to run in the calling thread. */
class WorkerCall<A extends unknown[], R> {
  private readonly call = ++callCounter;
  private readonly order: number[];
  /** the next call in line */
  private next = 0;
  /** calls a worker could not run or will not run now: run in the calling thread (same result, or the genuine
   * exception) */
  private readonly inline: number[] = [];
  /** claimed[i]: 0 while call i waits, 1 once a worker started it, 2 once the calling thread took it back from a
   * worker's queue (both sides claim it with compareExchange, so exactly one of them runs it) */
  private readonly claimed: Int32Array;
  private readonly wt = require("worker_threads") as typeof import("worker_threads");

  constructor(
    private readonly task: ParallelTask<A, R>,
    private readonly argsList: readonly A[],
    private readonly slots: Slot[],
    weights?: readonly number[],
  ) {
    const n = argsList.length;
    // Most expensive first (stable for equal weights: original order). Every thread takes the next call in line, so
    // the last to finish are short ones (workers taking from the cheap end instead was measured slower: 03.1 2.5–2.9 s
    // against 2.0–2.1 s).
    this.order = Array.from({ length: n }, (_, i) => i);
    if (weights) this.order.sort((a, b) => (weights[b] ?? 0) - (weights[a] ?? 0) || a - b);
    this.claimed = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, n)));
    // Calls an earlier mapParallel left running there (it ended in an exception) answer with its number: dropped.
    for (const s of slots) s.inFlight = [];
  }

  /** Fills every worker's queue from the line. */
  dispatch(): void {
    const { task, argsList, order, call, claimed } = this;
    for (const s of this.slots) {
      while (s.inFlight.length < WORKER_QUEUE && !s.broken && this.next < order.length && !unloadable.has(task.file)) {
        const i = order[this.next++];
        try {
          s.port.postMessage({ call, id: i, file: task.file, name: task.name, args: argsList[i], claimed });
        } catch (e) {
          // Arguments that cannot be cloned (a function, a class with private state…): this call runs here.
          lastWorkerError = `arguments not cloneable: ${(e as Error).message}`;
          this.inline.push(i);
          continue;
        }
        if (s.inFlight.length === 0) s.headSince = Date.now();
        s.inFlight.push(i);
      }
    }
  }

  /** Reads the workers' replies: results go to `finish`; a failed call joins the inline ones. Returns how many. */
  collect(finish: (i: number, value: R) => void): number {
    let got = 0;
    for (const s of this.slots) {
      while (s.inFlight.length > 0) {
        const m = this.wt.receiveMessageOnPort(s.port);
        if (!m) break;
        const reply = m.message as { call: number; id: number; ok: boolean; load?: boolean; skipped?: boolean; value?: R; error?: string };
        if (reply.call !== this.call) continue; // from a call that ended in an exception: its result is not wanted
        s.inFlight.shift();
        s.headSince = Date.now();
        if (reply.skipped) continue; // the calling thread took it back and ran it
        got++;
        if (reply.ok) finish(reply.id, reply.value as R);
        else {
          // The module did not load there, or the call threw: run it here (the same result, or the genuine
          // exception); after a failed load, this file's calls stay in the calling thread.
          lastWorkerError = reply.error ?? "";
          if (reply.load) unloadable.add(this.task.file);
          this.inline.push(reply.id);
        }
      }
    }
    return got;
  }

  /** The next call to run inline, or −1. */
  nextInline(): number {
    return this.inline.length > 0 ? (this.inline.shift() as number) : -1;
  }

  /** The calling thread's next call: the next in line, else one a worker has queued but not started (claimed for
   * this thread), else −1. */
  takeNext(): number {
    if (this.next < this.order.length) return this.order[this.next++];
    for (const s of this.slots) {
      for (let k = s.inFlight.length - 1; k >= 0; k--) {
        const i = s.inFlight[k];
        if (Atomics.compareExchange(this.claimed, i, 0, 2) === 0) return i;
      }
    }
    return -1;
  }

  /** Some worker still owes a reply. */
  waiting(): boolean {
    return this.slots.some((s) => s.inFlight.length > 0 && !s.broken);
  }

  /** Waits for a worker's result in short slices, so that a worker that died without replying — it cannot run our
   * catch — is noticed after SILENT_MS and its calls are taken back. */
  wait(finish: (i: number, value: R) => void): void {
    const sig = signal as Int32Array;
    const seen = Atomics.load(sig, 0);
    if (this.collect(finish) > 0) return;
    Atomics.wait(sig, 0, seen, 200);
    const now = Date.now();
    for (const s of this.slots) {
      if (s.inFlight.length > 0 && now - s.headSince > SILENT_MS) {
        this.inline.push(...s.inFlight);
        s.inFlight = [];
        s.broken = true;
      }
    }
  }
}
