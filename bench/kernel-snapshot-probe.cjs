// A probe, not part of the kernel (bench/RESULTS.md, Stop 16, "What is left"): how much of a tslab kernel's start a
// V8 startup snapshot would save. The snapshot holds TypeScript loaded and every declaration file tslab's converter
// reads (lib.es2022, @types/*) parsed and bound; at start the converter is built with those source files (a source
// file is reused only when its text is the same), then the import cell and one trivial cell are converted.
//
//   node bench/kernel-snapshot-probe.cjs          builds .cache/kernel-probe.blob (≈ 50 MB, ≈ 3 s), then runs it and
//                                                 the same steps without a snapshot, 3 times each, alternating
//
// What it leaves out (why it is a probe): the kernel spec, the Jupyter side (ZeroMQ is loaded after the snapshot),
// scripts/kernel-startup.cjs, rebuilding the blob when Node, TypeScript or the declarations change.
"use strict";
const { spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const ROOT = path.join(__dirname, "..");
const BLOB = path.join(ROOT, ".cache", "kernel-probe.blob");
const NOTEBOOKS = path.join(ROOT, "notebooks");
const TSLAB_MAIN = require.resolve("tslab/dist/main.js", { paths: [ROOT] });
const TS = require.resolve("@tslab/typescript-for-tslab", { paths: [path.dirname(TSLAB_MAIN)] });

/** The snapshot's entry: runs under `node --build-snapshot`, where only built-in modules can be required. */
function entry(TS, TSLAB_MAIN, NOTEBOOKS, ROOT) {
  const fs = require("fs");
  const path = require("path");
  const vm = require("vm");
  const Module = require("module");
  const v8 = require("v8");
  // TypeScript calls its own createSourceFile directly: one line added to its source consults the snapshot's files.
  const head = "  function createSourceFile(fileName, sourceText, languageVersionOrOptions, setParentNodes = false, scriptKind) {";
  const source = fs.readFileSync(TS, "utf8");
  if (!source.includes(head)) throw new Error("TypeScript's createSourceFile not found");
  const patched = source.replace(head, `${head}\n    const pre = globalThis.__probePre && globalThis.__probePre(fileName, sourceText); if (pre) return pre;`);
  const mod = { exports: {} };
  vm.runInThisContext(Module.wrap(patched), { filename: TS }).call(mod.exports, mod.exports, (id) => require(id), mod, TS, path.dirname(TS));
  const ts = mod.exports;
  // tslab's converter options (tslab/dist/converter.js createConverter), for Node ≥ 18
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
    if (sf) files.set(fileName, sf);
    return sf;
  };
  host.getCurrentDirectory = () => NOTEBOOKS;
  ts.createProgram([path.join(NOTEBOOKS, "__probe__.ts")], options, host).getTypeChecker(); // parse and bind
  v8.startupSnapshot.setDeserializeMainFunction(() => {
    const t0 = performance.now();
    let hits = 0;
    globalThis.__probePre = (fileName, text) => {
      const sf = files.get(fileName);
      if (sf && sf.text === text) return hits++, sf;
      return undefined;
    };
    const M = require("module");
    const m = new M(TS);
    Object.assign(m, { filename: TS, loaded: true, exports: ts });
    M._cache[TS] = m;
    report(t0, M.createRequire(TSLAB_MAIN), () => ({ reused: hits, of: files.size }));
  });
}

/** Builds tslab's converter, converts the import cell and a trivial cell; prints the phases (ms) and CPU. */
function report(t0, requireFromTslab, extra) {
  process.chdir(process.env.PROBE_CWD);
  const c = requireFromTslab("./converter").createConverter({ isJS: false, isBrowser: false });
  const t1 = performance.now();
  const decl = c.convert("", 'import { check } from "./lib/index";\n').declOutput;
  const bad = c.convert(decl, 'const x: number = "1";\nx\n').diagnostics.length; // a type error still shows
  const t2 = performance.now();
  const u = process.cpuUsage();
  const r = { converterMs: Math.round(t1 - t0), twoCellsMs: Math.round(t2 - t1), cpuMs: Math.round((u.user + u.system) / 1000), wallMs: Math.round(performance.now()), typeErrors: bad, ...extra() };
  console.log(JSON.stringify(r));
  process.exit(0);
}

if (require.main === module) {
  fs.mkdirSync(path.dirname(BLOB), { recursive: true });
  const script = path.join(ROOT, ".cache", "kernel-probe-entry.js");
  fs.writeFileSync(script, `(${entry})(${[TS, TSLAB_MAIN, NOTEBOOKS, ROOT].map((x) => JSON.stringify(x)).join(", ")});\n${report}\n`);
  const env = { ...process.env, PROBE_CWD: NOTEBOOKS };
  const built = spawnSync(process.execPath, ["--snapshot-blob", BLOB, "--build-snapshot", script], { encoding: "utf8", env });
  if (built.status !== 0) throw new Error(`building the snapshot failed:\n${built.stderr}`);
  const plain = `(${report})(0, require("module").createRequire(${JSON.stringify(TSLAB_MAIN)}), () => ({}))`;
  for (let k = 0; k < 3; k++) {
    const a = spawnSync(process.execPath, ["--snapshot-blob", BLOB], { encoding: "utf8", env });
    const b = spawnSync(process.execPath, ["-e", plain], { encoding: "utf8", env });
    console.log(`snapshot  ${a.stdout.trim()}${a.status ? a.stderr.slice(-500) : ""}`);
    console.log(`plain     ${b.stdout.trim()}${b.status ? b.stderr.slice(-500) : ""}`);
  }
  console.log(`blob: ${(fs.statSync(BLOB).size / 1e6).toFixed(0)} MB (${BLOB})`);
}
