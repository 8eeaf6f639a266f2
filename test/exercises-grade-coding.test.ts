// The grader on a small coding homework (test/fixtures/homework/coding/fx-coding.ipynb, nbgrader conventions: hidden
// tests in the grade cells, reference solutions between `### BEGIN SOLUTION` / `### END SOLUTION`, a written part
// whose rubric is an instructor cell): the release strips the hidden tests and the solutions; grading runs the
// instructor's test cells (hidden tests included) against each student's code, points per test; a looping part
// costs only itself (4 s timeout, injected through $L11_GRADE_TIMEOUT); a changed test cell is flagged and graded
// with the course's copy; the instructor copy passes every hidden test; --written and --merge round trip.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODING_SOURCE, releaseHomework, writeSubmissions } from "./support/homework";
import { ROOT, ensureKernelSpec, runProcess, type ProcessResult } from "./support/processes";

const GRADE = path.join(ROOT, "scripts", "grade.mjs");
let tmp = "";
let run: ProcessResult;
const book = () => path.join(tmp, "gradebook");
const csv = () => fs.readFileSync(path.join(book(), "gradebook.csv"), "utf8");
const row = (file: string, part: string) => csv().split("\n").find((l) => l.startsWith(`${file},${part},`)) ?? "";

beforeAll(async () => {
  await ensureKernelSpec();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-grade-coding-"));
  await writeSubmissions(path.join(tmp, "submissions"), path.join(tmp, "release"), true);
  fs.copyFileSync(CODING_SOURCE, path.join(tmp, "submissions", "instructor-copy.ipynb"));
  run = await runProcess(
    process.execPath,
    [GRADE, "--source", CODING_SOURCE, "--out", book(), "--jobs", "2", "--written", path.join(tmp, "written"), path.join(tmp, "submissions")],
    { env: { ...process.env, L11_GRADE_TIMEOUT: "4" } },
  );
  console.log(`grading the coding fixture took ${run.seconds.toFixed(1)} s`);
}, 180_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("release of a coding homework", () => {
  it("leaves no hidden test and no reference solution in the student copy, and stubs the solutions", async () => {
    const student = await releaseHomework(path.join(tmp, "release-check"), CODING_SOURCE);
    const text = student.cells.map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source)).join("\n");
    expect(text).not.toMatch(/HIDDEN TESTS|平局 \[2, 2\]|没有服务器|BEGIN SOLUTION|indexOf|loads\[best\]|固定的规则让结果确定/);
    expect(text.match(/throw new Error\("尚未实现"\);/g)?.length).toBe(2);
    expect(text).toContain('t.test(1, "负载 [3, 1, 2]"');
  });
});

