// tslab's converter with one TypeScript program update per cell (scripts/tslab-convert-patch.cjs): the patch applies
// to the installed tslab's text and to nothing else; tslab's converter and the patched one give the same output,
// declaration output and diagnostics for the notebooks' cells and for cells that stress the binder's names (the
// patched one reads a cell's top-level names from its file bound alone); and a kernel runs with it in force.
import * as fs from "fs";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { PYTHON, ROOT, RUNNER, ensureKernelSpec, runProcess } from "./support/processes";

interface Converted {
  output?: string;
  declOutput?: string;
  diagnostics: Array<{ messageText?: unknown; start?: number; length?: number }>;
  lastExpressionVar?: string;
  hasToplevelAwait?: boolean;
}
interface Converter {
  convert(prevDecl: string, src: string): Converted;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-var-requires
const patch = require(path.join(ROOT, "scripts", "tslab-convert-patch.cjs")) as {
  patchConverterSource(source: string): string | null;
  converterFile(paths?: string[]): string | null;
  loadPatchedCopy(file?: string | null): { createConverter(o: { isJS: boolean; isBrowser: boolean }): Converter } | null;
};

const NOTEBOOKS = path.join(ROOT, "notebooks");

describe("the patch's text", () => {
  const file = patch.converterFile([NOTEBOOKS]) as string;
  const source = fs.readFileSync(file, "utf8");

  it("applies to the installed tslab's converter, once, and changes only convert()'s opening", () => {
    const patched = patch.patchConverterSource(source) as string;
    expect(patched).not.toBeNull();
    expect(patched).toMatch(/scripts\/tslab-convert-patch\.cjs/);
    expect(patched).toMatch(/ts\.bindSourceFile\(cellFile, builder\.getCompilerOptions\(\)\)/);
    const before = source.split("function convert(prevDecl, src) {");
    const after = patched.split("function convert(prevDecl, src) {");
    expect(after[0]).toBe(before[0]);
    expect(after.length).toBe(2);
  });

  it("leaves another tslab's text alone (null: the kernel then runs tslab as it is)", () => {
    expect(patch.patchConverterSource(source.replace("const locals = srcFile.locals;", "const locals = srcFile.locals ?? new Map();"))).toBeNull();
    expect(patch.patchConverterSource("module.exports = {};")).toBeNull();
  });
});

/** Every result of converting `cells` in order, each after the declarations of the last cell that converted. */
function convertAll(c: Converter, cells: readonly string[]): string[] {
  let prevDecl = "";
  return cells.map((src) => {
    const r = c.convert(prevDecl, src);
    if (r.diagnostics.length === 0) prevDecl = r.declOutput ?? "";
    return JSON.stringify([r.output, r.declOutput, r.diagnostics.map((d) => [d.messageText, d.start, d.length]), r.lastExpressionVar, r.hasToplevelAwait]);
  });
}

const TRICKY = [
  'import { runDemo, report } from "./lib/index";',
  "const { a, b: [c, ...rest] } = { a: 1, b: [2, 3, 4] };\nlet [x, , y = 5] = [1, 2];\nvar v = a + c + rest.length + x + y;",
  "function f(n: number): number { return n * v; }\nfunction* g() { yield 1; }\nasync function h() { return 2; }\nclass K { static s = 1; k = f(2); }\nabstract class A {}",
  "interface I { i: number }\ntype T = I & { t: string };\nenum E { X, Y = 4 }\nconst enum C { Z = 3 }\ndeclare const d: number;\nnamespace N { export const n = 1; }\nmodule M { export const m = 2; }",
  "const e: T = { i: E.Y, t: 'x' };\ne.i + C.Z + N.n + M.m",
  "const missing: number = notDefinedAnywhere + 1;",
  "const wrong: string = 42;",
  "let again = 1;\nagain += 1;\nagain",
  "const v2 = await Promise.resolve(v);\nv2",
  "for (let i = 0; i < 2; i++) { const inner = i; }\nif (true) { var hoisted = 3; }\nhoisted",
  "label: for (const q of [1]) { break label; }",
  "1 + 1",
  "// only a comment",
  "",
  "import * as fs from 'fs';\nimport path = require('path');\nexport const exported = fs.existsSync(path.join('.', 'x'));",
  "declare global { interface Window { l11: number } }\nexport {};",
  "const fn = (s: string) => s.length;\nconst obj = { fn, [`k${1}`]: 2 };\nobj.fn('abc')",
  "using_ = 1;",
  "class K2 extends K { override k = 3; }\nnew K2().k",
  "let x = 2;",
];

describe("tslab's converter and the patched one", () => {
  it("give the same output, declarations and diagnostics for every code cell of two notebooks and for cells that stress the binder", () => {
    const cwd = process.cwd();
    process.chdir(NOTEBOOKS);
    const file = patch.converterFile([NOTEBOOKS]) as string;
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const original = require(file) as { createConverter(o: { isJS: boolean; isBrowser: boolean }): Converter };
    const patched = patch.loadPatchedCopy(file);
    expect(patched).not.toBeNull();
    const a = original.createConverter({ isJS: false, isBrowser: false });
    const b = (patched as NonNullable<typeof patched>).createConverter({ isJS: false, isBrowser: false });
    try {
      const suites: string[][] = [TRICKY];
      for (const nb of ["00-overview.ipynb", "08-exercises.ipynb"]) {
        const j = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS, nb), "utf8")) as { cells: Array<{ cell_type: string; source: string[] }> };
        suites.push(j.cells.filter((c) => c.cell_type === "code").map((c) => c.source.join("")));
      }
      for (const cells of suites) {
        const want = convertAll(a, cells);
        const got = convertAll(b, cells);
        for (let i = 0; i < cells.length; i++) expect(got[i], `cell ${i}: ${cells[i].slice(0, 80)}`).toBe(want[i]);
      }
      // the stress cells met what they are for: names exported, errors reported, await seen
      const stressed = convertAll(b, TRICKY).map((s) => JSON.parse(s) as [string | undefined, string | undefined, unknown[], string | undefined, boolean | undefined]);
      expect(stressed[1][0]).toMatch(/export \{[^}]*\brest\b[^}]*\}|exports\.rest/);
      expect(stressed[5][2].length).toBeGreaterThan(0);
      expect(stressed[6][2].length).toBeGreaterThan(0);
      expect(stressed[8][4]).toBe(true);
    } finally {
      a.close();
      b.close();
      process.chdir(cwd);
    }
  }, 120_000);
});

describe("in the kernel", () => {
  it("tslab's converter is loaded patched and cells declare names for later cells", async () => {
    await ensureKernelSpec();
    const r = await runProcess(PYTHON, [RUNNER, path.join(ROOT, "test", "fixtures", "tslab-convert-patch.ipynb")], { env: { ...process.env, LECTURE_RESULT_CACHE: "off" } });
    expect(r.output).toMatch(/1 notebook\(s\) ran cleanly, 0 failed/);
    expect(r.code, r.output).toBe(0);
  }, 120_000);
});
