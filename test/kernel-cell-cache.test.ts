// The kernels' cell cache (scripts/kernel-cell-cache.cjs) and its fill (scripts/cell-cache-fill.cjs): a conversion is
// read back only for the same cell after the same earlier cells with the same library; what it reads back is what
// tslab's converter gave, for every code cell of the lecture; a cell that can read files the fingerprint does not
// cover goes to tslab; and in a real kernel a second run — or a first run after the fill — reads every cell back.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterEach, describe, expect, it } from "vitest";
import { NOTEBOOKS_DIR, PYTHON, ROOT, RUNNER, ensureKernelSpec, runProcess } from "./support/processes";

interface Converted {
  output?: string;
  declOutput?: string;
  diagnostics: unknown[];
  sideOutputs?: unknown[];
}
type Convert = (prevDecl: string, src: string) => Converted;
interface CellCache {
  stats: { hits: number; misses: number; stored: number; passed: number; disabled: string | null };
  prepare(): void;
  disable(reason: string): void;
  wrap(convert: Convert): Convert;
}
/* eslint-disable @typescript-eslint/no-var-requires */
const cellCache = require(path.join(ROOT, "scripts", "kernel-cell-cache.cjs")) as {
  createCellCache(o: { dir: string; cwd: string; root: string }): CellCache;
  cellCacheFromEnv(o: { cwd: string; root: string; env: NodeJS.ProcessEnv }): CellCache | null;
  cacheable(src: string): boolean;
  fingerprintOf(o: { cwd: string; root: string }): string;
  prune(dir: string, max?: number, keep?: number): number;
};
const cellFill = require(path.join(ROOT, "scripts", "cell-cache-fill.cjs")) as {
  fill(o: { files: string[]; cwd?: string; env?: NodeJS.ProcessEnv }): { cells: number; readBack: number; converted: number; skipped?: string };
  codeCells(file: string): string[];
};
const patch = require(path.join(ROOT, "scripts", "tslab-convert-patch.cjs")) as {
  converterFile(paths?: string[]): string | null;
  loadPatchedCopy(file?: string | null): { createConverter(o: { isJS: boolean; isBrowser: boolean }): { convert: Convert; close(): void } } | null;
};
/* eslint-enable @typescript-eslint/no-var-requires */

