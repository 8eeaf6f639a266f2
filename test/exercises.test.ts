// Exercises (§9): reference answers agree with independent computations; check() reads answers the way people write
// them and says why one is not right (a table of answers that must pass and must fail, with the message each gets);
// what reveal() / rubric() / progress() show; check() under nbgrader's autograder.
import { afterEach, describe, expect, it } from "vitest";
import {
  boldSpans,
  check,
  checkStrict,
  evaluate,
  exerciseLabel,
  explanationHtml,
  getExercise,
  listExercises,
  progress,
  referenceAnswer,
  resetProgress,
  sessionResults,
  type CheckKind,
  type CheckStatus,
} from "../lib/exercises";
import { runDemo } from "../lib/demos";

const num = (id: string, i = 0) => {
  const a = referenceAnswer(id);
  return Number(Array.isArray(a) ? a[i] : a);
};

describe("reference answers agree with independent computations", () => {
  it("1(a): the asymptotic formulas at n = 10^6 (5.26 and 3.79)", () => {
    const n = 1e6;
    expect(num("1a", 0)).toBeCloseTo(Math.log(n) / Math.log(Math.log(n)), 10);
    expect(num("1a", 1)).toBeCloseTo(Math.log(Math.log(n)) / Math.LN2, 10);
    expect(num("1a", 0).toFixed(2)).toBe("5.26");
    expect(num("1a", 1).toFixed(2)).toBe("3.79");
  });
  it("1(b): the formulas at n = 10^5 (4.71 and 3.53), both below the measured random max load", () => {
    expect(num("1b", 0).toFixed(2)).toBe("4.71");
    expect(num("1b", 1).toFixed(2)).toBe("3.53");
    const t = runDemo("01.1", { ns: [100000], trials: 5 });
    expect(Number(t.rows[0].random)).toBeGreaterThan(num("1b", 0) + 2);
  });
  it("2(a): M/M/1 at ρ = 0.9 is 10 service times", () => {
    expect(num("2a")).toBeCloseTo(10, 9);
  });
  it("3(a)/(b): E2's split, and the prefill of exercise 3 on each replica", () => {
    expect(referenceAnswer("3a")).toEqual([21013, 1987, "exploit", 2]);
    const [tokensOnHolder, onHolder, tokensOnOther, onOther] = referenceAnswer("3b") as number[];
    expect([tokensOnHolder, tokensOnOther]).toEqual([1987, 23000 - 13]);
    expect(onHolder).toBeGreaterThan(0.2);
    expect(onHolder).toBeLessThan(0.2817); // fewer than 2,100 tokens
    expect(onOther).toBeGreaterThan(4); // the lecture: "more than 4 seconds"
    expect(onOther / onHolder).toBeGreaterThan(10);
  });
  it("4, 4(a)–(c): KV capacity, documents per replica, the ideal partition, Zipf-1.1 top-3 share by a direct sum", () => {
    expect(num("4")).toBe(219089);
    expect(num("4a")).toBe(Math.floor(219089 / 21000));
    expect(num("4b")).toBe(4 * Math.floor(219089 / 21000));
    let h = 0;
    for (let k = 1; k <= 300; k++) h += Math.pow(k, -1.1);
    const top3 = (1 + Math.pow(2, -1.1) + Math.pow(3, -1.1)) / h;
    expect(num("4c")).toBeCloseTo(top3, 12);
    expect(Math.round(num("4c") * 100)).toBe(36);
  });
  it("5(a): 63 of 100 tokens cached → group 6", () => {
    expect(num("5a")).toBe(6);
  });
  it("6(a): 10^6 allocations and a minimum of 60 by formula", () => {
    expect(referenceAnswer("6a")).toEqual([Math.pow(10, 6), 10 * 6]);
  });
  it("6(b): LLMSelector's count from C+C is whole rounds of K = 5", () => {
    const v = num("6b");
    expect(v % 5).toBe(0);
    expect(v).toBeGreaterThanOrEqual(10);
  });
  it("7(a)/(b): costs by price sums and their ratio; the 0.1-per-point rule", () => {
    expect(referenceAnswer("7a")).toEqual([5 + 3, 1 + 1, 4]);
    const t = runDemo("04.1");
    const ab = Number(t.rows.find((r) => r.method === "llmSelector" && r.start === "C+C")?.testAcc);
    const cc = Number(t.rows.find((r) => r.method === "greedy" && r.start === "C+C")?.testAcc);
    expect(referenceAnswer("7b")).toBe(6 / ((ab - cc) * 100) > 0.1 ? "C+C" : "A+B");
  });
});

