// 代码 04 演示 4 (§4.5): when monotonicity fails — self-blind critics and debate diversity — with the gap to the
// optimum and a random-allocation baseline; 演示 5 (§4.6): cost-aware selection on the locate–solve case.
import { checkInteger, checkNumber, checkProbability, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row } from "../../core/table";
import { allocationCost } from "../../selector/budget";
import { Evaluator } from "../../selector/evaluate";
import { costFrontier, pricedAllocations } from "../../selector/cost";
import { llmSelector, OptimizerResult, surveyAllocations } from "../../selector/optimizers";
import { debate, locateSolve, sameModelCriticFactor, selfRefine } from "../../selector/systems";
import { caseStudyPrices, caseStudyWorld, randomPoolWorld, selectorWorldData, skillIndex, World } from "../../selector/world";
import { f, needParam, needRow, needRows, pct } from "../claims";
import { mean, POOLS_DOC, SEED_DOC, TEST_DOC, TRAIN_DOC } from "./common";
import { defineDemo } from "../registry";

/** Per module, the model with the highest training success rate at that module's skill ("every module strongest"). */
function strongestPerModule(world: World, ev: Evaluator): number[] {
  const rate = (k: number, skill: string) => {
    const xs = world.train.success[k][skillIndex(skill as never)];
    let s = 0;
    for (let z = 0; z < xs.length; z++) s += xs[z];
    return s / xs.length;
  };
  return ev.system.modules.map((m) => {
    let best = 0;
    for (let k = 1; k < ev.modelCount; k++) if (rate(k, m.skill) > rate(best, m.skill)) best = k;
    return best;
  });
}

const generatorsMix = (a: readonly number[]) => new Set(a.slice(0, 3)).size > 1;
const criticDiffers = (a: readonly number[]) => a[0] !== a[1];

