// One pass every chart goes through before it is drawn (figureHtml), so that each is readable at a glance whatever
// built it: the title on the left, wrapped, above the plot and clear of Plotly's mode bar (top right); axes that make
// room for tick labels and their titles (automargin), long category labels wrapped level (rotated ones ran into the
// axis title and past the chart's right edge), long y titles on two lines; log axes spanning less than two labelled
// decades, or at most 1.5 decades, get explicit 1-2-5 ticks (a P99 between 20 and 80 s showed no label at all, 03.6's
// bars only "10", 06.1's only 1 and 10); one distinct colour a series (palette.ts), colours the builder chose kept.
import type { Axis, Figure } from "./figure";
import { displayWidth } from "../table";
import { axesInUse, decadesWithin, positiveRange, SCALED, traceType, type AxisUse, type Trace } from "./axes";
import { seriesLook } from "./palette";

/** Chart titles wrap at this display width (a CJK character counts 2): about 560 px at 16 px, so a title stays left
 * of the mode bar in a notebook cell or handout of ~900 px and more. */
export const TITLE_WIDTH = 70;
const TITLE_LINE_PX = 21;

/** Breaks a title into lines of at most `width` display columns: preferably before an opening bracket (a
 * parenthesis stays whole on the next line), else after a Chinese comma or colon, else at a space. With `slack`, a
 * line may run that many columns over `width` to break at such a place or to keep a last character or two from a
 * line of their own (category labels; a title's width is a hard limit: the mode bar is there). */
export function wrapTitle(text: string, width = TITLE_WIDTH, slack = 0): string[] {
  const lines: string[] = [];
  let rest = text.trim();
  while (displayWidth(rest) > width + slack) {
    const chars = [...rest];
    let used = 0;
    let cut = 0;
    const last = { bracket: -1, punctuation: -1, space: -1 };
    for (let i = 0; i < chars.length; i++) {
      used += displayWidth(chars[i]);
      if (used > width + slack) break;
      if (used <= width) cut = i + 1;
      if ("（(".includes(chars[i]) && i > 0) last.bracket = i;
      if ("，、：；）)".includes(chars[i])) last.punctuation = i + 1;
      if (chars[i] === " ") last.space = i + 1;
    }
    const inWord = /[A-Za-z0-9]/.test(chars[cut - 1] ?? "") && /[A-Za-z0-9]/.test(chars[cut] ?? "");
    let at = [last.bracket, last.punctuation, last.space].find((b) => b > cut / 2) ?? (inWord && last.space > 0 ? last.space : cut);
    // a comma or closing bracket never starts a line: it stays on the line before, a column over if need be
    while (at < chars.length && "，、：；。）)".includes(chars[at])) at++;
    lines.push(chars.slice(0, at).join("").trim());
    rest = chars.slice(at).join("").trim();
  }
  if (rest) lines.push(rest);
  return lines;
}

function titleText(title: unknown): string {
  if (typeof title === "string") return title;
  if (title && typeof title === "object" && typeof (title as { text?: unknown }).text === "string") return (title as { text: string }).text;
  return "";
}

/** The chart title's layout: left-aligned with the plot, wrapped, in the top margin (which grows to hold it). */
function titleLayout(layout: Record<string, unknown>): Record<string, unknown> {
  const text = titleText(layout.title);
  if (!text) return {};
  const own = typeof layout.title === "object" ? (layout.title as Record<string, unknown>) : {};
  const lines = text.includes("<br>") ? text.split("<br>") : wrapTitle(text);
  const margin = (layout.margin ?? {}) as Record<string, unknown>;
  const top = Math.max(typeof margin.t === "number" ? margin.t : 0, lines.length * TITLE_LINE_PX + 36);
  return {
    // Plotly anchors a title of several lines by its first line: each further line moves it up by a line, so the pad
    // pushes it down as much (without it the first line of a two-line title is cut off at the top)
    title: { x: 0, xref: "paper", xanchor: "left", y: 1, yref: "container", yanchor: "top", pad: { t: 10 + (lines.length - 1) * TITLE_LINE_PX }, font: { size: 16 }, automargin: true, ...own, text: lines.join("<br>") },
    margin: { ...margin, t: top },
  };
}

/** A log axis spanning at most this ratio (1.5 decades) is short: 1 and 10 alone leave its bars hard to read, so it
 * gets 2 and 5 (or finer) ticks too. */
export const SHORT_LOG_SPAN = 10 ** 1.5;

/** Values for a log axis's ticks between `min` and `max` when its decades alone would label fewer than two, or it
 * spans at most 1.5 decades (SHORT_LOG_SPAN); empty when its decades suffice. */
