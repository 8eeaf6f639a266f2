// Chart builders from a Table: axis titles come from the columns' labels and units.
import type { Cell, Table } from "../core/table";
import { displayName } from "../core/glossary";
import { formatValue, headerText } from "./table";
import type { Figure } from "./figure/figure";
import { seriesLook } from "./figure/palette";
import { pointLabelTraces } from "./figure/point-labels";
import { levelMarks } from "./figure/marks";
import { column, errorBars, groups, label, logAxis, selected, type ChartOptions } from "./figure/chart-table";
export { withHorizontalLine } from "./figure/marks";
export { logAxis } from "./figure/chart-table";
export type { ChartOptions } from "./figure/chart-table";
export { facetLines } from "./figure/facet-lines";

/** A linear axis of a percent column writes its ticks as percentages, and its hover values as the table does ("41.2%"). */
function percentTicks(table: Table, key: string, log: boolean | undefined): { tickformat?: string; hoverformat?: string } {
  const format = table.columns.find((c) => c.key === key)?.format;
  return !log && (format === "percent0" || format === "percent1") ? { tickformat: ".0%", hoverformat: format === "percent1" ? ".1%" : ".0%" } : {};
}

function axes(table: Table, o: ChartOptions): Figure["layout"] {
  return {
    title: o.title ?? table.title,
    xaxis: { title: o.xTitle ?? headerText(column(table, o.x)), ...(o.logX ? logAxis() : percentTicks(table, o.x, o.logX)), ...(o.reverseX ? { autorange: "reversed" } : {}) },
    yaxis: { title: o.yTitle ?? headerText(column(table, o.y)), ...(o.logY ? logAxis() : percentTicks(table, o.y, o.logY)) },
    legend: o.group ? { title: { text: headerText(column(table, o.group)) } } : undefined,
  };
}

/** Grouped bars: x categories, one bar colour per group; with `markWhen`, the bars of its true rows hatched and a
 * note over the chart saying what the hatching means (a legend entry would be a bar trace of its own, and grouped
 * bars give every trace a slot in each category). */
export function bars(all: Table, o: ChartOptions): Figure {
  const table = selected(all, o);
  const marked = o.markWhen;
  const data: Figure["data"] = groups(table, o.group).map((g) => {
    const categories = g.rows.map((r) => label(table, o.x, r[o.x]));
    const values = g.rows.map((r) => r[o.y]);
    const errors = errorBars(table, o, g.rows);
    return {
      type: "bar",
      name: g.name,
      ...(o.horizontal ? { orientation: "h", y: categories, x: values, ...("error_y" in errors ? { error_x: errors.error_y } : {}) } : { x: categories, y: values, ...errors }),
      ...(marked ? { marker: { pattern: { shape: g.rows.map((r) => (r[marked] === true ? "/" : "")), solidity: 0.4 } } } : {}),
      ...(o.valueLabels ? { text: values.map((v) => formatValue(v, column(table, o.y).format)), textposition: "outside", cliponaxis: false } : {}),
    };
  });
  const hatchNote = marked && table.rows.some((r) => r[marked] === true) ? [{ text: `${displayName("hatchedBars")} = ${headerText(column(table, marked))}`, xref: "paper", yref: "paper", x: 1, y: 1.02, xanchor: "right", yanchor: "bottom", showarrow: false }] : [];
  if (o.mark) {
    const first = groups(table, o.x).map((g) => g.rows[0]);
    data.push(levelMarks(headerText(column(table, o.mark)), first.map((r) => label(table, o.x, r[o.x])), first.map((r) => r[o.mark as string])));
  }
  return {
    data,
    // Bars stand on categories even when they look numeric (replicas 2, 4, 8 must not leave gaps at 3, 5, 6, 7).
    layout: (() => {
      const l = axes(table, o) as NonNullable<Figure["layout"]>;
      const notes = hatchNote.length ? { annotations: hatchNote } : {};
      if (!o.horizontal) return { ...l, xaxis: { ...(l.xaxis ?? {}), type: "category" as const }, barmode: "group", ...notes };
      // the value axis across (the y column's title and log scale), the categories down, first at the top, each on
      // one line (tickvals given: the readable figure wraps only the labels of an axis without them)
      const names = [...new Set(table.rows.map((r) => label(table, o.x, r[o.x])))];
      const bars = Math.max(1, names.length) * Math.max(1, groups(table, o.group).length);
      return {
        ...l,
        xaxis: { ...(l.yaxis ?? {}) },
        yaxis: { ...(l.xaxis ?? {}), type: "category" as const, autorange: "reversed" as const, tickmode: "array", tickvals: names, ticktext: names },
        barmode: "group",
        height: Math.max(320, 22 * bars + 160),
        ...notes,
      };
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
      const dashed = o.dashed;
      // a dotted line equal to its solid one everywhere is drawn under it: the legend says so (04.3 when every run
      // converged), rather than leave the reader looking for it
      const hidden = g.rows.every((r) => r[dashed] === r[o.y]);
      const name = `${g.name ? `${g.name} · ` : ""}${headerText(column(table, dashed))}${hidden ? `（${displayName("coincidesWithSolid")}）` : ""}`;
      data.push({ type: "scatter", mode: "lines", name, x: g.rows.map((r) => r[o.x]), y: g.rows.map((r) => r[dashed]), line: { color: look.color, dash: "dot" } });
    }
  });
  return { data, layout: axes(table, o) };
}

