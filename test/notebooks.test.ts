// Every notebook under notebooks/ runs top to bottom in the tslab kernel through Jupyter (nbclient), via the one
// runner the handouts use (scripts/run_notebooks.py). The runner fails on an error, on an aborted or skipped cell
// (tslab silently aborts the cells after a failing one), and prints the cell with its stderr; the second block
// checks that it really does, on small fixture notebooks.
import * as fs from "fs";
import * as path from "path";
import { beforeAll, describe, expect, it } from "vitest";
import { NOTEBOOKS_DIR, ROOT, ensureKernelSpec, runNotebooks } from "./support/processes";

const NOTEBOOK_TIMEOUT_MS = 15 * 60_000; // generous: a notebook's cells are meant to take seconds each
const FIXTURE_TIMEOUT_MS = 2 * 60_000;
const notebooks = fs.existsSync(NOTEBOOKS_DIR) ? fs.readdirSync(NOTEBOOKS_DIR).filter((f) => f.endsWith(".ipynb")).sort() : [];
const fixture = (name: string) => path.join(ROOT, "test", "fixtures", name);

beforeAll(async () => {
  await ensureKernelSpec();
}, 60_000);

describe("notebooks execute top to bottom in the tslab kernel", () => {
  it("there are notebooks to run", () => {
    expect(notebooks.length).toBeGreaterThan(0);
  });

  // One test per notebook, run one after another (two cores; each run starts its own kernel).
  for (const name of notebooks) {
    it(
      name,
      async () => {
        const r = await runNotebooks([path.join(NOTEBOOKS_DIR, name)]);
        if (r.code !== 0) throw new Error(`${name} failed (exit ${r.code}) after ${r.seconds.toFixed(1)} s:\n${r.output}`);
        const summary = r.output.split("\n").find((line) => line.includes(": ok in"));
        expect(summary, r.output).toBeDefined();
        console.log(summary?.trim());
      },
      NOTEBOOK_TIMEOUT_MS,
    );
  }
});

describe("the notebook runner catches what nbclient lets through", () => {
  it(
    "fails on a throwing cell, naming the cell with its source and stderr, and lists the cells left unrun",
    async () => {
      const r = await runNotebooks([fixture("runner-error.ipynb")]);
      expect(r.code).toBe(1);
      expect(r.output).toMatch(/FAILED .*runner-error\.ipynb: cell 2 \(code cell 2\) raised an error/);
      expect(r.output).toContain('throw new Error("fixture boom " + answer);'); // the cell's source
      expect(r.output).toContain("Error: fixture boom 42"); // its stderr, with a value computed by cell 1
      expect(r.output).toMatch(/1 later code cell\(s\) not run: cells 3/);
    },
    FIXTURE_TIMEOUT_MS,
  );

  it(
    "fails on a TypeScript compile error (tslab reports it on stderr only)",
    async () => {
      const r = await runNotebooks([fixture("runner-type-error.ipynb")]);
      expect(r.code).toBe(1);
      expect(r.output).toMatch(/cell 2 \(code cell 2\) raised an error/);
      expect(r.output).toContain("Type 'string' is not assignable to type 'number'");
    },
    FIXTURE_TIMEOUT_MS,
  );

  it(
    "lets a cell tagged raises-exception raise, and still runs the cells after it",
    async () => {
      const r = await runNotebooks([fixture("runner-allowed-error.ipynb")]);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(/runner-allowed-error: ok in/);
    },
    FIXTURE_TIMEOUT_MS,
  );

  it(
    "fails on a cell the kernel aborted (without waiting out tslab's cancel window after an error)",
    async () => {
      const r = await runNotebooks([fixture("runner-allowed-error.ipynb")], ["--after-error-wait", "0"]);
      expect(r.code).toBe(1);
      expect(r.output).toMatch(/cell 3 \(code cell 3\) was aborted by the kernel/);
    },
    FIXTURE_TIMEOUT_MS,
  );
});