describe("npm run grade on the coding fixture", () => {
  it("finishes, one progress line per file", () => {
    expect(run.code, run.output).toBe(0);
    expect(run.output.split("\n").filter((l) => /^\[\d+\/5\] /.test(l)).length, run.output).toBe(5);
  });

  it("the instructor copy passes every hidden test (reference solutions), and is not flagged", () => {
    expect(row("instructor-copy.ipynb", "1")).toMatch(/^instructor-copy\.ipynb,1,correct,3,3,,3 个测试全部通过/);
    expect(row("instructor-copy.ipynb", "2")).toMatch(/,correct,2,2,,/);
    expect(row("instructor-copy.ipynb", "total")).toMatch(/,total,,5,7,,/);
  });

  it("runs the hidden tests against the student's code: points per test, one line per failed test", () => {
    expect(row("right.ipynb", "1")).toMatch(/,correct,3,3,,/);
    expect(row("partial.ipynb", "1")).toContain(",wrong,2,3,,\"通过 2 / 3 个测试。未通过：平局 [2, 2]：选编号小的 — 选的服务器应为 0，你的代码给出 1");
    expect(row("partial.ipynb", "2")).toMatch(/,unanswered,0,2,,函数还是模板/);
  });

  it("a looping part is marked timeout and the later part still earns its points", () => {
    expect(row("loops.ipynb", "1")).toMatch(/,timeout,0,3,,练习 1 的检查单元格超过 4 秒没有结束/);
    expect(row("loops.ipynb", "2")).toMatch(/,correct,2,2,,/);
    expect(row("loops.ipynb", "total")).toMatch(/,total,,2,7,,.*换了新内核、重跑了导入单元格/);
  });

  it("flags a changed test cell and grades with the course's copy", () => {
    expect(row("tampered.ipynb", "1")).toMatch(/,wrong,2,3,yes,"通过 2 \/ 3 个测试/);
    expect(row("tampered.ipynb", "total")).toMatch(/,total,,2,7,yes,改动过的锁定单元格：练习 1 的检查单元格/);
    expect(fs.readFileSync(path.join(book(), "gradebook.md"), "utf8")).toMatch(/\| tampered\.ipynb \|.*\| ⚠ \|/);
  });
});

describe("written answers: --written pages and --merge", () => {
  it("writes one page per written part with every answer (Markdown rendered, HTML escaped, nothing loaded) beside the rubric", () => {
    const dir = path.join(tmp, "written");
    expect(fs.readdirSync(dir).sort()).toEqual(["3.html", "index.html", "scores.csv"]);
    const page = fs.readFileSync(path.join(dir, "3.html"), "utf8");
    expect(page).toContain("<strong>确定</strong>");
    expect(page).toContain("<li>&lt;b&gt;两点&lt;/b&gt; &amp; &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;</li>");
    expect(page).not.toMatch(/<script|javascript:|src=|href="http/);
    expect(page).toMatch(/<aside><h2>评分标准（共 2 分）<\/h2>.*固定的规则让结果确定/s);
    for (const f of ["right.ipynb", "partial.ipynb", "loops.ipynb", "tampered.ipynb", "instructor-copy.ipynb"]) expect(page).toContain(`<article id="${f}">`);
    expect(fs.readFileSync(path.join(dir, "scores.csv"), "utf8").split("\n")[0]).toBe("file,part,points,comment");
  });

  it("refuses points above a part's maximum, unknown files and parts (one Chinese line each), changing nothing", async () => {
    const before = csv();
    const bad = path.join(tmp, "bad.csv");
    fs.writeFileSync(bad, "file,part,points,comment\nright.ipynb,3,5,太多\nnobody.ipynb,3,1,\nright.ipynb,7,1,\nright.ipynb,1,1,\n");
    const r = await runProcess(process.execPath, [GRADE, "--source", CODING_SOURCE, "--out", book(), "--merge", bad]);
    expect(r.code).toBe(1);
    expect(r.output).toContain("grade --merge: bad.csv 第 2 行：right.ipynb 的 3 给了 5 分，超过这题的满分 2 分\n");
    expect(r.output).toContain("第 3 行：成绩表里没有学生文件 nobody.ipynb（3）");
    expect(r.output).toContain("第 4 行：right.ipynb 的「7」不是这份作业的题号");
    expect(r.output).toContain("第 5 行：right.ipynb 的 1 是自动评分的题，不能手工给分");
    expect(r.output).not.toMatch(/at .*\.mjs:\d+/);
    expect(csv()).toBe(before);
  });

  it("folds hand points and comments into gradebook.csv and .md", async () => {
    const scores = path.join(tmp, "written", "scores.csv");
    const template = fs.readFileSync(scores, "utf8");
    fs.writeFileSync(scores, template.replace(/^right\.ipynb,3,,$/m, 'right.ipynb,3,1.5,"只说了确定性, 没说测试"'));
    const r = await runProcess(process.execPath, [GRADE, "--source", CODING_SOURCE, "--out", book(), "--merge", scores]);
    expect(r.code, r.output).toBe(0);
    expect(row("right.ipynb", "3")).toBe('right.ipynb,3,graded,1.5,2,,"老师评语：只说了确定性, 没说测试"');
    expect(row("right.ipynb", "total")).toMatch(/^right\.ipynb,total,,6\.5,7,,/);
    expect(row("loops.ipynb", "3")).toMatch(/,graded,0,2,,老师评语：没有作答/);
    expect(fs.readFileSync(path.join(book(), "gradebook.md"), "utf8")).toMatch(/\| right\.ipynb \|.*\| 5 \/ 5 \| 1\.5 \/ 2（已评 1 \/ 1） \| 6\.5 \/ 7 \|/);
  });
});
