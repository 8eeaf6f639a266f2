// Where a paper's reading and its released code differ, a demo's claims carry a verdict under each (ClaimResult
// .readings). readingsTable() lines those claims up across demos: which conclusion holds under which reading.
import type { Table } from "../core/table";
import { verdictText } from "./claims";

/** One row per claim judged under two or more readings, in the order of `tables`: the demo, the claim, and the
 * verdict under each reading (the first reading is the default one). */
export function readingsTable(tables: readonly Table[], title = "同一条结论，两种读法下的判断"): Table {
  const rows: Table["rows"] = [];
  for (const t of tables) {
    for (const c of t.claims ?? []) {
      if (!c.readings || c.readings.length < 2) continue;
      const [a, b] = c.readings;
      rows.push({ demo: t.id ?? "", claim: c.says, first: `${verdictText(a.verdict)}（${a.reading}）`, second: `${verdictText(b.verdict)}（${b.reading}）`, same: a.verdict === b.verdict });
    }
  }
  return {
    title,
    columns: [
      { key: "demo", label: "演示", format: "text" },
      { key: "claim", label: "结论", format: "text" },
      { key: "first", label: "默认的读法", format: "text" },
      { key: "second", label: "另一种读法", format: "text" },
      { key: "same", label: "两种读法一致" },
    ],
    rows,
    notes: ["每条结论的数字在各自演示的“结论核对”里；默认的读法是讲义的（或我们的），另一种是开源代码的（或论文的）。"],
  };
}
