// Prose with computed numbers: md`平均延迟 ${x} 秒` formats each number and renders the markdown.
import { formatSignificant } from "./table";
import { displayMarkdown } from "./display";

export function formatForProse(value: unknown): string {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return Number.isNaN(value) ? "n/a" : "∞";
    if (Number.isInteger(value)) return value.toLocaleString("en-US");
    return formatSignificant(value, 3);
  }
  if (Array.isArray(value)) return value.map(formatForProse).join(", ");
  return String(value);
}

/** Builds the markdown text without displaying it. */
export function mdText(strings: TemplateStringsArray, ...values: unknown[]): string {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += formatForProse(values[i]) + strings[i + 1];
  return out;
}

/** Renders markdown with computed numbers in the notebook (stdout elsewhere). Returns nothing, so a cell
 * ending in md`…` does not echo the text again (tslab prints a cell's last value); use mdText for the string. */
export function md(strings: TemplateStringsArray, ...values: unknown[]): void {
  displayMarkdown(mdText(strings, ...values));
}

/** A number with a fixed count of decimals, for prose: md`${fixed(x, 2)} 秒`. */
export function fixed(value: number, decimals: number): string {
  return value.toFixed(decimals);
}