export const llmSelectorViolations = defineDemo({
  id: "04.4",
  section: "§4.5",
  title: "单调性不成立时：看不出自己的错的批评者、需要多样答案的辩论",
  // Size: 10 pools: debate-diversity counts the pools whose optimum mixes generators.
  defaults: { seed: selectorWorldData().randomPools.seed, pools: 10, train: 200, test: 300, sameModelCriticFactor: sameModelCriticFactor(), q: 1 },
  describe: {
    seed: SEED_DOC,
    pools: POOLS_DOC,
    train: TRAIN_DOC,
    test: TEST_DOC,
    sameModelCriticFactor: { meaning: "批评者与生成者是同一个模型时，它发现错误的概率乘上这个因子（1 = 不偏袒自己）", range: "0–1" },
    q: { meaning: "LLMSelector 的诊断器准确率 q", range: "0–1" },
  },
  run(p, context) {
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    const factor = checkNumber("sameModelCriticFactor", p.sameModelCriticFactor, { min: 0, max: 1 });
    const q = checkProbability("q", p.q);
    const train = checkInteger("train", p.train, { min: 1 });
    const test = checkInteger("test", p.test, { min: 1 });
    const rows: Row[] = [];
    for (let pool = 0; pool < pools; pool++) {
      context.progress?.(`04.4：模型池 ${pool + 1}/${pools}`);
      const world = randomPoolWorld({ seed: p.seed, pool, train, test });
      const runSeed = `${String(p.seed)}/pool/${pool}`;
      const experiment = (name: string, ev: Evaluator, hasStructure: (a: readonly number[]) => boolean, sameKeep: (a: readonly number[]) => boolean, withSelector: boolean) => {
        const survey = surveyAllocations(ev, { where: [sameKeep], share: [hasStructure] });
        const opt = survey.optimum;
        const same = survey.bestWhere[0] as OptimizerResult;
        const structure = hasStructure(opt.allocation);
        const space = { share: structure ? survey.shares[0] : 1 - survey.shares[0], meanAccuracy: survey.meanAccuracy };
        const l = withSelector ? llmSelector(ev, { q, seed: runSeed }) : null;
        const strongest = strongestPerModule(world, ev);
        rows.push({
          experiment: name,
          pool,
          optimum: opt.label,
          mixesModels: structure,
          gain: (opt.testAcc - same.testAcc) * 100,
          comparator: same.label,
          llmSelectorAllocation: l ? l.label : null,
          structureFound: l ? hasStructure(l.allocation) === structure : null,
          llmTrainGap: l ? (opt.trainAcc - l.trainAcc) * 100 : null,
          randomStructure: space.share,
          randomTrainGap: (opt.trainAcc - space.meanAccuracy) * 100,
          strongestGap: withSelector ? (opt.testAcc - ev.accuracy(strongest, "test")) * 100 : null,
          strongestAllocation: withSelector ? ev.label(strongest) : null,
        });
      };
      experiment("selfBlindCritic", new Evaluator(world, selfRefine({ sameModelCriticFactor: factor })), criticDiffers, (a) => a[0] === a[1], true);
      experiment("debateDiversity", new Evaluator(world, debate()), generatorsMix, (a) => a[0] === a[1] && a[1] === a[2], true);
      // the lecture's first, unfaithful debate: debaters may answer from their own knowledge
      experiment("debateOwnKnowledge", new Evaluator(world, debate({ debatersOwnKnowledge: true })), generatorsMix, (a) => a[0] === a[1] && a[1] === a[2], false);
    }
    return {
      title: `单调性不成立时：${pools} 个随机模型池（种子 ${String(p.seed)}），批评者偏袒自己的因子 ${factor}`,
      columns: [
        { key: "experiment", label: "实验", format: "name" },
        { key: "pool", label: "池", format: "int" },
        { key: "optimum", label: "最优分配（穷举，训练集）", format: "text" },
        { key: "mixesModels", label: "混用模型" },
        { key: "gain", label: "比同一模型的最好分配高（测试）", unit: "百分点", format: "fixed1" },
        { key: "comparator", label: "同一模型的最好分配", format: "text" },
        { key: "llmSelectorAllocation", label: "LLMSelector 的分配", format: "text" },
        { key: "structureFound", label: "结构相同" },
        { key: "llmTrainGap", label: "LLMSelector 离最优（训练）", unit: "百分点", format: "fixed1" },
        { key: "randomStructure", label: "随机分配结构相同的概率", format: "percent0" },
        { key: "randomTrainGap", label: "随机分配平均离最优（训练）", unit: "百分点", format: "fixed1" },
      ],
      rows,
      notes: [
        `批评者看不出自己的错：生成者 + 批评者 + 改写者，批评者与生成者同模型时发现错误的概率 × ${factor}；"混用"指批评者与生成者用不同的模型；对照是"批评者 = 生成者"时最好的分配。`,
        '辩论需要多样的答案：3 个生成者 / 3 个辩论者，辩论者只能在初始答案里挑；"混用"指生成者用了两三种模型；对照是三个生成者用同一个模型时最好的分配。辩论者可凭自己的知识作答：讲义提到的第一版代码（三个初始答案都错时辩论者仍可能答对），作对照。',
        '"结构相同"：LLMSelector 的分配与最优分配同样混用（或同样不混用）。随机抽一个分配也有很大机会结构相同（表中给出概率），所以结构相同本身说明不了多少；"离最优"的差距才是证据。',
      ],
    };
  },
  claims: [
    {
      id: "self-blind-mixes",
      says: "批评者看不出自己的错时，最优分配让批评者与生成者用不同的模型",
      lecture: "10 个池全都如此，比同一个模型最好的高 7.7 个百分点",
      judge: (t) => {
        const rs = needRows(t, { experiment: "selfBlindCritic" });
        const mixing = rs.filter((r) => r.mixesModels === true).length;
        return { holds: mixing === rs.length, ours: `${mixing} / ${rs.length} 个池，平均高 ${f(mean(rs.map((r) => Number(r.gain))), 1)} 个百分点` };
      },
    },
    {
      id: "self-blind-found",
      says: "LLMSelector 找到了这个结构，而且离最优很近（随机分配光靠运气也常有同样的结构：离最优的差距才是证据）",
      lecture: "LLMSelector 10 次都找到了这个结构",
      judge: (t) => gapJudgement(needRows(t, { experiment: "selfBlindCritic" }), "nearOptimum"),
    },
    {
      id: "debate-diversity",
      says: "辩论需要多样的初始答案：一部分池的最优分配混用生成模型，比三个生成者用同一个模型好",
      lecture: "6 / 10 个池用了 2–3 种生成模型，高 2.6 个百分点",
      judge: (t) => {
        const rs = needRows(t, { experiment: "debateDiversity" });
        const mixing = rs.filter((r) => r.mixesModels === true);
        return {
          holds: mixing.length > 0 && mixing.every((r) => Number(r.gain) > 0),
          ours: `${mixing.length} / ${rs.length} 个池；这些池平均高 ${f(mean(mixing.map((r) => Number(r.gain))), 1)} 个百分点（全部池平均 ${f(mean(rs.map((r) => Number(r.gain))), 1)}）`,
          remark: mixing.length < rs.length ? sameGeneratorsRemark(rs.filter((r) => r.mixesModels !== true)) : undefined,
        };
      },
    },
    {
      id: "debate-found",
      says: "辩论上 LLMSelector 的分配远好于随机分配：离最优的差距小一个数量级",
      judge: (t) => gapJudgement(needRows(t, { experiment: "debateDiversity" }), "farBetterThanRandom"),
    },
    {
      id: "own-knowledge",
      says: "辩论者能凭自己的知识作答时（第一版代码），多样性几乎不重要；只能在初始答案里挑（论文的设定）时它才重要",
      lecture: "第一版代码里多样性几乎不重要",
      judge: (t) => {
        const own = needRows(t, { experiment: "debateOwnKnowledge" });
        const faithful = needRows(t, { experiment: "debateDiversity" });
        const g = (rs: typeof own) => mean(rs.map((r) => Number(r.gain)));
        const mixing = (rs: typeof own) => rs.filter((r) => r.mixesModels === true).length;
        return {
          holds: g(own) < g(faithful) / 2,
          ours: `混用的增益 ${f(g(faithful), 1)} → ${f(g(own), 1)} 个百分点，混用的池 ${mixing(faithful)} → ${mixing(own)} 个`,
        };
      },
    },
    {
      id: "pitfall-7",
      says: "每个模块都用该技能最强的模型，整个系统不一定最强——最优分配常常刻意混用模型",
      lecture: "模型可能看不出自己的错、多个相同模型会犯同样的错",
      judge: (t) => {
        const parts = (["selfBlindCritic", "debateDiversity"] as const).map((e) => {
          const rs = needRows(t, { experiment: e });
          return { e, worse: rs.filter((r) => Number(r.strongestGap) > 0).length, n: rs.length, gap: mean(rs.map((r) => Number(r.strongestGap))) };
        });
        return {
          holds: parts.some((x) => x.worse > 0),
          ours: parts.map((x) => `${displayName(x.e)}：${x.worse} / ${x.n} 个池里最优分配更好，平均高 ${f(x.gap, 1)} 个百分点`).join("；"),
        };
      },
    },
  ],
});

