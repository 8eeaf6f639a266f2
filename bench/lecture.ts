// Bench "lecture": the lecture end to end — every notebook executed top to bottom in the tslab kernel by the one
// notebook runner (scripts/run_notebooks.py --summary), kernel start included, the way `npm test` and
// `npm run handouts` run them. Figures: the whole collection one notebook after another (one runner process;
// every notebook starts its own kernel), each notebook alone (the runner's per-notebook seconds), the slowest cell
// of each, and the CPU seconds (user + system of the runner and its kernels — on a shared machine they say what
// the work costs when wall-clock seconds include waiting for the other users' processes). With --two-at-once
// (default on; --no-two-at-once skips it) the collection is also run as two runners side by side, each taking every
// other notebook, which is what two cores allow.
//
// The library is compiled (npm run build) before the clock starts, so the figures do not include a rebuild.
// Targets (issue 8): the whole collection under 60 s on the 2-core machine; no cell over 10 s.
//
// Usage: npx tsx bench/lecture.ts [--json] [--notebooks=01,02] [--no-two-at-once]
//   JSON: { "lecture": { "collectionSeconds": {…}, "<notebook>": {…}, "<notebook>.slowestCell": {…}, … } }
import { spawn, spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

const ROOT = path.join(__dirname, "..");
const NOTEBOOKS = path.join(ROOT, "notebooks");
const RUNNER = path.join(ROOT, "scripts", "run_notebooks.py");
const CELL_TARGET = 10;
const COLLECTION_TARGET = 60;

interface Metric {
  value: number;
  unit: string;
}

export interface NotebookSummary {
  notebook: string;
  name: string;
  seconds: number;
  ok: boolean;
  failure: string | null;
  /** [cell index, seconds] per executed code cell (scripts/run_notebooks.py ≥ issue 8) */
  cells?: Array<[number, number]>;
}

export interface RunnerRun {
  summary: NotebookSummary[];
  wallSeconds: number;
  cpuSeconds: number;
  code: number;
  output: string;
}

/** Runs the notebook runner on `notebooks` under /usr/bin/time (for the children's CPU seconds). */
function runRunner(notebooks: string[], tag: string): Promise<RunnerRun> {
  const summaryFile = path.join(os.tmpdir(), `lecture-bench-${process.pid}-${tag}.json`);
  const timeFile = path.join(os.tmpdir(), `lecture-bench-${process.pid}-${tag}.time`);
  const hasTime = fs.existsSync("/usr/bin/time");
  const args = [RUNNER, "--summary", summaryFile, ...notebooks];
  const [cmd, argv] = hasTime ? ["/usr/bin/time", ["-f", "%e %U %S", "-o", timeFile, "/usr/bin/python3", ...args]] : ["/usr/bin/python3", args];
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("close", (code) => {
      const wallSeconds = (Date.now() - t0) / 1000;
      let cpuSeconds = NaN;
      if (hasTime && fs.existsSync(timeFile)) {
        const last = fs.readFileSync(timeFile, "utf8").trim().split("\n").pop() ?? "";
        const [, user, sys] = last.split(/\s+/).map(Number);
        cpuSeconds = user + sys;
        fs.rmSync(timeFile, { force: true });
      }
      const summary: NotebookSummary[] = fs.existsSync(summaryFile) ? JSON.parse(fs.readFileSync(summaryFile, "utf8")) : [];
      fs.rmSync(summaryFile, { force: true });
      resolve({ summary, wallSeconds, cpuSeconds, code: code ?? 1, output });
    });
  });
}

const round = (x: number, digits = 3) => Number(x.toPrecision(digits));

