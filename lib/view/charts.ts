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
  /** error bars: the column holding each point's ± (symmetric; e.g. a standard deviation across seeds) */
  error?: string;
}

/** Plotly error bars from the `error` column of the rows (nothing when no column is named). */
function errorBars(table: Table, rows: Table["rows"], key: string | undefined): Record<string, unknown> {
  if (!key) return {};
  column(table, key);
  return { error_y: { type: "data", array: rows.map((r) => (typeof r[key] === "number" ? r[key] : 0)), visible: true } };
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
      ...errorBars(table, g.rows, o.error),
    })),
    // Bars stand on categories even when they look numeric (replicas 2, 4, 8 must not leave gaps at 3, 5, 6, 7).
    layout: (() => {
      const l = axes(table, o) as NonNullable<Figure["layout"]>;
      return { ...l, xaxis: { ...(l.xaxis ?? {}), type: "category" as const }, barmode: "group" };
    })(),
  };
}

/** Lines with markers: one line per group. */
export function lines(table: Table, o: ChartOptions): Figure {
  return {
    data: groups(table, o.group).map((g) => ({
      type: "scatter",
      mode: "lines+markers",
      name: g.name,
      x: g.rows.map((r) => r[o.x]),
      y: g.rows.map((r) => r[o.y]),
      ...errorBars(table, g.rows, o.error),
    })),
    layout: axes(table, o),
  };
}

/** A heatmap from a matrix with labelled axes. */
export function heatmap(options: { z: number[][]; x: string[]; y: string[]; title: string; xTitle: string; yTitle: string; zTitle?: string; text?: boolean; zmin?: number; zmax?: number }): Figure {
  return {
    data: [
      {
        type: "heatmap",
        z: options.z,
        x: options.x,
        y: options.y,
        colorscale: "Viridis",
        zmin: options.zmin,
        zmax: options.zmax,
        colorbar: { title: { text: options.zTitle ?? "" } },
        text: options.text === false ? undefined : options.z.map((row) => row.map((v) => v.toFixed(2))),
        texttemplate: options.text === false ? undefined : "%{text}",
      },
    ],
    layout: { title: options.title, xaxis: { title: options.xTitle, type: "category" }, yaxis: { title: options.yTitle, type: "category" } },
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
      ...errorBars(table, table.rows, s.error),
    })),
    layout: {
      title: o.title ?? table.title,
      xaxis: { title: o.xTitle ?? headerText(column(table, o.x)), ...(o.logX ? logAxis() : {}) },
      yaxis: { title: o.yTitle, ...(o.logY ? logAxis() : {}) },
      legend: o.legendTitle ? { title: { text: o.legendTitle } } : undefined,
    },
  };
}
