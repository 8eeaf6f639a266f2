// 代码 04 演示 1: the locate–solve case (§4.4) — C+C is a local optimum that greedy cannot leave and LLMSelector
// walks out of; the released α = 0 greedy and both budget counts beside ours; the plateau over other seeds.
import { checkInteger, checkNumber, checkProbability } from "../../core/errors";
import type { Row, Table } from "../../core/table";
import { countedEvaluations } from "../../selector/budget";
import { accuracyMatrix, Evaluator } from "../../selector/evaluate";
import { bestSingleModel, exhaustive, greedy, llmSelector, OptimizerResult, releasedGreedy } from "../../selector/optimizers";
import { locateSolve } from "../../selector/systems";
import { caseStudyPrices, caseStudyWorld, successProbability, selectorWorldData } from "../../selector/world";
import { f, need, needParam, needRow, needRows } from "../claims";
import { mean, SEED_DOC, tally, TEST_DOC, TRAIN_DOC } from "./common";
import { defineDemo } from "../registry";

const pathText = (ev: Evaluator, r: OptimizerResult) => r.path.map((a) => ev.label(a)).join(" → ");
/** path as "row,col|row,col|…" model indices (for the heatmap of the search paths) */
const pathIndices = (r: OptimizerResult) => r.path.map((a) => a.join(",")).join("|");

