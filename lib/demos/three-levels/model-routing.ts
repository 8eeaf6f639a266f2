// 代码 05: request → model routing in the §4 toy world (§5, §6 "模型路由与级联"): a FrugalGPT-style cascade and a
// RouteLLM-like two-model router against every model alone, on accuracy and price per question (exercise 7 prices).
import { checkInteger, checkNonEmpty, checkNumber } from "../../core/errors";
import type { Row, Table } from "../../core/table";
import {
  cascadeCurve,
  cheapestReaching,
  expectedAccuracy,
  modelRoutingData,
  modelRoutingWorld,
  ModelRoutingWorld,
  routerCorrelation,
  routerCurve,
  RoutingResult,
  scorerAuc,
  singleModels,
} from "../../selector/model-routing";
import { f, needParam, needRows, pct } from "../claims";
import { defineDemo } from "../registry";

const routingDefaults = () => {
  const d = modelRoutingData();
  return { seed: d.seed, train: d.train, test: d.test, cascade: [...d.cascade.models], weak: d.router.weak, strong: d.router.strong };
};

const BASE_DOCS = {
  seed: { meaning: "世界的种子（题目、每个模型的成败、信号的噪声）", range: "整数或字符串" },
  cascade: { meaning: "级联依次尝试的模型（FrugalGPT：由便宜到贵）", range: "非空数组，模型 A–E，互不相同" },
  weak: { meaning: "路由器的弱（便宜）模型", range: "A–E 之一，与 strong 不同" },
  strong: { meaning: "路由器的强（贵）模型", range: "A–E 之一，与 weak 不同" },
};

/** The most accurate model alone (ties: the cheaper one). */
function strongestOf(singles: RoutingResult[]): RoutingResult {
  return singles.reduce((best, r) => (r.accuracy > best.accuracy || (r.accuracy === best.accuracy && r.costPerQuestion < best.costPerQuestion) ? r : best));
}

function checkNoises(name: string, values: unknown): number[] {
  return checkNonEmpty(name, values as number[]).map((x, i) => checkNumber(`${name}[${i}]`, x, { min: 0 }));
}

function world(p: { seed: number | string; train: number; test: number }): ModelRoutingWorld {
  checkInteger("train", p.train, { min: 10 });
  checkInteger("test", p.test, { min: 10 });
  return modelRoutingWorld({ seed: p.seed, train: p.train, test: p.test });
}

/** "级联 E→C→A，打分器噪声 0.5" — one curve of the chart (the legend entry). */
export function routingCurveLabel(r: Pick<RoutingResult, "method" | "setting" | "signalNoise">): string {
  if (r.method === "single") return "单个模型";
  return `${r.method === "cascade" ? "级联" : "路由器"} ${r.setting}，${r.method === "cascade" ? "打分器" : "难度估计"}噪声 ${r.signalNoise}`;
}

/** The 05.1 rows of one curve (cascade / router at one noise level), in threshold order. */
function curveRows(t: Table, method: string, noise: number): Row[] {
  return needRows(t, { method, signalNoise: noise });
}

/** The strongest model alone, from the single-model rows. */
function strongestRow(t: Table): Row {
  const singles = needRows(t, { method: "single" });
  return singles.reduce((a, b) => (Number(b.accuracy) > Number(a.accuracy) ? b : a));
}

/** The cheapest row of a curve within `points` of the strongest model's accuracy, or null. */
function cheapestWithin(rows: Row[], target: number): Row | null {
  let best: Row | null = null;
  for (const r of rows) if (Number(r.accuracy) >= target && (best === null || Number(r.costPerQuestion) < Number(best.costPerQuestion))) best = r;
  return best;
}

const reachText = (r: Row | null, strongest: string) => (r === null ? "怎么调阈值也追不上" : `τ = ${f(Number(r.threshold), 2)}，每题 ${f(Number(r.costPerQuestion), 2)}（${strongest} 的 ${pct(Number(r.costShare))}）`);

// ---------------------------------------------------------------------------------------------------------------

