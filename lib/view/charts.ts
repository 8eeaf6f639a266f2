// Chart builders from a Table: axis titles come from the columns' labels and units.
import type { Cell, Column, Table } from "../core/table";
import { rowsWhere } from "../core/table";
import { displayName } from "../core/glossary";
import { headerText } from "./table";
import type { Figure } from "./figure/figure";
import { seriesLook } from "./figure/palette";
import { pointLabelTraces } from "./figure/point-labels";
import { levelMarks } from "./figure/marks";
export { withHorizontalLine } from "./figure/marks";

function column(table: Table, key: string): Column {
  const c = table.columns.find((col) => col.key === key);
  if (!c) throw new Error(`chart: column "${key}" not in table "${table.title}" (columns: ${table.columns.map((x) => x.key).join(", ")})`);
  return c;
}

/** A category or legend entry as the reader sees it: glossary names for "name" columns (and text columns whose
 * values the glossary knows), the value itself otherwise. */
function label(table: Table, key: string, value: unknown): string {
  const c = table.columns.find((col) => col.key === key);
  if (c && typeof c.format === "function") return c.format(value);
  if (typeof value === "boolean") return value ? "是" : "否";
  if (c && (c.format === "name" || c.format === "text" || c.format === undefined)) return displayName(value);
  return String(value);
}

function groups(table: Table, key: string | undefined): Array<{ name: string; rows: Table["rows"] }> {
  if (!key) return [{ name: "", rows: table.rows }];
  const order: string[] = [];
  const byName = new Map<string, Table["rows"]>();
  for (const r of table.rows) {
    const name = String(r[key]);
    if (!byName.has(name)) {
      byName.set(name, []);
      order.push(name);
    }
    (byName.get(name) as Table["rows"]).push(r);
  }
  return order.map((name) => ({ name: label(table, key, name), rows: byName.get(name) as Table["rows"] }));
}

export interface ChartOptions {
  x: string;
  y: string;
  /** one trace per distinct value of this column */
  group?: string;
  title?: string;
  logX?: boolean;
  logY?: boolean;
  xTitle?: string;
  yTitle?: string;
  /** row keys (columns or not) holding the low and high end of each point's range (e.g. min and max over seeds):
   * drawn as asymmetric error bars */
  errorLow?: string;
  errorHigh?: string;
  /** lines only: a second column drawn dotted in each group's colour (e.g. a baseline), named by its header */
  dashed?: string;
  /** lines(): "markers" draws points only (a scatter) */
  mode?: "lines+markers" | "markers";
  /** lines(): a column naming each point (e.g. an allocation "A+B"), written beside its marker and in its hover */
  pointLabel?: string;
  /** only the rows matching these cells (e.g. { workload: "longDocQA" }) */
  where?: Record<string, Cell>;
  /** symmetric error bars: the row key holding each point's ± (e.g. a standard deviation across seeds) */
  error?: string;
  /** bars(): a column drawn as a short level mark over each x category's bars (e.g. the fair share), named by its
   * header in the legend (the first row of each category gives the value) */
  mark?: string;
}

/** The table restricted to the rows a chart asked for. */
function selected(table: Table, o: { where?: Record<string, Cell> }): Table {
  return o.where ? { ...table, rows: rowsWhere(table, o.where) } : table;
}

/** Plotly error bars from a range's columns (asymmetric: from the value down to low, up to high). */
function errorBars(table: Table, o: ChartOptions, rows: Table["rows"]): Record<string, unknown> {
  if (o.error) {
    const key = o.error;
    if (!table.rows.some((r) => key in r)) throw new Error(`chart: no row of "${table.title}" has the error-bar key "${key}"`);
    return { error_y: { type: "data", array: rows.map((r) => (typeof r[key] === "number" ? r[key] : 0)), visible: true } };
  }
  if (!o.errorLow || !o.errorHigh) return {};
  if (!table.rows.some((r) => o.errorLow as string in r)) throw new Error(`chart: no row of "${table.title}" has the error-bar key "${o.errorLow}"`);
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : NaN);
  return {
    error_y: {
      type: "data",
      symmetric: false,
      array: rows.map((r) => Math.max(0, num(r[o.errorHigh as string]) - num(r[o.y]))),
      arrayminus: rows.map((r) => Math.max(0, num(r[o.y]) - num(r[o.errorLow as string]))),
    },
  };
}

