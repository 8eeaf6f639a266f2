// 代码 01 演示 1 (§1.2): balls into bins — the fullest bin when each of n balls looks at d random bins, d = 1 … 4,
// against the asymptotic formulas ln n / ln ln n (d = 1) and ln ln n / ln d (d ≥ 2).
import { checkInteger, checkNonEmpty } from "../../core/errors";
import type { Column, Row, Table } from "../../core/table";
import { ballsIntoBins, choiceMaxLoadFormula, randomMaxLoadFormula } from "../../dispatch/balls-into-bins";
import { defineDemo } from "../registry";
import { cannotJudge, f, need, needParam } from "../claims";
import { checkDistinct, int } from "./shared";

const CHOICE_NAMES: Record<number, string> = { 1: "随机", 2: "二选一", 3: "三选一", 4: "四选一" };
const choiceName = (d: number) => CHOICE_NAMES[d] ?? `${d} 选一`;

/** Column key of d choices: "random" (d = 1), "twoChoice" (d = 2), "choice3", "choice4" … (stable: other notebooks
 * and the exercises read random / twoChoice). */
export function choiceKey(d: number): string {
  return d === 1 ? "random" : d === 2 ? "twoChoice" : `choice${d}`;
}

/** Trials at n: `trials`, but no more than ⌊maxBalls / n⌋ of them, and never fewer than 3 (unless trials < 3). */
export function trialsAt(n: number, trials: number, maxBalls: number): number {
  return Math.min(trials, Math.max(3, Math.floor(maxBalls / n)));
}

type BallsParams = { ns: number[]; choices: number[]; trials: number; maxBalls: number; seed: number | string };

const sortedChoices = (p: BallsParams) => [...p.choices].sort((a, b) => a - b);

const nsOf = (t: Table) => t.rows.map((r) => r.n as number).sort((a, b) => a - b);

