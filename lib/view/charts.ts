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
  /** columns (or row keys) with the low and high end of each y (e.g. the range over seeds): drawn as error bars */
  yLow?: string;
  yHigh?: string;
}

/** Plotly error bars from the rows' yLow / yHigh values (none when the options do not name them). */
function errorBars(rows: Table["rows"], o: ChartOptions): Record<string, unknown> | undefined {
  if (!o.yLow || !o.yHigh) return undefined;
  const y = rows.map((r) => r[o.y] as number);
  return { type: "data", symmetric: false, array: rows.map((r, i) => (r[o.yHigh as string] as number) - y[i]), arrayminus: rows.map((r, i) => y[i] - (r[o.yLow as string] as number)) };
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
      error_y: errorBars(g.rows, o),
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
    })),
    layout: axes(table, o),
  };
}

/** A heatmap from a matrix with labelled axes. */
export function heatmap(options: { z: number[][]; x: string[]; y: string[]; title: string; xTitle: string; yTitle: string; zTitle?: string; text?: boolean }): Figure {
  return {
    data: [
      {
        type: "heatmap",
        z: options.z,
        x: options.x,
        y: options.y,
        colorscale: "Viridis",
        colorbar: { title: { text: options.zTitle ?? "" } },
        text: options.text === false ? undefined : options.z.map((row) => row.map((v) => v.toFixed(2))),
        texttemplate: options.text === false ? undefined : "%{text}",
      },
    ],
    layout: { title: options.title, xaxis: { title: options.xTitle, type: "category" }, yaxis: { title: options.yTitle, type: "category" } },
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

/** A heatmap of a long table: one cell per (x, y) pair with the value of column z (missing pairs are 0). */
export function heatmapOf(table: Table, o: { x: string; y: string; z: string; title?: string; xTitle?: string; yTitle?: string; zRange?: [number, number] }): Figure {
  const xs = [...new Set(table.rows.map((r) => r[o.x]))];
  const ys = [...new Set(table.rows.map((r) => r[o.y]))];
  const at = new Map(table.rows.map((r) => [`${String(r[o.x])}\u0000${String(r[o.y])}`, r[o.z] as number]));
  const fig = heatmap({
    z: ys.map((y) => xs.map((x) => at.get(`${String(x)}\u0000${String(y)}`) ?? 0)),
    x: xs.map((x) => label(table, o.x, x)),
    y: ys.map((y) => label(table, o.y, y)),
    title: o.title ?? table.title,
    xTitle: o.xTitle ?? headerText(column(table, o.x)),
    yTitle: o.yTitle ?? headerText(column(table, o.y)),
    zTitle: headerText(column(table, o.z)),
    text: false,
  });
  if (o.zRange) Object.assign(fig.data[0], { zmin: o.zRange[0], zmax: o.zRange[1] });
  return fig;
}

const PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

/** Lines with markers in a grid of small charts, one per value of `facet` (e.g. one per workload): the same group
 * has the same colour in every panel and one legend entry; each panel has its own y range. `markWhen` names a boolean
 * column whose true rows are drawn with a cross (e.g. overloaded cells). */
export function facetLines(table: Table, o: ChartOptions & { facet: string; columns?: number; markWhen?: string }): Figure {
  const facetValues = [...new Set(table.rows.map((r) => r[o.facet]))];
  const cols = Math.min(o.columns ?? 3, facetValues.length);
  const rowsCount = Math.ceil(facetValues.length / cols);
  const groupNames = groups(table, o.group).map((g) => g.name);
  const data: Array<Record<string, unknown>> = [];
  const layout: Record<string, unknown> = {
    title: o.title ?? table.title,
    grid: { rows: rowsCount, columns: cols, pattern: "independent", ygap: 0.35, xgap: 0.12 },
    legend: o.group ? { title: { text: headerText(column(table, o.group)) } } : undefined,
    height: 300 * rowsCount + 100,
    margin: { t: 100 },
    annotations: [] as unknown[],
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
        showlegend: i === 0,
        line: { color: PALETTE[groupNames.indexOf(g.name) % PALETTE.length] },
        marker: o.markWhen ? { symbol: g.rows.map((r) => (r[o.markWhen as string] === true ? "x" : "circle")), size: g.rows.map((r) => (r[o.markWhen as string] === true ? 10 : 6)) } : undefined,
        x: g.rows.map((r) => r[o.x]),
        y: g.rows.map((r) => r[o.y]),
        xaxis: `x${axis}`,
        yaxis: `y${axis}`,
      });
    }
    layout[`xaxis${axis}`] = { title: i === 0 || i >= facetValues.length - cols ? o.xTitle ?? headerText(column(table, o.x)) : "", ...(o.logX ? logAxis() : {}) };
    layout[`yaxis${axis}`] = { title: i % cols === 0 ? o.yTitle ?? headerText(column(table, o.y)) : "", ...(o.logY ? logAxis() : {}) };
    (layout.annotations as unknown[]).push({ text: `<b>${label(table, o.facet, fv)}</b>`, xref: `x${axis} domain`, yref: `y${axis} domain`, x: 0.5, y: 1.12, showarrow: false, xanchor: "center" });
  });
  return { data, layout: layout as Figure["layout"] };
}
