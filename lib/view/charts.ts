// Chart builders from a Table: axis titles come from the columns' labels and units.
import type { Column, Table } from "../core/table";
import { displayName } from "../core/glossary";
import { headerText } from "./table";
import type { Figure } from "./plot";

function column(table: Table, key: string): Column {
  const c = table.columns.find((col) => col.key === key);
  if (!c) throw new Error(`chart: column "${key}" not in table "${table.title}" (columns: ${table.columns.map((x) => x.key).join(", ")})`);
  return c;
}

/** A category or legend entry as the reader sees it: glossary names for "name" columns (and text columns whose
 * values the glossary knows), the value itself otherwise. */
function label(table: Table, key: string, value: unknown): string {
  const c = table.columns.find((col) => col.key === key);
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
  /** columns holding the low and high end of each point's range (e.g. over seeds): drawn as error bars */
  errorLow?: string;
  errorHigh?: string;
  /** lines only: a second column drawn dotted in each group's colour (e.g. a baseline), named by its header */
  dashed?: string;
  /** lines(): "markers" draws points only (a scatter) */
  mode?: "lines+markers" | "markers";
}

/** Plotly error bars from a range's columns (asymmetric: from the value down to low, up to high). */
function errorBars(table: Table, o: ChartOptions, rows: Table["rows"]): Record<string, unknown> {
  if (!o.errorLow || !o.errorHigh) return {};
  column(table, o.errorLow);
  column(table, o.errorHigh);
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

function axes(table: Table, o: ChartOptions): Figure["layout"] {
  return {
    title: o.title ?? table.title,
    xaxis: { title: o.xTitle ?? headerText(column(table, o.x)), ...(o.logX ? logAxis() : {}) },
    yaxis: { title: o.yTitle ?? headerText(column(table, o.y)), ...(o.logY ? logAxis() : {}) },
    legend: o.group ? { title: { text: headerText(column(table, o.group)) } } : undefined,
  };
}

/** Grouped bars: x categories, one bar colour per group. */
export function bars(table: Table, o: ChartOptions): Figure {
  return {
    data: groups(table, o.group).map((g) => ({
      type: "bar",
      name: g.name,
      x: g.rows.map((r) => label(table, o.x, r[o.x])),
      y: g.rows.map((r) => r[o.y]),
      ...errorBars(table, o, g.rows),
    })),
    // Bars stand on categories even when they look numeric (replicas 2, 4, 8 must not leave gaps at 3, 5, 6, 7).
    layout: (() => {
      const l = axes(table, o) as NonNullable<Figure["layout"]>;
      return { ...l, xaxis: { ...(l.xaxis ?? {}), type: "category" as const }, barmode: "group" };
    })(),
  };
}

/** Lines with markers: one line per group (and, with `dashed`, a dotted companion line per group). */
export function lines(table: Table, o: ChartOptions): Figure {
  const palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  const gs = groups(table, o.group);
  const data: Figure["data"] = [];
  gs.forEach((g, i) => {
    const color = o.dashed ? { line: { color: palette[i % palette.length] }, marker: { color: palette[i % palette.length] } } : {};
    data.push({ type: "scatter", mode: o.mode ?? "lines+markers", name: g.name, x: g.rows.map((r) => r[o.x]), y: g.rows.map((r) => r[o.y]), ...errorBars(table, o, g.rows), ...color });
    if (o.dashed) {
      const name = `${g.name ? `${g.name} · ` : ""}${headerText(column(table, o.dashed))}`;
      data.push({ type: "scatter", mode: "lines", name, x: g.rows.map((r) => r[o.x]), y: g.rows.map((r) => r[o.dashed as string]), line: { color: palette[i % palette.length], dash: "dot" } });
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
  const paths = options.paths.map((p) => ({
    type: "scatter",
    mode: "lines+markers+text",
    name: p.name,
    x: p.points.map((pt) => pt.x + (p.offset ?? 0)),
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
