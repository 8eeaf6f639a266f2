// Loaded by the tslab kernel before tslab itself (`node --require scripts/kernel-startup.cjs …/tslab kernel`, the
// kernel spec written by scripts/project.mjs). Two things tslab has no setting for:
//
// 1. A cell run before the import cell. tslab type-checks each cell, so `check("1.1", 3)` before
//    `import { check } from "./lib/index"` stops at "Cannot find name 'check'". The set-up declares every export of
//    lib/index as a global `any` (node_modules/@types/l11-notebook-globals, which tslab's TypeScript reads like any
//    @types package; the project's own tsconfig lists its types and does not), and here each of those globals is a
//    stand-in that throws 请先运行第一个单元格（import） when a cell uses it. The import cell's names shadow the
//    globals (tslab keeps earlier cells' names in a scope above the globals), so after the import nothing changes.
// 2. Results shared between notebooks. 05 and 07 show demos that 01–06 ran already; with LECTURE_RESULT_CACHE set,
//    runDemo reads a result this code computed with the same parameters back from disk (lib/demos/result-cache.ts:
//    keyed by the code, the data and the parameters). The kernel uses .cache/results unless the variable is set
//    (a folder, or "off": grading and the benches set it).
// 3. A warm start. tslab builds its TypeScript program when the first cell runs, and the import cell then reads every
//    declaration of lib/ and loads the library: 0.4–0.6 s per notebook. Right after start-up the kernel does that
//    work itself — tslab's converter compiles `import * as … from "./lib/index"` once, and the modules lib/index
//    re-exports are loaded (lib/index itself is left to the import cell, which shows its warning about a stale
//    build). The runner starts each notebook's kernels while the previous notebook runs, so the work hides there.
//    L11_WARM_START=off turns it off.
// 4. A kernel whose parent is gone. Jupyter starts kernels in a session of their own, so a Ctrl-C in the terminal
//    does not reach them, and a runner that is killed outright cannot shut them down; a kernel left running keeps the
//    caller's output pipe open (`npm run handouts | tail` would hang). The launcher passes its pid as
//    JPY_PARENT_PID; when the kernel's parent is no longer that process, the kernel exits.
// 5. A V8 code cache of TypeScript and tslab (below; scripts/kernel-code-cache.cjs): written after the warm-up of 3.
// 6. One TypeScript program update per cell instead of tslab's two (scripts/tslab-convert-patch.cjs): the cell's
//    top-level names come from its file bound on its own. L11_CONVERT_PATCH=off turns it off.
// 7. The simulation engines' JIT warmed after 3's preload by a few short runs (lib/demos/warm-up.ts), so a notebook's
//    first simulation does not run interpreted. L11_WARM_RUNS=off turns it off.
// 8. Cell conversions stored and read back (scripts/kernel-cell-cache.cjs): a cell whose text and earlier cells'
//    declarations are those of a previous conversion, with the same library and packages, skips TypeScript (≈ 2 ms
//    instead of ≈ 60). .cache/cells; L11_CELL_CACHE=off turns it off, L11_CELL_CACHE=<folder> puts it elsewhere.
"use strict";
const fs = require("fs");
const path = require("path");
const util = require("util");

const ROOT = path.join(__dirname, "..");
// Node runs a --require preload in every worker thread too (the library's mapParallel workers): there only the
// stand-ins apply — no code cache, no converter to warm (requiring tslab's converter would load TypeScript's 8 MB
// into each worker), no parent to watch.
const IN_WORKER = !require("worker_threads").isMainThread;
// 5. A code cache (scripts/kernel-code-cache.cjs): TypeScript's compiler and tslab are compiled from V8's bytes of
//    the last start instead of from source. Installed first, so tslab's own modules go through it.
const codeCache = process.env.L11_CODE_CACHE === "off" || IN_WORKER ? null : installCodeCache();
function installCodeCache() {
  try {
    const roots = [fs.realpathSync(path.join(ROOT, "node_modules")) + path.sep];
    return require("./kernel-code-cache.cjs").install({ dir: path.join(ROOT, ".cache", "v8-code"), roots });
  } catch {
    return null; // no node_modules yet: nothing to cache
  }
}