/** A log axis labels every decade with its value (1, 10, 100 …), not Plotly's leading digits ("2" for 20). */
export function logAxis(): { type: "log"; dtick: number; exponentformat: "none" } {
  return { type: "log", dtick: 1, exponentformat: "none" };
}

/** A linear axis of a percent column writes its ticks as percentages, as the table does. */
function percentTicks(table: Table, key: string, log: boolean | undefined): { tickformat?: string } {
  const format = table.columns.find((c) => c.key === key)?.format;
  return !log && (format === "percent0" || format === "percent1") ? { tickformat: ".0%" } : {};
}

function axes(table: Table, o: ChartOptions): Figure["layout"] {
  return {
    title: o.title ?? table.title,
    xaxis: { title: o.xTitle ?? headerText(column(table, o.x)), ...(o.logX ? logAxis() : percentTicks(table, o.x, o.logX)) },
    yaxis: { title: o.yTitle ?? headerText(column(table, o.y)), ...(o.logY ? logAxis() : percentTicks(table, o.y, o.logY)) },
    legend: o.group ? { title: { text: headerText(column(table, o.group)) } } : undefined,
  };
}

/** Grouped bars: x categories, one bar colour per group. */
export function bars(all: Table, o: ChartOptions): Figure {
  const table = selected(all, o);
  const data: Figure["data"] = groups(table, o.group).map((g) => ({
    type: "bar",
    name: g.name,
    x: g.rows.map((r) => label(table, o.x, r[o.x])),
    y: g.rows.map((r) => r[o.y]),
    ...errorBars(table, o, g.rows),
  }));
  if (o.mark) {
    const first = groups(table, o.x).map((g) => g.rows[0]);
    data.push(levelMarks(headerText(column(table, o.mark)), first.map((r) => label(table, o.x, r[o.x])), first.map((r) => r[o.mark as string])));
  }
  return {
    data,
    // Bars stand on categories even when they look numeric (replicas 2, 4, 8 must not leave gaps at 3, 5, 6, 7).
    layout: (() => {
      const l = axes(table, o) as NonNullable<Figure["layout"]>;
      return { ...l, xaxis: { ...(l.xaxis ?? {}), type: "category" as const }, barmode: "group" };
    })(),
  };
}

/** Lines with markers: one line per group (and, with `dashed`, a dotted companion line per group). */
export function lines(all: Table, o: ChartOptions): Figure {
  const table = selected(all, o);
  const gs = groups(table, o.group);
  const data: Figure["data"] = [];
  const named = o.pointLabel ? pointLabelTraces(gs.map((g) => g.rows), o.x, o.y, (r) => label(table, o.pointLabel as string, r[o.pointLabel as string]), o.mode ?? "lines+markers") : [];
  gs.forEach((g, i) => {
    const look = seriesLook(i, gs.length);
    const color = o.dashed ? { line: { color: look.color, ...(look.dash !== "solid" ? { dash: look.dash } : {}) }, marker: { color: look.color } } : {};
    data.push({ type: "scatter", mode: o.mode ?? "lines+markers", name: g.name, x: g.rows.map((r) => r[o.x]), y: g.rows.map((r) => r[o.y]), ...errorBars(table, o, g.rows), ...color, ...(named[i] ?? {}) });
    if (o.dashed) {
      const name = `${g.name ? `${g.name} · ` : ""}${headerText(column(table, o.dashed))}`;
      data.push({ type: "scatter", mode: "lines", name, x: g.rows.map((r) => r[o.x]), y: g.rows.map((r) => r[o.dashed as string]), line: { color: look.color, dash: "dot" } });
    }
  });
  return { data, layout: axes(table, o) };
}

/** A path drawn over a heatmap: points are (column, row) indices into x / y, each with an optional label (e.g. the
 * step numbers); `offset` shifts the path a little so that paths through the same cells stay apart. */
export interface HeatmapPath {
  name: string;
  points: Array<{ x: number; y: number; label?: string }>;
  offset?: number;
  color?: string;
}

