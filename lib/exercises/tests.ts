// Test cells for coding exercises, in nbgrader's convention: a grade cell runs visible tests and, in the instructor's
// copy, hidden ones between `// ### BEGIN HIDDEN TESTS` and `// ### END HIDDEN TESTS` (the release removes them):
//
//   runTests("10", (t) => {
//     t.test(1, "两台服务器、负载 [3, 1]", () => t.equal(pick([3, 1]), 1, "选的服务器"));
//     // ### BEGIN HIDDEN TESTS
//     t.test(2, "平局时选编号小的", () => t.equal(pick([2, 2]), 0, "选的服务器"));
//     // ### END HIDDEN TESTS
//   });
//
// Each test has its points; a failed test gives one Chinese line (the scenario, what was expected, what the
// student's code gave). Each test runs under a time limit (lib/core/watchdog.ts, TEST_TIME_LIMIT seconds): a
// `while (true) {}` in the student's code fails that test with one line and the cell's later tests are not run, so
// the cell ends (the grader's cell timeout stays the last resort). The cell shows a badge and the same record
// check() writes (CHECK_MIME, kind "tests"), which the grader (scripts/grade.mjs) reads and progress() counts; under
// nbgrader's autograder a cell with a failed test raises.
import { runWithTimeLimit } from "../core/watchdog";
import { CHECK_MIME, recordResult, showBundle } from "./check";
import { badgeHtml, badgeText } from "./render";
import type { CheckResult } from "./evaluate";

/** What a template function throws before the student writes it (nbgrader's stub in the student's copy). */
export const NOT_IMPLEMENTED = "尚未实现";

/** Seconds one test (the student's code in it included) may run before it is stopped and failed; the environment
 * variable L11_TEST_TIME_LIMIT (seconds) overrides it (the grader's tests use a short one). */
export const TEST_TIME_LIMIT = 10;

function timeLimitSeconds(): number {
  const env = typeof process !== "undefined" ? Number(process.env.L11_TEST_TIME_LIMIT) : NaN;
  return Number.isFinite(env) && env > 0 ? env : TEST_TIME_LIMIT;
}

export interface TestOutcome {
  name: string;
  points: number;
  passed: boolean;
  /** empty when passed; otherwise one line: what was expected, what the code gave or threw */
  message: string;
}

/** Thrown by the assertions: its message is the whole Chinese line. */
export class TestFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "TestFailure";
  }
}

