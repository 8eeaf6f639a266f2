// Idempotent set-up, run before `npm start`, `npm test` and `npm run handouts`:
//   1. node modules: `npm ci` when node_modules is missing or does not match package-lock.json;
//   2. Debian packages (Jupyter Notebook, nbconvert, nbclient, ipykernel, fonts-noto-cjk; + chromium with
//      --for-tests), only those missing, without recommended packages and without upgrading what is installed:
//      installed with apt-get when root (announced first, with what is about to be installed), otherwise the exact
//      command is printed and we exit non-zero (only a warning when just the fonts are missing);
//   3. the tslab kernel spec in the project's .jupyter/ (absolute node + tslab paths; nothing outside the project);
//   4. the library compiled into build/lib (JavaScript + .d.ts), which notebooks load through notebooks/lib: tslab
//      type-checks imported .ts sources on the first import (≈20 s for lib/), but reads compiled code in ≈1 s;
//   5. the kernel's V8 startup snapshot (scripts/kernel-snapshot.cjs; ≈ 4 s when Node, TypeScript or tslab changed);
//      the kernel spec of 3 is written after it, naming the snapshot;
//   6. the notebooks' cells compiled ahead into the kernels' cell cache (scripts/cell-cache-fill.cjs; ≈ 10 s after a
//      change to the library).
// Quick when everything is in place (≈ 1 s): it reads a few files, asks dpkg and reads the cells back (6).
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import {
  DEBIAN_FONTS,
  DEBIAN_JUPYTER,
  DEBIAN_TEST,
  JUPYTER_DIR,
  PYTHON,
  ROOT,
  aptInstallArgs,
  buildLib,
  buildKernelSnapshot,
  TSLAB_BIN,
  isRoot,
  missingDebianPackages,
  nodeModulesStale,
  writeKernelSpec,
} from "./project.mjs";

const started = Date.now();
const forTests = process.argv.includes("--for-tests");
const done = [];

function run(command, args, options = {}) {
  console.log(`setup: $ ${command} ${args.join(" ")}`);
  const r = spawnSync(command, args, { stdio: "inherit", cwd: ROOT, ...options });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    console.error(`setup: \`${command} ${args.join(" ")}\` failed (exit ${r.status})`);
    process.exit(r.status || 1);
  }
}

// 1. Node modules.
const stale = nodeModulesStale();
if (stale) {
  // npm ci empties node_modules first: through a symbolic link (a worktree sharing another checkout's modules) it
  // would empty the other checkout's. Say so instead.
  const modules = path.join(ROOT, "node_modules");
  if (fs.existsSync(modules) && fs.lstatSync(modules).isSymbolicLink()) {
    console.error(`setup: ${stale}, but node_modules is a symbolic link to ${fs.readlinkSync(modules)}: npm ci would empty that folder. Remove the link (rm node_modules) and run the command again to install this checkout's own modules.`);
    process.exit(1);
  }
  console.log(`setup: ${stale}; installing node modules`);
  run(process.platform === "win32" ? "npm.cmd" : "npm", ["ci", "--no-audit", "--no-fund"]);
  const still = nodeModulesStale();
  if (still) {
    console.error(`setup: after npm ci, ${still}`);
    process.exit(1);
  }
  done.push("node modules installed");
} else {
  done.push("node modules ok");
}

// 2. Debian packages.
const wanted = forTests ? DEBIAN_TEST : DEBIAN_JUPYTER;
const missing = missingDebianPackages(wanted);
if (missing === null) {
  // Not a Debian system: we cannot install, but we can tell whether Jupyter is usable.
  const probe = spawnSync(PYTHON, ["-c", "import nbclient, nbconvert, notebook"], { encoding: "utf8" });
  if (probe.status !== 0) {
    console.error(
      `setup: ${PYTHON} cannot import nbclient / nbconvert / notebook, and this is not a Debian system (no dpkg).\n` +
        `       Install the Debian packages ${wanted.join(" ")} (Debian 12 / Ubuntu 22.04+), or a Jupyter Notebook 6,\n` +
        `       nbconvert 6 and nbclient for ${PYTHON}.`,
    );
    process.exit(1);
  }
  done.push("no dpkg; Jupyter importable");
} else if (missing.length > 0) {
  const install = aptInstallArgs(missing);
  const sizes = "(on a bare Debian 12: about 105 MB to download and 280 MB on disk for Jupyter and the CJK fonts, 300 MB and 930 MB with Chromium for `npm test`; README.md, Set-up)";
  if (!isRoot()) {
    const line = `    sudo apt-get update && sudo apt-get ${install.join(" ")}\n`;
    // Only the CJK fonts missing: everything runs; a browser on this machine would show Chinese as boxes.
    if (missing.every((p) => DEBIAN_FONTS.includes(p))) {
      console.warn(`setup: ${missing.join(" ")} is not installed: a browser on this machine shows the notebooks' Chinese as boxes. To install it:\n\n${line}`);
      done.push(`${missing.join(", ")} missing (printed)`);
    } else {
      console.error(
        `setup: missing Debian packages: ${missing.join(" ")}\n` +
          `       Install them, then run this command again ${sizes}:\n\n` +
          line,
      );
      process.exit(1);
    }
  } else {
    console.log(`setup: installing the missing Debian packages ${missing.join(" ")} with their required dependencies ${sizes}`);
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    run("apt-get", ["update"], { env });
    run("apt-get", install, { env });
    const left = missingDebianPackages(wanted) ?? [];
    if (left.length > 0) {
      console.error(`setup: still missing after apt-get: ${left.join(" ")}`);
      process.exit(1);
    }
    done.push(`installed ${missing.join(", ")}`);
  }
} else {
  done.push("Debian packages ok");
}

// 3. The tslab kernel, registered in the project-local Jupyter path.
const tslab = TSLAB_BIN;
if (!fs.existsSync(tslab)) {
  console.error(`setup: ${tslab} is missing; run \`npm ci\``);
  process.exit(1);
}
for (const sub of ["config", "data", "runtime"]) fs.mkdirSync(path.join(JUPYTER_DIR, sub), { recursive: true });
// 4. The compiled library for the notebooks (incremental: only changed files are re-emitted).
done.push(buildLib());

// 5. The kernel's startup snapshot (scripts/kernel-snapshot.cjs), then the kernel spec that names it.
done.push(buildKernelSnapshot());
done.push(writeKernelSpec() ? "kernel spec written" : "kernel spec ok");

// 6. The notebooks' cells compiled ahead into the kernels' cell cache (scripts/cell-cache-fill.cjs): a reader's first
//    Run All reads them back. ≈ 10 s after a change to the library, ≈ 0.4 s when nothing changed.
{
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "cell-cache-fill.cjs")], { cwd: ROOT, encoding: "utf8" });
  const line = (r.stdout || "").trim().split("\n").pop();
  if (r.status === 0 && line) done.push(line);
  else console.warn(`setup: the notebooks' cells were not compiled ahead (the kernels compile them as they run): ${(r.stderr || r.error || "").toString().trim().split("\n").slice(-2).join(" ")}`);
}

console.log(`setup: ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${done.join("; ")})`);
