// The chart options §6 added: error bars from a range's columns, and a dotted companion line per group.
import { describe, expect, it } from "vitest";
import type { Table } from "../lib/core/table";
import { bars, lines } from "../lib/view/charts";
import { figureHtml } from "../lib/view/plot";

const t: Table = {
  title: "t",
  columns: [
    { key: "policy", label: "路由策略", format: "name" },
    { key: "x", label: "格", unit: "秒" },
    { key: "y", label: "延迟", unit: "秒" },
    { key: "lo", label: "最小" },
    { key: "hi", label: "最大" },
    { key: "base", label: "无重启" },
  ],
  rows: [
    { policy: "sglangRouter", x: 0, y: 2, lo: 1.5, hi: 3, base: 1 },
    { policy: "sglangRouter", x: 30, y: 1, lo: 1, hi: 1.25, base: 1 },
    { policy: "dynamoKvRouter", x: 0, y: 1, lo: 0.5, hi: 2, base: 1.1 },
  ],
};

describe("chart ranges", () => {
  it("error bars go from the value down to the low column and up to the high one", () => {
    const f = lines(t, { x: "x", y: "y", group: "policy", errorLow: "lo", errorHigh: "hi" });
    expect(f.data[0].error_y).toEqual({ type: "data", symmetric: false, array: [1, 0.25], arrayminus: [0.5, 0] });
    expect(f.data[0].name).toBe("SGLang 路由器（2026 版）");
    const b = bars(t, { x: "policy", y: "y", errorLow: "lo", errorHigh: "hi" });
    expect((b.data[0].error_y as { array: number[] }).array).toEqual([1, 0.25, 1]);
    expect(() => lines(t, { x: "x", y: "y", errorLow: "nope", errorHigh: "hi" })).toThrow(/nope/);
  });

  it("a dashed column adds one dotted line per group, in the group's colour, named by its header", () => {
    const f = lines(t, { x: "x", y: "y", group: "policy", dashed: "base" });
    expect(f.data.length).toBe(4);
    expect(f.data[1]).toMatchObject({ mode: "lines", name: "SGLang 路由器（2026 版） · 无重启", y: [1, 1], line: { dash: "dot" } });
    expect((f.data[1].line as { color: string }).color).toBe((f.data[0].line as { color: string }).color);
  });

  it("markWhen hatches the bars of its true rows and says so over the chart; with no true row, neither", () => {
    const flagged: Table = { ...t, columns: [...t.columns, { key: "overloaded", label: "过载" }], rows: t.rows.map((r, i) => ({ ...r, overloaded: i === 1 })) };
    const f = bars(flagged, { x: "x", y: "y", group: "policy", markWhen: "overloaded" });
    expect(f.data.map((d) => (d.marker as { pattern: { shape: string[] } }).pattern.shape)).toEqual([["", "/"], [""]]);
    const notes = (f.layout as { annotations?: Array<{ text: string }> }).annotations ?? [];
    expect(notes.map((a) => a.text)).toEqual(["斜线的柱 = 过载"]);
    const none = bars({ ...flagged, rows: flagged.rows.map((r) => ({ ...r, overloaded: false })) }, { x: "x", y: "y", group: "policy", markWhen: "overloaded" });
    expect((none.layout as { annotations?: unknown[] }).annotations).toBeUndefined();
    expect(bars(flagged, { x: "x", y: "y", group: "policy" }).data.every((d) => d.marker === undefined)).toBe(true);
  });

  it("horizontal bars: categories down the y axis (first at the top, one line each), values and their error bars across, the titles with their axes", () => {
    const f = bars(t, { x: "policy", y: "y", errorLow: "lo", errorHigh: "hi", horizontal: true, logY: true, xTitle: "路由器" });
    expect(f.data[0]).toMatchObject({ type: "bar", orientation: "h", y: ["SGLang 路由器（2026 版）", "SGLang 路由器（2026 版）", "Dynamo KV 路由器"], x: [2, 1, 1] });
    expect(f.data[0].error_x).toEqual({ type: "data", symmetric: false, array: [1, 0.25, 1], arrayminus: [0.5, 0, 0.5] });
    expect(f.data[0].error_y).toBeUndefined();
    const layout = f.layout as Record<string, Record<string, unknown>>;
    expect(layout.yaxis).toMatchObject({ title: "路由器", type: "category", autorange: "reversed", tickvals: ["SGLang 路由器（2026 版）", "Dynamo KV 路由器"] });
    expect(layout.xaxis).toMatchObject({ title: "延迟（秒）", type: "log" });
    expect(f.layout?.height).toBe(Math.max(320, 22 * 2 + 160));
    // upright bars keep the categories across
    expect(bars(t, { x: "policy", y: "y" }).data[0]).toMatchObject({ x: ["SGLang 路由器（2026 版）", "SGLang 路由器（2026 版）", "Dynamo KV 路由器"] });
    // the chart's box is as tall as the figure says
    expect(figureHtml({ ...f, layout: { ...f.layout, height: 640 } })).toContain("height:640px");
    expect(figureHtml(bars(t, { x: "policy", y: "y" }))).toContain("height:420px");
  });

  it("a dotted line equal to its solid one at every point says in its name that it lies under it; one point apart, it does not", () => {
    const same: Table = { ...t, rows: t.rows.map((r) => ({ ...r, base: r.y })) };
    const f = lines(same, { x: "x", y: "y", group: "policy", dashed: "base" });
    expect(f.data[1].name).toBe("SGLang 路由器（2026 版） · 无重启（与实线处处重合）");
    expect(f.data[3].name).toBe("Dynamo KV 路由器 · 无重启（与实线处处重合）");
    const g = lines({ ...same, rows: same.rows.map((r, i) => (i === 1 ? { ...r, base: 1.5 } : r)) }, { x: "x", y: "y", group: "policy", dashed: "base" });
    expect(g.data[1].name).toBe("SGLang 路由器（2026 版） · 无重启");
    expect(g.data[3].name).toBe("Dynamo KV 路由器 · 无重启（与实线处处重合）");
  });
});
