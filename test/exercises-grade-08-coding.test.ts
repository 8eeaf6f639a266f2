// Notebook 08's coding exercises 10–12 (power of d choices, the cache-aware + guard router, E2's exploit / explore),
// released and graded: the student release keeps the visible tests and stubs the reference code, with no hidden
// test left; the instructor copy graded as a submission gets full points on 10–12; fixture submissions
// (test/fixtures/homework/coding-08.json) with the classic mistakes lose exactly the points of the tests those
// mistakes fail — counted by hand below — with one line per failed test; a loop inside one exercise's tests is
// stopped by runTests' time limit (3 s here, through $L11_TEST_TIME_LIMIT) and costs only the tests from there on.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOMEWORK_FIXTURES, releaseHomework, writeSheetSubmissions } from "./support/homework";
import { NOTEBOOKS_DIR, ROOT, ensureKernelSpec, runProcess, type ProcessResult } from "./support/processes";

const GRADE = path.join(ROOT, "scripts", "grade.mjs");
const SOURCE = path.join(NOTEBOOKS_DIR, "08-exercises.ipynb");
let tmp = "";
let run: ProcessResult;
const csv = () => fs.readFileSync(path.join(tmp, "gradebook", "gradebook.csv"), "utf8");
/** A gradebook row as text, its CSV quoting undone (a note's "" back to "). */
const row = (file: string, part: string) => (csv().split("\n").find((l) => l.startsWith(`${file},${part},`)) ?? "").replace(/""/g, '"');
const cellText = (c: { source: string | string[] }) => (Array.isArray(c.source) ? c.source.join("") : c.source);

