// Renders a demo's judged claims: one short paragraph a claim, the verdict first, our figures beside the lecture's.
// The verdict is a word in a coloured badge drawn by the page (badge.ts), plain words on a terminal.
import type { ClaimResult, Table, Verdict } from "../core/table";
import { ParameterError } from "../core/errors";
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
  return s ? `；${s.total} 个种子中 ${s.agree} 个成立` : "";
}

/** Our figures ("这里：…" with the seeds that agree); none when the claim could not be judged at all ("—"). The reason
 * a verdict does not hold is never put here: it has its own line (verdictReason). */
export function figures(ours: string, seeds: ClaimResult["seeds"]): string {
  return ours === "—" ? "" : `这里：${ours}${seeds ? seedsText(seeds) : ""}`;
}

/** The reason shown under a verdict that is not "holds" — its `why`, or why it cannot be judged — on the one
 * "原因：" line every view uses (notebook, handout, CLI, summary); undefined when the verdict holds. */
export function verdictReason(c: { verdict: Verdict; why?: string; reason?: string }): string | undefined {
  return c.verdict === "holds" ? undefined : c.why ?? c.reason;
}

/** How claims render: `readings: "all"` (default) lists every reading's verdict; `"line"` shows the first reading's
 * verdict only, plus at most one line "开源代码的读法下：…（见附录）" (its 原因 on its own line under it) where another reading's verdict differs (§3's main
 * notebook, the released-code readings being in its appendix). */
export interface ClaimRenderOptions {
  readings?: "all" | "line";
  /** "line" mode: the notebook "（见附录）" links to (default: §3's appendix); "" = no link */
  appendix?: string;
  /** Only these claims (by id, in the table's order); an id the table does not have is an error */
  only?: readonly string[];
}

/** The table's claims, or only those named in `o.only`. */
function selectedClaims(table: Table, o: ClaimRenderOptions): ClaimResult[] {
  const list = table.claims ?? [];
  if (!o.only) return list;
  const missing = o.only.filter((id) => !list.some((c) => c.id === id));
  if (missing.length > 0) throw new ParameterError("only", `表里没有结论 ${missing.join("、")}；可选：${list.map((c) => c.id).join("、")}`);
  return list.filter((c) => o.only!.includes(c.id));
}

/** §3's appendix: the released code's readings (notebooks/10-…). */
export const PREBLE_APPENDIX = "10-appendix-preble-as-released.ipynb";

/** What a claim says, marked when it is our addition and not the lecture's conclusion (every view of a claim). */
export function claimSays(c: ClaimResult): string {
  return c.ourStatement ? `${c.says}（我们补充的说法，不是讲义的结论）` : c.says;
}

/** One claim as a markdown list item (with sub-items per reading where the paper has two readings). */
export function claimMarkdown(c: ClaimResult, o: ClaimRenderOptions = {}): string {
  const says = claimSays(c);
  const listed = c.readings && c.readings.length > 1 && o.readings !== "line";
  const detail = [c.lecture ? `讲义：${c.lecture}` : "", listed ? "" : figures(c.ours, c.seeds)].filter((x) => x).join("；");
  const head = `- ${verdictBadge(c.verdict)} · ${says}${detail ? `　${detail}` : ""}`;
  if (!listed) return [head, ...whyLines(c, "    "), ...otherReadingLine(c, o)].join("\n");
  const sub = (c.readings ?? []).flatMap((r) => [`    - ${r.reading}：${verdictBadge(r.verdict)}${figures(r.ours, r.seeds) ? ` · ${figures(r.ours, r.seeds)}` : ""}`, ...whyLines(r, "        ")]);
  return [head, ...sub].join("\n");
}

/** The reason under a verdict that is not "holds", as a nested list item "原因：…" (every markdown view: claims,
 * the per-reading lines, the summary's claim lines). */
export function whyLines(c: { verdict: Verdict; why?: string; reason?: string }, indent: string): string[] {
  const reason = verdictReason(c);
  return reason ? [`${indent}- 原因：${reason}`] : [];
}

/** "line" mode: one line for the first other reading whose verdict differs from the first reading's. */
function otherReadingLine(c: ClaimResult, o: ClaimRenderOptions): string[] {
  if (o.readings !== "line" || !c.readings || c.readings.length < 2) return [];
  const other = c.readings.slice(1).find((r) => r.verdict !== c.readings![0].verdict);
  if (!other) return [];
  // short (§3's handout has a length budget): the figures only where there is no reason line; the full claim is in the appendix
  const target = o.appendix ?? PREBLE_APPENDIX;
  const figs = verdictReason(other) ? "" : ` · ${other.ours}`;
  return [`    - ${other.reading}下：${verdictBadge(other.verdict)}${figs}（见${target ? `[附录](${target})` : "附录"}）`, ...whyLines(other, "        ")];
}

/** The claims of a table as markdown (empty when it has none); `besideTable`: the table is printed just above
 * (report()), so the heading points at it; alone (claims()), it names the run instead. */
export function claimsMarkdown(table: Table, o: { besideTable?: boolean } & ClaimRenderOptions = {}): string {
  const list = selectedClaims(table, o);
  if (list.length === 0) return "";
  const source = o.besideTable ? `${table.id ? `演示 ${table.id}，` : ""}由上表的数字判断` : `按${table.id ? `演示 ${table.id} ` : ""}这次运行的数字判断，表格没有显示`;
  return [`**结论核对**（${source}）`, "", ...list.map((c) => claimMarkdown(c, o))].join("\n");
}

/** Plain text for terminals (the CLI). */
export function claimsText(table: Table, o: Pick<ClaimRenderOptions, "only"> = {}): string {
  const list = selectedClaims(table, o);
  if (list.length === 0) return "";
  const lines = ["结论核对："];
  for (const c of list) {
    lines.push(`  ${WORD[c.verdict]}　[${c.id}] ${c.says}${c.ourStatement ? "（我们补充的说法）" : ""}`);
    if (c.lecture) lines.push(`      讲义：${c.lecture}`);
    const one = (x: { verdict: Verdict; ours: string; seeds?: ClaimResult["seeds"]; why?: string; reason?: string }, label: string, indent: string) => {
      const figs = figures(x.ours, x.seeds);
      if (label || figs) lines.push(`${indent}${label}${figs}`);
      const reason = verdictReason(x);
      if (reason) lines.push(`${indent}${label ? "  " : ""}原因：${reason}`);
    };
    if (c.readings && c.readings.length > 1) for (const r of c.readings) one(r, `${r.reading}：${WORD[r.verdict]}　`, "      ");
    else one(c, "", "      ");
  }
  return lines.join("\n");
}

/** Renders the claims of a demo's table in the notebook (stdout elsewhere); `{ only: [id, …] }` shows just those. */
export function claims(table: Table, o: ClaimRenderOptions = {}): void {
  const text = claimsMarkdown(table, o);
  if (text) displayMarkdown(text, claimsText(table, o));
}
