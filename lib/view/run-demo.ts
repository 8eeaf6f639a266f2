// A long demo with a status line: `const t = runDemoWithProgress("03.1"); show(t);`.
//
// The demo's progress messages (context.progress) redraw one status line — an updatable display in the notebook, a
// rewritten stderr line on a terminal — with the seconds elapsed, at most ~10 times a second; when the demo ends the
// line is cleared (a handout shows no timing: it would differ from run to run). The table is runDemo's. Although the
// demo runs synchronously in the kernel's thread, the notebook shows each update as it is made (tslab hands display
// messages to ZeroMQ, whose own thread sends them: checked with nbclient, the updates arrive one by one while the cell
// runs).
import type { Table } from "../core/table";
import { DemoParams, getDemo, runDemo } from "../demos/registry";
import { statusLine } from "./display";

/** Runs demo `id` (parameters merged into its defaults, as runDemo) with a status line showing its progress and
 * the seconds elapsed; returns its Table. */
export function runDemoWithProgress(id: string, overrides: DemoParams = {}): Table {
  getDemo(id); // an unknown id throws before any output
  const status = statusLine();
  const started = Date.now();
  const seconds = () => (Date.now() - started) / 1000;
  let last = -Infinity;
  status.update(`${id}：运行中…`);
  try {
    const table = runDemo(id, overrides, {
      progress: (message) => {
        const now = Date.now();
        if (now - last < 100) return;
        last = now;
        status.update(`${message} · ${seconds().toFixed(0)} 秒`);
      },
    });
    status.done("");
    return table;
  } catch (e) {
    status.done("");
    throw e;
  }
}
