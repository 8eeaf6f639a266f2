// What a Plotly figure draws on each of its axes: the axes its traces use (xaxis, yaxis2 …), their layout, and the
// numbers plotted on them. Shared by the pass that makes charts readable (readable.ts) and the check that scans
// every chart of a notebook run (figure-check.ts).
import type { Axis, Figure } from "./figure";

export type Trace = Record<string, unknown>;

/** Trace types drawn without x / y axes. */
export const AXISLESS: ReadonlySet<string> = new Set(["pie", "scatterternary"]);
/** Trace types drawn with a colour scale rather than one colour a series. */
export const SCALED: ReadonlySet<string> = new Set(["heatmap", "contour", "histogram2d", "histogram2dcontour", "image"]);

export function traceType(t: Trace): string {
  return String(t.type ?? "scatter");
}

export interface AxisUse {
  /** the layout key: "xaxis", "yaxis3" … */
  key: string;
  letter: "x" | "y";
  /** 0 for xaxis / yaxis, 1 for xaxis2 … */
  index: number;
  axis: Axis | undefined;
  traces: Trace[];
}

function layoutKey(letter: "x" | "y", ref: unknown): string {
  const suffix = typeof ref === "string" ? ref.slice(1) : "";
  return `${letter}axis${suffix === "1" ? "" : suffix}`;
}

/** Every axis a trace of the figure is drawn on, in the order of the layout keys (xaxis, xaxis2 …, yaxis …). */
export function axesInUse(figure: Figure): AxisUse[] {
  const byKey = new Map<string, AxisUse>();
  const layout = (figure.layout ?? {}) as Record<string, unknown>;
  for (const t of figure.data) {
    if (AXISLESS.has(traceType(t))) continue;
    for (const letter of ["x", "y"] as const) {
      const key = layoutKey(letter, t[`${letter}axis`]);
      const use = byKey.get(key) ?? { key, letter, index: Math.max(0, Number(key.slice(5) || "1") - 1), axis: layout[key] as Axis | undefined, traces: [] };
      use.traces.push(t);
      byKey.set(key, use);
    }
  }
  return [...byKey.values()].sort((a, b) => (a.letter === b.letter ? a.index - b.index : a.letter < b.letter ? -1 : 1));
}

export function axisTitleText(axis: Axis | undefined): string {
  if (!axis || axis.title === undefined || axis.title === null) return "";
  return typeof axis.title === "string" ? axis.title : String((axis.title as { text?: unknown }).text ?? "");
}

function numbersIn(values: unknown): number[] {
  if (!Array.isArray(values)) return [];
  return values.flat(2).filter((v): v is number => typeof v === "number" && Number.isFinite(v));
}

/** The positive numbers plotted on an axis (what a log axis can show), smallest and largest; undefined when none. */
export function positiveRange(use: AxisUse): { min: number; max: number } | undefined {
  const values = use.traces.flatMap((t) => numbersIn(t[use.letter])).filter((v) => v > 0);
  if (values.length === 0) return undefined;
  return { min: Math.min(...values), max: Math.max(...values) };
}

/** The powers of ten from `min` to `max` (the ticks a log axis labels with dtick 1). */
export function decadesWithin(min: number, max: number): number[] {
  const out: number[] = [];
  for (let k = Math.ceil(Math.log10(min) - 1e-9); k <= Math.floor(Math.log10(max) + 1e-9); k++) out.push(10 ** k);
  return out;
}
