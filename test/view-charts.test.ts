// Chart helpers for long-format tables: rows selected by `where`, error bars from a range's low / high keys, a
// heatmap pivoted from (x, y, z) rows, and several columns melted into one for side-by-side bars.
import { describe, expect, it } from "vitest";
import type { Table } from "../lib/core/table";
import { bars, checkFigure, facetLines, heatmapOf, lines, melt } from "../lib/view";
import { labelPositions } from "../lib/view/figure/point-labels";

const t: Table = {
  title: "t",
  columns: [
    { key: "policy", label: "策略", format: "name" },
    { key: "replica", label: "副本", format: "int" },
    { key: "rank", label: "排名", format: "int" },
    { key: "share", label: "比例", format: "percent0" },
    { key: "hit", label: "命中率", format: "percent1" },
  ],
  rows: [
    { policy: "roundRobin", replica: 1, rank: 2, share: 0.5, hit: 0.3, hitMin: 0.25, hitMax: 0.4 },
    { policy: "roundRobin", replica: 0, rank: 1, share: 1, hit: 0.35, hitMin: 0.3, hitMax: 0.38 },
    { policy: "thresholdAffinity", replica: 0, rank: 1, share: 0.2, hit: 0.55, hitMin: 0.5, hitMax: 0.6 },
  ],
};

describe("chart helpers", () => {
  it("where selects rows; errorY gives asymmetric error bars", () => {
    const f = bars(t, { x: "policy", y: "hit", where: { replica: 0 }, errorLow: "hitMin", errorHigh: "hitMax" });
    checkFigure(f);
    expect(f.data[0].x).toEqual(["轮转", "阈值亲和"]);
    const e = f.data[0].error_y as { array: number[]; arrayminus: number[] };
    expect(e.array[0]).toBeCloseTo(0.03);
    expect(e.arrayminus[0]).toBeCloseTo(0.05);
    expect(lines(t, { x: "rank", y: "share", group: "policy", where: { policy: "roundRobin" } }).data.length).toBe(1);
  });
  it("valueLabels writes each bar's value at its end, formatted as its column (a bar at 0 still says 0%)", () => {
    const zero: Table = { ...t, rows: [...t.rows, { policy: "leastLoad", replica: 2, rank: 3, share: 0, hit: 0 }] };
    const f = bars(zero, { x: "policy", y: "share", group: "replica", horizontal: true, valueLabels: true });
    checkFigure(f);
    expect(f.data.map((d) => d.text)).toEqual([["50%"], ["100%", "20%"], ["0%"]]);
    expect(f.data.every((d) => d.textposition === "outside")).toBe(true);
    expect(bars(zero, { x: "policy", y: "share" }).data[0].text).toBeUndefined();
  });
  it("pointLabel names every point of a scatter beside its marker (and so in its hover), by the column's display", () => {
    const f = lines(t, { x: "rank", y: "hit", group: "replica", mode: "markers", pointLabel: "policy" });
    checkFigure(f);
    expect(f.data.map((d) => d.mode)).toEqual(["markers+text", "markers+text"]);
    expect(f.data.flatMap((d) => d.text as string[]).sort()).toEqual(["轮转", "轮转", "阈值亲和"]);
    expect(f.data.every((d) => (d.text as string[]).length === (d.x as unknown[]).length)).toBe(true);
    expect(lines(t, { x: "rank", y: "hit", group: "replica" }).data[0].text).toBeUndefined();
    // a label goes below its point only where another point sits just above it (x within 4% and y within 8% of the
    // spans), and to its right where points sit just above and just below
    expect(labelPositions([{ x: 1.2, y: 0.12 }, { x: 1.2, y: 0.1 }, { x: 10, y: 0.13 }, { x: 8, y: 1 }])).toEqual(["top center", "bottom center", "top center", "top center"]);
    expect(labelPositions([{ x: 1.5, y: 0.15 }, { x: 1.2, y: 0.12 }, { x: 1.2, y: 0.1 }, { x: 10, y: 1 }])).toEqual(["top center", "middle right", "bottom center", "top center"]);
  });
  it("facetLines draws one panel per facet value, with the error bars of each group's rows", () => {
    const f = facetLines(t, { facet: "replica", x: "rank", y: "hit", group: "policy", errorLow: "hitMin", errorHigh: "hitMax" });
    checkFigure(f);
    // replica 1: roundRobin; replica 0: roundRobin and thresholdAffinity
    expect(f.data.map((d) => [d.name, d.xaxis])).toEqual([["轮转", "x"], ["轮转", "x2"], ["阈值亲和", "x2"]]);
    // one legend entry per group, with the first panel the group appears in (阈值亲和 is not in the first)
    expect(f.data.map((d) => d.showlegend)).toEqual([true, false, true]);
    const e = f.data[2].error_y as { array: number[]; arrayminus: number[] };
    expect(e.array[0]).toBeCloseTo(0.05);
    expect(e.arrayminus[0]).toBeCloseTo(0.05);
    expect(facetLines(t, { facet: "replica", x: "rank", y: "hit", group: "policy" }).data[0].error_y).toBeUndefined();
  });
  it("heatmapOf pivots (x, y, z) rows with sorted numeric categories and titled axes", () => {
    const f = heatmapOf(t, { x: "replica", y: "rank", z: "share", where: { policy: "roundRobin" } });
    checkFigure(f);
    expect(f.data[0].x).toEqual(["0", "1"]);
    expect(f.data[0].y).toEqual(["1", "2"]);
    expect(f.data[0].z).toEqual([[1, null], [null, 0.5]]);
    expect(f.layout?.xaxis?.title).toBe("副本");
  });
  it("melt puts several columns side by side, named by their headers", () => {
    const m = melt(t, ["share", "hit"], { where: { replica: 0 }, label: "量" });
    expect(m.rows.length).toBe(4);
    expect(m.rows.map((r) => r.measure)).toEqual(["比例", "命中率", "比例", "命中率"]);
    const f = bars(m, { x: "policy", y: "value", group: "measure" });
    expect(f.data.map((d) => d.name)).toEqual(["比例", "命中率"]);
    expect((f.layout?.legend as { title: { text: string } }).title.text).toBe("量");
  });
});

describe("a reversed x axis", () => {
  it("lines(…, { reverseX }) runs the x axis from its largest value; without it Plotly's default order", () => {
    const t: Table = { title: "t", columns: [{ key: "q", label: "q" }, { key: "n", label: "n" }], rows: [{ q: 1, n: 10 }, { q: 0.6, n: 40 }] };
    expect(lines(t, { x: "q", y: "n", reverseX: true }).layout?.xaxis?.autorange).toBe("reversed");
    expect(lines(t, { x: "q", y: "n" }).layout?.xaxis?.autorange).toBeUndefined();
  });
});