export function logTickValues(min: number, max: number): number[] {
  if (!(min > 0) || !(max >= min)) return [];
  if (decadesWithin(min, max).length >= 2 && max / min > SHORT_LOG_SPAN) return [];
  const steps = [[1, 2, 5], [1, 2, 3, 5], [1, 1.5, 2, 3, 4, 5, 6, 8], [1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 7, 8, 9]];
  const within = (mantissas: number[]) => {
    const out: number[] = [];
    for (let k = Math.floor(Math.log10(min)) - 1; k <= Math.ceil(Math.log10(max)); k++) {
      for (const m of mantissas) {
        const v = Number((m * 10 ** k).toPrecision(6));
        if (v >= min * (1 - 1e-9) && v <= max * (1 + 1e-9)) out.push(v);
      }
    }
    return out;
  };
  for (let i = 0; i < steps.length; i++) {
    const v = within(steps[i]);
    if (v.length >= 3 || (i === steps.length - 1 && v.length >= 2)) return v;
  }
  // a narrow range (0.93 to 0.97): its two ends
  return [Number(min.toPrecision(3)), Number(max.toPrecision(3))].filter((v, i, a) => a.indexOf(v) === i);
}

/** A tick label: 3 significant digits, thousands separated ("2,000", "0.25"). */
export function tickLabel(v: number): string {
  const rounded = Number(v.toPrecision(3));
  return Math.abs(rounded) >= 1000 ? rounded.toLocaleString("en-US") : String(rounded);
}

/** Columns a category label's line may run over its share, to break at a space or bracket or not to leave a character
 * alone on its last line ("负载保/护"). */
const CATEGORY_SLACK = 3;

/** Display columns a category axis's labels get when each has its share of a plot about 640 px wide (12 px text,
 * about 6.5 px a column), at least 8. */
function categoryColumns(count: number): number {
  return Math.max(8, Math.floor(640 / Math.max(1, count) / 6.5) - 1);
}

/** A category x axis whose labels are wider than their share of the plot: the labels wrapped onto lines and drawn
 * level (never rotated, so a long label neither runs past the chart's edge nor into the axis title); empty when
 * they fit. */
export function categoryTicks(labels: readonly string[]): Axis {
  const width = categoryColumns(labels.length);
  if (labels.every((l) => displayWidth(l) <= width)) return {};
  // lines of about equal width: a label just over its share splits in two halves, not one word on a line of its own
  const wrap = (l: string) => {
    const w = displayWidth(l);
    return w <= width ? l : wrapTitle(l, Math.min(width, Math.ceil(w / Math.ceil(w / width)) + 4), CATEGORY_SLACK).join("<br>");
  };
  return { tickmode: "array", tickvals: [...labels], ticktext: labels.map(wrap), tickangle: 0 };
}

/** The categories on an x axis in the order its traces first name them; undefined when any value is not text. */
function categoriesOf(use: AxisUse | undefined): string[] | undefined {
  if (!use || use.letter !== "x") return undefined;
  const seen: string[] = [];
  for (const t of use.traces) {
    if (!Array.isArray(t.x)) continue;
    for (const v of t.x) {
      if (typeof v !== "string") return undefined;
      if (!seen.includes(v)) seen.push(v);
    }
  }
  return seen.length > 0 ? seen : undefined;
}

/** A y axis title longer than this many display columns is wrapped onto two lines (a long one ran past the top). */
export const Y_TITLE_WIDTH = 36;

function wrappedTitle(axis: Axis): Axis {
  const text = typeof axis.title === "string" ? axis.title : axis.title && typeof axis.title === "object" ? String((axis.title as { text?: unknown }).text ?? "") : "";
  const width = displayWidth(text);
  if (!text || text.includes("<br>") || width <= Y_TITLE_WIDTH) return {};
  const own = typeof axis.title === "object" ? (axis.title as Record<string, unknown>) : {};
  // lines of about equal width (a bracket then starts the second line), none over Y_TITLE_WIDTH
  const lineWidth = Math.min(Y_TITLE_WIDTH, Math.ceil(width / Math.ceil(width / Y_TITLE_WIDTH)) + 6);
  return { title: { ...own, text: wrapTitle(text, lineWidth).join("<br>") } };
}

/** Plotly places an axis title clear of multi-line tick labels only when it has a standoff (without one, "情形" sat
 * on 05.4's wrapped labels): every titled axis gets one. */
function withStandoff(axis: Axis): Axis {
  if (axis.title === undefined || axis.title === null || axis.title === "") return {};
  const own: { text: string; [key: string]: unknown } = typeof axis.title === "object" ? axis.title : { text: axis.title };
  const title = { ...own, standoff: 12 };
  return own.standoff === undefined ? { title } : {};
}

