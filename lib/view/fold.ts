// A block the reader opens with a click (<details>): the full table under a short view (report's `compact`), a
// reference answer or a rubric (lib/exercises/render.ts). One look for every fold on the page and in the handouts.
import { escapeHtml } from "./table";

const FOLD_STYLE = "border:1px solid #d0d7de;border-radius:6px;padding:4px 10px;margin:6px 0;background:#f6f8fa";

/** `bodyHtml` folded under a summary line: `titleHtml` in bold, then `hint` (plain text, escaped). Closed until opened. */
export function foldedHtml(o: { kind: string; titleHtml: string; hint: string; bodyHtml: string }): string {
  return `<details class="${escapeHtml(o.kind)}" style="${FOLD_STYLE}"><summary><b>${o.titleHtml}</b>${escapeHtml(o.hint)}</summary>${o.bodyHtml}</details>`;
}