export const cascadeVsRouter = defineDemo({
  id: "05.1",
  section: "§5–§6",
  title: "请求 → 模型：级联、路由器与单个模型（准确率与每题价格）",
  // Size: 1,000 training / 2,000 test questions: the 1-point tolerance of the cascade claims needs a test set where one point is ≈ 20 questions.
  defaults: {
    ...routingDefaults(),
    scorerNoises: [...modelRoutingData().cascade.scorerNoises],
    routerNoises: [...modelRoutingData().router.routerNoises],
    thresholds: Array.from({ length: 11 }, (_, i) => i / 10),
  },
  describe: {
    ...BASE_DOCS,
    train: { meaning: "训练题数（这里不用；演示 05.2 在训练集上挑阈值）", range: "≥ 10 的整数" },
    test: { meaning: "测试题数：每一行都在这些题上量", range: "≥ 10 的整数" },
    scorerNoises: { meaning: "级联打分器的噪声 σ（0 = 完美地判断每个答案的对错）", range: "非空数组，每项 ≥ 0" },
    routerNoises: { meaning: "路由器难度估计的噪声 σ（0 = 知道确切难度）", range: "非空数组，每项 ≥ 0" },
    thresholds: { meaning: "两者都扫的阈值 τ（级联：分数 ≥ τ 就信；路由器：难度百分位 ≥ τ 就给强模型）", range: "非空数组，每项在 0–1 之间" },
  },
  run(p, { progress }) {
    const rw = world(p);
    const scorerNoises = checkNoises("scorerNoises", p.scorerNoises);
    const routerNoises = checkNoises("routerNoises", p.routerNoises);
    const singles = singleModels(rw, "test");
    const strongest = strongestOf(singles);
    const results: RoutingResult[] = [...singles].sort((a, b) => a.costPerQuestion - b.costPerQuestion);
    for (const noise of scorerNoises) {
      progress?.(`05.1：级联，打分器噪声 ${noise}`);
      results.push(...cascadeCurve(rw, { models: p.cascade, scorerNoise: noise, thresholds: p.thresholds, split: "test" }));
    }
    for (const noise of routerNoises) {
      progress?.(`05.1：路由器，难度估计噪声 ${noise}`);
      results.push(...routerCurve(rw, { weak: p.weak, strong: p.strong, routerNoise: noise, thresholds: p.thresholds, split: "test" }));
    }
    const rows: Row[] = results.map((r) => ({
      curve: routingCurveLabel(r),
      method: r.method,
      setting: r.setting,
      signalNoise: r.signalNoise,
      threshold: r.threshold,
      expected: r.method === "single" ? expectedAccuracy(rw, r.setting) : null,
      accuracy: r.accuracy,
      costPerQuestion: r.costPerQuestion,
      costShare: r.costPerQuestion / strongest.costPerQuestion,
      callsPerQuestion: r.callsPerQuestion,
      strongestShare: r.answeredBy[strongest.setting],
    }));
    return {
      title: `请求 → 模型：级联 ${p.cascade.join("→")}、路由器 ${p.weak}/${p.strong} 与单个模型（测试题 ${rw.world.test.size} 道，种子 ${String(p.seed)}）`,
      columns: [
        { key: "curve", label: "曲线", format: "text" },
        { key: "method", label: "做法", format: "name" },
        { key: "setting", label: "模型", format: "text" },
        { key: "signalNoise", label: "信号噪声 σ", format: "sig3" },
        { key: "threshold", label: "阈值 τ", format: "fixed2" },
        { key: "expected", label: "由参数算出的准确率", format: "fixed3" },
        { key: "accuracy", label: "准确率", format: "fixed3" },
        { key: "costPerQuestion", label: "每题价格", unit: "价格单位", format: "fixed2" },
        { key: "costShare", label: `÷ ${strongest.setting} 的价格`, format: "percent0" },
        { key: "callsPerQuestion", label: "每题调用次数", format: "fixed2" },
        { key: "strongestShare", label: `由 ${strongest.setting} 作答`, format: "percent0" },
      ],
      rows,
      notes: [
        `每次调用的价格：${rw.world.names.map((n) => `${n} ${rw.prices[n]}`).join("、")}（练习 7）。单干时最准的是 ${strongest.setting}（${f(strongest.accuracy, 3)}）。`,
        `级联 ${p.cascade.join("→")}：依次调用，第一个可信分 Φ(±1 + σε) ≥ τ 的答案就留下（答对 +1、答错 −1）；最后一个模型的答案无论得分都留下；问过的每个模型都付钱。打分器的 AUC：${scorerNoises.map((n) => `σ = ${n} 时 ${f(scorerAuc(n), 3)}`).join("，")}。`,
        `路由器 ${p.weak}/${p.strong}：每题只调用一次，难度估计的百分位 ≥ τ 就交给 ${p.strong}（于是大约 τ 的题交给 ${p.weak}）。估计与真实难度的相关系数：${routerNoises.map((n) => `σ = ${n} 时 ${f(routerCorrelation(n, rw.world.difficultySpread), 2)}`).join("，")}。`,
      ],
    };
  },
  claims: [
    {
      id: "ladder",
      says: "单个模型越贵越准",
      judge: (t) => {
        const singles = needRows(t, { method: "single" }).sort((a, b) => Number(a.costPerQuestion) - Number(b.costPerQuestion));
        const ok = singles.every((r, i) => i === 0 || Number(r.accuracy) > Number(singles[i - 1].accuracy));
        return { holds: ok, ours: singles.map((r) => `${r.setting} ${f(Number(r.accuracy), 3)}（${r.costPerQuestion}）`).join("，") };
      },
    },
    {
      id: "cascade-good-scorer",
      says: "打分器好时，级联以最强模型一小部分的价格追上它（相差不到一个百分点）",
      judge: (t, p) => {
        const s = strongestRow(t);
        const noise = Math.min(...(p.scorerNoises as number[]));
        const r = cheapestWithin(curveRows(t, "cascade", noise), Number(s.accuracy) - 0.01);
        return { holds: r !== null && Number(r.costShare) < 0.6, ours: `打分器噪声 ${noise}（AUC ${f(scorerAuc(noise), 3)}）：${reachText(r, String(s.setting))}` };
      },
    },
    {
      id: "cascade-exceeds",
      says: "打分器好时，级联的最高准确率能超过最强的单个模型：它手里有几个模型的答案，只要一个对、打分器认得出就行",
      judge: (t, p) => {
        const s = strongestRow(t);
        const noise = Math.min(...(p.scorerNoises as number[]));
        const best = curveRows(t, "cascade", noise).reduce((a, b) => (Number(b.accuracy) > Number(a.accuracy) ? b : a));
        return { holds: Number(best.accuracy) > Number(s.accuracy), ours: `级联最高 ${f(Number(best.accuracy), 3)}（τ = ${f(Number(best.threshold), 2)}），${s.setting} 单干 ${f(Number(s.accuracy), 3)}` };
      },
    },
    {
      id: "bad-scorer-expensive",
      says: "打分器差时，级联只能把阈值抬高，很多题一路问到最强的模型，前面的调用白付钱，省下的少得多",
      judge: (t, p) => {
        const noises = p.scorerNoises as number[];
        needParam(noises.length >= 2, "需要至少两个打分器噪声");
        const s = strongestRow(t);
        const target = Number(s.accuracy) - 0.01;
        const good = cheapestWithin(curveRows(t, "cascade", Math.min(...noises)), target);
        const bad = cheapestWithin(curveRows(t, "cascade", Math.max(...noises)), target);
        return {
          holds: good !== null && (bad === null || Number(bad.costShare) > Number(good.costShare) + 0.1),
          ours: `噪声 ${Math.min(...noises)}：${reachText(good, String(s.setting))}；噪声 ${Math.max(...noises)}：${reachText(bad, String(s.setting))}${bad ? `，${pct(Number(bad.strongestShare))} 的题由 ${s.setting} 作答` : ""}`,
        };
      },
    },
    {
      id: "router-capped",
      says: "路由器每题只问一个模型，准确率以强模型单干为上限；它省下的是把简单题也交给大模型的钱",
      judge: (t, p) => {
        const strong = needRows(t, { method: "single", setting: p.strong })[0];
        const routers = needRows(t, { method: "router" });
        const best = Math.max(...routers.map((r) => Number(r.accuracy)));
        const exact = cheapestWithin(curveRows(t, "router", Math.min(...(p.routerNoises as number[]))), Number(strong.accuracy) - 0.01);
        return {
          holds: best <= Number(strong.accuracy) + 0.01,
          ours: `路由器最高 ${f(best, 3)}，${p.strong} 单干 ${f(Number(strong.accuracy), 3)}；难度估计最准时 ${reachText(exact, String(p.strong))}`,
        };
      },
    },
  ],
});

