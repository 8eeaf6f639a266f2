import type { Table } from "../core/table";
import { displayHtml } from "./display";
import { tableHtml, tableText } from "./table";

export * from "./table";
export * from "./plot";
export * from "./md";
export * from "./charts";
export { displayHtml, displayMarkdown, statusLine, kernel } from "./display";
export type { Rendered } from "./display";

/** Renders a Table (HTML in the notebook, text elsewhere). Returns nothing so the cell does not echo it;
 * tableHtml / tableText give the strings. */
export function table(t: Table): void {
  displayHtml({ html: tableHtml(t), text: tableText(t) });
}

/** Shows a Table; an alias that reads naturally in cells: show(runDemo("02.1")). */
export const show = table;
export { runDemoWithProgress } from "./run-demo";