beforeAll(async () => {
  await ensureKernelSpec();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-grade-08-coding-"));
  const dir = path.join(tmp, "submissions");
  await writeSheetSubmissions(dir, path.join(tmp, "release"), path.join(HOMEWORK_FIXTURES, "coding-08.json"));
  fs.copyFileSync(SOURCE, path.join(dir, "instructor-copy.ipynb"));
  run = await runProcess(process.execPath, [GRADE, "--out", path.join(tmp, "gradebook"), "--jobs", "2", dir], {
    env: { ...process.env, L11_GRADE_TIMEOUT: "40", L11_TEST_TIME_LIMIT: "3" },
  });
  console.log(`grading notebook 08's coding fixtures took ${run.seconds.toFixed(1)} s`);
}, 240_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe("the student release of exercises 10–12", () => {
  it("keeps the visible tests, leaves out every hidden test and the reference code (a stub in each answer cell)", async () => {
    const student = await releaseHomework(path.join(tmp, "release-check"));
    const coding = student.cells.filter((c) => /^ex1[0-2](_answer)?$/.test(String(c.metadata?.nbgrader?.grade_id ?? "")));
    expect(coding.length).toBe(6);
    const text = student.cells.map(cellText).join("\n");
    expect(text).not.toMatch(/HIDDEN TESTS|BEGIN SOLUTION|END SOLUTION|〔隐藏〕/);
    // pieces of the three reference implementations
    expect(text).not.toMatch(/sampled\.push|best\.length === 1|fewest = i|lighter\(view|cheapestOf\(holders\)|const target = s\.redirect/);
    for (const id of ["10", "11", "12"]) {
      const answer = coding.find((c) => c.metadata?.nbgrader?.grade_id === `ex${id}_answer`)!;
      expect(cellText(answer), id).toContain('throw new Error("尚未实现");');
      const tests = cellText(coding.find((c) => c.metadata?.nbgrader?.grade_id === `ex${id}`)!);
      expect(tests, id).toContain(`runTests("${id}"`);
      expect(tests.match(/t\.test\(/g)?.length, id).toBe(3);
    }
    expect(text).not.toMatch(/reveal\("1[0-2]"\)|rubric\("1[0-2]"\)/);
  });
});

describe("npm run grade on notebook 08's coding fixtures", () => {
  it("finishes, one progress line per file", () => {
    expect(run.code, run.output).toBe(0);
    expect(run.output.split("\n").filter((l) => /^\[\d+\/3\] /.test(l)).length, run.output).toBe(3);
  });

  it("the instructor copy passes every test, hidden ones included, with the reference implementations", () => {
    for (const id of ["10", "11", "12"]) expect(row("instructor-copy.ipynb", id), id).toMatch(new RegExp(`^instructor-copy\\.ipynb,${id},correct,9,9,,\\d 个测试全部通过`));
  });

  it("power of d that picks the longer queue passes only the two tests where the direction cannot matter", () => {
    // all queues equal (any choice is a tie) and d = 1 (one server sampled): 1 + 1 = 2 of 9 points
    const r = row("wrong.ipynb", "10");
    expect(r).toMatch(/^wrong\.ipynb,10,wrong,2,9,,"通过 2 \/ 7 个测试。/);
    expect(r).toContain("4 台、d = 4、队长 [3, 1, 2, 5]：4 台都抽到，应选队最短的 1 号 — 选的服务器应为 1，你的代码给出 3");
    expect(r).toContain("2 台、d = 2、队长 [4, 2]：应选队短的 1 号 — 选的服务器应为 1，你的代码给出 0");
    expect(r).toMatch(/各台被选中的比例应为 \[0\.5, 0\.333, 0\.167, 0\]（每项误差 ≤ 0\.03），你的代码给出 \[0, 0\.1[\d]*, 0\.3[\d]*, 0\.5[\d]*\]/);
    expect(r).toMatch(/平均响应时间应在库的 [\d.]+ ± 15% 以内，你的策略给出 [\d.]+/);
  });

  it("a router without the load guard loses the guard's case and the hot spot's lockstep: 9 − 1 − 2 = 6 points", () => {
    const r = row("wrong.ipynb", "11");
    expect(r).toMatch(/^wrong\.ipynb,11,wrong,6,9,,"通过 6 \/ 8 个测试。/);
    expect(r).toContain("负载保护应派给在途请求最少的副本 1（副本 0 匹配 100 / 100 也不去） — 派给的副本应为 1，你的代码给出 0");
    expect(r).toMatch(/02\.4 的热点.* — 应全部相同；2000 个决定里有 \d+ 个不同，第一个：第 \d+ 个请求（提示 \d+ token）：库派给副本 \d，你的路由器派给 \d/);
    expect(r).not.toContain("不应崩溃"); // with θ it does not collapse on §2.2's shared system prompt
  });

  it("E2 that exploits when cached ≥ missed loses only the boundary case: 9 − 1 = 8 points", () => {
    const r = row("wrong.ipynb", "12");
    expect(r).toMatch(/^wrong\.ipynb,12,wrong,8,9,,"通过 7 \/ 8 个测试。未通过：cached = missed = 1,000/);
    expect(r).toContain('— 决定应为 "探索 explore GPU 1"，你的代码给出 "利用 exploit GPU 2"');
  });

  it("a loop in exercise 10's d = 1 case is stopped by the tests' time limit: 10 is timeout with the points before it, 11 and 12 are graded", () => {
    // tests 1–5 pass (1 + 1 + 2 + 1 + 1 = 6 points), test 6 (d = 1) loops, test 7 is not run
    const r = row("loops.ipynb", "10");
    expect(r).toMatch(/^loops\.ipynb,10,timeout,6,9,,"通过 5 \/ 7 个测试。/);
    expect(r).toContain("d = 1 退化为随机派发：4 台、队长 [0, 1, 2, 3]，选 4,000 次，每台约 1/4 — 超过 3 秒还没有算完（死循环？）");
    expect(r).toContain("没有运行：前面的测试「〔隐藏〕d = 1 退化为随机派发");
    expect(row("loops.ipynb", "11")).toMatch(/,11,correct,9,9,,/);
    expect(row("loops.ipynb", "12")).toMatch(/,12,correct,9,9,,/);
  });
});