// ---------------------------------------------------------------------------------------------------------------

/** "低 0.2–1.0" / "高 1.1 到低 1.0" / "高 0.3–1.1": a range of accuracy gaps (points below the strongest model;
 * negative = above it) in words, never "低 -1.1". */
export function gapRangeText(gaps: number[]): string {
  const lo = Math.min(...gaps);
  const hi = Math.max(...gaps);
  const word = (g: number) => (g <= -0.05 ? `高 ${f(-g, 1)}` : `低 ${f(Math.max(g, 0), 1)}`);
  if (word(lo) === word(hi)) return word(lo);
  if (lo > -0.05) return `低 ${f(Math.max(lo, 0), 1)}–${f(hi, 1)}`;
  if (hi <= -0.05) return `高 ${f(-hi, 1)}–${f(-lo, 1)}`;
  return `${word(lo)} 到${word(hi)}`;
}

/** "路由器 6 / 6 行、级联 1 / 7 行": which rows missed the target, by method. */
function missedText(rows: Row[], missed: Row[]): string {
  return [["cascade", "级联"], ["router", "路由器"]]
    .filter(([m]) => missed.some((r) => r.method === m))
    .map(([m, name]) => `${name} ${missed.filter((r) => r.method === m).length} / ${rows.filter((r) => r.method === m).length} 行`)
    .join("、");
}