// 6. Installed after the code cache, so the patched converter is compiled (and cached) through it.
if (!IN_WORKER) {
  try {
    require("./tslab-convert-patch.cjs").install();
  } catch {
    // the kernel works as plain tslab
  }
}

// 8. Conversions read back (scripts/kernel-cell-cache.cjs): a cell that follows the same earlier cells as in a
//    previous run skips TypeScript. Made before tslab's converter, which afterConverter wraps with it.
const cellCache = IN_WORKER ? null : makeCellCache();
function makeCellCache() {
  try {
    const cache = require("./kernel-cell-cache.cjs").cellCacheFromEnv({ cwd: process.cwd(), root: ROOT });
    if (cache) globalThis.__l11CellCacheStats = cache.stats; // what a cell (and the tests) can read
    return cache;
  } catch {
    return null; // the kernel converts every cell, as plain tslab
  }
}

const NAMES = path.join(__dirname, "..", "node_modules", "@types", "l11-notebook-globals", "names.json");
// Names a library may probe with `typeof x` / `x.amd` (UMD wrappers): never stand in for these.
const RESERVED = new Set(["define", "module", "exports", "require", "window", "self", "global", "globalThis", "process", "Buffer", "navigator", "document"]);

class NotImportedError extends Error {
  constructor(name) {
    // Also what a name missing from the import cell's list meets: say both.
    super(`请先运行第一个单元格（import）：${name} 来自 "./lib/index"；那个单元格已经运行过的话，把 ${name} 加进它的 import { … }`);
    this.name = "NotImportedError";
  }
  // tslab prints a thrown error with util.inspect: one line, no stack trace.
  [util.inspect.custom]() {
    return this.message;
  }
}

function standIn(name) {
  const fail = () => {
    throw new NotImportedError(name);
  };
  return new Proxy(function notImported() {}, { apply: fail, construct: fail, get: fail, set: fail, has: fail });
}

let names = [];
try {
  names = JSON.parse(fs.readFileSync(NAMES, "utf8"));
} catch {
  // not generated yet (scripts/setup.mjs writes it): the kernel works as plain tslab
}
for (const name of names) {
  if (typeof name !== "string" || RESERVED.has(name) || name in globalThis) continue;
  Object.defineProperty(globalThis, name, { value: standIn(name), configurable: true, writable: true, enumerable: false });
}

if (process.env.LECTURE_RESULT_CACHE === undefined) {
  process.env.LECTURE_RESULT_CACHE = path.join(__dirname, "..", ".cache", "results");
}

/** Runs `afterStart(converter, convert)` once tslab has made its TypeScript converter and finished its start-up
 * (a timer after createConverter returns), unless a cell got to the converter first (then `cellFirst()`). */
function afterConverter(afterStart, cellFirst) {
  let converterModule;
  try {
    converterModule = require(require.resolve("tslab/dist/converter", { paths: [process.cwd(), __dirname] }));
  } catch {
    return; // not tslab's layout: nothing to warm
  }
  const original = converterModule.createConverter;
  converterModule.createConverter = function (options) {
    const c = original.apply(this, arguments);
    if (options && (options.isJS || options.isBrowser)) return c;
    let cellsSeen = false;
    const convert = c.convert;
    const cellConvert = cellCache ? cellCache.wrap(convert) : convert;
    c.convert = function () {
      cellsSeen = true;
      dropPreloadIfRebuilt();
      return cellConvert.apply(this, arguments);
    };
    if (cellCache) {
      const addModule = c.addModule;
      c.addModule = function () {
        cellCache.disable("a %module cell"); // its file joins the program without changing prevDecl
        return addModule.apply(this, arguments);
      };
    }
    setTimeout(() => (cellsSeen ? cellFirst() : afterStart(c, convert)), 0);
    converterModule.createConverter = original;
    return c;
  };
}

