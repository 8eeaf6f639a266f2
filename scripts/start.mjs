// Starts Jupyter Notebook (Debian's Notebook 6) on 127.0.0.1 with the project-local Jupyter paths (so it finds the
// tslab kernel registered by scripts/setup.mjs), opened at the reader's own copy of the notebooks: workspace/student/
// (git-ignored; see scripts/workspace.mjs), never the tracked notebooks/. Our options come first; everything else
// goes to Jupyter:
//   npm start -- --edition instructor --refresh 03 --no-browser --port=8890
import { spawn } from "node:child_process";
import * as path from "node:path";
import { PYTHON, ROOT, isRoot, jupyterEnv } from "./project.mjs";
import { EDITIONS, prepareWorkspace, resolveRefresh, shown } from "./workspace.mjs";

const USAGE = "npm start -- [--edition student|instructor] [--refresh NN[,NN…]|all] [Jupyter 的参数，如 --no-browser --port=8890]";

function refuse(message) {
  console.error(`start: ${message}\nusage: ${USAGE}`);
  process.exit(2);
}

/** Our two options (`--edition X`, `--refresh X`, or with `=`) out of argv; the rest is Jupyter's, in order. */
function splitStartArgs(argv) {
  const ours = { edition: "student", refresh: [] };
  const jupyterArgs = [];
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(edition|refresh)(?:=(.*))?$/.exec(argv[i]);
    if (!match) {
      jupyterArgs.push(argv[i]);
      continue;
    }
    const [, name, inline] = match;
    const value = inline ?? argv[++i];
    if (value === undefined || value === "" || (inline === undefined && value.startsWith("--"))) {
      refuse(name === "edition" ? `--edition 需要一个值：${EDITIONS.join(" 或 ")}` : "--refresh 需要笔记本编号，例如 --refresh 03（或 all）");
    }
    if (name === "edition") {
      if (!EDITIONS.includes(value)) refuse(`--edition 的值 ${JSON.stringify(value)} 不对；可选：${EDITIONS.join(" 或 ")}`);
      ours.edition = value;
    } else {
      const resolved = resolveRefresh(value);
      if ("error" in resolved) refuse(resolved.error);
      ours.refresh.push(...resolved.names);
    }
  }
  return { ...ours, jupyterArgs };
}

const { edition, refresh, jupyterArgs } = splitStartArgs(process.argv.slice(2));
const { dir, lines } = prepareWorkspace({ edition, refresh });
for (const line of lines) console.log(`start: ${line}`);

// The copy's cells compiled ahead into the kernels' cell cache (scripts/cell-cache-fill.cjs), behind Jupyter's start:
// the reader's first Run All reads them back (≈ 10 s of one core once after a change; ≈ 0.4 s when nothing changed).
spawn(process.execPath, [path.join(ROOT, "scripts", "cell-cache-fill.cjs"), "--cwd", dir], { cwd: ROOT, stdio: "ignore" }).unref();

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
  `--notebook-dir=${dir}`,
  ...(isRoot() ? ["--allow-root"] : []), // Notebook refuses to run as root without it (containers, CI boxes)
  ...jupyterArgs,
];
console.log(`start: ${PYTHON} ${args.join(" ")}`);
console.log(`start: 打开的是你自己的副本 ${shown(dir)}/（${edition === "student" ? "学生版" : "教师版"}）：改动和答案都存在这里，不会改动 notebooks/ 里的源文件。`);
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
