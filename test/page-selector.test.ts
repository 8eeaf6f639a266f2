// §4–§5 on the page (notebooks 04 and 05): greedy and LLMSelector written in notebook 04's `algorithm` cells walk
// exactly the library's search paths from every one of 04.1's 25 starting allocations (a perfect and a noisy
// diagnoser, seeded as 04.1 seeds them), and on a six-module debate; notebook 05's cascade keeps the library's
// answer on every question; and edits of the page change what they do — the ones with a known meaning turn into
// another library method (LLMSelector without the diagnoser is the released α = 0 greedy).
import { describe, expect, it } from "vitest";
import { Evaluator } from "../lib/selector/evaluate";
import { greedy, llmSelector, releasedGreedy } from "../lib/selector/optimizers";
import { cascade, modelRoutingWorld } from "../lib/selector/model-routing";
import { debate } from "../lib/selector/systems";
import { selectorTask, routingTask } from "../lib/selector/tasks";
import { randomPoolWorld, selectorWorldData } from "../lib/selector/world";
import { algorithmCells, loadPageCode } from "./support/page-code";

const NB04 = "04-llmselector.ipynb";
const NB05 = "05-three-levels.ipynb";
const page04 = loadPageCode(NB04);
const page05 = loadPageCode(NB05);

// demo 04.1's defaults
const P41 = { seed: selectorWorldData().caseStudy.seed, train: 100, test: 200, q: 1, lowQ: 0.8, gamma: 0.5 };
const task = selectorTask({ train: P41.train, test: P41.test });
const ev = task.evaluator;
const STARTS: number[][] = [];
for (let i = 0; i < ev.modelCount; i++) for (let j = 0; j < ev.modelCount; j++) STARTS.push([i, j]);
const diagnoserSeed = (i: number) => `${P41.seed}/start/${i}`;

describe("the page's selector loops", () => {
  it("are in cells tagged algorithm, at most ~30 lines each, with names that are not lib/index exports", async () => {
    const lib = await import("../lib/index");
    for (const nb of [NB04, NB05]) for (const c of algorithmCells(nb)) expect(c.source.split("\n").length).toBeLessThanOrEqual(32);
    for (const name of [...Object.keys(page04), ...Object.keys(page05)]) expect(Object.keys(lib)).not.toContain(name);
    expect(STARTS.length).toBe(25);
  });

  it("greedy: the library's search path from all 25 starting allocations of 04.1", () => {
    for (const start of STARTS) expect(page04.greedySearch(task, start), task.label(start)).toEqual(greedy(ev, { start }).path);
  });

  for (const q of [P41.q, P41.lowQ]) {
    it(`LLMSelector (q = ${q}): the library's search path from all 25 starting allocations of 04.1`, () => {
      STARTS.forEach((start, i) => {
        const onPage = page04.llmSelectorSearch(selectorTask({ train: P41.train, test: P41.test, q, diagnoserSeed: diagnoserSeed(i) }), start, P41.gamma);
        expect(onPage, task.label(start)).toEqual(llmSelector(ev, { start, q, gamma: P41.gamma, seed: diagnoserSeed(i) }).path);
      });
    });
  }

  it("on a six-module debate over a random pool (noisy diagnoser, several starts): the same paths", () => {
    const debateEv = new Evaluator(randomPoolWorld({ pool: 0, train: 60, test: 60 }), debate());
    for (let i = 0; i < 4; i++) {
      const start = Array.from({ length: 6 }, (_, j) => (i * 7 + j * 3) % debateEv.modelCount);
      const t = selectorTask({ evaluator: debateEv, q: 0.8, diagnoserSeed: `d${i}` });
      const library = llmSelector(debateEv, { start, q: 0.8, seed: `d${i}` });
      expect(page04.llmSelectorSearch(t, start), `start ${start}`).toEqual(library.path);
      expect(page04.greedySearch(t, start)).toEqual(greedy(debateEv, { start }).path);
    }
  });

  it("with cached verdicts (one per allocation, question and module, the authors' response cache): the same paths", () => {
    const debateEv = new Evaluator(randomPoolWorld({ pool: 3, train: 60, test: 60 }), debate());
    for (let i = 0; i < 4; i++) {
      const start = Array.from({ length: 6 }, (_, j) => (i * 5 + j * 2) % debateEv.modelCount);
      const t = selectorTask({ evaluator: debateEv, q: 0.7, diagnoserSeed: `c${i}`, verdicts: "cached" });
      const library = llmSelector(debateEv, { start, q: 0.7, seed: `c${i}`, verdicts: "cached", maxBudget: 600, detectCycles: false });
      expect(page04.llmSelectorSearch(t, start, 0.5, 600), `start ${start}`).toEqual(library.path);
    }
  });

  it("the task refuses a bad allocation, module or question with a ParameterError naming it", () => {
    expect(() => task.accuracy([0, 9])).toThrow(/allocation\[1\]/);
    expect(() => task.diagnose([0, 0], 2, 0)).toThrow(/module/);
    expect(() => task.diagnose([0, 0], 0, 100)).toThrow(/question/);
  });
});