export const llmSelectorCase = defineDemo({
  id: "04.1",
  section: "§4.4",
  title: "定位-求解案例：LLMSelector 与贪心（模型 A–E）",
  // Size: the case study's 100 / 200 questions; 12 sweep seeds for the plateau claim (another draw of questions each).
  defaults: { seed: selectorWorldData().caseStudy.seed, train: 100, test: 200, q: 1, lowQ: 0.8, gamma: 0.5, sweepSeeds: 12 },
  describe: {
    seed: SEED_DOC,
    train: TRAIN_DOC,
    test: TEST_DOC,
    q: { meaning: "主要几次运行里诊断器判断正确的概率 q", range: "0–1" },
    lowQ: { meaning: "第二次 LLMSelector 运行用的较差诊断器的 q", range: "0–1" },
    gamma: { meaning: "模块得分里端到端对错的权重 γ（γ > 0 时取值不影响排序）", range: "≥ 0" },
    sweepSeeds: { meaning: "另外检查多少个世界种子（1, 2, …）：C+C 是不是仍困住贪心", range: "0–40 的整数（0 = 不检查）" },
  },
  run(p) {
    const q = checkProbability("q", p.q);
    const lowQ = checkProbability("lowQ", p.lowQ);
    checkNumber("gamma", p.gamma, { min: 0 });
    const sweep = checkInteger("sweepSeeds", p.sweepSeeds, { min: 0, max: 40 });
    const world = caseStudyWorld({ seed: p.seed, train: checkInteger("train", p.train, { min: 1 }), test: checkInteger("test", p.test, { min: 1 }) });
    const ev = new Evaluator(world, locateSolve());
    const K = ev.modelCount;
    const m = accuracyMatrix(ev, "train");
    const best = exhaustive(ev);
    const seedText = String(p.seed);
    const rows: Row[] = [];
    const add = (r: OptimizerResult, start: string, qValue: number | null, extra: Row = {}) =>
      rows.push({
        method: r.method,
        start,
        worlds: seedText,
        q: qValue,
        allocation: r.label,
        trainAcc: r.trainAcc,
        testAcc: r.testAcc,
        evaluated: r.evaluated,
        evaluatedReleased: r.path.length > 1 ? countedEvaluations(r.rounds, K, "released") : null,
        failed: null,
        path: r.path.length > 1 ? pathText(ev, r) : null,
        pathIndices: r.path.length > 1 ? pathIndices(r) : null,
        scope: "single",
        ...extra,
      });
    add(best, "—", null, { matrix: JSON.stringify(m), names: world.names.join(",") });
    add(bestSingleModel(ev), "—", null);
    const runsFrom = (start: string) => {
      add(greedy(ev, { start }), start, null);
      add(releasedGreedy(ev, { start }), start, null);
      add(llmSelector(ev, { start, q, gamma: p.gamma, seed: p.seed }), start, q);
    };
    runsFrom("C+C");
    add(llmSelector(ev, { start: "C+C", q: lowQ, gamma: p.gamma, seed: p.seed }), "C+C", lowQ);
    runsFrom("E+C");
    // every one of the K² starting allocations
    const starts: number[][] = [];
    for (let i = 0; i < K; i++) for (let j = 0; j < K; j++) starts.push([i, j]);
    const allStarts = `全部 ${starts.length} 个`;
    const summary = (results: OptimizerResult[], qValue: number | null, worlds: string, start: string, failed: number, scope: string, extra: Row = {}) =>
      rows.push({
        method: results[0].method,
        start,
        worlds,
        q: qValue,
        allocation: tally(results),
        trainAcc: mean(results.map((r) => r.trainAcc)),
        testAcc: mean(results.map((r) => r.testAcc)),
        evaluated: mean(results.map((r) => r.evaluated)),
        evaluatedReleased: mean(results.map((r) => countedEvaluations(r.rounds, K, "released"))),
        failed,
        path: null,
        scope,
        ...extra,
      });
    const failures = (results: OptimizerResult[]) => results.filter((r) => r.trainAcc < best.trainAcc).length;
    for (const [method, qValue] of [["greedy", null], ["releasedGreedy", null], ["llmSelector", q], ["llmSelector", lowQ]] as const) {
      const results = starts.map((s, i) =>
        method === "greedy" ? greedy(ev, { start: s }) : method === "releasedGreedy" ? releasedGreedy(ev, { start: s }) : llmSelector(ev, { start: s, q: qValue as number, gamma: p.gamma, seed: `${seedText}/start/${i}` }),
      );
      summary(results, qValue, seedText, allStarts, failures(results), "allStarts");
    }
    // other question sets (world seeds 1 … sweep): is C+C still a trap for greedy, and does LLMSelector still escape?
    if (sweep > 0) for (const r of plateauRows(sweep, p.train, p.test, q, p.gamma)) rows.push(r);
    const [A, B, C] = ["A", "B", "C"].map((n) => world.names.indexOf(n));
    const prices = caseStudyPrices();
    return {
      title: `定位-求解案例：LLMSelector 与贪心（模型 A–E，训练题 ${world.train.size} 道，种子 ${seedText}）`,
      columns: [
        { key: "method", label: "方法", format: "name" },
        { key: "start", label: "起点", format: "text" },
        { key: "worlds", label: "世界种子", format: "text" },
        { key: "q", label: "诊断器准确率 q", format: "fixed1" },
        { key: "allocation", label: "最终分配（定位+求解）", format: "text" },
        { key: "trainAcc", label: "训练准确率", format: "fixed2" },
        { key: "testAcc", label: "测试准确率", format: "fixed2" },
        { key: "evaluated", label: "评估的分配数（每轮 K 个）", format: "countOrMean" },
        { key: "evaluatedReleased", label: "按发布代码计（每轮 K − 1 个）", format: "countOrMean" },
        { key: "failed", label: "没到最优的次数", format: "int" },
        { key: "path", label: "搜索路径", format: "text" },
      ],
      rows,
      notes: [
        `训练准确率：C+C ${f(m[C][C])}，只换定位 A+C ${f(m[A][C])}，只换求解 C+B ${f(m[C][B])}，A+B ${f(m[A][B])}（训练题 ${world.train.size} 道、测试题 ${world.test.size} 道，种子 ${seedText}）。`,
        `成功概率（由参数算出，定位 / 求解）：${world.models.map((x) => `${x.name} ${f(successProbability(world, x, "locate"))} / ${f(successProbability(world, x, "solve"))}`).join("，")}；每次调用的价格 ${world.names.map((n) => `${n} ${prices[n]}`).join("、")}（§4.6）。`,
        "贪心 = 在训练准确率上逐个模块爬坡，只换到严格更好的模型。贪心（发布代码）= 作者代码的默认设置 α = 0、β = 1：模块得分只看端到端对错，打平时换到最先记下的候选。一次运行的最终训练准确率低于穷举的最优值，就算没到最优。",
        `评估的分配数：讲义和我们每轮计 K = ${K} 个；作者代码的计数器每轮加 K − 1 = ${K - 1} 个（当前分配不重复计）。`,
        seedChoiceNote(seedText, m[C][C] > m[A][C] && m[C][C] > m[C][B], world.train.size, world.test.size),
      ],
    };
  },
  claims: [
    {
      id: "local-optimum",
      says: "C+C 是局部最优：只换定位或只换求解，训练准确率都不更高",
      lecture: "C+C 0.45；A+C 0.44、C+B 0.44",
      judge: (t) => {
        const ex = needRow(t, { method: "exhaustive" });
        const m = JSON.parse(String(ex.matrix)) as number[][];
        const names = String(ex.names).split(",");
        const [A, B, C] = ["A", "B", "C"].map((n) => names.indexOf(n));
        const neighbours = names.map((_, k) => k).filter((k) => k !== C);
        const beaten = neighbours.some((k) => m[k][C] > m[C][C] || m[C][k] > m[C][C]);
        return { holds: !beaten, ours: `C+C ${f(m[C][C])}；A+C ${f(m[A][C])}、C+B ${f(m[C][B])}` };
      },
    },
    {
      id: "greedy-stuck",
      says: "从 C+C 出发，贪心停在原地",
      lecture: "测试集 0.51",
      judge: (t, p) => {
        const g = needRow(t, { method: "greedy", start: "C+C", scope: "single" });
        return { holds: g.allocation === "C+C", ours: `停在 ${g.allocation}，测试集 ${f(need(t, { method: "greedy", start: "C+C", scope: "single" }, "testAcc"))}` };
      },
    },
    {
      id: "llmselector-escapes",
      says: "LLMSelector 从 C+C 走到最优的 A+B，诊断器不那么准时也能找到",
      lecture: "测试集 0.99；诊断器准确率 0.8 也能找到",
      judge: (t, p) => {
        const opt = needRow(t, { method: "exhaustive" }).allocation;
        const rs = needRows(t, { method: "llmSelector", start: "C+C", scope: "single" });
        const main = rs.find((r) => r.q === p.q) ?? rs[0];
        const low = rs.find((r) => r.q === p.lowQ) ?? rs[rs.length - 1];
        return {
          holds: opt === "A+B" && rs.every((r) => r.allocation === opt),
          ours: `q = ${f(Number(main.q), 1)}：${main.path}，测试集 ${f(Number(main.testAcc))}；q = ${f(Number(low.q), 1)}：到达 ${low.allocation}`,
        };
      },
    },
    {
      id: "all-starts",
      says: "从每一个初始分配出发：贪心有时停在最优之外，LLMSelector 每次都到达最优",
      lecture: "25 个起点：贪心失败 8 次，LLMSelector 全部成功",
      judge: (t, p) => {
        const g = needRow(t, { method: "greedy", scope: "allStarts" });
        const ls = needRows(t, { method: "llmSelector", scope: "allStarts" });
        const lf = ls.map((r) => Number(r.failed));
        return { holds: Number(g.failed) > 0 && lf.every((x) => x === 0), ours: `贪心失败 ${g.failed} 次；LLMSelector 失败 ${ls.map((r) => `${r.failed} 次（q = ${f(Number(r.q), 1)}）`).join("、")}` };
      },
    },
    {
      id: "budget",
      says: "从 C+C 出发，LLMSelector 两轮到达最优、再两轮确认不变才停，预算按四轮计",
      lecture: "评估了 20 个分配（论文报告 10 个）",
      judge: (t, p) => {
        const r = needRows(t, { method: "llmSelector", start: "C+C", scope: "single", q: p.q })[0];
        const rounds = String(r.path).split(" → ").length - 1;
        const K = Number(r.evaluated) / rounds;
        return [
          { reading: "讲义和我们的计数（每轮 K 个）", holds: r.evaluated === 20, ours: `${rounds} 轮 × ${K} = ${r.evaluated} 个`, why: `这次走了 ${rounds} 轮、共评估 ${r.evaluated} 个分配，不是 20 个` },
          { reading: "作者代码的计数（每轮 K − 1 个）", holds: r.evaluatedReleased === 20, ours: `${rounds} 轮 × ${K - 1} = ${r.evaluatedReleased} 个`, why: `作者代码每轮不重评当前的分配，只算 K − 1 = ${K - 1} 个：${rounds} 轮共 ${r.evaluatedReleased} 个，不是讲义的 20 个` },
        ];
      },
    },
    {
      id: "released-greedy",
      says: "作者代码的默认设置不用诊断器（α = 0），它就是一种贪心：本例里从 C+C 出发同样停在局部最优",
      judge: (t, p) => {
        const r = needRow(t, { method: "releasedGreedy", start: "C+C", scope: "single" });
        const all = needRow(t, { method: "releasedGreedy", scope: "allStarts" });
        const ours = needRow(t, { method: "greedy", scope: "allStarts" });
        const sweep = t.rows.find((x) => x.method === "releasedGreedy" && x.scope === "sweep");
        const strict = t.rows.find((x) => x.method === "greedy" && x.scope === "sweep")?.strictSeeds;
        return {
          holds: r.allocation === "C+C",
          ours: `从 C+C：${r.path}；${all.start}起点里 ${all.failed} 次没到最优（我们的贪心 ${ours.failed} 次）`,
          // the other worlds: where C+C only ties its neighbours, the released rule moves on a tie and walks off the plateau
          remark: sweep ? `换 ${p.sweepSeeds} 个世界种子从 C+C 出发：${sweep.allocation}${strict !== undefined ? `——其中 C+C 严格高于邻居的只有 ${strict} 个，其余是打平，` : "——"}作者代码打平时换到最先记下的候选，就走出去了` : undefined,
        };
      },
    },
    {
      id: "plateau",
      says: "换一批题目，C+C 仍不会被单改一个模块超过：贪心从 C+C 出发停住，LLMSelector 走到最优",
      judge: (t, p) => {
        needParam(p.sweepSeeds > 0, "sweepSeeds = 0：没有检查其他种子");
        const g = needRow(t, { method: "greedy", scope: "sweep" });
        const l = needRow(t, { method: "llmSelector", scope: "sweep" });
        const n = p.sweepSeeds;
        const stays = String(g.allocation) === `C+C ×${n}`;
        return {
          holds: stays && Number(l.failed) === 0 && Number(g.neverBeatenSeeds) === n,
          ours: `${n} 个种子：贪心 ${g.allocation}，LLMSelector 没到最优 ${l.failed} 次`,
          remark: `C+C 严格高于 A+C 和 C+B 的种子 ${g.strictSeeds} 个，其余是打平——打平时贪心也不动：这是一片平台，端到端准确率对"只改一个模块"几乎没有信号`,
          seeds: { agree: n - Number(l.failed), total: n },
        };
      },
    },
  ],
});

