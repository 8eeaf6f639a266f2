// Helpers for the tests that drive Jupyter and Chromium: run a process without blocking the test worker, and the
// project's paths. (Not a test file: vitest only collects *.test.ts.)
import { spawn } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export const ROOT = path.resolve(__dirname, "..", "..");
export const NOTEBOOKS_DIR = path.join(ROOT, "notebooks");
export const PYTHON = "/usr/bin/python3"; // Debian's: it has nbclient / nbconvert (a pyenv python3 on PATH does not)
export const RUNNER = path.join(ROOT, "scripts", "run_notebooks.py");
/** The kernelspec every notebook names (test/notebooks-clean.test.ts checks the committed ones). */
export const TSLAB_KERNELSPEC = { name: "tslab", display_name: "TypeScript", language: "typescript" };

export interface ProcessResult {
  code: number | null;
  output: string; // stdout and stderr, interleaved as they came
  seconds: number;
}

export function runProcess(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ProcessResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: options.env ?? process.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output, seconds: (Date.now() - started) / 1000 }));
  });
}

/** Registers the tslab kernel in .jupyter/ (what `npm test` does first), so a lone `npx vitest run` works too. */
export async function ensureKernelSpec(): Promise<void> {
  const r = await runProcess(process.execPath, ["--input-type=module", "-e", "import('./scripts/project.mjs').then((m) => m.writeKernelSpec())"]);
  if (r.code !== 0) throw new Error(`could not write the kernel spec:\n${r.output}`);
}

/** Runs notebooks through the project's one runner (scripts/run_notebooks.py), with an empty result cache
 * (lib/demos/result-cache.ts) of their own: what the notebooks reuse, they computed in this run. */
export async function runNotebooks(notebooks: string[], extraArgs: string[] = []): Promise<ProcessResult> {
  const cache = fs.mkdtempSync(path.join(os.tmpdir(), "l11-test-cache-"));
  try {
    return await runProcess(PYTHON, [RUNNER, ...extraArgs, ...notebooks], { env: { ...process.env, LECTURE_RESULT_CACHE: cache } });
  } finally {
    fs.rmSync(cache, { recursive: true, force: true });
  }
}
