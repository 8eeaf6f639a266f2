// The notebook runner (scripts/run_notebooks.py) leaves no tslab kernel behind, whatever way it ends: a failing
// notebook, an unreadable one, an exception, SIGTERM or Ctrl-C (SIGINT) while a cell runs and the next notebook's
// kernel is already started ahead; and it refuses what is not a notebook (an unknown option, a stray word) with its
// usage line before starting any kernel. A kernel left running would hold the caller's output pipe open
// (`npm run handouts … | tail` hangs). Each run carries a marker in its environment, which its kernels inherit, so
// the test finds exactly the kernels that run started (other runs on the machine have their own).
// Also here: a cell that uses an export before the import cell says to run the import cell first, in Chinese
// (scripts/kernel-startup.cjs).
import { spawn } from "child_process";
import { randomUUID } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { beforeAll, describe, expect, it } from "vitest";
import { PYTHON, ROOT, RUNNER, ensureKernelSpec, runProcess } from "./support/processes";

const fixture = (name: string) => path.join(ROOT, "test", "fixtures", name);
const TIMEOUT_MS = 3 * 60_000;

/** Pids of the tslab kernels whose environment carries L11_KERNEL_MARK=mark. */
function kernelsWithMark(mark: string): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = fs.readFileSync(`/proc/${entry}/environ`, "latin1").split("\0");
      if (!environ.includes(`L11_KERNEL_MARK=${mark}`)) continue;
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, "latin1").split("\0");
      if (cmdline.some((a) => a.includes("tslab"))) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** Kernels that exit within a moment of the runner are not "left behind": wait up to `ms` for them to go. */
async function kernelsLeft(mark: string, ms = 3000): Promise<number[]> {
  const until = Date.now() + ms;
  let left = kernelsWithMark(mark);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 200));
    left = kernelsWithMark(mark);
  }
  return left;
}

function markedEnv(mark: string): NodeJS.ProcessEnv {
  return { ...process.env, L11_KERNEL_MARK: mark };
}

async function runMarked(args: string[]) {
  const mark = randomUUID();
  const r = await runProcess(PYTHON, [RUNNER, ...args], { env: markedEnv(mark) });
  return { ...r, left: await kernelsLeft(mark) };
}

/** Starts the runner, waits until its kernel for the slow cell and the one started ahead are both up, sends
 * `signal`, and waits for the runner to exit. */
async function interruptMarked(signal: NodeJS.Signals) {
  const mark = randomUUID();
  const child = spawn(PYTHON, [RUNNER, fixture("runner-slow.ipynb"), fixture("runner-allowed-error.ipynb")], {
    cwd: ROOT,
    env: markedEnv(mark),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const until = Date.now() + 90_000;
  let before: number[] = [];
  while (Date.now() < until) {
    before = kernelsWithMark(mark);
    if (before.length >= 2) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  await new Promise((r) => setTimeout(r, 1500)); // into the slow cell
  child.kill(signal);
  const code = await exited;
  return { code, output, before, left: await kernelsLeft(mark) };
}

beforeAll(async () => {
  await ensureKernelSpec();
}, 60_000);

describe("the notebook runner leaves no kernel behind", () => {
  it(
    "after failing notebooks (with the next kernel started ahead); a cell run before the import cell says so in Chinese",
    async () => {
      const r = await runMarked([fixture("runner-before-import.ipynb"), fixture("runner-error.ipynb"), fixture("runner-allowed-error.ipynb")]);
      expect(r.code, r.output).toBe(1);
      expect(r.output).toContain("1 notebook(s) ran cleanly, 2 failed");
      expect(r.left, "kernels left running").toEqual([]);
      // `check(…)` before `import { check } from "./lib/index"`: not TypeScript's bare "Cannot find name 'check'".
      expect(r.output).toMatch(/FAILED .*runner-before-import\.ipynb: cell 1 \(code cell 1\) raised an error/);
      expect(r.output).toContain("请先运行第一个单元格（import）：check");
      expect(r.output).not.toContain("Cannot find name");
    },
    TIMEOUT_MS,
  );

  it(
    "after an unreadable notebook and after an exception in the runner itself",
    async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "l11-runner-"));
      try {
        const broken = path.join(dir, "broken.ipynb");
        fs.writeFileSync(broken, '{"cells": [');
        const unreadable = await runMarked([broken, fixture("runner-allowed-error.ipynb")]);
        expect(unreadable.code, unreadable.output).toBe(1);
        expect(unreadable.output).toMatch(/FAILED .*broken\.ipynb: NotJSONError/);
        expect(unreadable.output).toContain("1 notebook(s) ran cleanly, 1 failed"); // the other notebook still ran
        expect(unreadable.left, "kernels left running").toEqual([]);

        // --html-dir under a file: writing the first page raises while the next notebook's kernel is starting.
        const file = path.join(dir, "a-file");
        fs.writeFileSync(file, "");
        const crashed = await runMarked(["--html-dir", path.join(file, "html"), fixture("runner-allowed-error.ipynb"), fixture("runner-slow.ipynb")]);
        expect(crashed.code, crashed.output).not.toBe(0);
        expect(crashed.output).toContain("NotADirectoryError");
        expect(crashed.left, "kernels left running").toEqual([]);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );

  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
  ] as const) {
    it(
      `after ${signal} while a cell runs and the next kernel is up`,
      async () => {
        const r = await interruptMarked(signal);
        expect(r.before.length, `kernels up before the signal:\n${r.output}`).toBe(2);
        expect(r.code, r.output).toBe(code);
        expect(r.output).toContain(`interrupted (${signal})`);
        expect(r.output).not.toContain("runner-allowed-error: ok"); // the run stopped; it did not go on
        expect(r.left, "kernels left running").toEqual([]);
      },
      TIMEOUT_MS,
    );
  }

  it(
    "refuses an unknown option or a word that is not a notebook with its usage line, starting no kernel",
    async () => {
      for (const args of [["--bogus", fixture("runner-error.ipynb")], ["student", fixture("runner-error.ipynb")]]) {
        const r = await runMarked(args);
        expect(r.code, r.output).toBe(2);
        expect(r.output).toMatch(/^usage: run_notebooks\.py/m);
        expect(r.output).toMatch(/unrecognized arguments: --bogus|not a notebook file: .*student/);
        expect(r.output).not.toContain("[1/");
        expect(r.left).toEqual([]);
      }
    },
    TIMEOUT_MS,
  );

  // `npm run handouts -- --bogus`: handouts.mjs's own option parsing must refuse it with a usage line before it runs
  // anything; the runner side holds above.
  it(
    "npm run handouts -- --bogus is refused with a usage line, starting no kernel",
    async () => {
      const mark = randomUUID();
      const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "handouts.mjs"), "--out", path.join(os.tmpdir(), `l11-bogus-${mark}`), "--bogus"], { env: markedEnv(mark) });
      expect(r.code, r.output).not.toBe(0);
      expect(r.output).toMatch(/usage|用法/i);
      expect(r.output).not.toMatch(/page\(s\) written/);
      expect(await kernelsLeft(mark)).toEqual([]);
    },
    TIMEOUT_MS,
  );
});
