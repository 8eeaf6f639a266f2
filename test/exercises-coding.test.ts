// Coding exercises 10–12 without a kernel: the test cells of notebook 08 and the rubric (lib/exercises/
// answers-coding.ts) list the same tests with the same points; the scenarios the cells run on give the hand-computed
// decisions for the library's own code; runTests fails a looping test after its time limit, skips the rest, and
// records the result for progress(); the student's stub counts as unanswered.
import * as fs from "fs";
import * as path from "path";
import { afterEach, describe, expect, it } from "vitest";
import { createRouter, rng, type PrebleDecide, type StepModel } from "../lib/index";
import {
  choiceShares,
  e2On,
  exercise3Decision,
  getExercise,
  guardedLockstep,
  HIDDEN_MARK,
  listCodingExercises,
  oneChoice,
  progress,
  promptOf,
  resetProgress,
  routerRun,
  sessionResults,
  TestRun,
  testResult,
  runTests,
  viewWith,
} from "../lib/exercises";
import { NOTEBOOKS_DIR } from "./support/processes";

const nb = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS_DIR, "08-exercises.ipynb"), "utf8")) as { cells: Array<{ source: string[] | string; metadata: any }> };
const text = (c: { source: string[] | string }) => (Array.isArray(c.source) ? c.source.join("") : c.source);
const cellOf = (gradeId: string) => nb.cells.find((c) => c.metadata?.nbgrader?.grade_id === gradeId)!;
const quiet = <T>(f: () => T): T => {
  const log = console.log;
  console.log = () => undefined;
  try {
    return f();
  } finally {
    console.log = log;
  }
};

