// A long table (a row per cell × configuration) turned so that the configurations stand side by side: one row per
// cell, one column per configuration. Nothing is recomputed — every number is a cell of the original table, written
// with its column's format — so the short view and the full table cannot disagree. report(t, { compact }) shows such a
// view with the full table folded under it (the appendix's 03.1: 95 rows become 18).
import type { Cell, Column, Row, Table } from "../core/table";
import { spacedText } from "../core/glossary";
import { formatValue } from "./table";

export interface SideBySideOptions {
  /** the columns that make one row of the view (one per distinct combination, in the table's order), e.g. workload and rate */
  rows: readonly string[];
  /** the column whose values become columns, in the table's order, e.g. "policy" (one column per configuration) */
  across: string;
  /** the columns shown for every value of `across` (one column each) */
  values: readonly string[];
  /** a yes/no column: a value whose row has it true is followed by the column's label, "145.41（过载）" */
  flag?: string;
  /** columns shown once per row, read from the row whose `across` is `from` (e.g. full Preble's ratio to the baselines) */
  also?: { from: string; columns: readonly string[] };
  title?: string;
  /** notes under the view (default: one line saying how to read it, then the table's own notes) */
  notes?: string[];
}

function columnOf(table: Table, key: string): Column {
  const c = table.columns.find((x) => x.key === key);
  if (!c) throw new Error(`sideBySide: the table has no column "${key}" (columns: ${table.columns.map((x) => x.key).join(", ")})`);
  return c;
}

const present = (v: Cell): boolean => v !== null && v !== undefined && !(typeof v === "number" && Number.isNaN(v));

/** `t` with one row per combination of `o.rows` and, for every value of `o.across`, the `o.values` of that row side by
 * side (a missing combination is "—"); the claims and parameters stay with it, so report() can judge beside it. */
export function sideBySide(t: Table, o: SideBySideOptions): Table {
  const keyColumns = o.rows.map((k) => columnOf(t, k));
  const acrossColumn = columnOf(t, o.across);
  const valueColumns = o.values.map((k) => columnOf(t, k));
  const alsoColumns = (o.also?.columns ?? []).map((k) => columnOf(t, k));
  const flagColumn = o.flag ? columnOf(t, o.flag) : undefined;
  const acrossValues = [...new Set(t.rows.map((r) => r[o.across]))].filter(present);
  const groups = new Map<string, Row[]>();
  for (const r of t.rows) {
    const key = JSON.stringify(o.rows.map((k) => r[k] ?? null));
    const group = groups.get(key);
    if (group) group.push(r);
    else groups.set(key, [r]);
  }
  const slot = (a: Cell, v: Column) => `${String(a)}|${v.key}`;
  const alsoSlot = (c: Column) => `also|${String(o.also?.from)}|${c.key}`;
  const shown = (r: Row, v: Column): Cell => (flagColumn && r[flagColumn.key] === true && present(r[v.key]) ? `${formatValue(r[v.key], v.format)}（${flagColumn.label}）` : r[v.key]);
  const rows: Row[] = [...groups.values()].map((group) => {
    const row: Row = Object.fromEntries(o.rows.map((k) => [k, group[0][k]]));
    for (const a of acrossValues) {
      const source = group.find((r) => r[o.across] === a);
      for (const v of valueColumns) row[slot(a, v)] = source ? shown(source, v) : null;
    }
    const from = o.also ? group.find((r) => r[o.across] === o.also?.from) : undefined;
    for (const c of alsoColumns) row[alsoSlot(c)] = from ? from[c.key] : null;
    return row;
  });
  const acrossName = (a: Cell) => formatValue(a, acrossColumn.format);
  const columns: Column[] = [
    ...keyColumns,
    ...acrossValues.flatMap((a) => valueColumns.map((v) => ({ key: slot(a, v), label: o.values.length === 1 ? acrossName(a) : `${acrossName(a)}：${v.label}`, unit: v.unit, format: v.format }))),
    ...alsoColumns.map((c) => ({ key: alsoSlot(c), label: `${acrossName(o.also?.from)}：${c.label}`, unit: c.unit, format: c.format })),
  ].filter((c) => rows.some((r) => present(r[c.key])));
  const how = [
    `每行一格（${keyColumns.map((c) => c.label).join(" × ")}），每个${acrossColumn.label}一列：${valueColumns.map((c) => c.label).join("、")}`,
    flagColumn ? `“（${flagColumn.label}）”标出${flagColumn.label}的那次运行` : "",
    alsoColumns.length ? `“${acrossName(o.also?.from)}：”开头的列取自${acrossName(o.also?.from)}那一行` : "",
    `“—”：这一格没有跑这个${acrossColumn.label}`,
  ].filter((s) => s !== "");
  return { ...t, title: o.title ?? t.title, columns, rows, notes: o.notes ?? [spacedText(`${how.join("；")}。`), ...(t.notes ?? [])] };
}
