// The kernel's V8 startup snapshot (scripts/kernel-snapshot.cjs): a declaration file parsed into the snapshot is
// handed back to TypeScript only when its name, text and language version are the ones it was parsed with; the
// kernel spec names a blob only when one was built for this Node, TypeScript and tslab; and a kernel started from
// it, through Jupyter, runs cells with most of its declaration files taken from the snapshot and errors with their
// stacks as in a plain kernel (a type error in a cell is still reported: test/notebooks.test.ts runs its fixtures
// in whatever kernel the spec names). The snapshot's TypeScript keeps a program's structure when a changed file
// imports the same module names (patchTypeScript): a program update then reuses it where the installed TypeScript
// rebuilds, and the notebooks' cells convert to the same outputs, declarations and diagnostics as with it.
import * as fs from "fs";
import * as path from "path";
import { beforeAll, describe, expect, it } from "vitest";
import { PYTHON, ROOT, RUNNER, ensureKernelSpec, runProcess } from "./support/processes";

// eslint-disable-next-line @typescript-eslint/no-var-requires
const snapshot = require(path.join(ROOT, "scripts", "kernel-snapshot.cjs")) as {
  buildKernelSnapshot(): { blob: string | null; built?: boolean; reason?: string };
  kernelSnapshotBlob(): string | null;
  reuseParsed(files: Map<string, unknown>, stats: { reused: number }, fileName: string, text: string, o: unknown): unknown;
  patchTypeScript(source: string): string;
  SNAPSHOT_DIR: string;
};

describe("which parsed declaration the snapshot hands back", () => {
  const parsed = { text: "declare const a: number;\n", languageVersion: 9 };
  const files = new Map<string, unknown>([["/x/a.d.ts", parsed]]);

  it("the same name, text and language version (a number or an options object): the snapshot's file, counted", () => {
    const stats = { reused: 0 };
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, 9)).toBe(parsed);
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, { languageVersion: 9, impliedNodeFormat: 1 })).toBe(parsed);
    expect(stats.reused).toBe(2);
  });

  it("a text changed since the build, another language version or another file: parsed as usual (undefined)", () => {
    const stats = { reused: 0 };
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", "declare const a: string;\n", 9)).toBeUndefined();
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, 8)).toBeUndefined();
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, { languageVersion: 99 })).toBeUndefined();
    expect(snapshot.reuseParsed(files, stats, "/x/b.d.ts", parsed.text, 9)).toBeUndefined();
    expect(stats.reused).toBe(0);
  });
});

describe("the kernel spec and the blob", () => {
  let blob: string | null = null;
  beforeAll(() => {
    const r = snapshot.buildKernelSnapshot();
    if (!r.blob) throw new Error(`the kernel snapshot could not be built: ${r.reason}`);
    blob = r.blob;
  }, 120_000);

  it("names the blob built for this Node (its folder says tslab, as the runner's tests look for), or starts tslab the plain way", async () => {
    const project = await import(path.join(ROOT, "scripts", "project.mjs"));
    expect(snapshot.kernelSnapshotBlob()).toBe(blob);
    expect(path.dirname(blob as string)).toBe(snapshot.SNAPSHOT_DIR);
    expect(blob).toContain("tslab");
    expect(project.kernelSpec()).toMatchObject({ argv: [process.execPath, "--snapshot-blob", blob, "kernel", "--config-path", "{connection_file}"], env: { NODE_OPTIONS: "" } });
    expect(project.kernelSpec(null).argv).toEqual([process.execPath, "--require", project.KERNEL_STARTUP, project.TSLAB_BIN, "kernel", "--config-path", "{connection_file}"]);
    expect(project.kernelSpec(null).env).toBeUndefined();
    const before = process.env.L11_KERNEL_SNAPSHOT;
    process.env.L11_KERNEL_SNAPSHOT = "off";
    try {
      expect(snapshot.kernelSnapshotBlob()).toBeNull();
      expect(project.kernelSpec().argv[1]).toBe("--require");
    } finally {
      if (before === undefined) delete process.env.L11_KERNEL_SNAPSHOT;
      else process.env.L11_KERNEL_SNAPSHOT = before;
    }
  });

  it("a kernel started from it runs cells, with most declaration files taken from the snapshot — also when the caller sets NODE_OPTIONS (V8 would refuse the snapshot under other flags)", async () => {
    await ensureKernelSpec();
    const r = await runProcess(PYTHON, [RUNNER, path.join(ROOT, "test", "fixtures", "kernel-snapshot.ipynb")], { env: { ...process.env, NODE_OPTIONS: "--expose-gc --max-old-space-size=3000", LECTURE_RESULT_CACHE: "off" } });
    expect(r.output).toMatch(/1 notebook\(s\) ran cleanly, 0 failed/);
    expect(r.code, r.output).toBe(0);
  }, 120_000);
});

