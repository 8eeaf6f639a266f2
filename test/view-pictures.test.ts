// The three pictures the lecture describes in words, as chart helpers fed by plain arrays: §1.3's queue lengths over
// time (the herding sawtooth), §3.2's E2 decision line, §3.1's global radix tree. Each passes the readability check
// (figures) or draws what it is given (the tree's SVG).
import { describe, expect, it } from "vitest";
import { queueLengthChart } from "../lib/view/queue-chart";
import { e2DecisionChart } from "../lib/view/decision-chart";
import { placeRadixTree, radixTreeSvg, radixTreeText, type RadixNodeDrawing } from "../lib/view/radix-tree-svg";
import { figureProblems } from "../lib/view/figure/check";
import { readableFigure } from "../lib/view/figure/readable";
import { checkFigure } from "../lib/view/plot";

const times = [0, 1, 2, 3, 4, 5, 6, 7, 8];
// stale JSQ (refresh every 4): the snapshot's shortest queue is flooded until the refresh, then another
const stale = [
  [0, 1, 2, 3, 4, 3, 2, 1, 0],
  [1, 1, 0, 0, 0, 1, 2, 3, 4],
  [2, 1, 1, 1, 1, 1, 1, 0, 0],
];
const twoChoices = [
  [1, 1, 2, 1, 2, 1, 1, 2, 1],
  [1, 2, 1, 1, 1, 2, 1, 1, 2],
  [1, 1, 1, 2, 1, 1, 2, 1, 1],
];

describe("queue lengths over time (§1.3)", () => {
  it("stacks one panel a dispatcher on one time axis, a step line a server in one colour across panels, refreshes dotted", () => {
    const f = queueLengthChart([
      { name: "过时的 JSQ（T = 4）", times, queues: stale, refreshTimes: [0, 4, 8] },
      { name: "二选一", times, queues: twoChoices },
    ]);
    checkFigure(f);
    expect(figureProblems(f)).toEqual([]);
    expect(figureProblems(readableFigure(f))).toEqual([]);
    expect(f.data.length).toBe(6);
    expect(f.data.map((d) => d.xaxis)).toEqual(["x", "x", "x", "x2", "x2", "x2"]);
    expect(f.data.every((d) => (d.line as { shape: string }).shape === "hv")).toBe(true);
    expect((f.data[0].line as { color: string }).color).toBe((f.data[3].line as { color: string }).color);
    expect(f.data.filter((d) => d.showlegend).map((d) => d.name)).toEqual(["服务器 0", "服务器 1", "服务器 2"]);
    const layout = f.layout as Record<string, any>;
    expect(layout.shapes.map((s: any) => [s.x0, s.xref])).toEqual([[0, "x"], [4, "x"], [8, "x"]]);
    expect(layout.xaxis2.title).toBe("时间（平均服务时间）");
    expect(layout.xaxis2.matches).toBe("x");
    expect(layout.annotations.map((a: any) => a.text)).toEqual(["<b>过时的 JSQ（T = 4）</b>", "<b>二选一</b>"]);
  });
  it("refuses queues that do not match the times", () => {
    expect(() => queueLengthChart([{ name: "p", times: [0, 1], queues: [[1, 2, 3]] }])).toThrow(/3 queue lengths for 2 times/);
    expect(() => queueLengthChart([])).toThrow(/no panel/);
  });
});

describe("E2's decision line (§3.2)", () => {
  const decisions = [
    { cachedTokens: 900, missedTokens: 100, kind: "exploit" as const },
    { cachedTokens: 600, missedTokens: 400, kind: "exploit" as const },
    { cachedTokens: 50, missedTokens: 950, kind: "explore" as const },
    { cachedTokens: 0, missedTokens: 1200, kind: "explore" as const },
    { cachedTokens: 700, missedTokens: 300, kind: "rebalance" as const },
  ];
  it("one trace a decision kind (with its count), coloured apart, and the diagonal cached = missed", () => {
    const f = e2DecisionChart(decisions);
    checkFigure(f);
    expect(figureProblems(readableFigure(f))).toEqual([]);
    expect(f.data.map((d) => d.name)).toEqual(["利用 exploit（2）", "探索 explore（2）", "再平衡改派（1）", "已缓存 = 未命中（判定线）"]);
    expect(f.data[0].x).toEqual([100, 400]); // x: missed, y: cached
    expect(f.data[0].y).toEqual([900, 600]);
    expect(new Set(f.data.slice(0, 3).map((d) => (d.marker as { color: string }).color)).size).toBe(3);
    expect(f.data[3]).toMatchObject({ mode: "lines", x: [0, 1200], y: [0, 1200] });
    // every exploit point lies above the line, every explore point below
    for (const d of decisions) expect(d.cachedTokens > d.missedTokens).toBe(d.kind !== "explore");
  });
  it("on log axes the line starts at the smallest positive count", () => {
    const f = e2DecisionChart(decisions, { log: true });
    expect(f.data[3].x).toEqual([50, 1200]);
    expect((f.layout as any).xaxis.type).toBe("log");
    expect(figureProblems(readableFigure(f))).toEqual([]);
    expect(() => e2DecisionChart([])).toThrow(/no decision/);
  });
});

