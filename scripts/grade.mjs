// `npm run grade -- SUBMISSIONS…`: grades students' copies of notebook 08. Each submission (a file, or every file
// in a folder) that is a notebook of this homework runs in the tslab kernel through the project's notebook runner
// (scripts/run_notebooks.py --keep-going --isolate-parts: a failing cell does not stop it; a timeout or a dead
// kernel costs only its part — the runner starts a fresh kernel, re-runs the import cell and goes on with the next
// part); the locked cells run as the instructor's copy has them (hidden tests included), and the ones a student
// changed are listed (nbgrader checksums); every check() / test record is collected; a gradebook is written
// (gradebook.csv and gradebook.md). A file that is not a notebook, or a notebook of something else, is reported by
// name and skipped. --written DIR also writes a page per written part and a scores.csv template; --merge FILE folds
// the hand scores of such a scores.csv into the gradebook in --out (nothing is run then).
//   node scripts/grade.mjs [--out DIR] [--timeout S] [--jobs N] [--keep-work] [--source NB] [--written DIR] SUBMISSION…
//   node scripts/grade.mjs [--out DIR] [--source NB] --merge scores.csv
// --out: where gradebook.csv / gradebook.md go (default ./gradebook); --timeout: seconds per cell (default 60, or
// $L11_GRADE_TIMEOUT); --jobs: submissions run at once (default 2, or 1 on a one-CPU machine); --keep-work: keep the
// executed copies; --source: the instructor's notebook (default notebooks/08-exercises.ipynb).
// The submissions' code runs with your permissions, as in any autograder: grade what you would run yourself.
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { HOMEWORK_NOTEBOOK } from "./editions.mjs";
import {
  classifySubmission,
  gradebookCsv,
  gradebookMarkdown,
  prepareSubmission,
  readGradebookCsv,
  referenceParts,
  scoreExecuted,
  tamperedCells,
  totalsOf,
} from "./grade-lib.mjs";
import { MergeError, mergeScores, writeWrittenPages, writtenParts } from "./grade-written.mjs";
import { parseOptions } from "./options.mjs";
import { PYTHON, ROOT, jupyterEnv, writeKernelSpec } from "./project.mjs";

const USAGE =
  "npm run grade -- [--out DIR] [--timeout SECONDS] [--jobs N] [--keep-work] [--source NB] [--written DIR] SUBMISSION.ipynb|FOLDER … | npm run grade -- [--out DIR] --merge scores.csv";
const { values, positional } = parseOptions(process.argv.slice(2), {
  usage: USAGE,
  options: {
    out: { value: true },
    timeout: { value: true, integer: { min: 1 } },
    jobs: { value: true, integer: { min: 1 } },
    "keep-work": {},
    source: { value: true },
    written: { value: true },
    merge: { value: true },
  },
});
const outDir = path.resolve(String(values.out ?? "gradebook"));
const sourceFile = path.resolve(String(values.source ?? path.join(ROOT, "notebooks", `${HOMEWORK_NOTEBOOK}.ipynb`)));
if (!fs.existsSync(sourceFile)) {
  console.error(`grade: 找不到教师版笔记本 ${sourceFile}`);
  process.exit(2);
}
const refNb = JSON.parse(fs.readFileSync(sourceFile, "utf8"));
const parts = referenceParts(refNb);
const shownDir = (d) => (path.relative(process.cwd(), d).startsWith("..") ? d : path.relative(process.cwd(), d) || ".");

if (values.merge) process.exit(mergeMode(path.resolve(String(values.merge))));
if (positional.length === 0) {
  console.error(`grade: no submissions given\nusage: ${USAGE}`);
  process.exit(2);
}
const envTimeout = Number(process.env.L11_GRADE_TIMEOUT);
const timeoutSeconds = Number(values.timeout ?? (Number.isInteger(envTimeout) && envTimeout >= 1 ? envTimeout : 60));
// Two lanes by default: on 2 vCPUs shared with other work, 12 submissions took 63 s with two lanes, 106 s with one.
const jobs = Number(values.jobs ?? Math.min(2, typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length));

