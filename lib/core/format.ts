// The number formats every view shares — the tables (lib/view/table.ts), the claims' figures (lib/demos/claims.ts)
// and their ranges — so a number reads the same in a table and in the claim judged on it.

/** `text` without a negative zero: a value that rounds to zero never prints a minus ("-0.0" → "0.0", "-0%" → "0%"). */
export function noNegativeZero(text: string): string {
  return /^-0(\.0*)?%?$/.test(text) ? text.slice(1) : text;
}

/** A number with `digits` decimals ("∞", "−∞", "—" for the non-finite); never "-0.0". */
export function fixedText(x: number, digits = 2): string {
  if (Number.isNaN(x)) return "—";
  if (!Number.isFinite(x)) return x > 0 ? "∞" : "−∞";
  return noNegativeZero(x.toFixed(digits));
}

/** A share as a percentage with `digits` decimals: 0.364 → "36%"; exactly all or none without decimals ("100%",
 * "0%": "100.0%" is kept for a share that only rounds to it); "—" when not finite; never "-0%". */
export function percentText(x: number, digits = 0): string {
  if (!Number.isFinite(x)) return "—";
  return `${noNegativeZero((x * 100).toFixed(x === 0 || x === 1 ? 0 : digits))}%`;
}

/** A number with `digits` significant digits, without exponent notation for everyday magnitudes (the tables' "sig3"). */
export function formatSignificant(value: number, digits = 3): string {
  if (value === 0) return "0";
  if (Number.isNaN(value)) return "—";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : "−∞";
  const magnitude = Math.floor(Math.log10(Math.abs(value)));
  if (magnitude >= 6 || magnitude < -4) return value.toPrecision(digits);
  const decimals = Math.max(0, digits - 1 - magnitude);
  return noNegativeZero(value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals }));
}

/** A range of two formatted ends: one value when both ends read the same; "a–b"; "a 至 b" when an end is negative
 * (so the dash is never read as a minus sign). `unit` follows the range ("35–42%"). */
export function rangeText(lo: string, hi: string, unit = ""): string {
  if (lo === hi) return `${lo}${unit}`;
  const negative = lo.startsWith("-") || lo.startsWith("−") || hi.startsWith("-") || hi.startsWith("−");
  return negative ? `${lo}${unit} 至 ${hi}${unit}` : `${lo}–${hi}${unit}`;
}