/** A heatmap from a matrix with labelled axes; with `paths`, lines with labelled markers drawn over the cells. */
export function heatmap(options: { z: number[][]; x: string[]; y: string[]; title: string; xTitle: string; yTitle: string; zTitle?: string; text?: boolean; zmin?: number; zmax?: number; paths?: HeatmapPath[]; reverseY?: boolean }): Figure {
  const text = options.text === false ? undefined : options.z.map((row) => row.map((v) => v.toFixed(2)));
  const cells = {
    type: "heatmap",
    z: options.z,
    colorscale: "Viridis",
    zmin: options.zmin,
    zmax: options.zmax,
    colorbar: { title: { text: options.zTitle ?? "" } },
    text,
    texttemplate: text ? "%{text}" : undefined,
  };
  if (!options.paths || options.paths.length === 0) {
    return {
      data: [{ ...cells, x: options.x, y: options.y }],
      layout: { title: options.title, xaxis: { title: options.xTitle, type: "category" }, yaxis: { title: options.yTitle, type: "category", ...(options.reverseY ? { autorange: "reversed" } : {}) } },
    };
  }
  // numeric axes with the names as tick labels, so that a path can be drawn slightly off the cell centres
  const xs = options.x.map((_, i) => i);
  const ys = options.y.map((_, i) => i);
  // with the values written at the cells' centres, the markers move a further 0.11 of a cell sideways, clear of them
  const dx = (offset: number) => (text && offset !== 0 ? offset + Math.sign(offset) * 0.11 : offset);
  const paths = options.paths.map((p) => ({
    type: "scatter",
    mode: "lines+markers+text",
    name: p.name,
    x: p.points.map((pt) => pt.x + dx(p.offset ?? 0)),
    y: p.points.map((pt) => pt.y + (p.offset ?? 0)),
    // labels inside white markers: readable on the dark and the light end of the colour scale alike
    text: p.points.map((pt) => pt.label ?? ""),
    textposition: "middle center",
    textfont: { size: 10, color: "#000000" },
    line: { width: 3, color: p.color },
    marker: { size: 20, symbol: "circle", color: "#ffffff", line: { width: 2.5, color: p.color ?? "#000000" } },
  }));
  return {
    data: [{ ...cells, x: xs, y: ys }, ...paths],
    layout: {
      title: options.title,
      xaxis: { title: options.xTitle, tickvals: xs, ticktext: options.x },
      yaxis: { title: options.yTitle, tickvals: ys, ticktext: options.y, ...(options.reverseY ? { autorange: "reversed" } : {}) },
      legend: { orientation: "h", y: -0.2 },
    },
  };
}

/** A heatmap of a long-format table: one cell per (x, y) pair of the rows, coloured by z (the first row wins when
 * several share a pair). Axis titles default to the columns' headers; categories keep the rows' order (numbers
 * sorted), so ranks and replicas read in order. */
export function heatmapOf(all: Table, o: { x: string; y: string; z: string; where?: Record<string, Cell>; title?: string; xTitle?: string; yTitle?: string; zTitle?: string; text?: boolean; zmin?: number; zmax?: number }): Figure {
  const table = selected(all, o);
  const order = (key: string): Cell[] => {
    const seen: Cell[] = [];
    for (const r of table.rows) if (!seen.includes(r[key])) seen.push(r[key]);
    return seen.every((v) => typeof v === "number") ? [...seen].sort((a, b) => (a as number) - (b as number)) : seen;
  };
  const xs = order(o.x);
  const ys = order(o.y);
  const z: Array<Array<number | null>> = ys.map(() => xs.map(() => null));
  for (const r of table.rows) {
    const i = ys.indexOf(r[o.y]);
    const j = xs.indexOf(r[o.x]);
    const v = r[o.z];
    if (z[i][j] === null && typeof v === "number" && Number.isFinite(v)) z[i][j] = v;
  }
  const zc = column(table, o.z);
  return {
    data: [
      {
        type: "heatmap",
        z,
        x: xs.map((v) => label(table, o.x, v)),
        y: ys.map((v) => label(table, o.y, v)),
        colorscale: "Viridis",
        zmin: o.zmin,
        zmax: o.zmax,
        colorbar: { title: { text: o.zTitle ?? headerText(zc) } },
        ...(o.text ? { text: z.map((row) => row.map((v) => (v === null ? "" : v.toFixed(2)))), texttemplate: "%{text}" } : {}),
      },
    ],
    layout: {
      title: o.title ?? table.title,
      xaxis: { title: o.xTitle ?? headerText(column(table, o.x)), type: "category" },
      yaxis: { title: o.yTitle ?? headerText(column(table, o.y)), type: "category", autorange: "reversed" },
    },
  };
}