/** "Found the structure" next to what it is worth: the structure rate of a random allocation, and the gap to the
 * optimum (training accuracy) of LLMSelector against that of a random allocation. */
function gapJudgement(rs: Row[], test: "nearOptimum" | "farBetterThanRandom") {
  needParam(rs.length > 0, "没有这个实验的行");
  const found = rs.filter((r) => r.structureFound === true).length;
  const llmGap = mean(rs.map((r) => Number(r.llmTrainGap)));
  const randomGap = mean(rs.map((r) => Number(r.randomTrainGap)));
  const randomRate = mean(rs.map((r) => Number(r.randomStructure)));
  return {
    holds: test === "nearOptimum" ? found >= rs.length - 1 && llmGap < 1 : llmGap < randomGap / 10,
    ours: `结构相同 ${found} / ${rs.length}（随机分配 ${pct(randomRate)} 的概率也相同）；离最优：LLMSelector 平均 ${f(llmGap, 1)}、随机分配 ${f(randomGap, 1)} 个百分点（训练集）`,
  };
}

// ---------------------------------------------------------------------------------------------------------------

export const llmSelectorCost = defineDemo({
  id: "04.5",
  section: "§4.6",
  title: "把价格算进来：定位-求解案例上的训练准确率 − λ × 价格",
  // Size: the case study's 100 / 200 questions and eight λ values from 0 to 0.5 (where the choice changes).
  defaults: {
    seed: selectorWorldData().caseStudy.seed,
    train: 100,
    test: 200,
    prices: caseStudyPrices() as Record<string, number>,
    lambdas: [0, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5],
  },
  describe: {
    seed: SEED_DOC,
    train: TRAIN_DOC,
    test: TEST_DOC,
    prices: { meaning: "每个模型每次调用的价格（练习 7：A 5、B 3、C 1、D 0.5、E 0.2）", range: "对象 { 模型: 价格 }，五个模型都要有，价格 ≥ 0" },
    lambdas: { meaning: "价格的权重 λ：多花 1 个价格单位至少要换来 λ 的训练准确率（λ = 0.1 即一个百分点最多值 0.1 个价格单位）", range: "非空数组，每项 ≥ 0" },
  },
  run(p) {
    const world = caseStudyWorld({ seed: p.seed, train: checkInteger("train", p.train, { min: 1 }), test: checkInteger("test", p.test, { min: 1 }) });
    const ev = new Evaluator(world, locateSolve());
    if (typeof p.prices !== "object" || p.prices === null || Array.isArray(p.prices)) throw new ParameterError("prices", "应为对象 { 模型: 每次调用的价格 }");
    const frontier = costFrontier(ev, { prices: p.prices, lambdas: p.lambdas });
    const chosenBy = new Map<string, number[]>();
    for (const r of frontier) chosenBy.set(r.label, [...(chosenBy.get(r.label) ?? []), r.lambda]);
    const rows: Row[] = pricedAllocations(ev, p.prices)
      .sort((a, b) => a.cost - b.cost || b.trainAcc - a.trainAcc || a.label.localeCompare(b.label))
      .map((a) => ({
        allocation: a.label,
        cost: a.cost,
        trainAcc: a.trainAcc,
        testAcc: a.testAcc,
        pareto: a.pareto,
        chosenBy: chosenBy.has(a.label) ? (chosenBy.get(a.label) as number[]).map(String).join("、") : null,
        picked: chosenBy.has(a.label),
        frontier: a.pareto ? "onFrontier" : "offFrontier",
        firstLambda: chosenBy.has(a.label) ? Math.min(...(chosenBy.get(a.label) as number[])) : null,
      }));
    const ab = allocationCost(["A", "B"], p.prices);
    const cc = allocationCost(["C", "C"], p.prices);
    return {
      title: `把价格算进来：定位-求解的 ${rows.length} 种分配（训练准确率 − λ × 每题价格，种子 ${String(p.seed)}）`,
      columns: [
        { key: "allocation", label: "分配（定位+求解）", format: "text" },
        { key: "cost", label: "每题价格", unit: "价格单位", format: "fixed1" },
        { key: "trainAcc", label: "训练准确率", format: "fixed2" },
        { key: "testAcc", label: "测试准确率", format: "fixed2" },
        { key: "frontier", label: "成本—准确率前沿（按训练准确率）", format: "name" },
        { key: "chosenBy", label: "被哪些 λ 选中", format: "text" },
      ],
      rows,
      notes: [
        `每次调用的价格：${Object.entries(p.prices).map(([k, v]) => `${k} ${v}`).join("、")}。A+B 每题 ${ab}，C+C 每题 ${cc}，贵 ${f(ab / cc, 1)} 倍。`,
        "每个 λ 在全部分配里挑“训练准确率 − λ × 每题价格”最大的那个（准确率按 0–1 计：λ = 0.1 相当于“一个百分点最多值 0.1 个价格单位”，即练习 7(b) 的规则）。λ 越大越看重省钱。前沿：没有别的分配更便宜又不差、或一样贵却更准（按训练集）。",
      ],
    };
  },
  claims: [
    {
      id: "cost-ratio",
      says: "A+B 每题的价格是 C+C 的几倍",
      lecture: "8 对 2，贵 4 倍",
      judge: (t, p) => {
        needParam(["A", "B", "C"].every((k) => k in p.prices), "需要 A、B、C 的价格");
        const ab = Number(needRow(t, { allocation: "A+B" }).cost);
        const cc = Number(needRow(t, { allocation: "C+C" }).cost);
        return { holds: ab / cc >= 3, ours: `${f(ab, 1)} 对 ${f(cc, 1)}，贵 ${f(ab / cc, 1)} 倍` };
      },
    },
    {
      id: "lambda-zero",
      says: "不看价格（λ = 0）时选最准的 A+B",
      judge: (t, p) => {
        needParam((p.lambdas as number[]).includes(0), "需要 λ = 0");
        const r = t.rows.find((x) => String(x.chosenBy ?? "").split("、").includes("0"));
        return { holds: r?.allocation === "A+B", ours: `λ = 0 选 ${r?.allocation ?? "—"}` };
      },
    },
    {
      id: "price-changes-choice",
      says: "λ 越大，选中的分配越便宜、训练准确率越低：把价格算进来会改变最优分配",
      judge: (t) => {
        const picks = t.rows.filter((r) => r.picked === true).sort((a, b) => Number(a.firstLambda) - Number(b.firstLambda));
        needParam(picks.length > 0, "没有选中的分配");
        const monotone = picks.every((r, i) => i === 0 || (Number(r.cost) <= Number(picks[i - 1].cost) && Number(r.trainAcc) <= Number(picks[i - 1].trainAcc)));
        return {
          holds: monotone && picks.length >= 3,
          ours: picks.map((r) => `${r.allocation}（λ ${r.chosenBy}：每题 ${f(Number(r.cost), 1)}，测试 ${f(Number(r.testAcc), 2)}）`).join(" → "),
        };
      },
    },
    {
      id: "picks-on-frontier",
      says: "每个 λ 选中的分配都在成本—准确率前沿上",
      judge: (t) => {
        const picks = t.rows.filter((r) => r.picked === true);
        const front = t.rows.filter((r) => r.pareto === true);
        return { holds: picks.every((r) => r.pareto === true), ours: `前沿上 ${front.length} 个分配：${front.map((r) => r.allocation).join("、")}` };
      },
    },
  ],
});

/** The debate pools whose optimum gives the three generators one model: how many, and in how many that model is the
 * strongest at answering (the generators of the pool's "strongest model per module" allocation). */
function sameGeneratorsRemark(rows: readonly Row[]): string {
  const generators = (allocation: unknown) => String(allocation).split(" / ")[0];
  const strongest = rows.filter((r) => generators(r.optimum) === generators(r.strongestAllocation)).length;
  return `其余 ${rows.length} 个池的最优分配里三个生成者用同一个模型，${strongest === rows.length ? "都是" : `其中 ${strongest} 个是`}作答最强的那个：在这些池里混用生成模型不会更好（穷举在训练集上的结果）`;
}
