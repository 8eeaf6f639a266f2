// Charts readable at a glance: the pass every figure goes through before it is drawn (titles wrapped on the left,
// automargins, explicit ticks on short log axes, a distinct colour a series) and the check run on every figure of a
// notebook run (axis titles, labelled log ticks, distinct series).
import { describe, expect, it } from "vitest";
import type { Table } from "../lib/core/table";
import { bars, facetLines, lines, withHorizontalLine } from "../lib/view/charts";
import { figureHtml, type Figure } from "../lib/view/plot";
import { logTickValues, readableFigure, tickLabel, wrapTitle, TITLE_WIDTH } from "../lib/view/figure/readable";
import { figureProblems } from "../lib/view/figure/check";
import { displayWidth } from "../lib/view/table";
import { PALETTE_10, seriesLook } from "../lib/view/figure/palette";

const layoutOf = (f: Figure) => f.layout as Record<string, any>;

function wideTable(groupCount: number): Table {
  const rows = [];
  for (let g = 0; g < groupCount; g++) for (const x of [1, 2, 4]) rows.push({ policy: `策略${g}`, x, y: 20 + g * 4 + x, workload: x === 4 ? "编程" : "问答" });
  return { title: "t", columns: [{ key: "policy", label: "策略", format: "text" }, { key: "x", label: "副本数" }, { key: "y", label: "P99 延迟", unit: "秒" }, { key: "workload", label: "负载", format: "text" }], rows };
}

describe("log axes under two decades get explicit ticks", () => {
  it("logTickValues picks 1-2-5 (or finer) values inside the data, none when two decades are labelled", () => {
    expect(logTickValues(1, 1000)).toEqual([]);
    expect(logTickValues(0.5, 40)).toEqual([]); // 1 and 10 are both in, over 1.5 decades
    // at most 1.5 decades: 1 and 10 alone are too few, 2 and 5 join them
    expect(logTickValues(0.8, 20)).toEqual([1, 2, 5, 10, 20]);
    expect(logTickValues(60, 1500)).toEqual([100, 200, 500, 1000]);
    expect(logTickValues(20, 80)).toEqual([20, 30, 50]);
    expect(logTickValues(2, 9)).toEqual([2, 3, 5]);
    expect(logTickValues(12, 17).length).toBeGreaterThanOrEqual(2);
    expect(logTickValues(0.93, 0.97)).toEqual([0.93, 0.97]);
    for (const [lo, hi] of [[0.011, 0.04], [3, 9.5], [150, 900], [7, 11], [1.01, 1.3]]) {
      const ticks = logTickValues(lo, hi);
      expect(ticks.length, `${lo}..${hi}`).toBeGreaterThanOrEqual(2);
      for (const v of ticks) expect(v >= lo * 0.999 && v <= hi * 1.001, `${v} in ${lo}..${hi}`).toBe(true);
    }
    expect([tickLabel(2000), tickLabel(0.25), tickLabel(30)]).toEqual(["2,000", "0.25", "30"]);
  });

  it("a facet chart on a log axis from 20 to 80 s labels each panel's ticks; the check passes on it and fails without", () => {
    const f = facetLines(wideTable(3), { facet: "workload", x: "x", y: "y", group: "policy", logY: true });
    expect(figureProblems(f).filter((p) => p.includes("log axis")).length).toBe(2); // dtick 1 labels nothing between 20 and 80
    const r = readableFigure(f);
    expect(layoutOf(r).yaxis.tickvals.length).toBeGreaterThanOrEqual(2);
    expect(layoutOf(r).yaxis.ticktext).toEqual(layoutOf(r).yaxis.tickvals.map(String));
    expect(layoutOf(r).yaxis.dtick).toBeUndefined();
    expect(figureProblems(r)).toEqual([]);
  });
});

