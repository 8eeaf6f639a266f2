// Starts Jupyter Notebook (Debian's Notebook 6) on 127.0.0.1, opened at notebooks/, with the project-local Jupyter
// paths so it finds the tslab kernel registered by scripts/setup.mjs. Extra arguments go to Jupyter:
//   npm start -- --no-browser --port=8890
import { spawn } from "node:child_process";
import * as path from "node:path";
import { NOTEBOOKS_DIR, PYTHON, ROOT, isRoot, jupyterEnv } from "./project.mjs";

// Keep build/lib in step with lib/ while Jupyter runs: edit a .ts file, then restart the kernel to load it.
const watcher = spawn(
  process.execPath,
  [path.join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json", "--watch", "--preserveWatchOutput"],
  { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
);
process.on("exit", () => watcher.kill());

const args = [
  "-m",
  "notebook",
  "--ip=127.0.0.1",
  `--notebook-dir=${NOTEBOOKS_DIR}`,
  ...(isRoot() ? ["--allow-root"] : []), // Notebook refuses to run as root without it (containers, CI boxes)
  ...process.argv.slice(2),
];
console.log(`start: ${PYTHON} ${args.join(" ")}`);
console.log("start: open the URL printed below (with its token); stop with Ctrl-C twice.");
console.log("start: lib/ is recompiled into build/lib on every change (tsc --watch); restart the kernel to pick it up.");
const child = spawn(PYTHON, args, { stdio: "inherit", env: jupyterEnv() });
// Ctrl-C reaches Jupyter directly (same process group); Jupyter decides when to stop and we follow.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (signal !== "SIGINT") child.kill(signal);
  });
}
child.on("error", (err) => {
  console.error(`start: could not run ${PYTHON}: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
