// Lines in a grid of small charts, one per value of a column (03.1's workloads, 03.12's readings): the same group has
// the same colour and one legend entry in every panel. With a dashed companion column (03.12: L solid, M + P dotted)
// the legend is factored — a colour a group ("GPU 0"), a grey key entry a line style, named by the columns' legend
// names — and the dotted lines are drawn last: under the marked crosses and the next group's line they vanished
// (03.12's M + P lies along 0, where the chosen GPU's L and its cross are).
import type { Table } from "../../core/table";
import { headerText } from "../table";
import type { Figure } from "./figure";
import { seriesLook } from "./palette";
import { column, errorBars, groups, label, logAxis, type ChartOptions } from "./chart-table";

export type FacetLinesOptions = ChartOptions & { facet: string; columns?: number; markWhen?: string; markName?: string; height?: number; legendTitle?: string; dashedName?: string; dashedTitle?: string };

/** The key entries' colour (a line style, not a series): a dark grey no palette series takes. */
export const KEY_COLOUR = "#555555";

/** A series' line: its colour, and its dash past the palette. */
function lineOf(look: { color: string; dash: string }): { color: string; dash?: string } {
  return look.dash === "solid" ? { color: look.color } : { color: look.color, dash: look.dash };
}

/** What the legend calls a column's series: the column's own legend name, else its header. */
function legendName(table: Table, key: string): string {
  const c = column(table, key);
  return c.legend ?? headerText(c);
}

/** A group's legend name: a number gets its column's label in front ("GPU 0", not "0"). */
function groupNamer(table: Table, key: string | undefined): (name: string) => string {
  if (!key) return (name) => name;
  const numeric = table.rows.length > 0 && table.rows.every((r) => typeof r[key] === "number");
  const prefix = column(table, key).label;
  return (name) => (numeric && name !== "" ? `${prefix} ${name}` : name);
}

/** Lines with markers in a grid of small charts, one per value of `facet` (e.g. one per workload): the same group
 * has the same colour in every panel and one legend entry; each panel has its own y range. `markWhen` names a boolean
 * column whose true rows are drawn with a large cross over every solid line (one legend entry: `markName`, else the
 * column's legend name or header; e.g. overloaded cells); errorLow / errorHigh (or error) draw error bars as in the
 * other charts; `dashed`, a second column drawn dotted in each group's colour over everything else (hover name
 * `dashedName`, else the column's legend name or header), with two grey key entries in the legend naming the solid
 * and the dotted columns (their legend names; `dashedName` for a dashed column without one). A numeric group
 * column's values are named with its label ("GPU 0"). `dashedTitle`: the dotted lines get a y axis of their own on
 * each panel's right, titled so (03.12: M + P is a hundredth of L, and on L's axis its lines lay on zero). `height`
 * and `legendTitle` override the grid's height (px) and the group column's header as the legend's title. */
export function facetLines(table: Table, o: FacetLinesOptions): Figure {
  const facetValues = [...new Set(table.rows.map((r) => r[o.facet]))];
  const cols = Math.min(o.columns ?? 3, facetValues.length);
  const rowsCount = Math.ceil(facetValues.length / cols);
  const groupNames = groups(table, o.group).map((g) => g.name);
  const lookOf = (name: string) => seriesLook(groupNames.indexOf(name), groupNames.length);
  const named = groupNamer(table, o.group);
  const data: Array<Record<string, unknown>> = [];
  const layout: Record<string, unknown> = {
    title: o.title ?? table.title,
    grid: { rows: rowsCount, columns: cols, pattern: "independent", ygap: 0.35, xgap: 0.12 },
    // one legend group a series: Plotly's default gap of 10 px between groups pushed 03.12's entries past the plot
    // (a right-hand axis for the dotted lines takes the legend's usual place: the legend goes further right)
    legend: o.group ? { title: { text: o.legendTitle ?? headerText(column(table, o.group)) }, tracegroupgap: 2, ...(o.dashed && o.dashedTitle !== undefined ? { x: 1.14, xanchor: "left" } : {}) } : undefined,
    height: o.height ?? 300 * rowsCount + 100,
    margin: { t: 100 },
    annotations: [] as unknown[],
  };
  // a group's legend entry comes with the first panel it appears in (not every group is in the first panel)
  const inLegend = new Set<string>();
  const firstTime = (name: string): boolean => {
    if (inLegend.has(name)) return false;
    inLegend.add(name);
    return true;
  };
  facetValues.forEach((fv, i) => {
    const sub = { ...table, rows: table.rows.filter((r) => r[o.facet] === fv) };
    const axis = i === 0 ? "" : String(i + 1);
    const axes = { xaxis: `x${axis}`, yaxis: `y${axis}` };
    const gs = groups(sub, o.group);
    for (const g of gs) {
      data.push({
        type: "scatter",
        mode: "lines+markers",
        name: named(g.name),
        legendgroup: g.name,
        showlegend: firstTime(g.name),
        line: lineOf(lookOf(g.name)),
        marker: o.markWhen ? { size: 4 } : undefined,
        x: g.rows.map((r) => r[o.x]),
        y: g.rows.map((r) => r[o.y]),
        ...errorBars(table, o, g.rows),
        ...axes,
      });
    }
    if (o.dashed && i === 0) data.push(...styleKey(table, o as FacetLinesOptions & { dashed: string }));
    if (o.markWhen) data.push(...markedPoints(sub, o as FacetLinesOptions & { markWhen: string }, lookOf, axes, firstTime));
    if (o.dashed) {
      const dashedName = o.dashedName ?? legendName(table, o.dashed);
      // its own axis (ids after the panels'), over the panel's own y axis, on the right
      const own = o.dashedTitle !== undefined ? String(facetValues.length + i + 1) : null;
      if (own !== null) layout[`yaxis${own}`] = { title: o.dashedTitle, overlaying: `y${axis}`, anchor: `x${axis}`, side: "right", showgrid: false, zeroline: false, tickmode: "auto", ...(o.logY ? logAxis() : {}), ...sameZero(sub, o.dashed, o.y, o.logY) };
      const dashedAxes = own !== null ? { xaxis: axes.xaxis, yaxis: `y${own}` } : axes;
      // last, over the crosses and every solid line; in its group's legend group (a click on "GPU 0" hides both lines)
      for (const g of gs) {
        const name = `${g.name ? `${named(g.name)} · ` : ""}${dashedName}`;
        data.push({ type: "scatter", mode: "lines", name, legendgroup: g.name, showlegend: false, line: { color: lookOf(g.name).color, dash: "dot", width: 2.5 }, x: g.rows.map((r) => r[o.x]), y: g.rows.map((r) => r[o.dashed as string]), ...dashedAxes });
      }
    }
    layout[`xaxis${axis}`] = { title: i === 0 || i >= facetValues.length - cols ? o.xTitle ?? headerText(column(table, o.x)) : "", ...(o.logX ? logAxis() : {}) };
    layout[`yaxis${axis}`] = { title: i % cols === 0 ? o.yTitle ?? headerText(column(table, o.y)) : "", ...(o.logY ? logAxis() : {}), ...(o.dashed && o.dashedTitle !== undefined ? sameZero(sub, o.y, o.dashed, o.logY) : {}) };
    (layout.annotations as unknown[]).push({ text: `<b>${label(table, o.facet, fv)}</b>`, xref: `x${axis} domain`, yref: `y${axis} domain`, x: 0.5, y: 1.12, showarrow: false, xanchor: "center" });
  });
  return { data, layout: layout as Figure["layout"] };
}

