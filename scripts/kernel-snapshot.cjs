// A V8 startup snapshot of the tslab kernel (issue 27: a kernel's start is a third of the lecture's CPU). Most of a
// start is TypeScript compiling its own 8 MB and parsing the 160-odd declaration files tslab's converter reads
// (lib.es2022, @types/node, …: 2.9 M characters). `node --build-snapshot` runs that once and saves the heap; a kernel
// started from the blob begins with TypeScript loaded and those files parsed and bound (bench/RESULTS.md, Stop 19).
//
//   buildKernelSnapshot()  builds .cache/tslab-kernel/<key>.blob for this Node (≈ 4 s; scripts/setup.mjs calls it)
//   kernelSnapshotBlob()   the blob for this Node, TypeScript and tslab, or null (the kernel spec then starts tslab
//                          the ordinary way: scripts/project.mjs kernelSpec)
//
// Correctness does not rest on the snapshot being current: TypeScript's createSourceFile gets one line that hands back
// a snapshot's file only when the file name, its text and the language version are the same, so a declaration file
// changed since the build is parsed as usual. What a blob cannot survive — another Node binary, TypeScript or tslab —
// is in its key: a blob for something else is never named in the kernel spec. L11_KERNEL_SNAPSHOT=off: no snapshot.
"use strict";
const { spawnSync } = require("child_process");
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

const ROOT = path.join(__dirname, "..");
// "tslab" in the folder name: a kernel started from the blob still shows the word in its command line, which is how
// the runner's tests find the kernels a run left behind (test/runner-cleanup.test.ts).
const DIR = path.join(ROOT, ".cache", "tslab-kernel");
const NOTEBOOKS = path.join(ROOT, "notebooks");
const KERNEL_STARTUP = path.join(__dirname, "kernel-startup.cjs");

function tslabPaths() {
  const main = require.resolve("tslab/dist/main.js", { paths: [ROOT] });
  const ts = require.resolve("@tslab/typescript-for-tslab", { paths: [path.dirname(main)] });
  return { main, ts, bin: path.join(path.dirname(main), "..", "bin", "tslab") };
}

/** What the blob depends on beyond the declarations' texts: this Node binary, TypeScript, tslab, this file and
 * kernel-startup.cjs. */
