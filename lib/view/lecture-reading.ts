// §3's main notebook teaches the lecture's reading of Preble; the released code's rows, its notes and the file / line
// citations (gsw:152–159) live in the appendix notebook. lectureReading() cuts a §3 demo's table down to what the
// main page shows; the claims keep every reading, so report(t, { readings: "line" }) can still add the one line
// "开源代码的读法下：…（见附录）" where the released code changes a verdict.
import type { ClaimResult, Table } from "../core/table";
import { isReleasedRow, OVERLOAD_NOTE, RELEASED_COLUMNS, WARMUP_NOTE } from "../demos/preble/common";

/** A file / line citation of the released code: gsw:152–159、195–197, simulator.py:349–364, radix_cache.py:58. */
const CITE = String.raw`[A-Za-z_][A-Za-z0-9_.]*:\d+(?:[–-]\d+)?(?:、\d+(?:[–-]\d+)?)*`;
const CITE_ALONE = new RegExp(String.raw`（\s*${CITE}(?:\s*[、，,]\s*${CITE})*\s*）`, "g");
const CITE_INLINE = new RegExp(String.raw`[；，、]?\s*${CITE}`, "g");

/** `text` without its file / line citations (a parenthesis holding only citations goes with them). */
export function withoutCitations(text: string): string {
  return text.replace(CITE_ALONE, "").replace(CITE_INLINE, "");
}

/** Clauses (ending in "。" or "；") of `text` that do not match `drop`, joined; a trailing "；" becomes "。". */
function keepClauses(text: string, drop: RegExp): string {
  const clauses = text.match(/[^。；]+[。；]?/g) ?? [];
  return clauses.filter((c) => !drop.test(c)).join("").replace(/；$/, "。");
}

/** A note as the lecture's reading tells it: no note about the released reading, no clause naming the released code,
 * its migration or the paper's baseline, no citation ("" when nothing is left). The warm-up and overload rules every
 * §3 table shares are left out too: the page states them once. */
function lectureNote(note: string): string {
  const head = note.split("：")[0];
  if (/开源|Released/.test(head) || note === WARMUP_NOTE || note === OVERLOAD_NOTE) return "";
  return withoutCitations(keepClauses(note, /开源|论文的基线|迁移/));
}

/** A claim without citations; a claim with one verdict lists no figure of the released rows ("；"-separated). */
function lectureClaim(c: ClaimResult): ClaimResult {
  const clean = <T extends { ours: string; reason?: string; why?: string }>(x: T): T => ({ ...x, ours: withoutCitations(x.ours), ...(x.reason ? { reason: withoutCitations(x.reason) } : {}), ...(x.why ? { why: withoutCitations(x.why) } : {}) });
  const ours = c.readings ? c.ours : c.ours.split("；").filter((part) => !part.includes("开源代码的读法")).join("；");
  return { ...clean({ ...c, ours }), ...(c.readings ? { readings: c.readings.map(clean) } : {}) };
}

/** The table as §3's main page shows it: the lecture's rows and columns, its notes without the released code's
 * clauses, claims and notes without file / line citations. The claims keep their other readings (for "line"). */
export function lectureReading(t: Table): Table {
  const rows = t.rows.filter((r) => !isReleasedRow(r));
  const columns = t.columns.filter((c) => !RELEASED_COLUMNS.includes(c.key) && rows.some((r) => r[c.key] !== null && r[c.key] !== undefined));
  const notes = (t.notes ?? []).map(lectureNote).filter((n) => n.trim() !== "");
  return { ...t, rows, columns, notes, ...(t.claims ? { claims: t.claims.map(lectureClaim) } : {}) };
}
