// The grader (`npm run grade -- SUBMISSIONS…`): fixture submissions — all right, some wrong, unanswered, one whose
// cells raise, one that loops past the timeout and one that kills its kernel (both with every later part right:
// those points must be kept), one with edited locked cells, a truncated notebook, a text file and another course's
// notebook — give exactly the expected gradebook (CSV and Markdown). Then the parts that run
// nothing: which files count as submissions, and how a submission is prepared (locked cells restored).
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHECK_MIME } from "../lib/exercises";
import { HOMEWORK_FIXTURES, writeSubmissions } from "./support/homework";
import { NOTEBOOKS_DIR, ROOT, ensureKernelSpec, runProcess, type ProcessResult } from "./support/processes";

const GRADE = path.join(ROOT, "scripts", "grade.mjs");
const TIMEOUT_SECONDS = 5; // loops.ipynb spins past it; above what any real cell of notebook 08 takes (≤ 2 s)
let tmp = "";
let run: ProcessResult;
let files: string[] = [];

beforeAll(async () => {
  await ensureKernelSpec();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-grade-test-"));
  files = await writeSubmissions(path.join(tmp, "submissions"), path.join(tmp, "release"));
  run = await runProcess(process.execPath, [GRADE, "--out", path.join(tmp, "gradebook"), "--timeout", String(TIMEOUT_SECONDS), "--jobs", "2", path.join(tmp, "submissions")]);
  console.log(`grading ${files.length} fixture files took ${run.seconds.toFixed(1)} s`);
}, 10 * 60_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("npm run grade on the fixture submissions", () => {
  it("finishes, and prints one progress line per file (the skipped ones named, with the reason)", () => {
    expect(run.code, run.output).toBe(0);
    const lines = run.output.split("\n").filter((l) => /^\[\d+\/\d+\] /.test(l));
    expect(lines.length, run.output).toBe(files.length);
    for (const f of files) expect(lines.some((l) => l.includes(` ${f}：`)), `${f}\n${run.output}`).toBe(true);
    expect(run.output).toMatch(/broken\.ipynb：跳过 — 不是完整的 Jupyter 笔记本/);
    expect(run.output).toMatch(/notes\.txt：跳过 — 不是笔记本文件/);
    expect(run.output).toMatch(/other-course\.ipynb：跳过 — 不是第 11 讲的练习笔记本/);
    expect(run.output).toMatch(/loops\.ipynb：自动评分 19 \/ 48 分（✓ 13 · ✗ 0 · ○ 3 · ⏱ 1；.*超过 5 秒没有结束：换了新内核/);
    expect(run.output).toMatch(/kernel-dies\.ipynb：自动评分 20 \/ 48 分（✓ 13 · ✗ 0 · ○ 3 · ⚠ 1；.*让内核退出了：换了新内核/);
    expect(run.output).toMatch(/tampered\.ipynb：.*⚠ 改动过锁定单元格 — 改动过的锁定单元格：导入单元格、练习 4\(c\) 的检查单元格/);
  });

  it("writes exactly the expected gradebook.csv", () => {
    const csv = fs.readFileSync(path.join(tmp, "gradebook", "gradebook.csv"), "utf8");
    expect(csv).toBe(fs.readFileSync(path.join(HOMEWORK_FIXTURES, "expected-gradebook.csv"), "utf8"));
  });

  it("writes exactly the expected gradebook.md", () => {
    const md = fs.readFileSync(path.join(tmp, "gradebook", "gradebook.md"), "utf8");
    expect(md).toBe(fs.readFileSync(path.join(HOMEWORK_FIXTURES, "expected-gradebook.md"), "utf8"));
  });
});

describe("npm run grade refuses bad command lines", () => {
  it("an unknown option or no submission: a usage line and exit 2", async () => {
    const bogus = await runProcess(process.execPath, [GRADE, "--bogus", "x"]);
    expect(bogus.code).toBe(2);
    expect(bogus.output).toMatch(/unknown option --bogus\nusage: npm run grade -- /);
    const none = await runProcess(process.execPath, [GRADE]);
    expect(none.code).toBe(2);
    expect(none.output).toMatch(/usage: npm run grade -- /);
    const badTimeout = await runProcess(process.execPath, [GRADE, "--timeout", "0", "x"]);
    expect(badTimeout.code).toBe(2);
  });
});

interface Nb {
  cells: Array<{ cell_type: string; source: string | string[]; metadata: Record<string, any>; outputs?: unknown[] }>;
  metadata: Record<string, any>;
  nbformat: number;
}
interface GradeLib {
  CHECK_MIME: string;
  classifySubmission(name: string, text: string, ref: Nb): { ok: boolean; reason?: string; nb?: Nb };
  prepareSubmission(nb: Nb, ref: Nb): Nb;
  referenceParts(ref: Nb): Array<{ gradeId: string; label: string; kind: string; points: number }>;
}

describe("the grader's preparation of a submission", () => {
  const ref: Nb = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS_DIR, "08-exercises.ipynb"), "utf8"));
  const load = async () => (await import(path.join(ROOT, "scripts", "grade-lib.mjs"))) as GradeLib;
  const text = (c: { source: string | string[] }) => (Array.isArray(c.source) ? c.source.join("") : c.source);
  const byId = (nb: Nb, id: string) => nb.cells.findIndex((c) => c.metadata?.nbgrader?.grade_id === id);

  it("reads check() records by the MIME type the library writes", async () => {
    expect((await load()).CHECK_MIME).toBe(CHECK_MIME);
  });

  it("takes notebook 08 (also without its notebook metadata) and names another notebook of the course", async () => {
    const g = await load();
    expect(g.classifySubmission("08.ipynb", JSON.stringify(ref), ref).ok).toBe(true);
    const bare = { ...ref, metadata: { kernelspec: ref.metadata.kernelspec } };
    expect(g.classifySubmission("08.ipynb", JSON.stringify(bare), ref).ok).toBe(true);
    const preble = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS_DIR, "03-preble.ipynb"), "utf8"));
    preble.metadata.lecture11 = { notebook: "03-preble", edition: "student" };
    expect(g.classifySubmission("03.ipynb", JSON.stringify(preble), ref)).toEqual({ ok: false, reason: "是本课的另一本笔记本（03-preble），不是练习 08-exercises" });
  });

  it("lists the graded parts with the points of the course's notebook", async () => {
    const parts = (await load()).referenceParts(ref);
    expect(parts.map((p) => p.label)).toEqual(["1(a)", "1(b)", "1(b) 为什么", "2(a)", "2(b)", "3(a)", "3(b)", "4", "4(a)", "4(b)", "4(c)", "5(a)", "5(b)", "6(a)", "6(b)", "6(b) 为什么", "7(a)", "7(b)", "7(c)", "8", "9", "10", "11", "12"]);
    expect(parts.filter((p) => p.kind === "checked").reduce((a, p) => a + p.points, 0)).toBe(21 + 27); // the lecture's parts, then 10–12 (9 points each)
  });

  it("restores an edited check cell, puts a deleted one back after its answer cell, and leaves instructor cells out", async () => {
    const g = await load();
    const nb: Nb = structuredClone(ref);
    nb.cells[byId(nb, "ex4c")].source = 'console.log("✓ 练习 4(c) 正确");';
    nb.cells.splice(byId(nb, "ex5a"), 1);
    const prepared = g.prepareSubmission(nb, ref);
    expect(text(prepared.cells[byId(prepared, "ex4c")])).toBe('check("4c", answer4c);');
    expect(byId(prepared, "ex5a")).toBe(byId(prepared, "ex5a_answer") + 1);
    expect(text(prepared.cells[byId(prepared, "ex5a")])).toBe('check("5a", answer5a);');
    expect(prepared.cells.some((c) => (c.metadata?.tags ?? []).includes("instructor"))).toBe(false);
    expect(prepared.cells.filter((c) => c.metadata?.nbgrader?.grade).length).toBe(24);
    // the runner's --isolate-parts: the import cell is the set-up, an answer cell belongs to its check cell's part
    expect(prepared.cells[byId(prepared, "imports")].metadata.grader).toMatchObject({ setup: true });
    expect(prepared.cells[byId(prepared, "ex4c_answer")].metadata.grader.part).toBe("ex4c");
    expect(prepared.cells[byId(prepared, "ex4c")].metadata.grader.part).toBe("ex4c");
  });
});