function snapshotKey(p) {
  const stamp = (f) => {
    const s = fs.statSync(f);
    return `${f}:${s.size}:${s.mtimeMs}`;
  };
  const parts = [process.version, process.arch, process.execPath, stamp(process.execPath), stamp(p.ts), stamp(p.main), stamp(__filename), stamp(KERNEL_STARTUP)];
  return crypto.createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

/** The blob for this Node, TypeScript and tslab, or null (none built, switched off, or tslab not installed). */
function kernelSnapshotBlob() {
  if (process.env.L11_KERNEL_SNAPSHOT === "off") return null;
  try {
    const blob = path.join(DIR, `${snapshotKey(tslabPaths())}.blob`);
    return fs.existsSync(blob) ? blob : null;
  } catch {
    return null;
  }
}

/** The line added to TypeScript's createSourceFile asks this for a file parsed into the snapshot: handed back only
 * when the name, the text and the language version are the ones it was parsed with (a file changed since the build
 * is parsed as usual). Serialised into the snapshot's entry with toString. */
function reuseParsed(files, stats, fileName, text, languageVersionOrOptions) {
  const sf = files.get(fileName);
  const version = typeof languageVersionOrOptions === "object" && languageVersionOrOptions !== null ? languageVersionOrOptions.languageVersion : languageVersionOrOptions;
  if (sf === undefined || sf.text !== text || sf.languageVersion !== version) return undefined;
  stats.reused++;
  return sf;
}

/** TypeScript's text as the snapshot loads it, two lines changed (throws when this TypeScript's text is not the one
 * they fit: the blob is then not built and kernels start the plain way, with TypeScript as installed).
 *  1. createSourceFile first asks reuseParsed for a declaration file parsed into the snapshot.
 *  2. A program update keeps the old program's structure when a changed file imports the same set of module names
 *     as before, in another number or order. tslab passes the notebook's earlier cells as a declaration file, and
 *     each cell adds `import("./lib/index").…` type references to it: TypeScript compared the import lists entry by
 *     entry, found one more, and rebuilt the program — every file's imports resolved again, ≈ 170 file-system probes
 *     — for nearly every cell. With the same names the next check of the same function does the rest as before: it
 *     resolves the changed file's imports and keeps the structure only if every resolution is the one the old
 *     program had (a name never imported there, or resolving elsewhere, still rebuilds). The outputs, declarations
 *     and diagnostics of every cell are unchanged (test/kernel-snapshot.test.ts); a cell converts in ≈ 10% less
 *     time (bench/RESULTS.md, Stop 21).
 * Serialised into the snapshot's entry with toString: it may use nothing from this file. */
function patchTypeScript(source) {
  const once = (text, anchor, replacement, what) => {
    const at = text.indexOf(anchor);
    if (at < 0 || text.indexOf(anchor, at + 1) >= 0) throw new Error(`TypeScript's ${what} not found once: this TypeScript cannot be snapshotted`);
    return text.slice(0, at) + replacement + text.slice(at + anchor.length);
  };
  const head = "  function createSourceFile(fileName, sourceText, languageVersionOrOptions, setParentNodes = false, scriptKind) {";
  const hook = "    const parsed = globalThis.__l11ParsedDeclaration && globalThis.__l11ParsedDeclaration(fileName, sourceText, languageVersionOrOptions); if (parsed) return parsed;";
  const imports = "            if (!arrayIsEqualTo(oldSourceFile.imports, newSourceFile.imports, moduleNameIsEqualTo)) {";
  const equal = "    function moduleNameIsEqualTo(a, b) {";
  // every name of each list is one of the other's, by TypeScript's own equality of module names
  const sameNames = [
    "    function l11SameModuleNames(a = [], b = []) {",
    "      const within = (xs, ys) => xs.every((x) => ys.some((y) => moduleNameIsEqualTo(x, y)));",
    "      return within(a, b) && within(b, a);",
    "    }",
  ].join("\n");
  let out = once(source, head, `${head}\n${hook}`, "createSourceFile");
  out = once(out, imports, "            if (!arrayIsEqualTo(oldSourceFile.imports, newSourceFile.imports, moduleNameIsEqualTo) && !l11SameModuleNames(oldSourceFile.imports, newSourceFile.imports)) {", "import comparison in tryReuseStructureFromOldProgram");
  return once(out, equal, `${sameNames}\n${equal}`, "moduleNameIsEqualTo");
}

/** The snapshot's entry, run by `node --build-snapshot` (where only Node's own modules can be required): loads
 * TypeScript with the one added line, parses and binds every declaration file of tslab's converter, and names the
 * function a kernel started from the blob runs. Serialised with toString: it may use nothing from this file. */
function entry(TS, TSLAB_BIN, KERNEL_STARTUP, NOTEBOOKS, ROOT, reuseParsed, patchTypeScript) {
  const fs = require("fs");
  const path = require("path");
  const vm = require("vm");
  const Module = require("module");
  const v8 = require("v8");
  const mod = { exports: {} };
  vm.runInThisContext(Module.wrap(patchTypeScript(fs.readFileSync(TS, "utf8"))), { filename: TS }).call(mod.exports, mod.exports, (id) => require(id), mod, TS, path.dirname(TS));
  const ts = mod.exports;
  // tslab's converter options for Node ≥ 18 (tslab/dist/converter.js createConverter): the same files, the same target
  const options = {
    module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Node10, esModuleInterop: true, target: ts.ScriptTarget.ES2022,
    lib: ["lib.es2022.d.ts"], declaration: true, newLine: ts.NewLineKind.LineFeed, noImplicitUseStrict: true, experimentalDecorators: true,
    resolveJsonModule: true, jsx: ts.JsxEmit.React, typeRoots: [path.join(ROOT, "node_modules", "@types")], allowJs: true, checkJs: true,
    skipLibCheck: true, rootDir: NOTEBOOKS, outDir: "outDir",
  };
  const files = new Map();
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile;
  host.getSourceFile = function (fileName) {
    const sf = read.apply(this, arguments);
    if (sf && sf.isDeclarationFile) files.set(fileName, sf);
    return sf;
  };
  host.getCurrentDirectory = () => NOTEBOOKS;
  // The root imports the library as the kernel's warm-up does (kernel-startup.cjs): its declarations join the
  // snapshot, and checking it runs the checker once (the kernel's first cells then find more of it compiled).
  const root = path.join(NOTEBOOKS, "__l11_snapshot__.ts");
  const rootText = 'import * as l11 from "./lib/index";\nvoid l11;\n';
  const readFile = host.readFile;
  host.readFile = (f) => (f === root ? rootText : readFile.call(host, f));
  host.fileExists = ((exists) => (f) => f === root || exists.call(host, f))(host.fileExists);
  const program = ts.createProgram([root], options, host);
  program.getSemanticDiagnostics(program.getSourceFile(root)); // parse, bind and check
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    // Node deletes Error.stackTraceLimit while it builds a snapshot and does not put it back: without it errors have
    // no stack, and tslab prints a thrown error as "[TypeError: …]" instead of "TypeError: …" (the grader reads it)
    if (typeof Error.stackTraceLimit !== "number") Error.stackTraceLimit = 10; // Node's default
    // what a cell can read: how many declaration files the snapshot holds and how many the kernel took from it
    const stats = (globalThis.__l11SnapshotStats = { files: files.size, reused: 0, importsReuse: true });
    globalThis.__l11ParsedDeclaration = (fileName, text, o) => reuseParsed(files, stats, fileName, text, o);
    const M = require("module");
    const m = new M(TS);
    Object.assign(m, { filename: TS, loaded: true, exports: ts, paths: M._nodeModulePaths(path.dirname(TS)) });
    M._cache[TS] = m;
    process.argv.splice(1, 0, TSLAB_BIN); // as when started as `node …/tslab kernel …`
    M.createRequire(KERNEL_STARTUP)(KERNEL_STARTUP);
    M._load(TSLAB_BIN, null, true); // tslab's bin as the main module (require.main), as `node …/tslab kernel …` does
  });
}