// Per part: answers that must pass and must fail, and the exact message each gets. "accepted" = right, written
// another way (a percentage for a share, whole balls, "利用"): accepted, and the message says how it was read.
const TABLE: Array<[string, unknown, CheckStatus, CheckKind, string]> = [
  // 1a
  ["1a", [5.26, 3.79], "correct", "ok", "和库算出的参考答案一致。"],
  ["1a", [5, 4], "correct", "accepted", "换了写法，也算对：第 1 个值（随机）5 按\"约几个球\"的整数答案读（公式值不是整数，保留两位小数更准）；第 2 个值（二选一）4 按\"约几个球\"的整数答案读（公式值不是整数，保留两位小数更准）。"],
  ["1a", "5.26, 3.79", "correct", "ok", "和库算出的参考答案一致。"],
  ["1a", ["５.２６", "3.79"], "correct", "ok", "和库算出的参考答案一致。"],
  ["1a", [NaN, NaN], "unanswered", "placeholder", "把占位的 NaN（或 \"?\"）换成你的答案，运行答案单元格，再运行检查单元格。"],
  ["1a", [5.26, NaN], "wrong", "partial", "还有 1 个值没填：第 2 个值（二选一）。"],
  ["1a", 5.26, "wrong", "count", "需要 2 个值，按 [随机, 二选一] 的顺序；你给了 1 个。"],
  ["1a", [3.79, 5.26], "wrong", "order", "每个值都对，但顺序不对：请按 [随机, 二选一] 的顺序给出。"],
  ["1a", [7.71, 3.79], "wrong", "value", "第 1 个值（随机）7.71 不对：看起来用了以 10 为底的对数；公式里的 ln 是自然对数（Math.log）。"],
  ["1a", [6, 4], "wrong", "value", "第 1 个值（随机）6 不对。提示：随机用 ln n / ln ln n，二选一用 ln ln n / ln 2；两个数按 [随机, 二选一] 的顺序给出。"],
  ["1a", { random: 5.26 }, "wrong", "type", "应是一个数组 [随机, 二选一]，你给的是一个对象。"],
  // 1b
  ["1b", [4.71, 3.53], "correct", "ok", "和库算出的参考答案一致。"],
  ["1b", [4.7, 3.5], "correct", "ok", "和库算出的参考答案一致。"],
  ["1b", [5, 4], "wrong", "value", "第 1 个值（随机）5 不对；第 2 个值（二选一）4 不对。提示：把 n = 100,000 代入 ln n / ln ln n 与 ln ln n / ln 2。"],
  ["1b", [4.71], "wrong", "count", "需要 2 个值，按 [随机, 二选一] 的顺序；你给了 1 个。"],
  // 2a
  ["2a", 10, "correct", "ok", "和库算出的参考答案一致。"],
  ["2a", "10", "correct", "ok", "和库算出的参考答案一致。"],
  ["2a", "10 个服务时间", "correct", "ok", "和库算出的参考答案一致。"],
  ["2a", NaN, "unanswered", "placeholder", "把占位的 NaN（或 \"?\"）换成你的答案，运行答案单元格，再运行检查单元格。"],
  ["2a", 9, "wrong", "value", "9 不对：这是平均等待时间（不含服务本身）；响应时间 = 等待 + 服务。"],
  ["2a", 1000, "wrong", "value", "1000 不对：差了 100 倍：是不是把百分数和小数弄混了？"],
  ["2a", true, "wrong", "type", "应是一个数，你给的是布尔值 true。"],
  ["2a", "十", "wrong", "type", "应是一个数，你给的是文字 \"十\"。"],
  // 3a
  ["3a", [21013, 1987, "exploit", 2], "correct", "ok", "和库算出的参考答案一致。"],
  ["3a", ["21,013", "1,987", "利用", "副本 2"], "correct", "ok", "和库算出的参考答案一致。"],
  ["3a", [21013, 1987, " Exploit ", [2]], "correct", "ok", "和库算出的参考答案一致。"],
  ["3a", "21,013、1,987、利用、2", "correct", "ok", "和库算出的参考答案一致。"],
  ["3a", [NaN, NaN, "?", NaN], "unanswered", "placeholder", "把占位的 NaN（或 \"?\"）换成你的答案，运行答案单元格，再运行检查单元格。"],
  ["3a", [21013, 1987, "explore", 2], "wrong", "value", "第 3 个值（决定）\"explore\" 不对。提示：cached = 最长匹配（系统提示 + 文档），missed = 提示 − cached；cached > missed 时利用，候选只在持有最长匹配的副本中。答案顺序：[cached, missed, 决定, 副本号]。"],
  ["3a", [21013, 1987, "探索", 2], "wrong", "value", "第 3 个值（决定）\"探索\" 不对。提示：cached = 最长匹配（系统提示 + 文档），missed = 提示 − cached；cached > missed 时利用，候选只在持有最长匹配的副本中。答案顺序：[cached, missed, 决定, 副本号]。"],
  ["3a", [1987, 21013, "exploit", 2], "wrong", "order", "每个值都对，但顺序不对：请按 [cached, missed, 决定, 副本号] 的顺序给出。"],
  ["3a", [21000, 1987, "exploit", 2], "wrong", "value", "第 1 个值（cached）21000 不对：cached 还包括 13 个 token 的系统提示：最长匹配是系统提示 + 文档。"],
  ["3a", [21013, 1987, 1, 2], "wrong", "type", "第 3 个值（决定）应是文字 \"exploit\"（利用 / exploitation）或 \"explore\"（探索 / exploration），你给的是数 1。"],
  ["3a", [21013, 1987, "exploit 或 explore", 2], "wrong", "format", "第 3 个值（决定）\"exploit 或 explore\" 里同时出现了 \"exploit\" 和 \"explore\"，只能选一个。"],
  ["3a", [21013, 1987, "exploit"], "wrong", "count", "需要 4 个值，按 [cached, missed, 决定, 副本号] 的顺序；你给了 3 个。"],
  // 3b
  ["3b", [1987, 0.266, 22987, 4.24], "correct", "ok", "和库算出的参考答案一致。"],
  ["3b", [1987, "0.27 秒", "23,000", "4.2s"], "correct", "ok", "和库算出的参考答案一致。"],
  ["3b", [1987, 266, 22987, 4240], "wrong", "value", "第 2 个值（副本 2 的秒数）266 不对：差了 1000 倍：看看单位（秒 / 毫秒，token / 千 token）；第 4 个值（副本 0 的秒数）4240 不对：差了 1000 倍：看看单位（秒 / 毫秒，token / 千 token）。"],
  ["3b", [1987, 0.468, 22987, 4.24], "wrong", "value", "第 2 个值（副本 2 的秒数）0.468 不对：这里把已缓存部分的注意力开销也算进去了；题目说忽略它：只传新 token 数 prefill(n)。"],
  ["3b", [1987, 0.266, 21000, 3.77], "wrong", "value", "第 3 个值（副本 0 的 token 数）21000 不对：副本 0 除了文档还要算问题部分；第 4 个值（副本 0 的秒数）3.77 不对：这是只算文档的时间；副本 0 还要算问题部分。"],
  ["3b", [0.266, 4.24], "wrong", "count", "需要 4 个值，按 [副本 2 的 token 数, 副本 2 的秒数, 副本 0 的 token 数, 副本 0 的秒数] 的顺序；你给了 2 个。"],
  // 4
  ["4", 219089, "correct", "ok", "和库算出的参考答案一致。"],
  ["4", "219,089", "correct", "ok", "和库算出的参考答案一致。"],
  ["4", "２１９，０８９", "correct", "ok", "和库算出的参考答案一致。"],
  ["4", "219089 token", "correct", "ok", "和库算出的参考答案一致。"],
  ["4", 243394, "wrong", "value", "243394 不对：看起来把 1 GB 当成了 2³⁰ 字节（GiB）；本题按 1 GB = 10⁹ 字节算。"],
  ["4", 255710, "wrong", "value", "255710 不对：只有 90% 的显存可用：先乘 0.9 再减权重。"],
  ["4", "21.9万", "correct", "ok", "和库算出的参考答案一致。"],
  ["4", "219.089", "wrong", "value", "\"219.089\" 不对：差了 1000 倍：看看单位（秒 / 毫秒，token / 千 token）。"],
  // 4a
  ["4a", 10, "correct", "ok", "和库算出的参考答案一致。"],
  ["4a", "10 份", "correct", "ok", "和库算出的参考答案一致。"],
  ["4a", 10.43, "wrong", "value", "10.43 不对：份数要向下取整：放不下的那一份不算。"],
  ["4a", 11, "wrong", "value", "11 不对：份数要向下取整：放不下的那一份不算。"],
  ["4a", 219089, "wrong", "value", "219089 不对：这是练习 4 题干（KV 容量）的答案；4(a) 问的是一个副本能放几份文档。"],
  // 4b
  ["4b", 40, "correct", "ok", "和库算出的参考答案一致。"],
  ["4b", 10, "wrong", "value", "10 不对：这是一个副本的份数；理想分区时 4 个副本各存各的、互不重复。"],
  ["4b", 41, "wrong", "value", "41 不对。提示：理想分区时 4 个副本互不重复：一个副本的份数 × 4。"],
  // 4c
  ["4c", 0.36, "correct", "ok", "和库算出的参考答案一致。"],
  ["4c", 0.358, "correct", "ok", "和库算出的参考答案一致。"],
  ["4c", "０．３６", "correct", "ok", "和库算出的参考答案一致。"],
  ["4c", "36%", "correct", "accepted", "换了写法，也算对：\"36%\" 按 0.36 读（题目要的是小数）。"],
  ["4c", "36％", "correct", "accepted", "换了写法，也算对：\"36％\" 按 0.36 读（题目要的是小数）。"],
  ["4c", 36, "correct", "accepted", "换了写法，也算对：36 看起来是百分数，按 36% = 0.36 读；题目要的是小数，下次写 0.36。"],
  ["4c", 0.2, "wrong", "value", "0.2 不对：这只是第 1 名的份额；题目问前三名合起来。"],
  ["4c", 0.5, "wrong", "value", "0.5 不对。提示：第 k 份的份额是 k^−1.1 ÷ Σ_{j=1}^{300} j^−1.1；把前三名加起来。"],
  ["4c", "0,36", "wrong", "format", "\"0,36\" 里的逗号像是小数点：逗号只作千位分隔，小数点请写「.」。"],
  // 5a
  ["5a", 6, "correct", "ok", "和库算出的参考答案一致。"],
  ["5a", "６", "correct", "ok", "和库算出的参考答案一致。"],
  ["5a", "第 6 组", "correct", "ok", "和库算出的参考答案一致。"],
  ["5a", 7, "wrong", "value", "7 不对：组号是 ⌊已缓存比例 × P⌋，向下取整。"],
  ["5a", 0.63, "wrong", "value", "0.63 不对：0.63 是已缓存比例；组号是它乘 P 再向下取整。"],
  ["5a", 63, "wrong", "value", "63 不对：组号在 0 到 9 之间：已缓存比例 × P，向下取整。"],
  // 6a
  ["6a", [1000000, 60], "correct", "ok", "和库算出的参考答案一致。"],
  ["6a", ["10^6", 60], "correct", "ok", "和库算出的参考答案一致。"],
  ["6a", ["10⁶", "60"], "correct", "ok", "和库算出的参考答案一致。"],
  ["6a", ["100万", 60], "correct", "ok", "和库算出的参考答案一致。"],
  ["6a", ["1e6", 60], "correct", "ok", "和库算出的参考答案一致。"],
  ["6a", [60466176, 60], "wrong", "value", "第 1 个值（穷举的分配数）60466176 不对：是 K^L = 10^6（每个模块 10 种选择），不是 L^K。"],
  ["6a", [1000000, 70], "wrong", "value", "第 2 个值（LLMSelector 最少评估数）70 不对：停止要求最近 L + 1 个分配相同，但初始分配也算其中一个：只需 L 轮。"],
  ["6a", [1000000, 6], "wrong", "value", "第 2 个值（LLMSelector 最少评估数）6 不对：6 是轮数；每轮要评估 K = 10 个分配。"],
  ["6a", [60, 1000000], "wrong", "order", "每个值都对，但顺序不对：请按 [穷举的分配数, LLMSelector 最少评估数] 的顺序给出。"],
  // 6b
  ["6b", 20, "correct", "ok", "和库算出的参考答案一致。"],
  ["6b", "20", "correct", "ok", "和库算出的参考答案一致。"],
  ["6b", 10, "wrong", "value", "10 不对：10 是论文在 TableArithmetic 上报告的数；数一数演示 04.1 里 LLMSelector 实际跑了几轮（含确认收敛的轮次）。"],
  ["6b", 25, "wrong", "value", "25 不对。提示：看演示 04.1 的表：LLMSelector 从 C+C 出发的路径走了几轮；每轮评估 K = 5 个分配（5 个模型）。"],
  // 7a
  ["7a", [8, 2, 4], "correct", "ok", "和库算出的参考答案一致。"],
  ["7a", ["8", "2", "4 倍"], "correct", "ok", "和库算出的参考答案一致。"],
  ["7a", [8, 2, 3], "wrong", "value", "第 3 个值（倍数）3 不对：问的是 A+B 是 C+C 的几倍（两者相除），不是多出几倍。"],
  ["7a", [8, 2, 6], "wrong", "value", "第 3 个值（倍数）6 不对：这是差价；问的是倍数（两者相除）。"],
  ["7a", [2, 8, 4], "wrong", "order", "每个值都对，但顺序不对：请按 [A+B 的成本, C+C 的成本, 倍数] 的顺序给出。"],
  ["7a", [8, 2], "wrong", "count", "需要 3 个值，按 [A+B 的成本, C+C 的成本, 倍数] 的顺序；你给了 2 个。"],
  // 7b
  ["7b", "C+C", "correct", "ok", "和库算出的参考答案一致。"],
  ["7b", "c + c", "correct", "ok", "和库算出的参考答案一致。"],
  ["7b", "Ｃ＋Ｃ", "correct", "ok", "和库算出的参考答案一致。"],
  ["7b", "?", "unanswered", "placeholder", "把占位的 NaN（或 \"?\"）换成你的答案，运行答案单元格，再运行检查单元格。"],
  ["7b", "A+B", "wrong", "value", "\"A+B\" 不对。提示：用代码 04 演示 1 的测试准确率：多花的钱 ÷ 多得的百分点，和 0.1 比。"],
  ["7b", "D+E", "wrong", "format", "\"D+E\" 不是可选的答案之一：请写 \"A+B\" 或 \"C+C\"。"],
  ["7b", true, "wrong", "type", "应是文字 \"A+B\" 或 \"C+C\"，你给的是布尔值 true。"],
];

