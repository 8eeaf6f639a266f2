// Renders a demo's judged claims: one short paragraph a claim, the verdict first, our figures beside the lecture's.
// The verdict is a word in a coloured badge drawn by the page (badge.ts), plain words on a terminal.
import type { ClaimResult, Table, Verdict } from "../core/table";
import { displayMarkdown } from "./display";
import { badgeHtml, type BadgeLook } from "./badge";

const WORD: Record<Verdict, string> = { holds: "成立", fails: "不成立", unjudged: "无法判断" };
const LOOK: Record<Verdict, BadgeLook> = {
  holds: { word: WORD.holds, colour: "#1a7f37", kind: "l11-verdict l11-verdict-holds" },
  fails: { word: WORD.fails, colour: "#cf222e", kind: "l11-verdict l11-verdict-fails" },
  unjudged: { word: WORD.unjudged, colour: "#57606a", outline: true, kind: "l11-verdict l11-verdict-unjudged" },
};

/** The verdict in words ("成立", "不成立", "无法判断"). */
export function verdictText(v: Verdict): string {
  return WORD[v];
}

/** The verdict as a coloured badge with its word (inline HTML; also inside markdown). */
export function verdictBadge(v: Verdict): string {
  return badgeHtml(LOOK[v]);
}

function seedsText(s: ClaimResult["seeds"]): string {
  return s ? `；${s.total} 个种子中 ${s.agree} 个一致` : "";
}

function figures(ours: string, reason: string | undefined, seeds: ClaimResult["seeds"]): string {
  if (ours === "—" && reason) return `（${reason}）`;
  return `这里：${ours}${seeds ? seedsText(seeds) : ""}${reason ? `；${reason}` : ""}`;
}

/** One claim as a markdown list item (with sub-items per reading where the paper has two readings). */
export function claimMarkdown(c: ClaimResult): string {
  const lecture = c.lecture ? `讲义：${c.lecture}；` : "";
  const head = `- ${verdictBadge(c.verdict)} · ${c.says}　${lecture}${c.readings && c.readings.length > 1 ? "" : figures(c.ours, c.reason, c.seeds)}`;
  if (!c.readings || c.readings.length <= 1) return head;
  const sub = c.readings.map((r) => `    - ${r.reading}：${verdictBadge(r.verdict)} · ${figures(r.ours, r.reason, r.seeds)}`);
  return [head, ...sub].join("\n");
}

/** The claims of a table as markdown (empty when it has none); `besideTable`: the table is printed just above
 * (report()), so the heading points at it; alone (claims()), it names the run instead. */
export function claimsMarkdown(table: Table, o: { besideTable?: boolean } = {}): string {
  const list = table.claims ?? [];
  if (list.length === 0) return "";
  const source = o.besideTable ? `${table.id ? `演示 ${table.id}，` : ""}由上表的数字判断` : `按${table.id ? `演示 ${table.id} ` : ""}这次运行的数字判断，表格没有显示`;
  return [`**结论核对**（${source}）`, "", ...list.map(claimMarkdown)].join("\n");
}

/** Plain text for terminals (the CLI). */
export function claimsText(table: Table): string {
  const list = table.claims ?? [];
  if (list.length === 0) return "";
  const lines = ["结论核对："];
  for (const c of list) {
    lines.push(`  ${WORD[c.verdict]}　[${c.id}] ${c.says}`);
    if (c.lecture) lines.push(`      讲义：${c.lecture}`);
    if (c.readings && c.readings.length > 1) for (const r of c.readings) lines.push(`      ${r.reading}：${WORD[r.verdict]}　${figures(r.ours, r.reason, r.seeds)}`);
    else lines.push(`      ${figures(c.ours, c.reason, c.seeds)}`);
  }
  return lines.join("\n");
}

/** Renders the claims of a demo's table in the notebook (stdout elsewhere). */
export function claims(table: Table): void {
  const text = claimsMarkdown(table);
  if (text) displayMarkdown(text, claimsText(table));
}