function warmUp(c, convert) {
  if (process.env.L11_WARM_START === "off" || !fs.existsSync(path.join(process.cwd(), "lib", "index.js"))) return;
  try {
    convert.call(c, "", 'import * as l11WarmStart from "./lib/index";\nvoid l11WarmStart;\n');
  } catch {
    // a failed warm-up leaves the first cell to do the work, as without it
  }
  if (preloadLibrary()) warmEngines();
}

/** 7. The engines' JIT warmed by a few short runs of the preloaded library (lib/demos/warm-up.ts): a notebook's first
 * simulation otherwise runs interpreted (06.1's first cell, 07's 02.4). Off with L11_WARM_RUNS=off; a failure leaves
 * the first cell to pay, as without it. */
function warmEngines() {
  if (process.env.L11_WARM_RUNS === "off") return;
  try {
    require(path.join(preloaded.dir, "demos", "warm-up.js")).warmEngines();
  } catch {
    // an older build without the warm-up, or a run that failed: nothing is kept from it
  }
}

/** What preloadLibrary loaded, until the import cell runs: lib/index's path, the library's folder and its build
 * stamp's time then (build/.stamp, which `npm run build` rewrites). */
let preloaded = null;

/** Loads the modules lib/index re-exports, so the import cell finds them in Node's module cache (the same files,
 * by their real paths): 0.1–0.2 s less in every notebook's import cell (bench/RESULTS.md, Stop 31). Not lib/index
 * itself: the import cell runs it, and it prints its warning about a stale build where the reader sees it. A module
 * that fails to load is left to the import cell, which shows the error. */
function preloadLibrary() {
  let index;
  try {
    index = fs.realpathSync(path.join(process.cwd(), "lib", "index.js"));
  } catch {
    return false;
  }
  const dir = path.dirname(index);
  preloaded = { index, dir, stamp: stampTime(dir) };
  for (const m of fs.readFileSync(index, "utf8").matchAll(/\brequire\("(\.\/[^"]+)"\)/g)) {
    try {
      require(path.resolve(dir, m[1]));
    } catch {
      return false;
    }
  }
  return true;
}

function stampTime(dir) {
  try {
    return fs.statSync(path.join(dir, "..", ".stamp")).mtimeMs;
  } catch {
    return null;
  }
}

/** Before each cell until the library is imported: if the library was rebuilt since the preload (a reader ran
 * `npm run build`, or `npm start` rebuilt it, after the kernel started), the preloaded modules are dropped from the
 * module cache, so the import cell loads the new build as it would have without the preload. */
function dropPreloadIfRebuilt() {
  if (preloaded === null) return;
  const { index, dir, stamp } = preloaded;
  if (require.cache[index]) {
    preloaded = null; // imported: from here on the kernel holds what it loaded, as any Node process
    return;
  }
  if (stampTime(dir) === stamp) return;
  preloaded = null;
  for (const file of Object.keys(require.cache)) if (file.startsWith(dir + path.sep)) delete require.cache[file];
}

// The code cache is written after the warm-up, so it holds what the converter compiled for it too; when a cell comes
// first, after a pause (the cell's own work is not the start-up's).
const saveCodeCache = () => codeCache && codeCache.save();
if (!IN_WORKER && (codeCache || cellCache || process.env.L11_WARM_START !== "off")) {
  afterConverter(
    (c, convert) => {
      warmUp(c, convert);
      if (cellCache) cellCache.prepare();
      saveCodeCache();
    },
    () => codeCache && setTimeout(saveCodeCache, 2000).unref(),
  );
}

const parent = Number(process.env.JPY_PARENT_PID);
if (!IN_WORKER && parent > 0 && process.ppid === parent) {
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 1000).unref();
}