export async function benchLecture(o: { notebooks?: string[]; twoAtOnce?: boolean; progress?: (m: string) => void } = {}): Promise<{ lecture: Record<string, Metric> }> {
  const all = fs.readdirSync(NOTEBOOKS).filter((f) => f.endsWith(".ipynb")).sort();
  const chosen = o.notebooks?.length ? all.filter((f) => o.notebooks!.some((p) => f.startsWith(p))) : all;
  if (chosen.length === 0) throw new Error(`lecture: no notebook matches ${o.notebooks?.join(", ")}; notebooks: ${all.join(", ")}`);
  const paths = chosen.map((f) => path.join(NOTEBOOKS, f));

  const build = spawnSync(process.execPath, [path.join(ROOT, "scripts", "build-lib.mjs")], { cwd: ROOT, encoding: "utf8" });
  if (build.status !== 0) throw new Error(`lecture: npm run build failed:\n${build.stdout}${build.stderr}`);

  o.progress?.(`lecture: ${chosen.length} notebooks one after another …`);
  const seq = await runRunner(paths, "seq");
  const failed = seq.summary.filter((e) => !e.ok);
  if (seq.code !== 0 || failed.length) process.stderr.write(`lecture: ${failed.length || "some"} notebook(s) failed:\n${seq.output.slice(-4000)}\n`);

  const out: Record<string, Metric> = {};
  out.collectionSeconds = { value: round(seq.wallSeconds), unit: `wall s, ${chosen.length} notebooks one after another, each with its own kernel (target < ${COLLECTION_TARGET} s)` };
  out.collectionCpuSeconds = { value: round(seq.cpuSeconds), unit: "CPU s (user + system) of the runner and the kernels it started" };
  out.notebooksFailed = { value: failed.length + Math.max(0, chosen.length - seq.summary.length), unit: "notebooks that did not run cleanly (0 expected)" };
  let over = 0;
  let slowest: { name: string; cell: number; seconds: number } = { name: "", cell: -1, seconds: 0 };
  let kernelTotal = 0;
  for (const e of seq.summary) {
    const cells = e.cells ?? [];
    const inCells = cells.reduce((s, [, x]) => s + x, 0);
    const top = cells.reduce<[number, number]>((b, c) => (c[1] > b[1] ? c : b), [-1, 0]);
    over += cells.filter(([, x]) => x > CELL_TARGET).length;
    if (top[1] > slowest.seconds) slowest = { name: e.name, cell: top[0], seconds: top[1] };
    kernelTotal += e.seconds - inCells;
    out[e.name] = { value: round(e.seconds), unit: `wall s alone, kernel start included${e.ok ? "" : " (FAILED)"}; ${cells.length} code cells` };
    out[`${e.name}.cellsSeconds`] = { value: round(inCells), unit: "wall s inside the code cells (the rest: kernel start, first compile, shutdown)" };
    out[`${e.name}.slowestCell`] = { value: round(top[1]), unit: `wall s, cell ${top[0]} (index in the notebook)` };
  }
  out.kernelOverheadSeconds = { value: round(kernelTotal), unit: "wall s of the collection outside code cells (kernel starts and stops)" };
  out.slowestCell = { value: round(slowest.seconds), unit: `wall s, ${slowest.name} cell ${slowest.cell} (target ≤ ${CELL_TARGET} s)` };
  out.cellsOver10s = { value: over, unit: `cells over ${CELL_TARGET} s` };

  if (o.twoAtOnce !== false && paths.length > 1) {
    o.progress?.("lecture: the collection as two runners side by side …");
    const t0 = Date.now();
    const halves = [paths.filter((_, i) => i % 2 === 0), paths.filter((_, i) => i % 2 === 1)];
    const runs = await Promise.all(halves.map((h, i) => runRunner(h, `par${i}`)));
    out.collectionSecondsTwoAtOnce = { value: round((Date.now() - t0) / 1000), unit: "wall s, two runners side by side (every other notebook each)" };
    out.collectionCpuSecondsTwoAtOnce = { value: round(runs.reduce((s, r) => s + r.cpuSeconds, 0)), unit: "CPU s of both runners and their kernels" };
    const bad = runs.filter((r) => r.code !== 0);
    if (bad.length) process.stderr.write(`lecture: a runner side by side failed:\n${bad.map((r) => r.output.slice(-2000)).join("\n")}\n`);
  }
  out.loadAverage = { value: round(os.loadavg()[0], 2), unit: `1-minute load average at the end (${os.cpus().length} CPUs; > ${os.cpus().length} = other processes competed)` };
  return { lecture: out };
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const json = argv.includes("--json");
  const nbArg = argv.find((a) => a.startsWith("--notebooks="));
  const tty = process.stderr.isTTY;
  benchLecture({
    notebooks: nbArg ? nbArg.slice("--notebooks=".length).split(",") : undefined,
    twoAtOnce: !argv.includes("--no-two-at-once"),
    progress: (m) => (tty || !json) && process.stderr.write(`${m}\n`),
  }).then(
    (result) => {
      if (json) console.log(JSON.stringify(result));
      else {
        console.log(`bench/lecture.ts — Node ${process.version}, ${os.cpus().length} CPU(s)`);
        for (const [name, m] of Object.entries(result.lecture)) console.log(`  ${name.padEnd(36)} ${String(m.value).padStart(8)}  ${m.unit}`);
      }
      if (result.lecture.notebooksFailed.value > 0) process.exitCode = 1;
    },
    (e) => {
      console.error(String(e instanceof Error ? e.message : e));
      process.exitCode = 2;
    },
  );
}
