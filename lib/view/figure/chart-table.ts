// What every chart builder reads from a Table: a column by key, a value as the reader sees it, the rows split into
// series, the rows a chart asked for, error bars and log axes. Kept apart from the builders (charts.ts,
// facet-lines.ts) so that both share them without these helpers becoming notebook globals (lib/view/index exports
// charts.ts whole).
import type { Cell, Column, Table } from "../../core/table";
import { rowsWhere } from "../../core/table";
import { displayName } from "../../core/glossary";

export function column(table: Table, key: string): Column {
  const c = table.columns.find((col) => col.key === key);
  if (!c) throw new Error(`chart: column "${key}" not in table "${table.title}" (columns: ${table.columns.map((x) => x.key).join(", ")})`);
  return c;
}

/** A category or legend entry as the reader sees it: glossary names for "name" columns (and text columns whose
 * values the glossary knows), the value itself otherwise. */
export function label(table: Table, key: string, value: unknown): string {
  const c = table.columns.find((col) => col.key === key);
  if (c && typeof c.format === "function") return c.format(value);
  if (typeof value === "boolean") return value ? "是" : "否";
  if (c && (c.format === "name" || c.format === "text" || c.format === undefined)) return displayName(value);
  return String(value);
}

export function groups(table: Table, key: string | undefined): Array<{ name: string; rows: Table["rows"] }> {
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
  /** the x axis runs from its largest value to its smallest (e.g. a quality that worsens to the right) */
  reverseX?: boolean;
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
  /** bars(): a boolean column whose true rows are drawn hatched (e.g. overloaded runs), said in a note over the chart */
  markWhen?: string;
  /** bars(): the categories down the y axis, first at the top, and the bars across (many long category names side by
   * side ran into each other); xTitle still names the categories and yTitle the values */
  horizontal?: boolean;
  /** bars(): each bar's value written at its end, formatted as the table's column (a bar at 0 is otherwise invisible) */
  valueLabels?: boolean;
}

/** The table restricted to the rows a chart asked for. */
export function selected(table: Table, o: { where?: Record<string, Cell> }): Table {
  return o.where ? { ...table, rows: rowsWhere(table, o.where) } : table;
}

/** Plotly error bars from a range's columns (asymmetric: from the value down to low, up to high). */
export function errorBars(table: Table, o: ChartOptions, rows: Table["rows"]): Record<string, unknown> {
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