/** Zero at the same height on a panel's two y axes (a dotted line at 0 on the right axis lay under the left axis's
 * zero, as if negative): each axis from 0 to its own column's largest value, padded by the same fraction — when both
 * columns are finite and ≥ 0 on a linear axis (else Plotly's own range). `key`: the axis's column; `other`: the other
 * axis's. */
function sameZero(sub: Table, key: string, other: string, log: boolean | undefined): { range?: [number, number] } {
  if (log) return {};
  const values = (k: string) => sub.rows.map((r) => r[k]);
  const ok = (xs: unknown[]) => xs.length > 0 && xs.every((v) => typeof v === "number" && Number.isFinite(v) && v >= 0);
  const mine = values(key);
  if (!ok(mine) || !ok(values(other))) return {};
  const top = Math.max(...(mine as number[])) || 1;
  const pad = 0.08;
  return { range: [-pad * top, (1 + pad) * top] };
}

/** The legend's key to the line styles of a chart with a dashed companion: a grey solid line (with the solid lines'
 * markers) named by `y`'s legend name and a grey dotted one named by the dashed column's; legend entries only (no
 * point: a click on them hides nothing). */
function styleKey(table: Table, o: FacetLinesOptions & { dashed: string }): Array<Record<string, unknown>> {
  const dashedColumn = column(table, o.dashed);
  const entry = (name: string, mode: string, line: Record<string, unknown>) => ({
    type: "scatter",
    mode,
    name,
    legendgroup: `key:${name}`,
    showlegend: true,
    x: [null],
    y: [null],
    line,
    marker: { size: o.markWhen ? 4 : 6, color: KEY_COLOUR },
    hoverinfo: "skip",
  });
  return [
    entry(legendName(table, o.y), "lines+markers", { color: KEY_COLOUR }),
    entry(dashedColumn.legend ?? o.dashedName ?? headerText(dashedColumn), "lines", { color: KEY_COLOUR, dash: "dot", width: 2.5 }),
  ];
}

/** The `markWhen` rows of one panel as large crosses in their group's colour, outlined, drawn after (over) every solid
 * line of the panel so that no line hides them; one legend entry (`markName`, else the column's legend name or
 * header), a grey cross of its own: the crosses take their group's colours, and the legend would show the first's. */
function markedPoints(sub: Table, o: FacetLinesOptions & { markWhen: string }, lookOf: (name: string) => { color: string }, axes: Record<string, string>, firstTime: (name: string) => boolean): Array<Record<string, unknown>> {
  const rows = groups(sub, o.group).flatMap((g) => g.rows.filter((r) => r[o.markWhen] === true).map((r) => ({ r, color: lookOf(g.name).color })));
  const name = o.markName ?? (sub.columns.some((c) => c.key === o.markWhen) ? legendName(sub, o.markWhen) : o.markWhen);
  const cross = { symbol: "x", size: 12, line: { width: 1.5, color: "#222222" } };
  const crosses = { type: "scatter", mode: "markers", name, legendgroup: name, showlegend: false, marker: { ...cross, color: rows.map((x) => x.color) }, x: rows.map((x) => x.r[o.x]), y: rows.map((x) => x.r[o.y]), ...axes };
  if (!(rows.length > 0 && firstTime(name))) return [crosses];
  const key = { type: "scatter", mode: "markers", name, legendgroup: name, showlegend: true, marker: { ...cross, color: KEY_COLOUR }, x: [null], y: [null], hoverinfo: "skip", ...axes };
  return [key, crosses];
}