export const ballsIntoBinsDemo = defineDemo({
  id: "01.1",
  section: "§1.2",
  title: "球放进盒子：每个球看 d 个盒子时最满的盒子",
  // Size: 20 trials per (n, d) up to a million balls: the claims compare growth over four decades of n and need the trials' standard deviation to judge the lecture's figures.
  defaults: { ns: [100, 1000, 10000, 100000, 1000000], choices: [1, 2, 3, 4], trials: 20, maxBalls: 1000000, seed: 1 } as BallsParams,
  describe: {
    ns: { meaning: "球数 n（= 盒子数），每个 n 一行", range: "非空数组，每项为 3–10,000,000 的整数，不重复" },
    choices: { meaning: "每个球随机看几个盒子 d（放进其中最空的）：1 = 随机放，2 = 二选一", range: "非空数组，每项为 1–8 的整数，不重复" },
    trials: { meaning: "每个 n 做几次独立试验取平均（n 大时受 maxBalls 限制）", range: "≥ 1 的整数" },
    maxBalls: { meaning: "每个 (n, d) 最多放多少个球：n 大时试验次数减到 ⌊maxBalls / n⌋，但不少于 3 次（也不多于 trials），让 n = 10⁶ 也很快", range: "≥ 1 的整数" },
    seed: { meaning: "随机种子：d 个选择的第 k 次试验用流 d<d>/trial<k>", range: "任意数或字符串" },
  },
  run(p, { progress }) {
    const ns = checkDistinct("ns", checkNonEmpty("ns", p.ns).map((n, i) => checkInteger(`ns[${i}]`, n, { min: 3, max: 10_000_000 })));
    const choices = checkDistinct("choices", checkNonEmpty("choices", p.choices).map((d, i) => checkInteger(`choices[${i}]`, d, { min: 1, max: 8 })));
    const trials = checkInteger("trials", p.trials, { min: 1 });
    const maxBalls = checkInteger("maxBalls", p.maxBalls, { min: 1 });
    const ds = [...choices].sort((a, b) => a - b);
    const trialCounts: string[] = [];
    const rows: Row[] = [...ns].sort((a, b) => a - b).map((n) => {
      const k = trialsAt(n, trials, maxBalls);
      trialCounts.push(`n = ${int(n)}：${k} 次`);
      const row: Row = { n };
      for (const d of ds) {
        progress?.(`球放进盒子 n = ${int(n)}, d = ${d}`);
        const r = ballsIntoBins({ n, d, trials: k, seed: p.seed });
        row[choiceKey(d)] = r.meanMaxLoad;
        row[`${choiceKey(d)}Sd`] = r.sdMaxLoad;
      }
      for (const d of ds) row[`${choiceKey(d)}Formula`] = d === 1 ? randomMaxLoadFormula(n) : choiceMaxLoadFormula(n, d);
      return row;
    });
    const columns: Column[] = [{ key: "n", label: "球数 n（= 盒子数）", format: "int" }];
    for (const d of ds) {
      columns.push({ key: choiceKey(d), label: `${choiceName(d)} (d = ${d})`, unit: "个球", format: "fixed2" });
      columns.push({ key: `${choiceKey(d)}Sd`, label: "± 标准差", unit: "个球", format: "fixed2" });
    }
    for (const d of ds) columns.push({ key: `${choiceKey(d)}Formula`, label: d === 1 ? "公式 ln n / ln ln n" : `公式 ln ln n / ln ${d}`, unit: "个球", format: "fixed2" });
    return {
      title: `球放进盒子：n 个球放进 n 个盒子，每个球看 ${ds.join("、")} 个盒子时最满的盒子（n = ${ns.length === 1 ? int(ns[0]) : `${int(Math.min(...ns))} … ${int(Math.max(...ns))}`}）`,
      columns,
      rows,
      notes: [
        `最满的盒子：所有盒子里球最多的那个有几个球，对每个 n 的若干次独立试验取平均（± 为试验间的标准差）。试验次数：${trialCounts.join("，")}（每个 (n, d) 最多放 ${int(maxBalls)} 个球，但不少于 3 次、不多于 ${trials} 次）。种子 ${String(p.seed)}，每次试验从空盒子开始。`,
        "每个球随机看 d 个盒子（可能重复），放进其中球最少的一个，并列时取先看到的（看的顺序是随机的，所以并列也是随机打破）。d = 1 就是随手乱放。",
        "公式只给出增长的阶（省略了常数和低阶项）：要比较的是每一列随 n 长得多快。",
      ],
    };
  },
  claims: [
    {
      id: "two-choice-exponential",
      says: "随机放时最满的盒子随 n 明显变满，二选一涨得慢得多：从看一个到看两个是指数级的改善",
      lecture: "随机约 ln n / ln ln n，二选一约 ln ln n / ln 2（n = 1,000 时 5.4 对 3.0，n = 10 万时 8.2 对 3.4）",
      judge: (t, p) => {
        needParam(p.choices.includes(1) && p.choices.includes(2), "需要 choices 里同时有 1（随机）和 2（二选一）");
        const ns = nsOf(t);
        needParam(ns.length >= 2 && ns[ns.length - 1] >= 100 * ns[0], "需要至少两个相差 100 倍以上的 n 才能比较增长");
        const [lo, hi] = [ns[0], ns[ns.length - 1]];
        const r0 = need(t, { n: lo }, "random");
        const r1 = need(t, { n: hi }, "random");
        const c0 = need(t, { n: lo }, "twoChoice");
        const c1 = need(t, { n: hi }, "twoChoice");
        return {
          holds: c1 < r1 / 1.8 && c1 - c0 < (r1 - r0) / 2.5,
          ours: `n 从 ${int(lo)} 到 ${int(hi)}：随机 ${f(r0, 2)} → ${f(r1, 2)} 个球（涨 ${f(r1 - r0, 2)}），二选一 ${f(c0, 2)} → ${f(c1, 2)}（涨 ${f(c1 - c0, 2)}）`,
        };
      },
    },
    {
      id: "more-choices-constant",
      says: "再多看几个盒子只省下一个常数：看三个、四个比看两个少得有限，远不及看两个比随手放省下的",
      lecture: "再多看几个只改善常数",
      judge: (t, p) => {
        const ds = sortedChoices(p);
        needParam(p.choices.includes(1) && p.choices.includes(2) && ds[ds.length - 1] >= 3, "需要 choices 里有 1、2 和至少一个 ≥ 3 的 d");
        const n = nsOf(t)[t.rows.length - 1];
        const dMax = ds[ds.length - 1];
        const r = need(t, { n }, "random");
        const two = need(t, { n }, "twoChoice");
        const many = need(t, { n }, choiceKey(dMax));
        const parts = ds.filter((d) => d >= 3).map((d) => `d = ${d} ${f(need(t, { n }, choiceKey(d)), 2)}`);
        return {
          holds: two - many >= -0.5 && two - many < (r - two) / 3,
          ours: `n = ${int(n)}：随机 ${f(r, 2)}，二选一 ${f(two, 2)}，${parts.join("，")}；二选一比随机少 ${f(r - two, 2)} 个球，d = ${dMax} 再少 ${f(two - many, 2)} 个`,
        };
      },
    },
    {
      id: "formulas-give-the-order",
      says: "公式只给增长的阶：二选一贴着它的公式，随机的实测值却比它的公式高出一截（低阶项收敛极慢）",
      lecture: "n = 10 万时公式给出 4.71 与 3.53，实测随机 8.2、二选一 3.4（练习 1）",
      judge: (t, p) => {
        needParam(p.choices.includes(1) && p.choices.includes(2), "需要 choices 里同时有 1 和 2");
        const ns = nsOf(t);
        const n = ns.includes(100000) ? 100000 : ns[ns.length - 1];
        needParam(n >= 1000, "需要一个 ≥ 1,000 的 n");
        const r = need(t, { n }, "random");
        const rf = need(t, { n }, "randomFormula");
        const c = need(t, { n }, "twoChoice");
        const cf = need(t, { n }, "twoChoiceFormula");
        return { holds: Math.abs(c - cf) < 1 && r - rf > 1.5, ours: `n = ${int(n)}：随机 ${f(r, 2)} 对公式 ${f(rf, 2)}，二选一 ${f(c, 2)} 对公式 ${f(cf, 2)}` };
      },
    },
    {
      id: "lecture-figures",
      says: "讲义量到的数字落在我们试验的波动之内（相差不到两个标准差）",
      lecture: "n = 1,000：随机 5.4、二选一 3.0；n = 10 万：随机 8.2、二选一 3.4",
      judge: (t, p) => {
        needParam(p.choices.includes(1) && p.choices.includes(2), "需要 choices 里同时有 1 和 2");
        const ns = nsOf(t);
        if (!ns.includes(1000) || !ns.includes(100000)) cannotJudge("讲义的数字是 n = 1,000 和 n = 100,000 的，需要 ns 里有这两个值");
        const lecture: Array<[number, string, number]> = [[1000, "random", 5.4], [1000, "twoChoice", 3.0], [100000, "random", 8.2], [100000, "twoChoice", 3.4]];
        const checks = lecture.map(([n, key, value]) => {
          const ours = need(t, { n }, key);
          const sd = need(t, { n }, `${key}Sd`);
          return { n, key, value, ours, sd, ok: Math.abs(ours - value) <= 2 * Math.max(sd, 0.1) };
        });
        return {
          holds: checks.every((c) => c.ok),
          ours: checks.map((c) => `n = ${int(c.n)} ${c.key === "random" ? "随机" : "二选一"} ${f(c.ours, 2)} ± ${f(c.sd, 2)}`).join("；"),
          remark: "最满盒子的球数是整数，单次试验之间相差一两个球很常见",
        };
      },
    },
  ],
});