describe("editing the selector loops", () => {
  it("greedy that also moves on a tie (> → >=) walks other paths", () => {
    const edited = loadPageCode(NB04, [{ from: ") > task.accuracy(", to: ") >= task.accuracy(" }]);
    const changed = STARTS.filter((start) => JSON.stringify(edited.greedySearch(task, start)) !== JSON.stringify(page04.greedySearch(task, start)));
    expect(changed.length).toBeGreaterThan(0);
  });

  it("LLMSelector without the diagnoser (a wrong answer scores 1) is the released α = 0 greedy, path for path", () => {
    const edited = loadPageCode(NB04, [{ from: "1 + gamma : task.diagnose(a, j, z)", to: "1 + gamma : 1" }]);
    let differs = 0;
    STARTS.forEach((start, i) => {
      const onPage = edited.llmSelectorSearch(selectorTask({ train: P41.train, test: P41.test, diagnoserSeed: diagnoserSeed(i) }), start);
      expect(onPage, task.label(start)).toEqual(releasedGreedy(ev, { start, detectCycles: false }).path);
      if (JSON.stringify(onPage) !== JSON.stringify(page04.llmSelectorSearch(selectorTask({ train: P41.train, test: P41.test, diagnoserSeed: diagnoserSeed(i) }), start))) differs++;
    });
    expect(differs).toBeGreaterThan(0);
  });
});

describe("the page's cascade (05.1)", () => {
  const rw = modelRoutingWorld();
  const order = ["E", "C", "A"];
  const thresholds = Array.from({ length: 11 }, (_, i) => i / 10);

  it("keeps the library's answer on every question, with the same accuracy, price and calls", () => {
    for (const noise of [0, 0.5, 1, 2]) {
      const t = routingTask({ scorerNoise: noise });
      for (const threshold of thresholds) {
        const library = cascade(rw, { models: order, threshold, scorerNoise: noise, split: "test" });
        const onPage = page05.frugalCascade(t, order, threshold);
        const where = `σ = ${noise}, τ = ${threshold}`;
        expect(onPage.kept, where).toEqual(Array.from(library.keptModel!, (k) => rw.world.names[k]));
        expect(onPage.accuracy, where).toBe(library.accuracy);
        expect(onPage.costPerQuestion, where).toBe(library.costPerQuestion);
        expect(onPage.callsPerQuestion, where).toBe(library.callsPerQuestion);
      }
    }
    // one model alone
    expect(page05.frugalCascade(routingTask({ scorerNoise: 0 }), ["A"], 0).accuracy).toBe(cascade(rw, { models: ["A"], threshold: 0, scorerNoise: 0 }).accuracy);
  });

  it("an edit of the stopping rule changes the decisions", () => {
    const edited = loadPageCode(NB05, [{ from: "answer.trust >= threshold", to: "answer.trust >= threshold && i > 0" }]);
    const t = routingTask({ scorerNoise: 0.5 });
    const before = page05.frugalCascade(t, order, 0.5);
    const after = edited.frugalCascade(t, order, 0.5);
    expect(after.kept).not.toEqual(before.kept);
    expect(after.kept).not.toContain("E"); // the first model's answer is never kept now
    expect(after.costPerQuestion).toBeGreaterThan(before.costPerQuestion);
  });
});