describe("titles, margins and colours", () => {
  it("a long title wraps on the left, in a top margin tall enough for its lines; every axis has automargin", () => {
    const long = "一步 decode 的耗时，按每个请求的上下文长度分组，在三种 GPU 和四种模型上比较（00.2），再加一段很长很长的说明文字";
    const lines2 = wrapTitle(long);
    expect(lines2.length).toBeGreaterThan(1);
    for (const l of lines2) expect(displayWidth(l)).toBeLessThanOrEqual(TITLE_WIDTH);
    expect(lines2.join("").replace(/\s/g, "")).toBe(long.replace(/\s/g, ""));
    expect(wrapTitle("短标题")).toEqual(["短标题"]);
    // a parenthesis moves whole to the next line rather than breaking at its inner space
    expect(wrapTitle("最短队列 (JSQ)：每台服务器在每个刷新间隔里收到的请求（T = 4，种子 1/0）")).toEqual(["最短队列 (JSQ)：每台服务器在每个刷新间隔里收到的请求", "（T = 4，种子 1/0）"]);
    const r = readableFigure(lines(wideTable(2), { x: "x", y: "y", group: "policy", title: long }));
    const title = layoutOf(r).title;
    expect(title).toMatchObject({ x: 0, xanchor: "left", automargin: true });
    expect(title.text.split("<br>").length).toBe(lines2.length);
    expect(layoutOf(r).margin.t).toBeGreaterThanOrEqual(lines2.length * 22 + 30);
    expect(layoutOf(r).xaxis.automargin).toBe(true);
    expect(layoutOf(r).yaxis.automargin).toBe(true);
  });

  it("a category label may run a few columns over its share to break at a space, not mid-word or before a lone character", () => {
    // at 9 columns a hard cut gave "缓存感知 +" / "负载保" / "护" and "长文档问" / "答 1" / "请求/秒"
    expect(wrapTitle("缓存感知 + 负载保护", 9, 3)).toEqual(["缓存感知 +", "负载保护"]);
    expect(wrapTitle("长文档问答 1 请求/秒", 9, 3)).toEqual(["长文档问答", "1 请求/秒"]);
    // without slack (titles) the width stays a hard limit
    for (const l of wrapTitle("缓存感知 + 负载保护", 9)) expect(displayWidth(l)).toBeLessThanOrEqual(9);
  });

  it("13 series get 13 distinct colours (a 24-colour palette past 10); past 24 a dash tells them apart", () => {
    const t = wideTable(13);
    const r = readableFigure(lines(t, { x: "x", y: "y", group: "policy" }));
    const colours = r.data.map((d) => (d.line as { color: string }).color);
    expect(new Set(colours).size).toBe(13);
    expect(figureProblems(r)).toEqual([]);
    // raw, Plotly would cycle its 10 colours: the 11th series looks like the 1st
    expect(figureProblems(lines(t, { x: "x", y: "y", group: "policy" }))).toEqual([expect.stringMatching(/series "策略10" looks like "策略0"/), expect.stringMatching(/策略11/), expect.stringMatching(/策略12/)]);
    expect(seriesLook(24, 30)).toEqual({ color: seriesLook(0, 30).color, dash: "dash", hatch: "/" });
    const f30 = readableFigure(lines(wideTable(30), { x: "x", y: "y", group: "policy" }));
    expect(figureProblems(f30)).toEqual([]);
    const b30 = readableFigure(bars(wideTable(30), { x: "x", y: "y", group: "policy" }));
    expect(figureProblems(b30)).toEqual([]);
  });

  it("facets keep one colour a group across panels (more than 10 groups too), and colours the builder chose", () => {
    const f = facetLines(wideTable(12), { facet: "workload", x: "x", y: "y", group: "policy" });
    const byName = new Map<string, Set<string>>();
    for (const d of f.data) byName.set(String(d.name), (byName.get(String(d.name)) ?? new Set()).add((d.line as { color: string }).color));
    for (const set of byName.values()) expect(set.size).toBe(1);
    expect(new Set([...byName.values()].map((s) => [...s][0])).size).toBe(12);
    expect(figureProblems(readableFigure(f))).toEqual([]);
    const own: Figure = { data: [{ type: "scatter", name: "a", x: [1], y: [1], line: { color: PALETTE_10[0] } }, { type: "scatter", name: "b", x: [1], y: [2] }], layout: { xaxis: { title: "x" }, yaxis: { title: "y" } } };
    const r = readableFigure(own);
    expect((r.data[0].line as { color: string }).color).toBe(PALETTE_10[0]);
    expect((r.data[1].line as { color: string }).color).not.toBe(PALETTE_10[0]);
  });

  it("figureHtml draws the readable figure; a horizontal reference line is a dashed series across the data, its label in the legend", () => {
    const f = withHorizontalLine(lines(wideTable(2), { x: "x", y: "y", group: "policy", logY: true }), { y: 25, label: "目标" });
    const html = figureHtml(f, { id: "t" });
    const json = JSON.parse(/var f = (\{.*?\}); window\.Plotly/.exec(html)?.[1] ?? "{}");
    expect(json.layout.yaxis.tickmode).toBe("array");
    const line = json.data[json.data.length - 1];
    expect(line).toMatchObject({ name: "目标", mode: "lines", x: [1, 4], y: [25, 25], line: { dash: "dash" } });
    expect(json.layout.annotations).toBeUndefined(); // no label drawn over the data
    expect(figureProblems(json)).toEqual([]);
    // named series keep their legend entries; an unnamed one (a chart of one group) leaves the legend to the line
    expect(json.data.slice(0, -1).every((d: { showlegend?: boolean }) => d.showlegend === undefined)).toBe(true);
    const single = withHorizontalLine({ data: [{ type: "bar", x: ["a", "b"], y: [1, 2] }], layout: {} }, { y: 1.5, label: "上界" });
    expect(single.data.map((d) => d.showlegend)).toEqual([false, undefined]);
  });

  it("long category labels wrap level onto lines that fit their share of the plot; short ones are left to Plotly", () => {
    const labels = Array.from({ length: 10 }, (_, i) => `情形 ${i}：16 台服务器，有界 Pareto（重尾）`);
    const t: Table = { title: "t", columns: [{ key: "c", label: "情形", format: "text" }, { key: "v", label: "收益", format: "percent0" }], rows: labels.map((c, i) => ({ c, v: i / 10 })) };
    const x = layoutOf(readableFigure(bars(t, { x: "c", y: "v" }))).xaxis;
    expect(x.tickangle).toBe(0);
    expect(x.tickvals).toEqual(labels);
    for (const [i, text] of (x.ticktext as string[]).entries()) {
      expect(text.split("<br>").length).toBeGreaterThan(1);
      for (const line of text.split("<br>")) expect(displayWidth(line)).toBeLessThanOrEqual(10); // 8 columns, a comma over
      expect(text.replace(/<br>/g, "").replace(/\s/g, "")).toBe(labels[i].replace(/\s/g, ""));
      expect(text).not.toMatch(/<br>[，）]/); // no line starts with a comma or closing bracket
    }
    expect(x.title).toMatchObject({ text: "情形", standoff: 12 }); // placed below the wrapped labels
    const short = layoutOf(readableFigure(bars({ ...t, rows: t.rows.slice(0, 2).map((r, i) => ({ ...r, c: `甲${i}` })) }, { x: "c", y: "v" }))).xaxis;
    expect(short.tickvals).toBeUndefined();
  });

  it("a percent column's linear axis is written in %; a long y title is wrapped onto two lines of about equal width", () => {
    const t: Table = { title: "t", columns: [{ key: "c", label: "情形", format: "text" }, { key: "v", label: "份额", format: "percent0" }], rows: [{ c: "甲", v: 0.2 }] };
    expect(bars(t, { x: "c", y: "v" }).layout?.yaxis).toMatchObject({ tickformat: ".0%", hoverformat: ".0%" });
    // a hit rate (percent1) hovers with the table's one decimal, and so does a reference line drawn over it
    const hit: Table = { ...t, columns: [t.columns[0], { key: "v", label: "命中率", format: "percent1" }] };
    expect(bars(hit, { x: "c", y: "v" }).layout?.yaxis).toMatchObject({ tickformat: ".0%", hoverformat: ".1%" });
    const last = (f: Figure) => f.data[f.data.length - 1];
    expect(last(withHorizontalLine(bars(hit, { x: "c", y: "v" }), { y: 0.4, label: "上界" })).hovertemplate).toBe("上界：%{y:.1%}<extra></extra>");
    expect(last(withHorizontalLine(bars(wideTable(1), { x: "x", y: "y" }), { y: 22, label: "目标" })).hovertemplate).toBe("目标：%{y}<extra></extra>");
    expect(bars(t, { x: "c", y: "v", logY: true }).layout?.yaxis?.tickformat).toBeUndefined();
    const title = "最集中的目标的份额（它拿到的 ÷ 全部，%）"; // 40 columns: over 36
    const y = layoutOf(readableFigure(bars(t, { x: "c", y: "v", yTitle: title }))).yaxis;
    expect(String(y.title.text).split("<br>")).toEqual(["最集中的目标的份额", "（它拿到的 ÷ 全部，%）"]);
    const long = "最集中的目标的份额（它拿到的请求或生成者位置 ÷ 全部请求或位置，按种子平均）";
    const parts = String(layoutOf(readableFigure(bars(t, { x: "c", y: "v", yTitle: long }))).yaxis.title.text).split("<br>");
    expect(parts.length).toBeGreaterThan(1);
    for (const line of parts) expect(displayWidth(line)).toBeLessThanOrEqual(36);
  });

  it("bars with a mark column draw one short level mark a category, named by the column's header in the legend", () => {
    const t: Table = { title: "t", columns: [{ key: "c", label: "情形", format: "text" }, { key: "role", label: "类别", format: "text" }, { key: "v", label: "份额", format: "percent0" }, { key: "fair", label: "平均份额", format: "percent0" }], rows: [{ c: "甲", role: "a", v: 0.5, fair: 0.25 }, { c: "甲", role: "b", v: 0.3, fair: 0.25 }, { c: "乙", role: "a", v: 0.9, fair: 0.5 }] };
    const f = bars(t, { x: "c", y: "v", group: "role", mark: "fair" });
    const mark = f.data[f.data.length - 1];
    expect(mark).toMatchObject({ type: "scatter", mode: "markers", name: "平均份额", x: ["甲", "乙"], y: [0.25, 0.5] });
    expect((mark.marker as { symbol: string }).symbol).toBe("line-ew");
    expect(figureProblems(readableFigure(f))).toEqual([]);
  });
});

