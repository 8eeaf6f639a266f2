// Shared facts for the set-up scripts: where things are, which Debian packages each command needs, the
// project-local Jupyter environment, and the tslab kernel spec. Node built-ins only (runs before `npm ci`).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const NOTEBOOKS_DIR = path.join(ROOT, "notebooks");
export const JUPYTER_DIR = path.join(ROOT, ".jupyter");
export const KERNEL_DIR = path.join(JUPYTER_DIR, "kernels", "tslab");
// Debian's python: it is the one that sees python3-nbclient & co. (a pyenv/conda python3 on PATH does not).
export const PYTHON = "/usr/bin/python3";
export const CHROMIUM = "/usr/bin/chromium";

/** Debian packages for `npm start` and `npm run handouts`: Notebook 6, nbconvert 6.5, nbclient, kernel plumbing, and
 * Noto CJK so that a browser on this machine shows the live notebooks' Chinese (the handouts carry their own font). */
export const DEBIAN_FONTS = ["fonts-noto-cjk"];
export const DEBIAN_JUPYTER = ["jupyter-notebook", "jupyter-client", "jupyter-nbconvert", "python3-nbclient", "python3-ipykernel", ...DEBIAN_FONTS];
/** `npm test` also opens a handout in headless Chromium. */
export const DEBIAN_TEST = [...DEBIAN_JUPYTER, "chromium"];

/** The apt-get install of the missing packages only: no recommended packages (avahi, cups, printer tools …), and no
 * upgrade of anything already installed (apt still upgrades a library when a new package needs its newer version).
 * Nothing system-wide is upgraded. */
export function aptInstallArgs(missing) {
  return ["install", "-y", "--no-install-recommends", "--no-upgrade", ...missing];
}

/** Environment that keeps every Jupyter read and write inside the project (kept in step with run_notebooks.py). */
export function jupyterEnv(base = process.env) {
  return {
    ...base,
    JUPYTER_PATH: JUPYTER_DIR,
    JUPYTER_CONFIG_DIR: path.join(JUPYTER_DIR, "config"),
    JUPYTER_DATA_DIR: path.join(JUPYTER_DIR, "data"),
    JUPYTER_RUNTIME_DIR: path.join(JUPYTER_DIR, "runtime"),
    IPYTHONDIR: path.join(JUPYTER_DIR, "ipython"),
    PYDEVD_DISABLE_FILE_VALIDATION: "1",
  };
}

export function isRoot() {
  return typeof process.getuid === "function" && process.getuid() === 0;
}

/** Debian packages from `wanted` that are not installed. Null when dpkg is not there (not Debian). */
export function missingDebianPackages(wanted) {
  const r = spawnSync("dpkg-query", ["-W", "-f=${Package} ${db:Status-Abbrev}\\n", ...wanted], { encoding: "utf8" });
  if (r.error) return null;
  const installed = new Set(
    r.stdout
      .split("\n")
      .map((line) => line.trim().split(/\s+/))
      .filter(([name, status]) => name && status && status.startsWith("ii"))
      .map(([name]) => name.replace(/:.*$/, "")),
  );
  return wanted.filter((p) => !installed.has(p));
}

/** Why node_modules does not match package-lock.json (first mismatch), or null when it does. */
export function nodeModulesStale() {
  const lockPath = path.join(ROOT, "package-lock.json");
  if (!fs.existsSync(path.join(ROOT, "node_modules"))) return "node_modules is missing";
  const lock = JSON.parse(fs.readFileSync(lockPath, "utf8"));
  for (const [where, entry] of Object.entries(lock.packages ?? {})) {
    if (where === "" || entry.link) continue;
    const manifest = path.join(ROOT, where, "package.json");
    if (!fs.existsSync(manifest)) {
      if (entry.optional) continue; // platform-specific binaries for other systems
      return `${where} is missing`;
    }
    const version = JSON.parse(fs.readFileSync(manifest, "utf8")).version;
    if (entry.version && version !== entry.version) return `${where} is ${version}, package-lock.json wants ${entry.version}`;
  }
  return null;
}

/** The tslab kernel spec with absolute paths, so the kernel starts without any PATH set-up. Node loads
 * scripts/kernel-startup.cjs first: the "run the import cell first" stand-ins, and exit when the kernel's parent is
 * gone. With a startup snapshot built for this Node (scripts/kernel-snapshot.cjs), the kernel starts from it instead
 * (its main function loads kernel-startup.cjs, then tslab). */
export const TSLAB_BIN = path.join(ROOT, "node_modules", "tslab", "bin", "tslab");
export const KERNEL_STARTUP = path.join(ROOT, "scripts", "kernel-startup.cjs");
const kernelSnapshot = createRequire(import.meta.url)("./kernel-snapshot.cjs");
export function kernelSpec(blob = kernelSnapshot.kernelSnapshotBlob()) {
  const start = blob ? ["--snapshot-blob", blob] : ["--require", KERNEL_STARTUP, TSLAB_BIN];
  return {
    argv: [process.execPath, ...start, "kernel", "--config-path", "{connection_file}"],
    display_name: "TypeScript",
    language: "typescript",
    // V8 refuses a snapshot under flags other than those it was built with, even --max-old-space-size or
    // --expose-gc: a kernel started from one must not inherit the caller's NODE_OPTIONS (it would die at once).
    ...(blob ? { env: { NODE_OPTIONS: "" } } : {}),
  };
}

/** Builds the kernel's startup snapshot when it is missing for this Node (≈ 4 s once): what set-up reports. */
export function buildKernelSnapshot() {
  const r = kernelSnapshot.buildKernelSnapshot();
  if (!r.blob) return `kernel snapshot not used (${r.reason})`;
  return r.built ? `kernel snapshot built in ${r.seconds.toFixed(1)} s` : "kernel snapshot ok";
}

