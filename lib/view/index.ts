import type { Table } from "../core/table";
import { displayHtml } from "./display";
import { tableHtml, tableText } from "./table";
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
export { readingsTable } from "./readings";
export { lectureReading, withoutCitations } from "./lecture-reading";
export { claimLines, claimLinesMarkdown, claimLine, claimLinesOf } from "./summary";
export type { SectionLink } from "./summary";
export { displayHtml, displayMarkdown, statusLine, kernel } from "./display";
import { displayMarkdown } from "./display";
export type { Rendered } from "./display";

/** Renders a Table (HTML in the notebook, text elsewhere). Returns nothing so the cell does not echo it;
 * tableHtml / tableText give the strings. Notes already shown in this session are folded ("说明同上"). */
export function table(t: Table): void {
  displayHtml({ html: tableHtml(t, { foldRepeatedNotes: true }), text: tableText(t) });
}

/** A demo's table followed by its judged claims: the usual demo cell ends with report(t). */
export function report(t: Table, o: ClaimRenderOptions = {}): void {
  table(t);
  const c = claimsMarkdown(t, { besideTable: true, ...o });
  if (c) displayMarkdown(c, claimsText(t));
}

/** Shows a Table; an alias that reads naturally in cells: show(runDemo("02.1")). */
export const show = table;
export { runDemoWithProgress } from "./run-demo";
export * from "./claims";
export * from "./help";
export { displayName, displayNames, hasDisplayName, glossaryEntries } from "../core/glossary";