/** Several columns of a table as one long-format table (a row per original row and column: the original cells,
 * "measure" = the column's header, "value" = its cell), so that bars / lines draw them side by side. */
export function melt(all: Table, keys: readonly string[], o: { where?: Record<string, Cell>; label?: string } = {}): Table {
  const table = selected(all, o);
  const cols = keys.map((k) => column(table, k));
  const rest = table.columns.filter((c) => !keys.includes(c.key));
  return {
    ...table,
    columns: [...rest, { key: "measure", label: o.label ?? "指标", format: "text" }, { key: "value", label: "数值", format: cols[0]?.format }],
    rows: table.rows.flatMap((r) => cols.map((c) => ({ ...r, measure: headerText(c), value: r[c.key] }))),
    claims: undefined,
  };
}

/** One line of seriesLines: a numeric column of the table, optionally with its ± column, a colour and a dash. */
export interface Series {
  y: string;
  /** legend entry (default: the column's label) */
  name?: string;
  /** the column holding each point's ± (symmetric error bars) */
  error?: string;
  color?: string;
  dash?: boolean;
}

/** Several columns of a wide table against one x column, one line each (e.g. measured values beside formulas). */
export function seriesLines(table: Table, o: { x: string; series: readonly Series[]; title?: string; logX?: boolean; logY?: boolean; xTitle?: string; yTitle: string; legendTitle?: string }): Figure {
  const xs = table.rows.map((r) => r[o.x]);
  return {
    data: o.series.map((s) => ({
      type: "scatter",
      mode: s.dash ? "lines" : "lines+markers",
      name: s.name ?? column(table, s.y).label,
      x: xs,
      y: table.rows.map((r) => r[s.y]),
      line: { ...(s.color ? { color: s.color } : {}), ...(s.dash ? { dash: "dash" } : {}) },
      ...errorBars(table, { x: o.x, y: s.y, error: s.error }, table.rows),
    })),
    layout: {
      title: o.title ?? table.title,
      xaxis: { title: o.xTitle ?? headerText(column(table, o.x)), ...(o.logX ? logAxis() : {}) },
      yaxis: { title: o.yTitle, ...(o.logY ? logAxis() : {}) },
      legend: o.legendTitle ? { title: { text: o.legendTitle } } : undefined,
    },
  };
}

/** Bars of several numeric columns side by side for each x category: one bar colour per column, the legend shows the
 * columns' labels (e.g. L, M and P of a cost breakdown, or mean and P99 latency). */
export function columnBars(table: Table, o: { x: string; columns: string[]; title?: string; logY?: boolean; xTitle?: string; yTitle?: string; legendTitle?: string }): Figure {
  return {
    data: o.columns.map((key) => ({
      type: "bar",
      name: headerText(column(table, key)),
      x: table.rows.map((r) => label(table, o.x, r[o.x])),
      y: table.rows.map((r) => r[key]),
    })),
    layout: {
      title: o.title ?? table.title,
      barmode: "group",
      xaxis: { title: o.xTitle ?? headerText(column(table, o.x)), type: "category" },
      yaxis: { title: o.yTitle ?? "", ...(o.logY ? logAxis() : {}) },
      legend: { title: { text: o.legendTitle ?? "" } },
    },
  };
}

/** A series' line: its colour, and its dash past the palette. */
function lineOf(look: { color: string; dash: string }): { color: string; dash?: string } {
  return look.dash === "solid" ? { color: look.color } : { color: look.color, dash: look.dash };
}

/** Lines with markers in a grid of small charts, one per value of `facet` (e.g. one per workload): the same group
 * has the same colour in every panel and one legend entry; each panel has its own y range. `markWhen` names a boolean
 * column whose true rows are drawn with a large cross over every line (one legend entry, `markName`; e.g. overloaded
 * cells); errorLow / errorHigh (or error) draw error
 * bars as in the other charts; `dashed`, a second column drawn dotted in each group's colour (as in lines(); its
 * legend entries say `dashedName`, default the column's header). `height` and `legendTitle` override the grid's
 * height (px) and the group column's header as the legend's title. */
