import type { Table } from "../core/table";
import { displayHtml } from "./display";
import { escapeHtml, tableHtml, tableText } from "./table";
import { foldedHtml } from "./fold";
import { claimsMarkdown, claimsText, ClaimRenderOptions } from "./claims";

export * from "./table";
export * from "./plot";
export * from "./md";
export * from "./charts";
export { readableFigure } from "./figure/readable";
export { figureProblems } from "./figure/check";
export { queueLengthChart } from "./queue-chart";
export type { QueuePanel } from "./queue-chart";
export { e2DecisionChart } from "./decision-chart";
export type { E2Decision, E2DecisionKind } from "./decision-chart";
export { radixTreeSvg, radixTreeText, showRadixTree } from "./radix-tree-svg";
export type { RadixNodeDrawing } from "./radix-tree-svg";
export { partOf } from "./parts";
export { sideBySide } from "./side-by-side";
export type { SideBySideOptions } from "./side-by-side";
export { foldedHtml } from "./fold";
export { readingsTable } from "./readings";
export { lectureReading, withoutCitations } from "./lecture-reading";
export { claimLines, claimLinesMarkdown, claimLine, claimLinesOf } from "./summary";
export type { SectionLink } from "./summary";
export { displayHtml, displayMarkdown, statusLine, kernel } from "./display";
import { displayMarkdown } from "./display";
export type { Rendered } from "./display";

export interface ShowOptions {
  /** closed under one line "全表：N 行、M 列（点开查看）" (a string: the line's words instead of "全表"); a
   * terminal prints it in full */
  folded?: boolean | string;
}

/** The table as show() draws it in the notebook: its HTML, folded under one summary line when asked. */
export function shownHtml(t: Table, o: ShowOptions = {}): string {
  const html = tableHtml(t, { foldRepeatedNotes: true });
  if (!o.folded) return html;
  const what = typeof o.folded === "string" ? o.folded : "全表";
  return foldedHtml({ kind: "l11-table-fold", titleHtml: escapeHtml(`${what}：${t.rows.length} 行、${t.columns.length} 列`), hint: "（点开查看）", bodyHtml: html });
}

/** Renders a Table (HTML in the notebook, text elsewhere). Returns nothing so the cell does not echo it;
 * tableHtml / tableText give the strings. Notes already shown in this session are folded ("说明同上"). */
export function table(t: Table, o: ShowOptions = {}): void {
  displayHtml({ html: shownHtml(t, o), text: tableText(t) });
}

export interface ReportOptions extends ClaimRenderOptions {
  /** a shorter view of the table (e.g. sideBySide(t, …)) shown in its place; the full table follows it folded, one
   * click away, and the claims are judged on the full table as always */
  compact?: Table;
}

/** A demo's table followed by its judged claims: the usual demo cell ends with report(t). */
export function report(t: Table, o: ReportOptions = {}): void {
  const { compact, ...claimOptions } = o;
  if (compact) {
    table(compact);
    table(t, { folded: true });
  } else table(t);
  const c = claimsMarkdown(t, { besideTable: true, ...claimOptions });
  if (c) displayMarkdown(c, claimsText(t));
}

/** Shows a Table; an alias that reads naturally in cells: show(runDemo("02.1")). */
export const show = table;
export { runDemoWithProgress } from "./run-demo";
export * from "./claims";
export * from "./help";
export { displayName, displayNames, hasDisplayName, glossaryEntries } from "../core/glossary";