describe("the test cells and the rubric", () => {
  it("list the same tests (names, points, hidden ones marked and between the hidden-test delimiters) for 10, 11 and 12", () => {
    expect(listCodingExercises().map((e) => e.id)).toEqual(["10", "11", "12"]);
    for (const e of listCodingExercises()) {
      const cell = text(cellOf(`ex${e.id}`));
      const [visible, rest] = cell.split("// ### BEGIN HIDDEN TESTS");
      const hidden = rest.split("// ### END HIDDEN TESTS")[0];
      const tests = (s: string) => [...s.matchAll(/t\.test\((\d+), "([^"]+)"/g)].map((m) => ({ points: Number(m[1]), text: m[2] }));
      expect([...tests(visible), ...tests(hidden)], e.id).toEqual(e.rubric);
      expect(tests(visible).every((t) => !t.text.startsWith(HIDDEN_MARK)) && tests(hidden).every((t) => t.text.startsWith(HIDDEN_MARK)), e.id).toBe(true);
      expect(cellOf(`ex${e.id}`).metadata.nbgrader).toMatchObject({ grade: true, locked: true, solution: false, points: e.points });
      expect(cellOf(`ex${e.id}_answer`).metadata.nbgrader).toMatchObject({ grade: false, locked: false, solution: true });
      expect(text(cellOf(`ex${e.id}_answer`)).split("\n")[0]).toContain(`练习 ${e.id}（${e.points} 分）· 你的答案`);
    }
  });

  it("place 10–12 after the lecture's nine, under headings that say they are ours", () => {
    const headings = nb.cells.map(text).filter((s) => /^## 练习 \d+/.test(s)).map((s) => s.split("\n")[0]);
    expect(headings.map((h) => Number(/练习 (\d+)/.exec(h)![1]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    for (const h of headings.slice(9)) expect(h).toContain("（编码题，我们加的，不是讲义的题）");
  });
});

describe("the scenarios behind the tests, with the library's own code", () => {
  const libPowerOfTwo = (d: number) => (servers: { count: number; queueLength(s: number): number }, r: { int(n: number): number; uniform(): number }) => {
    const sampled: number[] = [];
    while (sampled.length < Math.min(d, servers.count)) {
      let s = r.int(servers.count - sampled.length);
      for (const t of [...sampled].sort((a, b) => a - b)) if (s >= t) s++;
      sampled.push(s);
    }
    const q = Math.min(...sampled.map((s) => servers.queueLength(s)));
    const ties = sampled.filter((s) => servers.queueLength(s) === q);
    return ties[Math.floor(r.uniform() * ties.length)];
  };

  it("power of two on queues [0, 1, 2, 3]: shares near 1/2, 1/3, 1/6, 0 (hand-computed: C(4,2) = 6 pairs)", () => {
    const shares = choiceShares(libPowerOfTwo(2), [0, 1, 2, 3], 6000);
    [1 / 2, 1 / 3, 1 / 6, 0].forEach((p, i) => expect(Math.abs(shares[i] - p)).toBeLessThanOrEqual(0.03));
    const one = oneChoice(libPowerOfTwo(2), [5, 3, 8, 1, 7, 2, 6, 4], 7);
    expect(one.looked.length).toBe(2);
    expect(one.looked).toContain(one.chosen);
  });

  it("the library's cacheAwareGuarded gives the hand-computed replica on each hand-made view", () => {
    const lib = createRouter("cacheAwareGuarded", { replicas: 4, rng: rng(1), step: null as unknown as StepModel, kvCapacity: 0 });
    const cases: Array<[Parameters<typeof viewWith>[0], number]> = [
      [{ requests: [3, 2, 2, 3], match: [0, 0, 70, 0] }, 2],
      [{ requests: [5, 3, 4, 2], tokens: [500, 300, 400, 200], match: [30, 0, 0, 0] }, 3],
      [{ requests: [10, 1, 1, 1], match: [100, 0, 0, 0] }, 1],
      [{ requests: [9, 1, 1, 1], match: [100, 0, 0, 0] }, 0],
      [{ requests: [30, 20, 20, 20], match: [100, 0, 0, 0] }, 0],
      [{ requests: [3, 1, 2, 1], tokens: [900, 100, 300, 100], match: [80, 0, 80, 0] }, 2],
    ];
    for (const [v, want] of cases) expect(lib.route(promptOf(100), viewWith(v)), JSON.stringify(v)).toBe(want);
  });

  it("§2.2's shared system prompt: pure affinity collapses onto one replica, the library's guarded router does not", () => {
    const pure = () => ({ name: "pure", route: (r: any, v: any) => [0, 1, 2, 3].reduce((b, i) => (v.viewMatch(r, i) > v.viewMatch(r, b) ? i : b), 0) });
    expect(routerRun(pure).maxShare).toBe(1);
    const lib = routerRun("cacheAwareGuarded");
    expect(lib.maxShare).toBeLessThan(0.5);
    expect(lib.overloaded).toBe(false);
    expect(guardedLockstep(() => createRouter("cacheAwareGuarded", { replicas: 8, rng: rng(1), step: null as unknown as StepModel, kvCapacity: 0 })).differ).toBe(0);
  });

  it("exercise 3 on a real Preble router: the match is 13 + 21,000 cached, 1,987 missed, and the library exploits GPU 2", () => {
    expect(exercise3Decision()).toEqual({ decision: "利用 exploit GPU 2", cached: 21013, missed: 1987 });
    const q = exercise3Decision(undefined, 22000);
    expect([q.cached, q.missed]).toEqual([21013, 22000]);
    expect(q.decision).toMatch(/^探索 explore GPU \d$/);
  });

  it("hand-made E2 states: a decide that only reads the match shows what the test cell compares", () => {
    const byMatch: PrebleDecide = (_r, s) => (s.match.cached > s.match.missed ? { gpu: s.match.holders[0], kind: "exploit" } : { gpu: 0, kind: "explore" });
    expect(e2On(byMatch, { cached: 3000, missed: 1000, holders: [1, 3], costs: [0.1, 0.5, 0.2, 0.3] })).toBe("利用 exploit GPU 1");
    expect(e2On(byMatch, { cached: 1000, missed: 1000, holders: [2], costs: [0.5, 0.2, 0.9, 0.4] })).toBe("探索 explore GPU 0");
    expect(e2On(() => 3 as never, { cached: 0, missed: 1, holders: [], costs: [1] })).toBe("3（应为 { gpu, kind }）");
  });
});

describe("runTests", () => {
  afterEach(() => resetProgress());

  it("fails a looping test after the time limit, does not run the later ones, and keeps the points before", () => {
    const run = new TestRun(0.3);
    run.test(2, "先过", () => run.equal(1, 1));
    run.test(1, "死循环", () => {
      for (;;) {
        /* spin */
      }
    });
    run.test(1, "之后", () => run.equal(1, 1));
    expect(run.outcomes.map((o) => [o.passed, o.message])).toEqual([
      [true, ""],
      [false, "超过 0.3 秒还没有算完（死循环？）"],
      [false, "没有运行：前面的测试「死循环」超时了"],
    ]);
    expect(run.stoppedByTimeLimit).toBe(true);
    expect(testResult("x", run.outcomes)).toMatchObject({ status: "wrong", points: 2, maxPoints: 4 });
  });

  it("nearEach names what was expected and what came back; the stub counts as unanswered; progress() counts coding parts", () => {
    const run = new TestRun();
    run.test(1, "比例", () => run.nearEach([0, 0.5], [0.5, 0.5], 0.03, "比例"));
    expect(run.outcomes[0].message).toBe("比例应为 [0.5, 0.5]（每项误差 ≤ 0.03），你的代码给出 [0, 0.5]");
    quiet(() =>
      runTests("10", (t) => {
        t.test(4, "a", () => {
          throw new Error("尚未实现");
        });
      }),
    );
    expect(sessionResults().map((r) => [r.id, r.status])).toEqual([["10", "unanswered"]]);
    quiet(() => runTests("11", (t) => t.test(9, "b", () => t.equal(2, 2))));
    const lines: string[] = [];
    const log = console.log;
    console.log = (s: string) => lines.push(String(s));
    try {
      progress();
    } finally {
      console.log = log;
    }
    expect(lines.join("\n")).toMatch(/11  9 分  正确（最近一次测试：9 \/ 9 分）/);
    expect(lines.join("\n")).toMatch(/10  9 分  尚未作答$/m);
    expect(getExercise("12").coding).toBe(true);
  });
});
