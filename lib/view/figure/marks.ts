// Reference marks drawn over a chart's series, each with its own legend entry (so its label never sits on the data):
// a short level mark per bar group (e.g. the fair share of each case), and a dashed horizontal line across the data
// (e.g. a target).
import type { Figure } from "./figure";

/** A short horizontal mark over each bar group at `ys[i]` (the group of category `xs[i]`), one legend entry `name`:
 * as wide as a group of bars in a chart of `xs.length` categories about 640 px wide, at most 60 px. */
export function levelMarks(name: string, xs: readonly string[], ys: ReadonlyArray<unknown>, color = "#222222"): Record<string, unknown> {
  const size = Math.max(16, Math.min(60, Math.round(0.6 * (640 / Math.max(1, xs.length)))));
  return {
    type: "scatter",
    mode: "markers",
    name,
    x: [...xs],
    y: [...ys],
    marker: { symbol: "line-ew", size, color, line: { width: 3, color } },
    hovertemplate: `%{x}<br>${name}：%{y}<extra></extra>`,
  };
}

/** The x values a figure's traces plot: the smallest and largest when all are numbers, else the first and last named. */
function xExtent(figure: Figure): unknown[] {
  const xs = figure.data.flatMap((t) => (Array.isArray(t.x) ? (t.x as unknown[]) : [])).filter((v) => v !== null && v !== undefined);
  if (xs.length === 0) return [];
  if (xs.every((v) => typeof v === "number")) return [Math.min(...(xs as number[])), Math.max(...(xs as number[]))];
  return [xs[0], xs[xs.length - 1]];
}

/** The figure with a dashed horizontal line at `y` across its data's x range, named `label` in the legend. */
export function withHorizontalLine(figure: Figure, o: { y: number; label: string; color?: string }): Figure {
  const color = o.color ?? "#444444";
  const x = xExtent(figure);
  // on a percent axis (a percent column's, lib/view/charts.ts) the hover writes the level as the table does ("41.2%")
  const percent = String(figure.layout?.yaxis?.tickformat ?? "").endsWith("%");
  const line = { type: "scatter", mode: "lines", name: o.label, x, y: x.map(() => o.y), line: { color, width: 1.5, dash: "dash" }, hovertemplate: `${o.label}：%{y${percent ? ":.1%" : ""}}<extra></extra>` };
  // a series without a name (one group only) would get an empty legend entry beside the line's: it stays out of it
  const data = figure.data.map((t) => (t.name === undefined || t.name === "" ? { ...t, showlegend: false } : t));
  return { ...figure, data: [...data, line] };
}