/** Builds the blob for this Node when it is missing (old blobs removed). Returns { blob, built, seconds } or
 * { blob: null, reason }. */
function buildKernelSnapshot() {
  if (process.env.L11_KERNEL_SNAPSHOT === "off") return { blob: null, reason: "L11_KERNEL_SNAPSHOT=off" };
  let p;
  try {
    p = tslabPaths();
  } catch (e) {
    return { blob: null, reason: `tslab not installed (${e.message})` };
  }
  const blob = path.join(DIR, `${snapshotKey(p)}.blob`);
  if (fs.existsSync(blob)) return { blob, built: false, seconds: 0 };
  fs.mkdirSync(DIR, { recursive: true });
  for (const f of fs.readdirSync(DIR)) if (f.endsWith(".blob") || f.endsWith(".tmp")) fs.rmSync(path.join(DIR, f), { force: true });
  const script = path.join(DIR, "entry.js");
  const args = [p.ts, p.bin, KERNEL_STARTUP, NOTEBOOKS, ROOT].map((x) => JSON.stringify(x)).join(", ");
  fs.writeFileSync(script, `(${entry})(${args}, ${reuseParsed}, ${patchTypeScript});\n`);
  const started = Date.now();
  const tmp = `${blob}.tmp`;
  const r = spawnSync(process.execPath, ["--snapshot-blob", tmp, "--build-snapshot", script], { encoding: "utf8", cwd: NOTEBOOKS });
  if (r.status !== 0 || !fs.existsSync(tmp)) {
    fs.rmSync(tmp, { force: true });
    return { blob: null, reason: `node --build-snapshot failed: ${(r.stderr || r.error || "").toString().trim().split("\n").slice(-3).join(" ")}` };
  }
  fs.renameSync(tmp, blob);
  return { blob, built: true, seconds: (Date.now() - started) / 1000 };
}

module.exports = { buildKernelSnapshot, kernelSnapshotBlob, reuseParsed, patchTypeScript, SNAPSHOT_DIR: DIR };