/** --merge: the hand scores of scores.csv folded into DIR/gradebook.csv and .md; a refused row is one line each. */
function mergeMode(scoresFile) {
  const csvFile = path.join(outDir, "gradebook.csv");
  if (!fs.existsSync(scoresFile)) return fail(`grade --merge: 找不到 ${scoresFile}`);
  if (!fs.existsSync(csvFile)) return fail(`grade --merge: ${shownDir(outDir)} 里没有 gradebook.csv：先评分（npm run grade -- 作业文件夹 --out ${shownDir(outDir)}），或用 --out 指向成绩表所在的文件夹`);
  let book;
  try {
    book = readGradebookCsv(fs.readFileSync(csvFile, "utf8"), parts);
    const { merged } = mergeScores(book.graded, fs.readFileSync(scoresFile, "utf8"), parts, path.basename(scoresFile));
    fs.writeFileSync(csvFile, gradebookCsv(book.graded, book.skipped));
    fs.writeFileSync(path.join(outDir, "gradebook.md"), gradebookMarkdown(book.graded, book.skipped, parts));
    console.log(`grade --merge: ${merged} 个手工分数已并入 ${shownDir(outDir)}/gradebook.csv 和 gradebook.md`);
    return 0;
  } catch (e) {
    if (e instanceof MergeError) return fail(e.lines.map((l) => `grade --merge: ${l}`).join("\n") + "\n（成绩表没有改动）");
    return fail(`grade --merge: ${e instanceof Error ? e.message : e}`);
  }
}

function fail(message) {
  console.error(message);
  return 1;
}

const started = Date.now();

// Submissions: files as given; a folder contributes every file in it (not hidden ones), so stray files are reported.
// Each is named by its file name in the gradebook (by its path when two share a name).
const files = [];
for (const arg of positional) {
  const p = path.resolve(arg);
  if (!fs.existsSync(p)) {
    console.error(`grade: no such file or folder: ${arg}`);
    process.exit(2);
  }
  if (fs.statSync(p).isDirectory()) {
    for (const f of fs.readdirSync(p).sort()) if (!f.startsWith(".") && fs.statSync(path.join(p, f)).isFile()) files.push(path.join(p, f));
  } else files.push(p);
}
const nameCount = new Map();
for (const f of files) nameCount.set(path.basename(f), (nameCount.get(path.basename(f)) ?? 0) + 1);
const displayName = (f) => (nameCount.get(path.basename(f)) === 1 ? path.basename(f) : path.relative(process.cwd(), f));

const total = files.length;
let done = 0;
const progress = (line) => console.log(`[${++done}/${total}] ${line}`);

// Each graded submission runs under a work name (unique, safe characters) in a folder that has the library beside it.
const work = fs.mkdtempSync(path.join(os.tmpdir(), "l11-grade-"));
fs.symlinkSync(path.join(ROOT, "build", "lib"), path.join(work, "lib"));
const executedDir = path.join(work, "executed");
const skipped = [];
const queued = []; // { file, display, workName }
const used = new Set();
for (const file of files) {
  const display = displayName(file);
  const verdict = classifySubmission(display, fs.readFileSync(file, "utf8"), refNb);
  if (!verdict.ok) {
    skipped.push({ file: display, reason: verdict.reason });
    progress(`${display}：跳过 — ${verdict.reason}`);
    continue;
  }
  let base = path.basename(file).replace(/\.ipynb$/i, "").replace(/[^A-Za-z0-9_-]+/g, "_").slice(0, 60) || "submission";
  let workName = base;
  for (let k = 2; used.has(workName); k++) workName = `${base}-${k}`;
  used.add(workName);
  fs.writeFileSync(path.join(work, `${workName}.ipynb`), JSON.stringify(prepareSubmission(verdict.nb, refNb), null, 1));
  queued.push({ file: display, workName, nb: verdict.nb, tampered: tamperedCells(verdict.nb, refNb) });
}