/** Writes .jupyter/kernels/tslab/kernel.json when it differs; returns whether it changed. */
export function writeKernelSpec() {
  const file = path.join(KERNEL_DIR, "kernel.json");
  const text = JSON.stringify(kernelSpec(), null, 1) + "\n";
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === text) return false;
  fs.mkdirSync(KERNEL_DIR, { recursive: true });
  fs.writeFileSync(file, text);
  return true;
}

/** Notebook files under notebooks/, sorted by name (checkpoints excluded). */
export function listNotebooks() {
  return fs
    .readdirSync(NOTEBOOKS_DIR)
    .filter((f) => f.endsWith(".ipynb"))
    .sort()
    .map((f) => path.join(NOTEBOOKS_DIR, f));
}

/** Every .ts file under lib/ (the library the notebooks load, compiled into build/lib). */
function libSources(dir = path.join(ROOT, "lib")) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...libSources(full));
    else if (entry.name.endsWith(".ts")) out.push(full);
  }
  return out;
}

export const BUILD_STAMP = path.join(ROOT, "build", ".stamp");

/** Why build/lib is out of date with lib/ (a newer source, a missing build), or null when it is current. */
export function libBuildStale() {
  if (!fs.existsSync(BUILD_STAMP) || !fs.existsSync(path.join(ROOT, "build", "lib", "index.js"))) return "build/lib is missing";
  const built = fs.statSync(BUILD_STAMP).mtimeMs;
  const config = ["tsconfig.json", "tsconfig.build.json"].map((f) => path.join(ROOT, f));
  const newer = [...libSources(), ...config].find((f) => fs.statSync(f).mtimeMs > built);
  return newer ? `${path.relative(ROOT, newer)} changed since the last build` : null;
}

// Every export of lib/index declared as a global `any`, where tslab's TypeScript finds it (an @types package under
// node_modules: tslab loads every one; the project's tsconfig.json lists "types": ["node"] and does not), with the
// names for scripts/kernel-startup.cjs, which makes each a stand-in that says to run the import cell first. A cell
// that uses `check` before the import then compiles and fails with that message instead of tslab's bare "Cannot find
// name 'check'". Regenerated after each build of lib/ (and after `npm ci`, which removes it).
export const NOTEBOOK_GLOBALS_DIR = path.join(ROOT, "node_modules", "@types", "l11-notebook-globals");

function notebookGlobalsStale() {
  const names = path.join(NOTEBOOK_GLOBALS_DIR, "names.json");
  return !fs.existsSync(names) || !fs.existsSync(BUILD_STAMP) || fs.statSync(names).mtimeMs < fs.statSync(BUILD_STAMP).mtimeMs;
}

/** Writes node_modules/@types/l11-notebook-globals from build/lib/index.js's exports; returns how many. */
export function writeNotebookGlobals() {
  const listed = spawnSync(process.execPath, ["-e", `process.stdout.write(JSON.stringify(Object.keys(require(${JSON.stringify(path.join(ROOT, "build", "lib", "index.js"))}))))`], { encoding: "utf8" });
  if (listed.status !== 0) throw new Error(`could not list the exports of build/lib/index.js:\n${listed.stderr}`);
  const names = JSON.parse(listed.stdout)
    .filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && !(n in globalThis))
    .sort();
  fs.mkdirSync(NOTEBOOK_GLOBALS_DIR, { recursive: true });
  const header = "// Generated by scripts/project.mjs (writeNotebookGlobals): every export of lib/index as a global, for tslab only.\n" +
    "// At run time scripts/kernel-startup.cjs makes each one say 请先运行第一个单元格（import） until the import cell runs.\n";
  fs.writeFileSync(path.join(NOTEBOOK_GLOBALS_DIR, "index.d.ts"), header + names.map((n) => `declare const ${n}: any;\n`).join(""));
  fs.writeFileSync(
    path.join(NOTEBOOK_GLOBALS_DIR, "package.json"),
    JSON.stringify({ name: "@types/l11-notebook-globals", version: "0.0.0", private: true, description: "generated by scripts/project.mjs", types: "index.d.ts" }, null, 1) + "\n",
  );
  fs.writeFileSync(path.join(NOTEBOOK_GLOBALS_DIR, "names.json"), JSON.stringify(names) + "\n");
  return names.length;
}

/** Compiles lib/ into build/lib when stale; returns a note for the set-up summary. Exits on a compile error. */
export function buildLib({ quiet = false } = {}) {
  const stale = libBuildStale();
  if (!stale) {
    if (notebookGlobalsStale()) return `library build ok; ${writeNotebookGlobals()} notebook globals written`;
    return "library build ok";
  }
  if (!quiet) console.log(`build: ${stale}; compiling lib/ into build/lib`);
  // tsc's incremental build trusts build/.tsbuildinfo and does not check that its outputs still exist: with build/lib
  // deleted (the natural way to force a clean build) it would emit nothing. Without the outputs, start afresh.
  if (!fs.existsSync(path.join(ROOT, "build", "lib", "index.js"))) fs.rmSync(path.join(ROOT, "build", ".tsbuildinfo"), { force: true });
  const r = spawnSync(process.execPath, [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
  if (r.status !== 0) {
    console.error("build: lib/ does not compile (errors above); the notebooks load build/lib, so fix them first");
    process.exit(r.status || 1);
  }
  fs.writeFileSync(BUILD_STAMP, new Date().toISOString() + "\n");
  return `library compiled; ${writeNotebookGlobals()} notebook globals written`;
}
