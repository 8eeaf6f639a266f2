// A time limit on code the reader writes (a dispatch policy, a router): node's vm watchdog interrupts whatever
// JavaScript runs when the limit passes — an endless `while (true) {}` inside the reader's function included, which
// no check between calls could stop — and the caller turns that into its own one-line error (naming the job or the
// request it was deciding). It costs nothing per call: the whole run executes inside one vm script.
import * as vm from "vm";

let context: vm.Context | undefined;
let script: vm.Script | undefined;
let depth = 0;

/** Runs `run` with at most `seconds` of wall time; past it, throws `onTimeout()` instead. Nested calls run under the
 * outer limit only (a vm watchdog cannot nest its job slot). */
export function runWithTimeLimit<T>(seconds: number, run: () => T, onTimeout: () => Error): T {
  if (depth > 0) return run();
  context ??= vm.createContext({ job: null });
  script ??= new vm.Script("job()");
  context.job = run;
  depth++;
  try {
    return script.runInContext(context, { timeout: Math.max(1, Math.ceil(seconds * 1000)) }) as T;
  } catch (e) {
    if ((e as { code?: string } | null)?.code === "ERR_SCRIPT_EXECUTION_TIMEOUT") throw onTimeout();
    throw e;
  } finally {
    depth--;
    context.job = null;
  }
}