/** Axis layout with room for its tick labels and title, long category labels wrapped, a long y title wrapped, and
 * explicit ticks on a log axis under two decades or spanning at most 1.5. */
function readableAxis(axis: Axis | undefined, use: AxisUse | undefined): Axis {
  const range = use ? positiveRange(use) : undefined;
  const own: Axis = { automargin: true, ...(axis ?? {}) };
  const categories = own.type === "category" && !Array.isArray(own.tickvals) ? categoriesOf(use) : undefined;
  const titled: Axis = { ...own, ...(use?.letter === "y" ? wrappedTitle(own) : {}) };
  const out: Axis = { ...titled, ...(categories ? categoryTicks(categories) : {}), ...withStandoff(titled) };
  if (out.type !== "log" || !range || Array.isArray(out.tickvals)) return out;
  const ticks = logTickValues(range.min, range.max);
  if (ticks.length === 0) return out;
  delete out.dtick;
  return { ...out, tickmode: "array", tickvals: ticks, ticktext: ticks.map(tickLabel) };
}

function isColourable(t: Trace): boolean {
  return !SCALED.has(traceType(t)) && !["pie", "scatterternary"].includes(traceType(t));
}

/** Lines: the colour of the line; markers only and bars: the marker's (a per-point array counts as none). */
export function hasLines(t: Trace): boolean {
  if (traceType(t) !== "scatter") return false;
  const mode = typeof t.mode === "string" ? t.mode : "lines+markers";
  return mode.includes("lines");
}

export function explicitColour(t: Trace): string | undefined {
  const line = t.line as { color?: unknown } | undefined;
  const marker = t.marker as { color?: unknown } | undefined;
  if (hasLines(t)) return typeof line?.color === "string" ? line.color : undefined;
  return typeof marker?.color === "string" ? marker.color : undefined;
}

/** The series a trace belongs to: its name (the same name in several facets is one series), else its index. */
export function seriesKey(t: Trace, index: number): string {
  return typeof t.name === "string" && t.name !== "" ? `name:${t.name}` : `#${index}`;
}

function coloured(t: Trace, look: { color: string; dash: string; hatch: string }): Trace {
  const line = (t.line ?? {}) as Record<string, unknown>;
  const marker = (t.marker ?? {}) as Record<string, unknown>;
  if (hasLines(t)) return { ...t, line: { ...line, color: look.color, ...(look.dash !== "solid" && line.dash === undefined ? { dash: look.dash } : {}) } };
  const hatch = traceType(t) === "bar" && look.hatch ? { pattern: { shape: look.hatch } } : {};
  return { ...t, marker: { ...marker, color: look.color, ...hatch } };
}

/** Gives every series without a colour of its own a palette colour that no other series of the chart has. */
export function withSeriesColours(data: Trace[]): Trace[] {
  const keys = data.map((t, i) => (isColourable(t) ? seriesKey(t, i) : ""));
  const series = [...new Set(keys.filter((k) => k !== ""))];
  const taken = new Set<string>();
  data.forEach((t) => {
    const c = isColourable(t) ? explicitColour(t) : undefined;
    if (c) taken.add(c.toLowerCase());
  });
  const assigned = new Map<string, ReturnType<typeof seriesLook>>();
  let next = 0;
  const lookFor = (key: string) => {
    let look = assigned.get(key);
    if (!look) {
      do look = seriesLook(next++, series.length);
      while (taken.has(look.color.toLowerCase()) && next < 10 * (series.length + taken.size + 1));
      assigned.set(key, look);
    }
    return look;
  };
  // markers coloured point by point (e.g. facetLines' crosses in their groups' colours) keep their colours
  const pointByPoint = (t: Trace) => !hasLines(t) && Array.isArray((t.marker as { color?: unknown } | undefined)?.color);
  return data.map((t, i) => (keys[i] === "" || explicitColour(t) || pointByPoint(t) ? t : coloured(t, lookFor(keys[i]))));
}

/** The figure as it is drawn: readable title, margins, axes, log ticks and series colours. Pure: returns a copy. */
export function readableFigure(figure: Figure): Figure {
  const data = withSeriesColours(figure.data);
  const layout: Record<string, unknown> = { ...(figure.layout ?? {}) };
  const coloured = { ...figure, data };
  const uses = axesInUse(coloured);
  const axisKeys = new Set([...Object.keys(layout).filter((k) => /^[xy]axis\d*$/.test(k)), ...uses.map((u) => u.key)]);
  for (const key of axisKeys) {
    const use = uses.find((u) => u.key === key);
    layout[key] = readableAxis(layout[key] as Axis | undefined, use);
  }
  Object.assign(layout, titleLayout(layout));
  return { ...figure, data, layout: layout as Figure["layout"] };
}