export function facetLines(table: Table, o: ChartOptions & { facet: string; columns?: number; markWhen?: string; markName?: string; height?: number; legendTitle?: string; dashedName?: string }): Figure {
  const facetValues = [...new Set(table.rows.map((r) => r[o.facet]))];
  const cols = Math.min(o.columns ?? 3, facetValues.length);
  const rowsCount = Math.ceil(facetValues.length / cols);
  const groupNames = groups(table, o.group).map((g) => g.name);
  const data: Array<Record<string, unknown>> = [];
  const layout: Record<string, unknown> = {
    title: o.title ?? table.title,
    grid: { rows: rowsCount, columns: cols, pattern: "independent", ygap: 0.35, xgap: 0.12 },
    legend: o.group ? { title: { text: o.legendTitle ?? headerText(column(table, o.group)) } } : undefined,
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
    for (const g of groups(sub, o.group)) {
      data.push({
        type: "scatter",
        mode: "lines+markers",
        name: g.name,
        legendgroup: g.name,
        showlegend: firstTime(g.name),
        line: lineOf(seriesLook(groupNames.indexOf(g.name), groupNames.length)),
        marker: o.markWhen ? { size: 4 } : undefined,
        x: g.rows.map((r) => r[o.x]),
        y: g.rows.map((r) => r[o.y]),
        ...errorBars(table, o, g.rows),
        xaxis: `x${axis}`,
        yaxis: `y${axis}`,
      });
      if (o.dashed) {
        const name = `${g.name ? `${g.name} · ` : ""}${o.dashedName ?? headerText(column(table, o.dashed))}`;
        data.push({ type: "scatter", mode: "lines", name, legendgroup: name, showlegend: firstTime(name), line: { color: seriesLook(groupNames.indexOf(g.name), groupNames.length).color, dash: "dot" }, x: g.rows.map((r) => r[o.x]), y: g.rows.map((r) => r[o.dashed as string]), xaxis: `x${axis}`, yaxis: `y${axis}` });
      }
    }
    if (o.markWhen) data.push(markedPoints(sub, o as typeof o & { markWhen: string }, groupNames, axis, firstTime));
    layout[`xaxis${axis}`] = { title: i === 0 || i >= facetValues.length - cols ? o.xTitle ?? headerText(column(table, o.x)) : "", ...(o.logX ? logAxis() : {}) };
    layout[`yaxis${axis}`] = { title: i % cols === 0 ? o.yTitle ?? headerText(column(table, o.y)) : "", ...(o.logY ? logAxis() : {}) };
    (layout.annotations as unknown[]).push({ text: `<b>${label(table, o.facet, fv)}</b>`, xref: `x${axis} domain`, yref: `y${axis} domain`, x: 0.5, y: 1.12, showarrow: false, xanchor: "center" });
  });
  return { data, layout: layout as Figure["layout"] };
}

/** The `markWhen` rows of one panel as large crosses in their group's colour, outlined, drawn after (over) every line
 * of the panel so that no line hides them; one legend entry (`markName`, default the column's header). */
function markedPoints(sub: Table, o: ChartOptions & { markWhen: string; markName?: string }, groupNames: string[], axis: string, firstTime: (name: string) => boolean): Record<string, unknown> {
  const rows = groups(sub, o.group).flatMap((g) => g.rows.filter((r) => r[o.markWhen] === true).map((r) => ({ r, color: seriesLook(groupNames.indexOf(g.name), groupNames.length).color })));
  const name = o.markName ?? (sub.columns.some((c) => c.key === o.markWhen) ? headerText(column(sub, o.markWhen)) : o.markWhen);
  return {
    type: "scatter",
    mode: "markers",
    name,
    legendgroup: name,
    showlegend: rows.length > 0 && firstTime(name),
    marker: { symbol: "x", size: 12, color: rows.map((x) => x.color), line: { width: 1.5, color: "#222222" } },
    x: rows.map((x) => x.r[o.x]),
    y: rows.map((x) => x.r[o.y]),
    xaxis: `x${axis}`,
    yaxis: `y${axis}`,
  };
}