/** A path drawn over a heatmap: points are (column, row) indices into x / y, each with an optional label (e.g. the
 * step numbers); `offset` shifts the path off the cell centres so that paths through the same cells stay apart — a
 * number along the diagonal (a further 0.11 of a cell sideways when the values are written in the cells), or
 * `{ x, y }` in fractions of a cell; `symbol` and `dash` tell apart paths of one colour. */
export interface HeatmapPath {
  name: string;
  points: Array<{ x: number; y: number; label?: string }>;
  offset?: number | { x: number; y: number };
  color?: string;
  /** the markers' shape (Plotly's symbol names: "circle", "square", "diamond" …), circle by default */
  symbol?: string;
  /** the line's dash ("solid", "dash", "dot" …), solid by default */
  dash?: string;
}

/** A heatmap from a matrix with labelled axes; with `paths`, lines with labelled markers drawn over the cells (every
 * line first, then every path's markers, so that no path's line crosses another's marker), named in the legend, whose
 * title (`legendTitle`) can say what the labels mean. */
export function heatmap(options: { z: number[][]; x: string[]; y: string[]; title: string; xTitle: string; yTitle: string; zTitle?: string; text?: boolean; zmin?: number; zmax?: number; paths?: HeatmapPath[]; reverseY?: boolean; legendTitle?: string }): Figure {
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
  // numeric axes with the names as tick labels, so that a path can be drawn off the cell centres
  const xs = options.x.map((_, i) => i);
  const ys = options.y.map((_, i) => i);
  const { lines, markers } = heatmapPathTraces(options.paths, options, text !== undefined);
  return {
    data: [{ ...cells, x: xs, y: ys }, ...lines, ...markers],
    layout: {
      title: options.title,
      // no zero line or grid: on numeric axes Plotly drew them through the cells' margins
      xaxis: { title: options.xTitle, tickvals: xs, ticktext: options.x, zeroline: false, showgrid: false },
      yaxis: { title: options.yTitle, tickvals: ys, ticktext: options.y, zeroline: false, showgrid: false, ...(options.reverseY ? { autorange: "reversed" } : {}) },
      legend: { orientation: "h", y: -0.2, ...(options.legendTitle ? { title: { text: options.legendTitle, side: "top" } } : {}) },
    },
  };
}

/** Each path as a line (no legend entry) and as its markers (its legend entry, in its legend group): markers filled
 * with the path's colour and outlined dark, the label in black inside — readable on the dark and the light end of
 * the colour scale alike (white markers told the paths apart only by a thin outline). */
function heatmapPathTraces(paths: readonly HeatmapPath[], o: { x: string[]; y: string[]; xTitle: string; yTitle: string }, textInCells: boolean): { lines: Figure["data"]; markers: Figure["data"] } {
  // a number shifts along the diagonal, further sideways when the values are written at the cells' centres
  const shift = (offset: HeatmapPath["offset"]): { x: number; y: number } =>
    typeof offset === "object" ? offset : { x: offset && textInCells ? offset + Math.sign(offset) * 0.11 : offset ?? 0, y: offset ?? 0 };
  const lines: Figure["data"] = [];
  const markers: Figure["data"] = [];
  paths.forEach((p, i) => {
    const d = shift(p.offset);
    const color = p.color ?? seriesLook(i, paths.length).color;
    const x = p.points.map((pt) => pt.x + d.x);
    const y = p.points.map((pt) => pt.y + d.y);
    const where = p.points.map((pt) => `${o.yTitle}：${o.y[pt.y] ?? ""}，${o.xTitle}：${o.x[pt.x] ?? ""}`);
    lines.push({ type: "scatter", mode: "lines", name: p.name, legendgroup: p.name, showlegend: false, hoverinfo: "skip", x, y, line: { width: 3, color, ...(p.dash && p.dash !== "solid" ? { dash: p.dash } : {}) } });
    markers.push({
      type: "scatter",
      mode: "markers+text",
      name: p.name,
      legendgroup: p.name,
      x,
      y,
      text: p.points.map((pt) => pt.label ?? ""),
      textposition: "middle center",
      textfont: { size: 11, color: "#000000" },
      marker: { size: p.symbol && p.symbol !== "circle" ? 22 : 25, symbol: p.symbol ?? "circle", color, line: { width: 1.5, color: "#222222" } },
      customdata: where,
      hovertemplate: `${p.name}<br>%{text}<br>%{customdata}<extra></extra>`,
    });
  });
  return { lines, markers };
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