describe("the global radix tree (§3.1)", () => {
  // §3.1's scenario in small: a shared system prompt, two sample prefixes, questions below; one just inserted
  const nodes: RadixNodeDrawing[] = [
    { id: "sys", label: "系统提示", tokens: 400, gpus: [0, 1] },
    { id: "s1", parent: "sys", label: "样本 1", tokens: 1200, gpus: [0] },
    { id: "s2", parent: "sys", label: "样本 2", tokens: 1100, gpus: [1] },
    { id: "q1", parent: "s1", label: "问题 a", tokens: 30, gpus: [0] },
    { id: "q2", parent: "s1", label: "问题 b", tokens: 25, gpus: [0] },
    { id: "q3", parent: "s2", label: "问题 c", tokens: 40, gpus: [1], inserted: true },
  ];
  it("places leaves on consecutive rows and each parent midway between its children", () => {
    const placed = placeRadixTree(nodes);
    const at = (id: string) => placed.find((n) => n.id === id) as { depth: number; row: number };
    expect(["q1", "q2", "q3"].map((id) => at(id).row)).toEqual([0, 1, 2]);
    expect(at("s1").row).toBe(0.5);
    expect(at("s2").row).toBe(2);
    expect(at("sys").row).toBe(1.25);
    expect(placed.map((n) => n.depth)).toEqual([0, 1, 2, 2, 1, 2]);
  });
  it("draws a box a segment, an edge a parent link, a chip per GPU holding it, and marks the inserted segment", () => {
    const svg = radixTreeSvg(nodes, { gpuCount: 2 });
    expect(svg.match(/class="l11-node"/g)?.length).toBe(6);
    expect(svg.match(/class="l11-edge"/g)?.length).toBe(5);
    expect(svg.match(/class="l11-gpu"/g)?.length).toBe(7); // 2 + 1 + 1 + 1 + 1 + 1
    expect(svg.match(/stroke-dasharray/g)?.length).toBe(1);
    expect(svg).toContain("系统提示 · 400");
    expect(svg).not.toMatch(/\p{Extended_Pictographic}/u);
    expect(radixTreeText(nodes).split("\n")).toEqual([
      "系统提示 · 400 token · GPU 0,1",
      "  样本 1 · 1200 token · GPU 0",
      "    问题 a · 30 token · GPU 0",
      "    问题 b · 25 token · GPU 0",
      "  样本 2 · 1100 token · GPU 1",
      "    问题 c · 40 token · GPU 1 · 新插入",
    ]);
  });
  it("escapes labels and refuses unknown parents, duplicate ids and cycles", () => {
    expect(radixTreeSvg([{ id: "r", label: "<b>x</b>", tokens: 1, gpus: [] }], { gpuCount: 1 })).toContain("&lt;b&gt;x&lt;/b&gt;");
    expect(() => placeRadixTree([{ id: "a", parent: "zz", label: "a", tokens: 1, gpus: [] }])).toThrow(/unknown parent/);
    expect(() => placeRadixTree([{ id: "a", label: "a", tokens: 1, gpus: [] }, { id: "a", label: "b", tokens: 1, gpus: [] }])).toThrow(/unique/);
    expect(() => placeRadixTree([{ id: "a", parent: "b", label: "a", tokens: 1, gpus: [] }, { id: "b", parent: "a", label: "b", tokens: 1, gpus: [] }])).toThrow(/cycle/);
  });
});