const FINE_THRESHOLDS: readonly number[] = Array.from({ length: 101 }, (_, i) => i / 100);

export const signalWorth = defineDemo({
  id: "05.2",
  section: "§5",
  title: "信号值多少钱：追上最强模型要花的钱，随信号噪声变化",
  // Size: 05.1's question sets; the noise grids reach the point where the cascade costs more than the strongest model.
  defaults: {
    ...routingDefaults(),
    scorerNoises: [0, 0.25, 0.5, 0.75, 1, 1.5, 2],
    routerNoises: [0, 0.25, 0.5, 1, 2, 4],
    tolerancePoints: 1,
  },
  describe: {
    ...BASE_DOCS,
    train: { meaning: "训练题数：在这些题上挑最便宜的合格阈值", range: "≥ 10 的整数" },
    test: { meaning: "测试题数：挑出的阈值在这些题上量准确率和价格", range: "≥ 10 的整数" },
    scorerNoises: { meaning: "级联打分器的噪声 σ", range: "非空数组，每项 ≥ 0" },
    routerNoises: { meaning: "路由器难度估计的噪声 σ", range: "非空数组，每项 ≥ 0" },
    tolerancePoints: { meaning: "比最强模型的训练准确率低多少以内算追上（百分点）", range: "0–100" },
  },
  run(p, { progress }) {
    const rw = world(p);
    const scorerNoises = checkNoises("scorerNoises", p.scorerNoises);
    const routerNoises = checkNoises("routerNoises", p.routerNoises);
    const tolerance = checkNumber("tolerancePoints", p.tolerancePoints, { min: 0, max: 100 }) / 100;
    const trainStrongest = strongestOf(singleModels(rw, "train"));
    const testSingles = singleModels(rw, "test");
    const strongest = testSingles.find((s) => s.setting === trainStrongest.setting) as RoutingResult;
    const target = Math.max(0, trainStrongest.accuracy - tolerance);
    const rows: Row[] = [];
    const add = (method: "cascade" | "router", noise: number, train: RoutingResult[], test: (t: number) => RoutingResult) => {
      // the cheapest τ on the training questions; when no τ matches (cannot happen at the ends: τ = 1 for the cascade
      // ending in the strongest model, τ = 0 for the router), the most accurate one
      const chosen = cheapestReaching(train, target) ?? train.reduce((a, b) => (b.accuracy > a.accuracy ? b : a));
      const r = test(chosen.threshold as number);
      rows.push({
        method,
        setting: r.setting,
        signalNoise: noise,
        scorerAuc: method === "cascade" ? scorerAuc(noise) : null,
        routerCorrelation: method === "router" ? routerCorrelation(noise, rw.world.difficultySpread) : null,
        threshold: chosen.threshold,
        trainAccuracy: chosen.accuracy,
        accuracy: r.accuracy,
        accuracyGapPoints: (strongest.accuracy - r.accuracy) * 100,
        costPerQuestion: r.costPerQuestion,
        costShare: r.costPerQuestion / strongest.costPerQuestion,
      });
    };
    for (const noise of scorerNoises) {
      progress?.(`05.2：级联，打分器噪声 ${noise}`);
      const base = { models: p.cascade, scorerNoise: noise };
      const train = cascadeCurve(rw, { ...base, thresholds: FINE_THRESHOLDS, split: "train" });
      add("cascade", noise, train, (t) => cascadeCurve(rw, { ...base, thresholds: [t], split: "test" })[0]);
    }
    for (const noise of routerNoises) {
      progress?.(`05.2：路由器，难度估计噪声 ${noise}`);
      const base = { weak: p.weak, strong: p.strong, routerNoise: noise };
      const train = routerCurve(rw, { ...base, thresholds: FINE_THRESHOLDS, split: "train" });
      add("router", noise, train, (t) => routerCurve(rw, { ...base, thresholds: [t], split: "test" })[0]);
    }
    return {
      title: `信号值多少钱：追上 ${strongest.setting}（差 ${p.tolerancePoints} 个百分点以内）要花的钱，随信号噪声变化（种子 ${String(p.seed)}）`,
      columns: [
        { key: "method", label: "做法", format: "name" },
        { key: "setting", label: "模型", format: "text" },
        { key: "signalNoise", label: "信号噪声 σ", format: "sig3" },
        { key: "scorerAuc", label: "打分器 AUC", format: "fixed3" },
        { key: "routerCorrelation", label: "估计与难度的相关系数", format: "fixed2" },
        { key: "threshold", label: "τ（在训练集上挑）", format: "fixed2" },
        { key: "trainAccuracy", label: "训练准确率", format: "fixed3" },
        { key: "accuracy", label: "测试准确率", format: "fixed3" },
        { key: "accuracyGapPoints", label: `${strongest.setting} 单干减去此行（测试准确率；正数 = 此行更低）`, unit: "百分点", format: "fixed1" },
        { key: "costPerQuestion", label: "每题价格（测试）", unit: "价格单位", format: "fixed2" },
        { key: "costShare", label: `÷ ${strongest.setting} 的价格`, format: "percent0" },
      ],
      rows,
      notes: [
        `每个噪声水平：τ 取 0, 0.01, …, 1 里训练准确率与 ${strongest.setting} 单干（训练 ${f(trainStrongest.accuracy, 3)}）相差不到 ${p.tolerancePoints} 个百分点的最便宜的一个；再在 ${rw.world.test.size} 道测试题上量它的准确率和价格（${strongest.setting} 单干：${f(strongest.accuracy, 3)}，每题 ${strongest.costPerQuestion}）。训练题 ${rw.world.train.size} 道。`,
        `级联 ${p.cascade.join("→")}（打分器 AUC = Φ(√2 / σ)）；路由器 ${p.weak}/${p.strong}（弱模型 ${p.weak}、强模型 ${p.strong}；相关系数 = 难度标准差 / √(难度标准差² + σ²)，难度标准差 ${rw.world.difficultySpread}）。价格比超过 100%：级联追上 ${strongest.setting} 反而比它单干还贵。`,
      ],
    };
  },
  claims: [
    {
      id: "cascade-price-rises",
      says: "打分器越差，级联追上最强模型要花的钱越多；噪声大到一定程度，还不如直接用最强的模型",
      judge: (t) => {
        const rs = needRows(t, { method: "cascade" }).sort((a, b) => Number(a.signalNoise) - Number(b.signalNoise));
        needParam(rs.length >= 2, "需要至少两个打分器噪声");
        const first = rs[0];
        const last = rs[rs.length - 1];
        const noSaving = rs.find((r) => Number(r.costShare) >= 1);
        return {
          holds: Number(last.costShare) > Number(first.costShare) && noSaving !== undefined,
          ours: `AUC ${f(Number(first.scorerAuc), 3)} 时 ${pct(Number(first.costShare))}，AUC ${f(Number(last.scorerAuc), 3)} 时 ${pct(Number(last.costShare))}${noSaving ? `；从噪声 ${noSaving.signalNoise}（AUC ${f(Number(noSaving.scorerAuc), 3)}）起一点也省不下` : ""}`,
        };
      },
    },
    {
      id: "router-price-rises",
      says: "难度估计越不准，路由器追上最强模型的价格越高，但不会比强模型单干更贵（最坏就是全交给它）",
      judge: (t, p) => {
        const rs = needRows(t, { method: "router" }).sort((a, b) => Number(a.signalNoise) - Number(b.signalNoise));
        needParam(rs.length >= 2, "需要至少两个难度估计噪声");
        const first = rs[0];
        const last = rs[rs.length - 1];
        return {
          holds: Number(last.costShare) > Number(first.costShare) && rs.every((r) => Number(r.costShare) <= 1 + 1e-9),
          ours: `相关系数 ${f(Number(first.routerCorrelation), 2)} 时 ${pct(Number(first.costShare))}，${f(Number(last.routerCorrelation), 2)} 时 ${pct(Number(last.costShare))}`,
          remark: heldOutRemark(rs, Number(p.tolerancePoints)),
        };
      },
    },
    {
      id: "held-out",
      says: "阈值在训练集上挑（比最强模型低不到参数 tolerancePoints 给的百分点数——默认 1 个——的最便宜的一个），到测试集上仍达到同一个目标：每一行都低不到那么多（阈值不是照着测试集挑的）",
      judge: (t, p) => {
        needParam(t.rows.length > 0, "没有行");
        const tolerance = Number(p.tolerancePoints);
        const missed = t.rows.filter((r) => Number(r.accuracyGapPoints) > tolerance + 1e-9);
        const ours = [["cascade", "级联"], ["router", "路由器"]]
          .map(([m, name]) => ({ name, gaps: t.rows.filter((r) => r.method === m).map((r) => Number(r.accuracyGapPoints)) }))
          .filter((x) => x.gaps.length > 0)
          .map((x) => `${x.name}各行比最强模型${gapRangeText(x.gaps)} 个百分点`)
          .join("；");
        return {
          holds: missed.length === 0,
          ours: `测试集上：${ours}`,
          why: `${missedText(t.rows, missed)}在测试集上比最强模型低了不止 ${tolerance} 个百分点；${dropText(t.rows, missed)}：每个噪声水平挑的是训练集上刚好达到目标的最便宜的阈值，换一批题目掉下的那一点就让它不达标；要在新题目上也达标，训练时得把目标定得更严。`,
        };
      },
    },
  ],
});

