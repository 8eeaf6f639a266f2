// Where a paper's reading and its released code differ, a demo's claims carry a verdict under each (ClaimResult
// .readings). readingsTable() lines those claims up across demos: which conclusion holds under which reading.
import type { Table } from "../core/table";
import { verdictReason, verdictText } from "./claims";

/** How many characters of a reason the table keeps. */
const REASON_CHARS = 60;

/** The first clause of a reading's reason (verdictReason), cut at REASON_CHARS; null when it holds. */
function shortReason(r: { verdict: "holds" | "fails" | "unjudged"; why?: string; reason?: string }): string | null {
  const reason = verdictReason(r);
  if (!reason) return null;
  const first = reason.split(/[；。]/)[0];
  return first.length > REASON_CHARS ? `${first.slice(0, REASON_CHARS)}…` : first;
}

/** One row per claim judged under two or more readings, in the order of `tables`: the demo, the claim, and the
 * verdict under each reading (the first reading is the default one). */
export function readingsTable(tables: readonly Table[], title = "同一条结论，两种读法下的判断"): Table {
  const rows: Table["rows"] = [];
  for (const t of tables) {
    for (const c of t.claims ?? []) {
      if (!c.readings || c.readings.length < 2) continue;
      const [a, b] = c.readings;
      rows.push({ demo: t.id ?? "", claim: c.says, first: `${verdictText(a.verdict)}（${a.reading}）`, firstWhy: shortReason(a), second: `${verdictText(b.verdict)}（${b.reading}）`, secondWhy: shortReason(b), same: a.verdict === b.verdict });
    }
  }
  return {
    title,
    columns: [
      { key: "demo", label: "演示", format: "text" },
      { key: "claim", label: "结论", format: "text" },
      { key: "first", label: "默认的读法", format: "text" },
      { key: "firstWhy", label: "默认读法下的原因（不成立或无法判断）", format: "text" },
      { key: "second", label: "另一种读法", format: "text" },
      { key: "secondWhy", label: "另一种读法下的原因（不成立或无法判断）", format: "text" },
      { key: "same", label: "两种读法一致" },
    ],
    rows,
    notes: ["每条结论的数字在各自演示的“结论核对”里；默认的读法是讲义的（或我们的），另一种是开源代码的（或论文的）。", `原因一栏是那条结论核对的“原因”行的第一句（超过 ${REASON_CHARS} 个字时截断，以“…”结尾），全文在各自演示的结论核对里；成立时为“—”。`],
  };
}