const shown = (v: unknown): string => {
  try {
    return typeof v === "string" ? `"${v}"` : JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
};

const firstLine = (e: unknown): string => {
  const text = e instanceof Error ? (e instanceof TestFailure ? e.message : `${e.name}: ${e.message}`) : String(e);
  return text.split("\n")[0].slice(0, 200);
};

/** A test stopped by its time limit. */
class TestTimeout extends TestFailure {}

const round3 = (x: unknown) => (typeof x === "number" ? Math.round(x * 1000) / 1000 : x);

export class TestRun {
  readonly outcomes: TestOutcome[] = [];
  /** set when a test ran out of time: the later ones are not run */
  private timedOut = "";

  constructor(readonly timeLimit = timeLimitSeconds()) {}

  /** Whether a test of this run was stopped by the time limit. */
  get stoppedByTimeLimit(): boolean {
    return this.timedOut !== "";
  }

  /** Runs one test now, under the time limit; an exception (a failed assertion or the student's own error) or the
   * limit fails it. After a timeout the remaining tests fail without running. */
  test(points: number, name: string, body: () => void): void {
    if (this.timedOut) {
      this.outcomes.push({ name, points, passed: false, message: `没有运行：${this.timedOut}` });
      return;
    }
    try {
      runWithTimeLimit(this.timeLimit, body, () => new TestTimeout(`超过 ${this.timeLimit} 秒还没有算完（死循环？）`));
      this.outcomes.push({ name, points, passed: true, message: "" });
    } catch (e) {
      if (e instanceof TestTimeout) this.timedOut = `前面的测试「${name}」超时了`;
      this.outcomes.push({ name, points, passed: false, message: firstLine(e) });
    }
  }

  /** Deep equality (JSON), with the quantity named: "选的服务器应为 1，你的代码给出 0". */
  equal(actual: unknown, expected: unknown, what = "结果"): void {
    if (shown(actual) !== shown(expected)) throw new TestFailure(`${what}应为 ${shown(expected)}，你的代码给出 ${shown(actual)}`);
  }

  /** A number within `tolerance` (absolute). */
  near(actual: number, expected: number, tolerance: number, what = "结果"): void {
    if (!(typeof actual === "number" && Math.abs(actual - expected) <= tolerance)) {
      throw new TestFailure(`${what}应为 ${expected}（误差 ≤ ${tolerance}），你的代码给出 ${shown(actual)}`);
    }
  }

  /** Numbers each within `tolerance` (absolute) of the expected ones: "各台的比例应为 [0.5, 0.333]（每项误差 ≤ 0.03）…". */
  nearEach(actual: unknown, expected: number[], tolerance: number, what = "结果"): void {
    const ok = Array.isArray(actual) && actual.length === expected.length && actual.every((a, i) => typeof a === "number" && Math.abs(a - expected[i]) <= tolerance);
    const list = (xs: unknown[]) => `[${xs.map((x) => shown(round3(x))).join(", ")}]`;
    if (!ok) throw new TestFailure(`${what}应为 ${list(expected)}（每项误差 ≤ ${tolerance}），你的代码给出 ${Array.isArray(actual) ? list(actual) : shown(actual)}`);
  }

  /** A condition, with the line to show when it does not hold. */
  ok(condition: boolean, message: string): void {
    if (!condition) throw new TestFailure(message);
  }
}

/** The result of a test cell: correct when every test passes; unanswered when every test failed on the template's
 * "尚未实现"; wrong otherwise, with the points of the tests passed. */
export function testResult(id: string, outcomes: TestOutcome[]): CheckResult & { tests: TestOutcome[] } {
  const maxPoints = outcomes.reduce((a, o) => a + o.points, 0);
  const points = outcomes.filter((o) => o.passed).reduce((a, o) => a + o.points, 0);
  const failed = outcomes.filter((o) => !o.passed);
  const untouched = failed.length === outcomes.length && failed.every((o) => o.message.includes(NOT_IMPLEMENTED));
  const status = failed.length === 0 ? "correct" : untouched ? "unanswered" : "wrong";
  const passedCount = outcomes.length - failed.length;
  const message =
    status === "correct"
      ? `${outcomes.length} 个测试全部通过。`
      : status === "unanswered"
        ? "函数还是模板（尚未实现）：写好它，再运行这个测试单元格。"
        : `通过 ${passedCount} / ${outcomes.length} 个测试。未通过：${failed.map((o) => `${o.name} — ${o.message}`).join("；")}`;
  return {
    id,
    label: id,
    status,
    passed: status === "correct",
    kind: "value",
    message,
    points,
    maxPoints,
    tolerance: "每个测试按它自己的断言比较（equal：逐项相等；near、nearEach：给定的绝对误差；ok：测试里写明的条件）",
    tests: outcomes,
  };
}

/** Runs a test cell's tests (see the file comment), shows the badge and records the result for the grader. */
export function runTests(id: string, body: (t: TestRun) => void): void {
  const run = new TestRun();
  body(run);
  const result = testResult(id, run.outcomes);
  recordResult(result);
  // timedOut: the grader marks the part `timeout` (keeping the points of the tests before it)
  const record = { id, label: id, status: result.status, kind: "tests", timedOut: run.stoppedByTimeLimit, points: result.points, maxPoints: result.maxPoints, message: result.message, tolerance: result.tolerance, tests: result.tests };
  showBundle(badgeHtml(result), badgeText(result), { [CHECK_MIME]: record });
  if (typeof process !== "undefined" && process.env.NBGRADER_EXECUTION && !result.passed) throw new TestFailure(`练习 ${id}：${result.message}`);
}
