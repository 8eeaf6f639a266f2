// Committed notebooks are sources: no outputs, no execution counts, the tslab kernelspec, nbformat 4.5 cell ids,
// and a title heading first (the handout index uses it). Outputs belong in the handouts, which execute them.
// Using the lecture cannot make this fail: `npm start` serves the reader's git-ignored copy (workspace/, see
// scripts/workspace.mjs and test/workspace-server.test.ts), so a failure here means a source was edited and committed
// with its outputs — open the source itself only to change the course.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { NOTEBOOKS_DIR, ROOT, TSLAB_KERNELSPEC } from "./support/processes";

const names = fs.readdirSync(NOTEBOOKS_DIR).filter((f) => f.endsWith(".ipynb")).sort();

interface Cell {
  id?: string;
  cell_type: string;
  source: string | string[];
  metadata?: Record<string, unknown>;
  outputs?: unknown[];
  execution_count?: number | null;
}
const text = (s: string | string[]) => (Array.isArray(s) ? s.join("") : s);

/** Each control character (C0, DEL, C1) of `source` other than "\\n", with its code and the text around it. */
function controlCharacters(source: string): string[] {
  const found: string[] = [];
  for (const m of source.matchAll(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/g)) {
    const at = m.index ?? 0;
    const code = `U+${(m[0].codePointAt(0) as number).toString(16).toUpperCase().padStart(4, "0")}`;
    found.push(`${code} in ${JSON.stringify(source.slice(Math.max(0, at - 20), at + 20))}`);
  }
  return found;
}

describe("committed notebooks are clean", () => {
  it("the control-character scan finds a TAB, a carriage return and DEL, and lets newlines and TeX pass", () => {
    expect(controlCharacters("$(g + 1) \\times 10$\n\n$x$")).toEqual([]);
    expect(controlCharacters("$(g + 1) \times 10$").map((f) => f.slice(0, 6))).toEqual(["U+0009"]);
    expect(controlCharacters("a\r\nb\u007f").map((f) => f.slice(0, 6))).toEqual(["U+000D", "U+007F"]);
  });

  it("notebooks/ holds notebooks and the lib symlink", () => {
    expect(names.length).toBeGreaterThan(0);
    const link = path.join(NOTEBOOKS_DIR, "lib");
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readlinkSync(link)).toBe("../build/lib");
  });

  it("the reader's copies (workspace/) are git-ignored, so they never show as changes", () => {
    const copies = ["workspace/student/08-exercises.ipynb", "workspace/instructor/03-preble.backup-2026-01-01-0000.ipynb"];
    const r = spawnSync("git", ["check-ignore", "--no-index", ...copies], { cwd: ROOT, encoding: "utf8" });
    expect(r.stdout.trim().split("\n")).toEqual(copies);
  });

  for (const name of names) {
    describe(name, () => {
      const nb = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS_DIR, name), "utf8"));
      const cells: Cell[] = nb.cells;

      it("is named NN-kebab-case.ipynb", () => {
        expect(name).toMatch(/^\d\d-[a-z0-9]+(-[a-z0-9]+)*\.ipynb$/);
      });

      it("is nbformat 4.5+ with a unique id on every cell", () => {
        expect(nb.nbformat).toBe(4);
        expect(nb.nbformat_minor).toBeGreaterThanOrEqual(5);
        const ids = cells.map((c) => c.id);
        for (const id of ids) expect(typeof id === "string" && /^[a-zA-Z0-9-_]{1,64}$/.test(id)).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
      });

      it("uses the tslab kernelspec", () => {
        expect(nb.metadata?.kernelspec).toEqual(TSLAB_KERNELSPEC);
      });

      it("has no outputs, execution counts or run timings", () => {
        const dirty = cells
          .map((c, i) => ({ c, i }))
          .filter(({ c }) => c.cell_type === "code")
          .filter(({ c }) => (c.outputs ?? []).length > 0 || c.execution_count !== null || (c.metadata && "execution" in c.metadata))
          .map(({ i }) => i);
        expect(dirty, `cells with outputs or execution counts: ${dirty.join(", ")}`).toEqual([]);
      });

      // A control character in prose renders as nothing or as garbage: 03's "\\times" was once stored as a TAB +
      // "imes" (JSON "\\t" where "\\\\t" was meant) and showed "(g+1)imes10".
      it("has no control character other than a newline in any markdown cell", () => {
        const found = cells
          .map((c, i) => ({ c, i }))
          .filter(({ c }) => c.cell_type === "markdown")
          .flatMap(({ c, i }) => controlCharacters(text(c.source)).map((where) => `cell ${i}: ${where}`));
        expect(found, "control characters in markdown cells").toEqual([]);
      });

      it("starts with a markdown title heading", () => {
        expect(cells[0]?.cell_type).toBe("markdown");
        expect(text(cells[0].source)).toMatch(/^# \S/);
      });
    });
  }
});