/** The heatmap of 04.1's training accuracies with the search paths drawn over it, step numbers at each allocation:
 * plain data for view's heatmap(); read from the table runDemo("04.1") returned. */
export function caseStudyPaths(t: Table): {
  z: number[][]; x: string[]; y: string[]; title: string; xTitle: string; yTitle: string; zTitle: string; zmin: number; zmax: number; reverseY: boolean; legendTitle: string;
  paths: Array<{ name: string; points: Array<{ x: number; y: number; label: string }>; offset: { x: number; y: number }; color: string; symbol: string; dash: string }>;
} {
  const ex = t.rows.find((r) => r.method === "exhaustive" && typeof r.matrix === "string");
  if (!ex) throw new Error("caseStudyPaths: 需要 runDemo(\"04.1\") 的结果");
  const z = JSON.parse(String(ex.matrix)) as number[][];
  const names = String(ex.names).split(",");
  // The colour says the method (greedy orange, LLMSelector pink), the marker and the line the start (C+C circles on a
  // solid line, E+C squares on a dashed one). Each path has its own spot in a cell — C+C starts above the value
  // written at the centre, E+C starts below it, each method on its own side — so that no two markers and no two lines
  // cover each other or the value (the diagonal offsets before put 0–2 and 1–3 on top of each other in C+C's cell).
  const picks: Array<[string, string, string, { x: number; y: number }]> = [
    ["greedy", "C+C", "#ff7f0e", { x: -0.36, y: -0.25 }],
    ["llmSelector", "C+C", "#e377c2", { x: 0.2, y: -0.25 }],
    ["greedy", "E+C", "#ff7f0e", { x: -0.2, y: 0.25 }],
    ["llmSelector", "E+C", "#e377c2", { x: 0.36, y: 0.25 }],
  ];
  const paths = picks.flatMap(([method, start, color, offset]) => {
    const r = t.rows.find((x) => x.method === method && x.start === start && typeof x.pathIndices === "string" && (method !== "llmSelector" || x.q === t.params?.q));
    if (!r) return [];
    const steps = String(r.pathIndices).split("|").map((s) => s.split(",").map(Number));
    // one marker per distinct consecutive allocation, labelled with the rounds spent there ("2–4")
    const points: Array<{ x: number; y: number; label: string }> = [];
    steps.forEach(([row, col], i) => {
      const last = points[points.length - 1];
      if (last && last.x === col && last.y === row) {
        const first = last.label.split("–")[0];
        last.label = `${first}–${i}`;
      } else points.push({ x: col, y: row, label: String(i) });
    });
    const end = points[points.length - 1];
    const fromCC = start === "C+C";
    return [{ name: `${method === "greedy" ? "贪心" : "LLMSelector"}，从 ${start} 出发，停在 ${names[end.y]}+${names[end.x]}`, points, offset, color, symbol: fromCC ? "circle" : "square", dash: fromCC ? "solid" : "dash" }];
  });
  return {
    z,
    x: names,
    y: names,
    title: "定位-求解：训练准确率与搜索路径（点上的数字 = 第几轮）",
    xTitle: "求解模块用的模型",
    yTitle: "定位模块用的模型",
    zTitle: "训练准确率（答对比例）",
    legendTitle: "搜索路径（点上的数字 = 第几轮：0 是出发点，“2–4” = 第 2 到 4 轮都在这一格）",
    zmin: 0,
    zmax: 1,
    reverseY: true,
    paths,
  };
}