describe("figureProblems", () => {
  const base = (layout: Record<string, unknown>, data: Figure["data"] = [{ type: "scatter", x: [1, 2], y: [1, 2] }]): Figure => ({ data, layout });
  it("wants a title on every axis a trace uses; in a grid one a column (x) or row (y) is enough", () => {
    expect(figureProblems(base({ xaxis: { title: "x" } }))).toEqual(["yaxis has no title"]);
    expect(figureProblems(base({ xaxis: { title: { text: "" } }, yaxis: { title: "y" } }))).toEqual(["xaxis has no title"]);
    const trace = (i: number) => ({ type: "scatter", name: "s", x: [1], y: [1], xaxis: `x${i || ""}`, yaxis: `y${i || ""}` });
    const grid = { grid: { rows: 2, columns: 2 }, xaxis: { title: "" }, yaxis: { title: "y" }, xaxis2: { title: "" }, yaxis2: { title: "" }, xaxis3: { title: "x" }, yaxis3: { title: "y" }, xaxis4: { title: "x" }, yaxis4: { title: "" } };
    expect(figureProblems(base(grid, [trace(0), trace(2), trace(3), trace(4)]))).toEqual([]);
    expect(figureProblems(base({ ...grid, yaxis3: { title: "" } }, [trace(0), trace(2), trace(3), trace(4)]))).toEqual(["yaxis3 has no title", "yaxis4 has no title"]);
  });
  it("wants two labelled ticks on a log axis within its data", () => {
    const data = [{ type: "bar", x: ["a", "b"], y: [12, 40] }];
    expect(figureProblems(base({ xaxis: { title: "x" }, yaxis: { title: "y", type: "log", dtick: 1 } }, data))).toEqual([expect.stringContaining("yaxis is a log axis from 12.0 to 40.0 with 0 labelled tick(s)")]);
    expect(figureProblems(base({ xaxis: { title: "x" }, yaxis: { title: "y", type: "log", tickvals: [10, 20, 30], ticktext: ["10", "20", "30"] } }, data))).toEqual([]);
    expect(figureProblems(base({ xaxis: { title: "x" }, yaxis: { title: "y", type: "log" } }, [{ type: "bar", x: ["a"], y: [5, 900] }]))).toEqual([]);
    // a short range (at most 1.5 decades) with only 1 and 10 labelled fails; with 2 and 5 too it passes
    const short = [{ type: "bar", x: ["a", "b"], y: [0.9, 20] }];
    expect(figureProblems(base({ xaxis: { title: "x" }, yaxis: { title: "y", type: "log", dtick: 1 } }, short))).toEqual([expect.stringContaining("only powers of ten labelled")]);
    expect(figureProblems(readableFigure(base({ xaxis: { title: "x" }, yaxis: { title: "y", type: "log", dtick: 1 } }, short)))).toEqual([]);
  });
  it("wants series told apart: two names with one colour and dash fail; the same name in two panels, or a dotted twin, pass", () => {
    const xy = { xaxis: { title: "x" }, yaxis: { title: "y" } };
    const s = (name: string, color: string, dash?: string) => ({ type: "scatter", mode: "lines", name, x: [1], y: [1], line: { color, ...(dash ? { dash } : {}) } });
    expect(figureProblems(base(xy, [s("a", "#111111"), s("b", "#111111")]))).toEqual([expect.stringContaining('series "b" looks like "a"')]);
    expect(figureProblems(base(xy, [s("a", "#111111"), s("a", "#111111"), s("a · 基线", "#111111", "dot")]))).toEqual([]);
    expect(figureProblems(base(xy, [{ type: "heatmap", z: [[1]] }, { type: "heatmap", z: [[2]] }]))).toEqual([]);
  });
});