// ---- the snapshot's TypeScript (patchTypeScript) ----

// eslint-disable-next-line @typescript-eslint/no-var-requires
const NodeModule = require("module") as { new (id: string, parent: null): { filename: string; paths: string[]; exports: unknown; loaded: boolean; _compile(text: string, file: string): void }; _nodeModulePaths(dir: string): string[] };
// eslint-disable-next-line @typescript-eslint/no-var-requires
const convertPatch = require(path.join(ROOT, "scripts", "tslab-convert-patch.cjs")) as {
  converterFile(paths?: string[]): string | null;
  loadPatchedCopy(file?: string | null): { createConverter(o: { isJS: boolean; isBrowser: boolean }): Converter } | null;
};
const NOTEBOOKS = path.join(ROOT, "notebooks");
const CONVERTER = convertPatch.converterFile([NOTEBOOKS]) as string;
const TS_FILE = require.resolve("@tslab/typescript-for-tslab", { paths: [path.dirname(CONVERTER)] });
const TS_TEXT = fs.readFileSync(TS_FILE, "utf8");

interface Converter {
  convert(prevDecl: string, src: string): { output?: string; declOutput?: string; diagnostics: Array<{ messageText?: unknown; start?: number; length?: number }>; lastExpressionVar?: string };
  close(): void;
}
/* eslint-disable @typescript-eslint/no-explicit-any */
type TS = any;

/** A TypeScript module compiled from `text` (a copy of its own, beside the installed one). */
function typescriptFrom(text: string): TS {
  const m = new NodeModule(TS_FILE, null);
  m.filename = TS_FILE;
  m.paths = NodeModule._nodeModulePaths(path.dirname(TS_FILE));
  m._compile(text, TS_FILE);
  return m.exports;
}

/** A copy of tslab's converter (as the kernel patches it) that compiles with `ts`. */
function converterWith(ts: TS): Converter {
  const cache = require.cache as Record<string, unknown>;
  const installed = cache[TS_FILE];
  cache[TS_FILE] = { id: TS_FILE, filename: TS_FILE, loaded: true, exports: ts, children: [], paths: [] };
  try {
    return (convertPatch.loadPatchedCopy(CONVERTER) as NonNullable<ReturnType<typeof convertPatch.loadPatchedCopy>>).createConverter({ isJS: false, isBrowser: false });
  } finally {
    if (installed === undefined) delete cache[TS_FILE];
    else cache[TS_FILE] = installed;
  }
}