describe("check() reads answers generously and says what is wrong", () => {
  for (const [id, answer, status, kind, message] of TABLE) {
    it(`${exerciseLabel(id)} ← ${JSON.stringify(answer, (_k, v) => (typeof v === "number" && Number.isNaN(v) ? "NaN" : v))}: ${status} (${kind})`, () => {
      const r = evaluate(id, answer);
      expect({ status: r.status, kind: r.kind, message: r.message }).toEqual({ status, kind, message });
      expect(r.passed).toBe(status === "correct");
      expect(r.points).toBe(status === "correct" ? getExercise(id).points : 0);
    });
  }

  it("the table covers every checked part with answers that pass and answers that fail", () => {
    for (const e of listExercises().filter((x) => x.reference)) {
      const rows = TABLE.filter((r) => r[0] === e.id);
      expect(rows.some((r) => r[2] === "correct"), e.id).toBe(true);
      expect(rows.some((r) => r[2] === "wrong"), e.id).toBe(true);
    }
    // the examples: 36 and "36%" for 4(c), "6" for 5(a), "219,089" for 4, "2" / "利用" for 3(a), [5, 4] for 1(a)
    expect(evaluate("4c", 36).passed && evaluate("4c", "36%").passed && evaluate("5a", "6").passed && evaluate("4", "219,089").passed).toBe(true);
    expect(evaluate("3a", [21013, 1987, "利用", "2"]).passed && evaluate("1a", [5, 4]).passed).toBe(true);
  });

  it("every part's own reference passes, and the placeholder of its answer cell is 尚未作答", () => {
    for (const e of listExercises().filter((x) => x.reference)) {
      const ref = referenceAnswer(e.id);
      expect(checkStrict(e.id, ref)).toBe(true);
      const placeholder = Array.isArray(ref) ? ref.map((v) => (typeof v === "number" ? NaN : "?")) : typeof ref === "number" ? NaN : "?";
      expect(evaluate(e.id, placeholder).status, e.id).toBe("unanswered");
    }
  });

  it("no message shows the reference value, and every message is Chinese", () => {
    for (const [id, answer, status] of TABLE) {
      const r = evaluate(id, answer);
      expect(/[\u4e00-\u9fff]/.test(r.message), r.message).toBe(true);
      expect(r.message).not.toMatch(/\b(expected|value|got|correct|matches)\b/);
      if (status === "correct") continue;
      const ref = referenceAnswer(id);
      for (const v of Array.isArray(ref) ? ref : [ref]) {
        if (typeof v !== "number" || Number.isInteger(v)) continue; // small integers appear in any sentence
        expect(r.message, `${id}: ${r.message}`).not.toContain(v.toFixed(2));
      }
    }
  });

  it("ids are taken as the lecture writes them; an unknown id is a Chinese ParameterError", () => {
    expect(evaluate("4(c)", 0.36).passed).toBe(true);
    expect(evaluate("4（c）", 0.36).passed).toBe(true);
    expect(evaluate("练习 1A", [5.26, 3.79]).id).toBe("1a");
    expect(() => evaluate("10z", 1)).toThrow(/参数 id：没有练习 "10z"；可选：1\(a\)、1\(b\)/);
    expect(() => referenceAnswer("8")).toThrow(/练习 8 是文字题.*reveal\("8"\)/);
    expect(() => evaluate("5b", "因为……")).toThrow(/练习 5\(b\) 是文字题/);
  });
});