const graded = [];
function score(entry) {
  const executedFile = path.join(executedDir, `${entry.workName}.ipynb`);
  const options = { timeoutSeconds, tampered: entry.tampered };
  let result;
  if (fs.existsSync(executedFile)) result = scoreExecuted(JSON.parse(fs.readFileSync(executedFile, "utf8")), parts, options);
  else result = { ...scoreExecuted({ cells: [], metadata: { runner: { stopped: "did not start" } } }, parts, options), notes: ["没有运行：执行器没有留下结果"] };
  const g = { file: entry.file, ...result };
  graded.push(g);
  const count = (s) => g.rows.filter((r) => r.kind !== "open" && r.status === s).length;
  const open = g.rows.filter((r) => r.kind === "open");
  const t = totalsOf(g.rows);
  const problems = [count("error") ? `⚠ ${count("error")}` : "", count("timeout") ? `⏱ ${count("timeout")}` : "", count("not-run") ? `– ${count("not-run")}` : ""].filter((x) => x).join(" · ");
  progress(
    `${entry.file}：自动评分 ${t.autoPoints} / ${t.autoMax} 分（✓ ${count("correct")} · ✗ ${count("wrong")} · ○ ${count("unanswered")}${problems ? ` · ${problems}` : ""}；` +
      `文字题已作答 ${open.filter((r) => r.status === "to-grade").length} / ${open.length}）${g.tampered ? "；⚠ 改动过锁定单元格" : ""}${g.notes.length ? ` — ${g.notes.join("；")}` : ""}`,
  );
}

async function runAll() {
  if (queued.length === 0) return 0;
  writeKernelSpec();
  const byWorkName = new Map(queued.map((q) => [q.workName, q]));
  const args = [
    path.join(ROOT, "scripts", "run_notebooks.py"),
    "--keep-going",
    "--isolate-parts",
    "--executed-dir",
    executedDir,
    "--timeout",
    String(timeoutSeconds),
    "--jobs",
    String(jobs),
    ...queued.map((q) => path.join(work, `${q.workName}.ipynb`)),
  ];
  // No result cache and no cell cache: one submission's kernel must not read what another one wrote
  // (lib/demos/result-cache.ts; scripts/kernel-cell-cache.cjs — a submission's code could write a conversion there).
  const child = spawn(PYTHON, args, { cwd: ROOT, env: { ...jupyterEnv(), LECTURE_RESULT_CACHE: "off", L11_CELL_CACHE: "off" }, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  let pending = "";
  const onLine = (line) => {
    // "[3/30] alice: ok in 3.1 s …" or "[3/30] alice: FAILED after …": that submission's executed notebook is written.
    const m = /^\[\d+\/\d+\] ([A-Za-z0-9_-]+): (ok in|FAILED after)/.exec(line);
    const entry = m && byWorkName.get(m[1]);
    if (entry) {
      byWorkName.delete(m[1]);
      score(entry);
    }
  };
  child.stdout.on("data", (d) => {
    log += d;
    pending += d;
    const lines = pending.split("\n");
    pending = lines.pop();
    lines.forEach(onLine);
  });
  child.stderr.on("data", (d) => (log += d));
  const code = await new Promise((resolve) => child.on("close", resolve));
  if (pending) onLine(pending);
  for (const entry of byWorkName.values()) score(entry); // the runner gave up before reporting it
  if (code !== 0 && code !== 1) console.error(`grade: the notebook runner exited with ${code}:\n${log.slice(-3000)}`);
  return code;
}

const code = await runAll();
const order = new Map(queued.map((q, i) => [q.file, i]));
graded.sort((a, b) => order.get(a.file) - order.get(b.file));
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, "gradebook.csv"), gradebookCsv(graded, skipped));
fs.writeFileSync(path.join(outDir, "gradebook.md"), gradebookMarkdown(graded, skipped, parts));
if (values.written) {
  const writtenDir = path.resolve(String(values.written));
  const rowsOf = new Map(graded.map((g) => [g.file, g.rows]));
  const written = writtenParts(refNb, parts);
  writeWrittenPages(writtenDir, written, queued.map((q) => ({ file: q.file, nb: q.nb, rows: rowsOf.get(q.file) ?? [] })));
  console.log(`grade: ${written.length} written part(s): pages and scores.csv in ${shownDir(writtenDir)}/ (fill in scores.csv, then npm run grade -- --merge ${shownDir(path.join(writtenDir, "scores.csv"))}${values.out ? ` --out ${shownDir(outDir)}` : ""})`);
}
if (values["keep-work"]) console.log(`grade: executed submissions kept in ${work}`);
else fs.rmSync(work, { recursive: true, force: true });
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`grade: ${graded.length} submission(s) graded, ${skipped.length} skipped, in ${seconds} s; gradebook in ${shownDir(outDir)}/gradebook.csv and gradebook.md`);
process.exit(code === 0 || code === 1 ? 0 : 1);