/** The lecture's table for the case (§4.4): training accuracy of C+C, A+C and C+B, as printed there. */
const LECTURE_TABLE = { CC: "0.45", AC: "0.44", CB: "0.44" };
/** World seeds 1 … SEED_SCAN are searched for the case's seed. */
const SEED_SCAN = 40;

/** Why the case uses its world seed, computed rather than asserted: among seeds 1 … SEED_SCAN (same numbers of
 * questions), those where C+C is strictly above both one-module changes (the lecture's local optimum, strictly), and
 * of these the ones whose three accuracies print as the lecture's table; the default seed is the only such one. */
function seedChoiceNote(seed: string, strictHere: boolean, train: number, test: number): string {
  const strict: number[] = [];
  const asLecture: number[] = [];
  let beaten = 0;
  for (let s = 1; s <= SEED_SCAN; s++) {
    const e = new Evaluator(caseStudyWorld({ seed: s, train, test }), locateSolve());
    const m = accuracyMatrix(e, "train");
    const [A, B, C] = ["A", "B", "C"].map((name) => e.world.names.indexOf(name));
    if (Math.max(m[A][C], m[C][B]) > m[C][C]) beaten++;
    if (!(m[C][C] > m[A][C] && m[C][C] > m[C][B])) continue;
    strict.push(s);
    if (f(m[C][C]) === LECTURE_TABLE.CC && f(m[A][C]) === LECTURE_TABLE.AC && f(m[C][B]) === LECTURE_TABLE.CB) asLecture.push(s);
  }
  const list = (xs: number[]) => (xs.length ? `种子 ${xs.join("、")}` : "没有");
  const only = asLecture.length === 1 && String(asLecture[0]) === seed;
  const lecture = `三个数与讲义的表（C+C ${LECTURE_TABLE.CC}；A+C ${LECTURE_TABLE.AC}、C+B ${LECTURE_TABLE.CB}）相同的`;
  const here = only ? `；其中${lecture}只有种子 ${seed}，案例因此用它` : `；其中${lecture}${asLecture.length ? `是${list(asLecture)}` : "一个也没有"}；这里的种子 ${seed} 上 C+C ${strictHere ? "也严格高于两者" : "并不严格高于两者（打平或更低）"}`;
  const rest = SEED_SCAN - strict.length;
  const others = beaten === 0 ? `其余 ${rest} 个种子上 C+C 都与 A+C 或 C+B 打平，没有被超过` : `其余 ${rest} 个种子里，C+C 与 A+C 或 C+B 打平的 ${rest - beaten} 个，被其中之一超过的 ${beaten} 个`;
  return `为什么用这个世界种子：在种子 1–${SEED_SCAN} 里（训练题 ${train} 道），C+C 的训练准确率严格高于只换一个模块的 A+C 和 C+B 的${strict.length ? `有${list(strict)}` : "一个也没有"}${here}。${others}。`;
}

