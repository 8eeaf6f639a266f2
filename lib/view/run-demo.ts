// A long demo with a live status line: `const t = await runDemoWithProgress("03.1"); show(t);`.
//
// A demo is synchronous, so while it runs in the kernel's own thread nothing reaches the notebook: a status line
// updated from its progress callback would only show its last message when the cell ends. Here the demo runs in a
// worker thread (loading the same compiled library), the kernel's thread stays free, and every progress message
// (at most ~10 a second) redraws the status line as it comes, with the seconds elapsed; on a terminal it is a
// rewritten stderr line. The table comes back as plain data — the same Table, seed for seed, as runDemo's.
// Where a worker cannot load the library (TypeScript sources under vitest, no worker_threads), or the table
// cannot cross threads, the demo runs in this thread instead (same table; the line then updates only at the end).
import * as path from "path";
import { ParameterError } from "../core/errors";
import type { Table } from "../core/table";
import { DemoParams, getDemo, runDemo } from "../demos/registry";
import { statusLine } from "./display";

type Status = ReturnType<typeof statusLine>;

interface Pending {
  resolve: (t: Table) => void;
  reject: (e: Error) => void;
  status: Status;
  id: string;
  overrides: DemoParams;
  started: number;
}

let worker: import("worker_threads").Worker | null = null;
let workerBroken = false;
let nextRequest = 1;
const pending = new Map<number, Pending>();

// The worker: loads the library's demo registry once, runs demos on request, forwards their progress (throttled).
const WORKER_SOURCE = `
const { parentPort, workerData } = require("worker_threads");
const demos = require(workerData.demosIndex);
parentPort.on("message", ({ request, id, overrides }) => {
  let last = 0;
  const progress = (message) => {
    const now = Date.now();
    if (now - last < 100) return;
    last = now;
    parentPort.postMessage({ request, progress: String(message) });
  };
  try {
    const table = demos.runDemo(id, overrides, { progress });
    try {
      parentPort.postMessage({ request, table });
    } catch (e) {
      parentPort.postMessage({ request, uncloneable: String(e) });
    }
  } catch (e) {
    parentPort.postMessage({ request, error: { name: e && e.name, message: String((e && e.message) || e), parameter: e && e.parameter } });
  }
});
`;

function demoWorker(): import("worker_threads").Worker | null {
  if (worker || workerBroken) return worker;
  // Only the compiled library (build/lib, what the notebooks load) can be required by a plain worker.
  if (!__filename.endsWith(".js")) return null;
  try {
    const wt = require("worker_threads") as typeof import("worker_threads");
    const w = new wt.Worker(WORKER_SOURCE, { eval: true, workerData: { demosIndex: path.join(__dirname, "..", "demos", "index.js") } });
    w.on("message", (m: { request: number; progress?: string; table?: Table; error?: { name?: string; message: string; parameter?: string }; uncloneable?: string }) => {
      const p = pending.get(m.request);
      if (!p) return;
      if (m.progress !== undefined) {
        p.status.update(`${m.progress} · ${((Date.now() - p.started) / 1000).toFixed(0)} s`);
        return;
      }
      pending.delete(m.request);
      if (pending.size === 0) w.unref();
      if (m.table) {
        p.status.done(`${p.id}: done in ${((Date.now() - p.started) / 1000).toFixed(1)} s`);
        p.resolve(m.table);
      } else if (m.uncloneable !== undefined) {
        // The table holds something a thread cannot pass on (a format function): run it here instead.
        try {
          p.resolve(runHere(p.id, p.overrides, p.status, p.started));
        } catch (e) {
          p.reject(e as Error);
        }
      } else {
        const e = m.error ?? { message: "unknown error" };
        p.status.done("");
        if (e.name === "ParameterError" && e.parameter) p.reject(new ParameterError(e.parameter, e.message.startsWith(`${e.parameter}: `) ? e.message.slice(e.parameter.length + 2) : e.message));
        else p.reject(Object.assign(new Error(e.message), { name: e.name ?? "Error" }));
      }
    });
    w.on("error", (e) => {
      workerBroken = true;
      worker = null;
      for (const [k, p] of pending) {
        pending.delete(k);
        p.reject(e);
      }
    });
    w.unref();
    worker = w;
  } catch {
    workerBroken = true;
  }
  return worker;
}

function runHere(id: string, overrides: DemoParams, status: Status, started: number): Table {
  const table = runDemo(id, overrides, { progress: (m) => status.update(`${m} · ${((Date.now() - started) / 1000).toFixed(0)} s`) });
  status.done(`${id}: done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return table;
}

/** Runs demo `id` (parameters merged into its defaults, as runDemo) with a status line showing its progress;
 * resolves to its Table. In the notebook: `const t = await runDemoWithProgress("03.1"); show(t);`. */
export function runDemoWithProgress(id: string, overrides: DemoParams = {}): Promise<Table> {
  getDemo(id); // an unknown id throws here, synchronously
  const status = statusLine();
  const started = Date.now();
  status.update(`${id}: starting …`);
  const w = demoWorker();
  if (!w) {
    try {
      return Promise.resolve(runHere(id, overrides, status, started));
    } catch (e) {
      status.done("");
      return Promise.reject(e);
    }
  }
  return new Promise<Table>((resolve, reject) => {
    const request = nextRequest++;
    pending.set(request, { resolve, reject, status, id, overrides, started });
    w.ref(); // keep the process alive until the answer arrives
    w.postMessage({ request, id, overrides });
  });
}