const temps: string[] = [];
const temp = (tag: string) => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `l11-cells-${tag}-`));
  temps.push(d);
  return d;
};
afterEach(() => {
  for (const d of temps.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A working folder with a library of its own: lib/a.d.ts, lib/a.js and the build stamp beside lib (as build/). */
function workFolder(): { cwd: string; stamp: () => void } {
  const base = temp("work");
  const cwd = path.join(base, "notebooks");
  fs.mkdirSync(path.join(base, "build", "lib"), { recursive: true });
  fs.mkdirSync(cwd);
  fs.symlinkSync(path.join(base, "build", "lib"), path.join(cwd, "lib"));
  fs.writeFileSync(path.join(base, "build", "lib", "a.d.ts"), "export declare const a: number;\n");
  fs.writeFileSync(path.join(base, "build", "lib", "a.js"), "exports.a = 1;\n");
  let n = 0;
  const stamp = () => {
    fs.writeFileSync(path.join(base, "build", ".stamp"), String(++n));
    const t = new Date(Date.now() + n * 1000); // a new mtime even within the file system's resolution
    fs.utimesSync(path.join(base, "build", ".stamp"), t, t);
  };
  stamp();
  return { cwd, stamp };
}

/** A stand-in for tslab's convert that counts its calls. */
function countingConvert(extra: Partial<Converted> = {}): Convert & { calls: number } {
  const f = ((prevDecl: string, src: string) => {
    f.calls++;
    return { output: `/*${f.calls}*/ ${src}`, declOutput: `${prevDecl}// ${src}\n`, diagnostics: [], ...extra };
  }) as Convert & { calls: number };
  f.calls = 0;
  return f;
}

describe("which cells the cache may hold", () => {
  it("cells importing the library, packages or nothing; not a relative file outside ./lib, nor a /// reference", () => {
    expect(cellCache.cacheable('import { runDemo, report } from "./lib/index";')).toBe(true);
    expect(cellCache.cacheable("import * as lib from './lib';\nconst x = 1;")).toBe(true);
    expect(cellCache.cacheable('import * as fs from "fs";\nconst p = require("path");')).toBe(true);
    expect(cellCache.cacheable("const a = 1;\na + 1")).toBe(true);
    expect(cellCache.cacheable('import { f } from "./mine";')).toBe(false);
    expect(cellCache.cacheable('import "../side-effect";')).toBe(false);
    expect(cellCache.cacheable('const m = require("../../scripts/x.cjs");')).toBe(false);
    expect(cellCache.cacheable('const m = await import("./other.ts");')).toBe(false);
    expect(cellCache.cacheable('export { x } from "./library-like";')).toBe(false);
    expect(cellCache.cacheable('/// <reference path="types.d.ts" />\nconst a = 1;')).toBe(false);
  });
});

describe("the fingerprint", () => {
  it("changes with the library's declarations and its files, not with the text of its JavaScript", () => {
    const { cwd } = workFolder();
    const lib = path.join(cwd, "lib");
    const first = cellCache.fingerprintOf({ cwd, root: ROOT });
    expect(cellCache.fingerprintOf({ cwd, root: ROOT })).toBe(first);
    fs.writeFileSync(path.join(lib, "a.js"), "exports.a = 2;\n");
    expect(cellCache.fingerprintOf({ cwd, root: ROOT })).toBe(first);
    fs.writeFileSync(path.join(lib, "a.d.ts"), "export declare const a: string;\n");
    const second = cellCache.fingerprintOf({ cwd, root: ROOT });
    expect(second).not.toBe(first);
    fs.writeFileSync(path.join(lib, "b.js"), "");
    expect(cellCache.fingerprintOf({ cwd, root: ROOT })).not.toBe(second);
  });

  it("differs between working folders (tslab names the cell's file after it)", () => {
    expect(cellCache.fingerprintOf({ cwd: workFolder().cwd, root: ROOT })).not.toBe(cellCache.fingerprintOf({ cwd: workFolder().cwd, root: ROOT }));
  });
});

describe("reading back", () => {
  it("the same cell after the same declarations is converted once; another cell or other declarations are converted", () => {
    const { cwd } = workFolder();
    const cache = cellCache.createCellCache({ dir: temp("store"), cwd, root: ROOT });
    const convert = countingConvert();
    const cached = cache.wrap(convert);
    const first = cached("", "const x = 1;");
    expect(cached("", "const x = 1;")).toEqual(first);
    expect(convert.calls).toBe(1);
    cached("", "const x = 2;");
    cached("declare const y: number;\n", "const x = 1;");
    expect(convert.calls).toBe(3);
    expect(cache.stats).toMatchObject({ hits: 1, misses: 3, stored: 3, passed: 0 });
  });

  it("a second cache on the same folder (the next kernel) reads back what the first stored", () => {
    const { cwd } = workFolder();
    const dir = temp("store");
    const convert = countingConvert();
    const stored = cellCache.createCellCache({ dir, cwd, root: ROOT }).wrap(convert)("", "const z = 3;");
    const next = cellCache.createCellCache({ dir, cwd, root: ROOT });
    expect(next.wrap(convert)("", "const z = 3;")).toEqual(stored);
    expect(convert.calls).toBe(1);
    expect(next.stats.hits).toBe(1);
  });

  it("a library with other declarations converts again — rebuilt, or one file rewritten (tsc --watch) — and the same ones are read back", () => {
    const { cwd, stamp } = workFolder();
    const cache = cellCache.createCellCache({ dir: temp("store"), cwd, root: ROOT });
    const convert = countingConvert();
    const cached = cache.wrap(convert);
    const rewrite = (text: string, seconds: number) => {
      const file = path.join(cwd, "lib", "a.d.ts");
      fs.writeFileSync(file, text);
      const t = new Date(Date.now() + seconds * 1000); // a new time even within the file system's resolution
      fs.utimesSync(file, t, t);
    };
    cached("", "const x = 1;");
    rewrite("export declare const a: boolean;\n", 10);
    stamp();
    cached("", "const x = 1;");
    expect(convert.calls).toBe(2);
    rewrite("export declare const a: string;\n", 20); // rewritten alone, no build stamp
    cached("", "const x = 1;");
    expect(convert.calls).toBe(3);
    rewrite("export declare const a: string;\n", 30); // the same text again: read back
    stamp();
    cached("", "const x = 1;");
    expect(convert.calls).toBe(3);
  });

  it("cells it may not hold, results with side outputs and a kernel with a %module go to tslab every time", () => {
    const { cwd } = workFolder();
    const cache = cellCache.createCellCache({ dir: temp("store"), cwd, root: ROOT });
    const plain = countingConvert();
    const cachedPlain = cache.wrap(plain);
    cachedPlain("", 'import { f } from "./mine";');
    cachedPlain("", 'import { f } from "./mine";');
    expect(plain.calls).toBe(2);
    const side = countingConvert({ sideOutputs: [{ path: "x.js", data: "" }] });
    const cachedSide = cache.wrap(side);
    cachedSide("", "const s = 1;");
    cachedSide("", "const s = 1;");
    expect(side.calls).toBe(2);
    cachedPlain("", "const k = 1;");
    cache.disable("a %module cell");
    cachedPlain("", "const k = 1;");
    expect(plain.calls).toBe(4);
    expect(cache.stats).toMatchObject({ passed: 3, hits: 0, disabled: "a %module cell" });
  });

  it("an entry that cannot be parsed is a miss, and is written anew", () => {
    const { cwd } = workFolder();
    const dir = temp("store");
    const cache = cellCache.createCellCache({ dir, cwd, root: ROOT });
    const convert = countingConvert();
    const cached = cache.wrap(convert);
    cached("", "const x = 1;");
    const [file] = fs.readdirSync(dir);
    fs.writeFileSync(path.join(dir, file), '{"format": "l11-cell-cache 1", "res');
    cached("", "const x = 1;");
    cached("", "const x = 1;");
    expect(convert.calls).toBe(2);
  });

  it("L11_CELL_CACHE: off turns it off, a folder puts it there", () => {
    const { cwd } = workFolder();
    expect(cellCache.cellCacheFromEnv({ cwd, root: ROOT, env: { L11_CELL_CACHE: "off" } })).toBeNull();
    const dir = temp("env");
    const cache = cellCache.cellCacheFromEnv({ cwd, root: ROOT, env: { L11_CELL_CACHE: dir } }) as CellCache;
    cache.wrap(countingConvert())("", "const e = 1;");
    expect(fs.readdirSync(dir)).toHaveLength(1);
  });

  it("prune keeps the newest entries and removes a killed kernel's temporary files", () => {
    const dir = temp("prune");
    for (let i = 0; i < 12; i++) {
      fs.writeFileSync(path.join(dir, `${i}.json`), "{}");
      const t = new Date(1_700_000_000_000 + i * 1000);
      fs.utimesSync(path.join(dir, `${i}.json`), t, t);
    }
    fs.writeFileSync(path.join(dir, "x.json.123.tmp"), "");
    expect(cellCache.prune(dir, 10, 5)).toBe(8);
    expect(fs.readdirSync(dir).sort()).toEqual(["10.json", "11.json", "7.json", "8.json", "9.json"]);
    expect(cellCache.prune(dir, 10, 5)).toBe(0);
  });
});

describe("with tslab's converter", () => {
  it("reads back, for every code cell of the lecture's notebooks, exactly what the converter gave", () => {
    const cwd = process.cwd();
    process.chdir(NOTEBOOKS_DIR);
    const converter = (patch.loadPatchedCopy(patch.converterFile([NOTEBOOKS_DIR])) as NonNullable<ReturnType<typeof patch.loadPatchedCopy>>).createConverter({ isJS: false, isBrowser: false });
    try {
      const cache = cellCache.createCellCache({ dir: temp("lecture"), cwd: fs.realpathSync(NOTEBOOKS_DIR), root: ROOT });
      const cached = cache.wrap((prevDecl, src) => converter.convert(prevDecl, src));
      const notebooks = fs.readdirSync(NOTEBOOKS_DIR).filter((f) => f.endsWith(".ipynb")).sort();
      let cells = 0;
      for (const nb of notebooks) {
        const sources = cellFill.codeCells(path.join(NOTEBOOKS_DIR, nb));
        const runs: string[][] = [];
        for (let round = 0; round < 2; round++) {
          let prevDecl = "";
          runs.push(
            sources.map((src) => {
              const r = cached(prevDecl, src);
              if (r.diagnostics.length === 0) prevDecl = r.declOutput ?? "";
              return JSON.stringify(r);
            }),
          );
        }
        for (let i = 0; i < sources.length; i++) expect(runs[1][i], `${nb} cell ${i}`).toBe(runs[0][i]);
        cells += sources.length;
      }
      expect(cells).toBeGreaterThan(150);
      expect(cache.stats).toMatchObject({ misses: cells, stored: cells, hits: cells, passed: 0 });
    } finally {
      converter.close();
      process.chdir(cwd);
    }
  }, 180_000);
});

describe("in the kernel", () => {
  const FIXTURES = path.join(ROOT, "test", "fixtures");
  const FIXTURE = path.join(FIXTURES, "cell-cache.ipynb");

  /** Runs the fixture with the cell cache in `dir`; the last cell's line about the cache, and the value of cell 2. */
  async function runFixture(dir: string): Promise<{ stats: Record<string, unknown> | null; value: string }> {
    const out = temp("executed");
    const r = await runProcess(PYTHON, [RUNNER, "--executed-dir", out, FIXTURE], { env: { ...process.env, LECTURE_RESULT_CACHE: "off", L11_CELL_CACHE: dir } });
    expect(r.code, r.output).toBe(0);
    const nb = JSON.parse(fs.readFileSync(path.join(out, "cell-cache.ipynb"), "utf8")) as { cells: Array<{ cell_type: string; outputs?: Array<{ text?: string | string[]; data?: Record<string, string | string[]> }> }> };
    const code = nb.cells.filter((c) => c.cell_type === "code");
    const text = (o: { text?: string | string[]; data?: Record<string, string | string[]> }) => {
      const t = o.text ?? o.data?.["text/plain"] ?? "";
      return Array.isArray(t) ? t.join("") : t;
    };
    const line = (code[2].outputs ?? []).map(text).join("").match(/cell cache: (.*)/);
    return { stats: line ? (JSON.parse(line[1]) as Record<string, unknown> | null) : null, value: (code[1].outputs ?? []).map(text).join("").trim() };
  }

  it("a second run reads every cell back, with the same results", async () => {
    await ensureKernelSpec();
    const dir = temp("kernel");
    const first = await runFixture(dir);
    expect(first.stats).toMatchObject({ hits: 0, misses: 3, stored: 3 });
    const second = await runFixture(dir);
    expect(second.stats).toMatchObject({ hits: 3, misses: 0, stored: 0 });
    expect(second.value).toBe("3");
    expect(first.value).toBe("3");
  }, 120_000);

  it("a first run after the fill (scripts/cell-cache-fill.cjs, as the set-up runs it) reads every cell back", async () => {
    await ensureKernelSpec();
    const dir = temp("filled");
    const filled = cellFill.fill({ files: [FIXTURE], cwd: FIXTURES, env: { L11_CELL_CACHE: dir } });
    expect(filled).toMatchObject({ cells: 3, converted: 3, readBack: 0 });
    expect(cellFill.fill({ files: [FIXTURE], cwd: FIXTURES, env: { L11_CELL_CACHE: dir } })).toMatchObject({ cells: 3, converted: 0, readBack: 3 });
    const run = await runFixture(dir);
    expect(run.stats).toMatchObject({ hits: 3, misses: 0, stored: 0 });
  }, 120_000);

  it("L11_CELL_CACHE=off: no cache in the kernel", async () => {
    await ensureKernelSpec();
    expect((await runFixture("off")).stats).toBeNull();
  }, 120_000);
});