describe("the parts, their points, precision and rubrics", () => {
  it("follow the lecture's numbering: exercise 4's stem, then its (a)–(c)", () => {
    expect(listExercises().map((e) => exerciseLabel(e.id))).toEqual(
      ["1(a)", "1(b)", "2(a)", "2(b)", "3(a)", "3(b)", "4", "4(a)", "4(b)", "4(c)", "5(a)", "5(b)", "6(a)", "6(b)", "7(a)", "7(b)", "7(c)", "8", "9"],
    );
  });
  it("checked parts state their precision and have one slot per value; open parts have a rubric that adds up", () => {
    for (const e of listExercises()) {
      if (e.reference) {
        const ref = referenceAnswer(e.id);
        expect(e.precision, e.id).toMatch(/[\u4e00-\u9fff]/);
        expect(e.slots?.length, e.id).toBe(Array.isArray(ref) ? ref.length : 1);
        expect(e.rubric, e.id).toBeUndefined();
      } else {
        expect(e.rubric?.length, e.id).toBeGreaterThan(0);
        expect(e.rubric!.reduce((a, r) => a + r.points, 0)).toBe(e.points);
      }
    }
    expect(listExercises().filter((e) => !e.reference).map((e) => e.id)).toEqual(["2b", "5b", "7c", "8", "9"]);
  });
  it("every explanation marks its answer values in bold, and renders to HTML without markdown left over", () => {
    for (const e of listExercises()) {
      const text = e.explanation();
      if (e.reference) expect(boldSpans(text).length, e.id).toBeGreaterThan(0);
      const html = explanationHtml(text);
      expect(html, e.id).not.toContain("**");
      expect(html, e.id).not.toMatch(/`/);
    }
    // 4(c): Notebook 6's markdown showed "**36%**" literally before 。; the HTML closes the bold itself
    expect(explanationHtml(getExercise("4c").explanation())).toMatch(/<b class="l11-answer">36%<\/b>（即 <b class="l11-answer">0\.36<\/b>）。/);
  });
});

describe("check(), reveal() and progress() in a reader's hands", () => {
  afterEach(() => {
    resetProgress();
    delete process.env.NBGRADER_EXECUTION;
  });

  it("check() returns nothing (a notebook would echo it) and records the latest result per part", () => {
    expect(check("4", 219089)).toBeUndefined();
    check("4c", 0.2);
    check("4c", "36%");
    expect(sessionResults().map((r) => [r.id, r.status])).toEqual([["4", "correct"], ["4c", "correct"]]);
  });

  it("progress() counts right, not yet right and open parts, and lists the parts answered in words", () => {
    const lines: string[] = [];
    const log = console.log;
    console.log = (s: string) => lines.push(String(s));
    try {
      check("1a", [5.26, 3.79]);
      check("2a", 9);
      lines.length = 0;
      progress();
    } finally {
      console.log = log;
    }
    const text = lines.join("\n");
    expect(text).toContain("自动检查的 17 题：做对 1 题（2 / 48 分），还不对 1 题，尚未作答 15 题；文字题 5 题（共 18 分）由老师评分。");
    expect(text).toMatch(/1\(a\)  2 分  正确（最近一次检查）/);
    expect(text).toMatch(/2\(a\)  1 分  还不对（最近一次检查）/);
    expect(text).toMatch(/4\(c\)  1 分  尚未作答$/m);
    expect(text).toMatch(/8  6 分  文字题（写在「你的答案」里/);
  });

  it("under nbgrader's autograder a part that is not right throws (its test cell earns 0); a right one does not", () => {
    process.env.NBGRADER_EXECUTION = "autograde";
    const log = console.log;
    console.log = () => undefined;
    try {
      expect(() => check("4", NaN)).toThrow(/练习 4：尚未作答/);
      expect(() => check("4", 1)).toThrow(/练习 4：还不对/);
      expect(() => check("4", 219089)).not.toThrow();
    } finally {
      console.log = log;
    }
  });
});
