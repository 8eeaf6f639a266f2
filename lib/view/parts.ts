// A demo that runs several parts returns one table with a "part" column; partOf() cuts out one part for display: its
// rows, the columns that have a value there, the table's notes (show() folds the ones already printed).
import { displayName } from "../core/glossary";
import type { Table } from "../core/table";

/** The rows of `table` whose `key` column is `part`, with only the columns those rows use (the part column dropped). */
export function partOf(table: Table, part: string, key = "part"): Table {
  const rows = table.rows.filter((r) => r[key] === part);
  const columns = table.columns.filter((c) => c.key !== key && rows.some((r) => r[c.key] !== null && r[c.key] !== undefined));
  return { ...table, title: `${table.title} · ${displayName(part)}`, columns, rows, claims: undefined };
}