/** How much the rows that missed the target lost from the training to the test set, beside the other rows (points). */
function dropText(rows: Row[], missed: Row[]): string {
  const change = (r: Row) => 100 * (Number(r.accuracy) - Number(r.trainAccuracy));
  const span = (xs: number[]) => (Math.min(...xs) === Math.max(...xs) ? f(xs[0], 1) : `${f(Math.min(...xs), 1)} 到 ${f(Math.max(...xs), 1)}`);
  const rest = rows.filter((r) => !missed.includes(r));
  return `这些行的准确率从训练集到测试集变化 ${span(missed.map(change))} 个百分点${rest.length ? `（其余各行 ${span(rest.map(change))}）` : ""}`;
}

/** A "catch-up" price is the price of the threshold picked on the training set: where the router's rows fall short on
 * the test set, say so beside the price (the held-out claim judges that). */
function heldOutRemark(routerRows: Row[], tolerance: number): string | undefined {
  const short = routerRows.filter((r) => Number(r.accuracyGapPoints) > tolerance + 1e-9);
  if (short.length === 0) return undefined;
  return `价格是训练集上挑的阈值的价格；到测试集上 ${short.length} / ${routerRows.length} 行比最强模型低了不止 ${tolerance} 个百分点，并没有真正追上（见“阈值在训练集上挑”那一条）`;
}

export const modelRoutingDemos = [cascadeVsRouter, signalWorth];