/** Programs over in-memory files, each made from the last (what tslab's watch program does per cell). */
function programs(ts: TS) {
  const files = new Map<string, string>([
    ["/p/lib.ts", "export interface T { a: number }\nexport type U = string;\n"],
    ["/p/other.ts", "export interface V { v: boolean }\n"],
    ["/p/cell.ts", "export const n = 1;\n"],
    // noLib: the global types every program needs
    ["/p/globals.d.ts", ["Array<T>", "Boolean", "Function", "IArguments", "Number", "Object", "RegExp", "String"].map((t) => `interface ${t} {}`).join("\n")],
  ]);
  const options = { module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Node10, target: ts.ScriptTarget.ES2022, declaration: true, noLib: true, types: [] };
  const host = ts.createCompilerHost(options);
  const parsed = new Map<string, unknown>();
  host.getSourceFile = (name: string, target: unknown) => {
    const text = files.get(name);
    if (text === undefined) return undefined;
    const key = `${name}\0${text}`;
    if (!parsed.has(key)) parsed.set(key, ts.createSourceFile(name, text, target));
    return parsed.get(key);
  };
  host.fileExists = (name: string) => files.has(name);
  host.directoryExists = (dir: string) => dir === "/p" || dir === "/";
  host.readFile = (name: string) => files.get(name);
  host.getCurrentDirectory = () => "/p";
  let program: TS;
  return (decl: string) => {
    files.set("/p/decl.d.ts", decl);
    program = ts.createProgram(["/p/globals.d.ts", "/p/cell.ts", "/p/decl.d.ts"], options, host, program);
    const checker = program.getTypeChecker();
    const declFile = program.getSourceFile("/p/decl.d.ts");
    const types = [...checker.getSymbolAtLocation(declFile).exports.values()].map((s: TS) => `${s.name}: ${checker.typeToString(checker.getTypeOfSymbol(s))}`);
    const diagnostics = ts.getPreEmitDiagnostics(program).map((d: TS) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    return { reused: program.structureIsReused as number, files: program.getSourceFiles().map((f: TS) => f.fileName), types, diagnostics };
  };
}

describe("the snapshot's TypeScript", () => {
  const patched = typescriptFrom(snapshot.patchTypeScript(TS_TEXT));
  const installed = typescriptFrom(TS_TEXT);

  it("takes its two changes from the installed TypeScript's text once each, and refuses a text they do not fit", () => {
    const text = snapshot.patchTypeScript(TS_TEXT);
    expect(text.split("globalThis.__l11ParsedDeclaration(fileName, sourceText").length).toBe(2);
    expect(text.split("function l11SameModuleNames(").length).toBe(2);
    expect(text.split("!l11SameModuleNames(oldSourceFile.imports, newSourceFile.imports)").length).toBe(2);
    expect(() => snapshot.patchTypeScript(text)).toThrow(/not found once/);
    expect(() => snapshot.patchTypeScript("module.exports = {};")).toThrow(/createSourceFile not found once/);
  });

  it("keeps a program's structure when a changed file imports the same module names more often; rebuilds it for a new name, as TypeScript does", () => {
    const a = programs(patched);
    const b = programs(installed);
    const v1 = "export declare const x: import(\"./lib\").T;\n";
    const v2 = v1 + "export declare const y: import(\"./lib\").U;\nexport declare const z: import(\"./lib\").T;\n";
    const v3 = v2 + "export declare const w: import(\"./other\").V;\n";
    const v4 = v3 + "export declare const q: import(\"./other\").V;\n";
    // v2 again: "./other" no longer imported (the program must drop other.ts, as TypeScript's does)
    const steps = [v1, v2, v3, v4, v2].map((decl) => [a(decl), b(decl)]);
    // 2 = Completely, 1 = SafeModules (the whole program built again)
    expect(steps.map(([p, q]) => [p.reused, q.reused])).toEqual([[0, 0], [2, 1], [1, 1], [2, 1], [1, 1]]);
    for (const [p, q] of steps) {
      expect(p.files).toEqual(q.files);
      expect(p.types).toEqual(q.types);
      expect(p.diagnostics).toEqual(q.diagnostics);
    }
    expect(steps[3][0].types).toEqual(["x: T", "y: string", "z: T", "w: V", "q: V"]);
    expect(steps[3][0].diagnostics).toEqual([]);
    expect(steps[2][0].files).toContain("/p/other.ts");
    expect(steps[4][0].files).not.toContain("/p/other.ts");
  });

  it("converts the cells of two notebooks to the same outputs, declarations and diagnostics as the installed TypeScript", () => {
    const cwd = process.cwd();
    process.chdir(NOTEBOOKS);
    const a = converterWith(patched);
    const b = converterWith(installed);
    try {
      for (const nb of ["03-preble.ipynb", "08-exercises.ipynb"]) {
        const j = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS, nb), "utf8")) as { cells: Array<{ cell_type: string; source: string[] }> };
        const cells = [...j.cells.filter((c) => c.cell_type === "code").map((c) => c.source.join("")), "const notDeclared: number = missingName;", 'import { runDemo as again } from "./lib/index";\nagain'];
        const results = [a, b].map((c) => {
          let prevDecl = "";
          return cells.map((src) => {
            const r = c.convert(prevDecl, src);
            if (r.diagnostics.length === 0) prevDecl = r.declOutput ?? "";
            return JSON.stringify([r.output, r.declOutput, r.diagnostics.map((d) => [d.messageText, d.start, d.length]), r.lastExpressionVar]);
          });
        });
        for (let i = 0; i < cells.length; i++) expect(results[0][i], `${nb} cell ${i}: ${cells[i].slice(0, 80)}`).toBe(results[1][i]);
        expect(results[0][cells.length - 2]).toMatch(/missingName/);
      }
    } finally {
      a.close();
      b.close();
      process.chdir(cwd);
    }
  }, 120_000);
});
