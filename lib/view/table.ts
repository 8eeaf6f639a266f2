// HTML and plain-text renderings of the one Table type (lib/core/table.ts).
import type { Column, Format, Row, Table } from "../core/table";
import { displayName } from "../core/glossary";
import { fixedText, formatSignificant, percentText } from "../core/format";
export type { Column, Format, Row, Table, Cell } from "../core/table";

export function formatValue(value: unknown, format: Format = "sig3"): string {
  if (value === null || value === undefined) return "—";
  if (typeof format === "function") return format(value);
  if (format === "name") return displayName(value);
  if (typeof value === "boolean") return value ? "是" : "否";
  if (typeof value !== "number") return String(value);
  if (Number.isNaN(value)) return "—";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "−∞";
  switch (format) {
    case "int":
      return Math.round(value).toLocaleString("en-US");
    case "fixed0":
      return fixedText(value, 0);
    case "fixed1":
      return fixedText(value, 1);
    case "fixed2":
      return fixedText(value, 2);
    case "fixed3":
      return fixedText(value, 3);
    case "fixed4":
      return fixedText(value, 4);
    case "percent0":
      return percentText(value, 0);
    case "percent1":
      return percentText(value, 1);
    case "countOrMean":
      return Number.isInteger(value) ? value.toLocaleString("en-US") : value.toLocaleString("en-US", { minimumFractionDigits: 1, maximumFractionDigits: 1 });
    case "text":
      return String(value);
    case "sig3":
    default:
      return formatSignificant(value, 3);
  }
}

export { formatSignificant };

const NAMED_FORMATS: readonly string[] = ["int", "fixed0", "fixed1", "fixed2", "fixed3", "fixed4", "percent0", "percent1", "sig3", "countOrMean", "text", "name"];

/** The format of one cell: the column's, or the row's own where the column takes it from a row cell (Column.formatFrom). */
export function cellFormat(row: Row, column: Column): Format | undefined {
  const own = column.formatFrom === undefined ? undefined : row[column.formatFrom];
  return typeof own === "string" && NAMED_FORMATS.includes(own) ? (own as Format) : column.format;
}

/** One cell as the tables write it. */
export function cellText(row: Row, column: Column): string {
  return formatValue(row[column.key], cellFormat(row, column));
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
}

/** A column's header: its label with the unit in full-width brackets, "一步的时间（毫秒）"; a label that already ends
 * in brackets takes the unit inside them, "比同一模型的最好分配高（测试，百分点）" — one bracket style throughout. */
export function headerText(column: Column): string {
  if (!column.unit) return column.label;
  return column.label.endsWith("）") ? `${column.label.slice(0, -1)}，${column.unit}）` : `${column.label}（${column.unit}）`;
}

function isNumericColumn(table: Table, column: Column): boolean {
  return table.rows.some((r) => typeof r[column.key] === "number");
}

// Notes a notebook's tables share (an overload rule, a warm-up rule) are printed in full the first time in a kernel
// session and after that only as their first words and "说明同上", so a page does not repeat the same paragraph
// eight times (the handout's text neither).
const notesShown = new Set<string>();

/** Forgets which notes were shown (a new notebook run). */
export function resetNotes(): void {
  notesShown.clear();
}

function noteHtml(note: string, fold: boolean): string {
  if (!fold) return `<li>${escapeHtml(note)}</li>`;
  const head = note.length > 14 ? `${note.slice(0, 14)}…` : note;
  return `<li title="${escapeHtml(note)}">${escapeHtml(head)}（说明同上）</li>`;
}

/** The table as HTML. `foldRepeatedNotes`: notes already shown in this session are folded (the notebook's show()). */
export function tableHtml(table: Table, options: { foldRepeatedNotes?: boolean } = {}): string {
  const head = table.columns
    .map((c) => {
      const unit = c.unit ? ` <span class="l11-unit">(${escapeHtml(c.unit)})</span>` : "";
      return `<th title="${escapeHtml(c.key)}">${escapeHtml(c.label)}${unit}</th>`;
    })
    .join("");
  const numeric = table.columns.map((c) => isNumericColumn(table, c));
  const body = table.rows
    .map(
      (row) =>
        "<tr>" +
        table.columns
          .map((c, i) => `<td${numeric[i] ? ' style="text-align:right"' : ""}>${escapeHtml(cellText(row, c))}</td>`)
          .join("") +
        "</tr>",
    )
    .join("\n");
  const notes = (table.notes ?? [])
    .map((n) => {
      const fold = Boolean(options.foldRepeatedNotes) && notesShown.has(n);
      if (options.foldRepeatedNotes) notesShown.add(n);
      return noteHtml(n, fold);
    })
    .join("");
  return (
    `<div class="l11-table">` +
    `<div style="font-weight:bold;margin:4px 0">${escapeHtml(table.title)}</div>` +
    `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>` +
    (notes ? `<ul style="font-size:90%;color:#555;margin-top:4px">${notes}</ul>` : "") +
    `</div>`
  );
}

/** Monospace rendering for terminals and the CLI: width measured in display columns (CJK counts as 2). */
export function tableText(table: Table): string {
  const headers = table.columns.map(headerText);
  const cells = table.rows.map((row) => table.columns.map((c) => cellText(row, c)));
  const numeric = table.columns.map((c) => isNumericColumn(table, c));
  const widths = headers.map((h, i) => Math.max(displayWidth(h), ...cells.map((r) => displayWidth(r[i]))));
  const pad = (s: string, i: number) => {
    const fill = " ".repeat(widths[i] - displayWidth(s));
    return numeric[i] ? fill + s : s + fill;
  };
  const lines = [
    table.title,
    headers.map(pad).join("  "),
    widths.map((w) => "-".repeat(w)).join("  "),
    ...cells.map((r) => r.map(pad).join("  ")),
  ];
  for (const note of table.notes ?? []) lines.push(`* ${note}`);
  return lines.join("\n");
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) {
    const code = ch.codePointAt(0) as number;
    width += code >= 0x1100 && (code <= 0x115f || (code >= 0x2e80 && code <= 0xa4cf) || (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) || (code >= 0xff00 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6)) ? 2 : 1;
  }
  return width;
}

/** Rows as plain objects keyed by column key (the CLI's --json shape). */
export function tableJson(table: Table): { id?: string; title: string; columns: Column[]; rows: Row[]; notes: string[]; params?: Record<string, unknown>; claims?: Table["claims"] } {
  return {
    id: table.id,
    title: table.title,
    columns: table.columns.map((c) => ({ key: c.key, label: c.label, unit: c.unit, format: typeof c.format === "function" ? undefined : c.format, ...(c.formatFrom ? { formatFrom: c.formatFrom } : {}) })),
    rows: table.rows.map((r) => Object.fromEntries(table.columns.flatMap((c) => (c.formatFrom ? [c.key, c.formatFrom] : [c.key])).map((k) => [k, r[k] ?? null]))),
    notes: table.notes ?? [],
    params: table.params,
    claims: table.claims,
  };
}