/** The plateau check of 04.1: from C+C on world seeds 1 … n, where each method ends (summary rows, scope "sweep");
 * the greedy row also counts the seeds where C+C is strictly above both one-module changes and where no one-module
 * change beats it. */
function plateauRows(n: number, train: number, test: number, q: number, gamma: number): Row[] {
  const per = Array.from({ length: n }, (_, i) => {
    const s = i + 1;
    const e = new Evaluator(caseStudyWorld({ seed: s, train, test }), locateSolve());
    const m = accuracyMatrix(e, "train");
    const [A, B, C] = ["A", "B", "C"].map((name) => e.world.names.indexOf(name));
    return {
      strict: m[C][C] > m[A][C] && m[C][C] > m[C][B],
      neverBeaten: m.every((row, i2) => row.every((v, j) => (i2 !== C && j !== C) || v <= m[C][C])),
      optimum: exhaustive(e).trainAcc,
      K: e.modelCount,
      runs: { g: greedy(e, { start: "C+C" }), r: releasedGreedy(e, { start: "C+C" }), l: llmSelector(e, { start: "C+C", q, gamma, seed: s }) },
    };
  });
  return (["g", "r", "l"] as const).map((key) => {
    const rs = per.map((x) => x.runs[key]);
    return {
      method: rs[0].method,
      start: "C+C",
      worlds: `1–${n}`,
      q: key === "l" ? q : null,
      allocation: tally(rs),
      trainAcc: mean(rs.map((r) => r.trainAcc)),
      testAcc: mean(rs.map((r) => r.testAcc)),
      evaluated: mean(rs.map((r) => r.evaluated)),
      evaluatedReleased: mean(rs.map((r, i) => countedEvaluations(r.rounds, per[i].K, "released"))),
      failed: rs.filter((r, i) => r.trainAcc < per[i].optimum).length,
      path: null,
      scope: "sweep",
      ...(key === "g" ? { strictSeeds: per.filter((x) => x.strict).length, neverBeatenSeeds: per.filter((x) => x.neverBeaten).length } : {}),
    };
  });
}
