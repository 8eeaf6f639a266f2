// The readability check of a chart as drawn, run on every figure of a notebook run (test/notebooks.test.ts) and on
// unit figures: every axis carries a title (in a grid of small charts, one per grid column / row suffices); every
// log axis shows at least two labelled ticks within its data, and one spanning at most 1.5 decades labels a 2 or 5
// (or finer) value too, not only 1 and 10; no two series of one chart share a colour and a line
// style. Pure: it returns the problems in words, empty when there are none.
import type { Figure } from "./figure";
import { axesInUse, axisTitleText, decadesWithin, positiveRange, SCALED, traceType, type AxisUse, type Trace } from "./axes";
import { explicitColour, hasLines, logTickValues, seriesKey, SHORT_LOG_SPAN } from "./readable";
import { PALETTE_10 } from "./palette";

function gridColumns(figure: Figure): number | undefined {
  const grid = (figure.layout as Record<string, unknown> | undefined)?.grid as { columns?: unknown } | undefined;
  return typeof grid?.columns === "number" && grid.columns > 0 ? grid.columns : undefined;
}

/** An untitled axis in a grid is fine when another axis of its grid column (x) or row (y) has the title. */
function titledNearby(use: AxisUse, uses: AxisUse[], columns: number | undefined): boolean {
  if (axisTitleText(use.axis)) return true;
  if (!columns) return false;
  const sameLine = (other: AxisUse) =>
    use.letter === "x" ? other.index % columns === use.index % columns : Math.floor(other.index / columns) === Math.floor(use.index / columns);
  return uses.some((o) => o.letter === use.letter && o !== use && sameLine(o) && axisTitleText(o.axis) !== "");
}

/** The labelled ticks a log axis shows within its data: its explicit tick values, else its powers of ten. */
function labelledLogTicks(use: AxisUse, range: { min: number; max: number }): number[] {
  const axis = use.axis ?? {};
  const slack = (v: number) => v >= range.min / 1.06 && v <= range.max * 1.06;
  if (Array.isArray(axis.tickvals)) {
    const text = Array.isArray(axis.ticktext) ? axis.ticktext : undefined;
    return axis.tickvals.filter((v, i): v is number => typeof v === "number" && slack(v) && (!text || String(text[i] ?? "") !== ""));
  }
  return decadesWithin(range.min, range.max);
}

function isPowerOfTen(v: number): boolean {
  return Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9;
}

/** What is wrong with a log axis's labels: fewer than two within its data; or, spanning at most 1.5 decades
 * (SHORT_LOG_SPAN), only powers of ten labelled where a 2 or 5 (or finer) value lies within the data. */
function logTickProblem(use: AxisUse, range: { min: number; max: number }): string | undefined {
  const ticks = labelledLogTicks(use, range);
  const where = `${use.key} is a log axis from ${range.min.toPrecision(3)} to ${range.max.toPrecision(3)}`;
  if (ticks.length < 2) return `${where} with ${ticks.length} labelled tick(s)`;
  const between = logTickValues(range.min, range.max).filter((v) => !isPowerOfTen(v));
  if (range.max / range.min <= SHORT_LOG_SPAN && between.length > 0 && ticks.every(isPowerOfTen)) return `${where} (a short range) with only powers of ten labelled`;
  return undefined;
}

function axisProblems(figure: Figure): string[] {
  const uses = axesInUse(figure);
  const columns = gridColumns(figure);
  const problems: string[] = [];
  for (const use of uses) {
    if (!titledNearby(use, uses, columns)) problems.push(`${use.key} has no title`);
    if (use.axis?.type !== "log") continue;
    const range = positiveRange(use);
    if (!range || range.max / range.min < 1.0001) continue; // one value: nothing to read off
    const problem = logTickProblem(use, range);
    if (problem) problems.push(problem);
  }
  return problems;
}

/** How a series looks: colour, plus the line dash (lines), marker symbol (markers only) or hatch (bars). */
function look(t: Trace, index: number, colorway: readonly string[]): string | undefined {
  const marker = (t.marker ?? {}) as Record<string, unknown>;
  if (Array.isArray(marker.color) && !hasLines(t)) return undefined; // coloured point by point
  const colour = (explicitColour(t) ?? colorway[index % colorway.length]).toLowerCase();
  if (hasLines(t)) return `${colour} line ${String((t.line as { dash?: unknown } | undefined)?.dash ?? "solid")}`;
  if (traceType(t) === "bar") return `${colour} bar ${String((marker.pattern as { shape?: unknown } | undefined)?.shape ?? "")}`;
  return `${colour} ${traceType(t)} ${typeof marker.symbol === "string" ? marker.symbol : "circle"}`;
}

function colourProblems(figure: Figure): string[] {
  const layout = (figure.layout ?? {}) as Record<string, unknown>;
  const colorway = Array.isArray(layout.colorway) ? (layout.colorway as string[]) : PALETTE_10;
  const owner = new Map<string, string>();
  const problems: string[] = [];
  figure.data.forEach((t, i) => {
    if (SCALED.has(traceType(t)) || traceType(t) === "pie") return;
    const l = look(t, i, colorway);
    if (!l) return;
    const key = seriesKey(t, i);
    const other = owner.get(l);
    if (other === undefined) owner.set(l, key);
    else if (other !== key) problems.push(`series "${key.replace(/^name:/, "")}" looks like "${other.replace(/^name:/, "")}" (${l})`);
  });
  return problems;
}

/** What makes this chart hard to read, in words; empty when nothing. */
export function figureProblems(figure: Figure): string[] {
  if (!figure || !Array.isArray(figure.data)) return ["not a figure (no data array)"];
  return [...axisProblems(figure), ...colourProblems(figure)];
}
