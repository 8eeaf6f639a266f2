// Plotly charts that draw in Jupyter Notebook 6 and in exported HTML with no network: the plotly.js bundle is
// read from node_modules and inlined once per kernel session; each chart is a div with a deterministic id.
import * as fs from "fs";
import { escapeHtml } from "./table";
import { displayHtml, Rendered } from "./display";
import { readableFigure } from "./figure/readable";

export type { Axis, Figure } from "./figure/figure";
import type { Axis, Figure } from "./figure/figure";

let chartCounter = 0;
let bundleSent = false;

/** Restarts chart numbering and re-sends the bundle with the next chart (a new notebook run). */
export function resetPlots(): void {
  chartCounter = 0;
  bundleSent = false;
}

function axisTitle(axis: Axis | undefined): string {
  if (!axis || axis.title === undefined) return "";
  return typeof axis.title === "string" ? axis.title : axis.title.text;
}

const AXISLESS = new Set(["pie", "scatterternary"]);
/** Trace types in the plotly.js bundle we ship (see plotlyBundle); any other type would draw nothing. */
export const TRACE_TYPES: readonly string[] = ["bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour", "image", "pie", "scatter", "scatterternary", "violin"];

/** Every chart in the lecture names its axes and units: a chart without them is a bug, caught here. */
export function checkFigure(figure: Figure): void {
  if (!figure || !Array.isArray(figure.data) || figure.data.length === 0) throw new Error("plot: figure.data must be a non-empty array of traces");
  for (const t of figure.data) {
    const type = String(t.type ?? "scatter");
    if (!TRACE_TYPES.includes(type)) throw new Error(`plot: trace type "${type}" is not in the bundled plotly.js (cartesian); use one of ${TRACE_TYPES.join(", ")}`);
  }
  const needsAxes = figure.data.some((t) => !AXISLESS.has(String(t.type ?? "scatter")));
  if (needsAxes) {
    if (!axisTitle(figure.layout?.xaxis)) throw new Error("plot: layout.xaxis.title is required (with its unit)");
    if (!axisTitle(figure.layout?.yaxis)) throw new Error("plot: layout.yaxis.title is required (with its unit)");
  }
}

let bundleCache: string | undefined;
/** plotly.js's "cartesian" partial bundle (1.5 MB: scatter, bar, heatmap and the other 2-D traces — all the
 * lecture draws) rather than the full 4.8 MB one: it travels to the browser inside the first chart of every
 * notebook and handout, and sending 4.8 MB through the kernel cost about 0.4 s per notebook. */
export function plotlyBundle(): string {
  if (bundleCache === undefined) bundleCache = fs.readFileSync(require.resolve("plotly.js-cartesian-dist-min/plotly-cartesian.min.js"), "utf8");
  return bundleCache;
}

function withTitleObjects(figure: Figure): Figure {
  const layout: Record<string, unknown> = { ...(figure.layout ?? {}) };
  for (const key of Object.keys(layout)) {
    const v = layout[key] as Axis | undefined;
    if (/^(x|y)axis\d*$/.test(key) && v && typeof v.title === "string") layout[key] = { ...v, title: { text: v.title } };
  }
  if (typeof layout.title === "string") layout.title = { text: layout.title };
  return { data: figure.data, layout: { font: { family: "sans-serif" }, margin: { t: 50 }, ...layout }, config: { responsive: true, displaylogo: false, ...(figure.config ?? {}) } };
}

/** HTML for one chart. `includeBundle` inlines plotly.js (guarded, so a second copy is a no-op). */
export function figureHtml(figure: Figure, options: { id?: string; includeBundle?: boolean; height?: number } = {}): string {
  checkFigure(figure);
  const id = options.id ?? `l11-plot-${++chartCounter}`;
  const fig = withTitleObjects(readableFigure(figure));
  const json = JSON.stringify(fig).replace(/</g, "\\u003c");
  // a figure that sets its own height (facetLines' grids, horizontal bars) gets a box that tall
  const own = fig.layout?.height;
  const height = options.height ?? (typeof own === "number" && Number.isFinite(own) && own > 0 ? own : 420);
  const bundle = options.includeBundle
    ? `<script type="text/javascript">if (!window.Plotly) { (function(){ var define = undefined, module = undefined, exports = undefined;\n${plotlyBundle()}\n})(); }</script>`
    : "";
  // Wait for the bundle (it may sit in an earlier output that is still loading), then draw.
  const draw = `<script type="text/javascript">(function(){ var tries = 0; function draw(){ var el = document.getElementById(${JSON.stringify(id)}); if (window.Plotly && el) { var f = ${json}; window.Plotly.newPlot(el, f.data, f.layout, f.config); } else if (tries++ < 100) { setTimeout(draw, 50); } else if (el) { el.textContent = "图表库 Plotly 没有加载：请从头运行这个笔记本（Kernel → Restart & Run All）。"; } } draw(); })();</script>`;
  return `${bundle}<div id="${escapeHtml(id)}" class="l11-plot" style="width:100%;height:${height}px"></div>${draw}`;
}

/** Text stand-in for a chart outside the notebook (CLI, tests). */
export function figureText(figure: Figure): string {
  const t = figure.layout?.title;
  const title = typeof t === "string" ? t : t?.text ?? "chart";
  return `[chart: ${title} — ${figure.data.length} trace(s); x: ${axisTitle(figure.layout?.xaxis)}; y: ${axisTitle(figure.layout?.yaxis)}]`;
}

/** Renders a figure; in the notebook it draws, elsewhere it prints a one-line description. */
// Returns nothing: a cell's last value is printed to stdout by tslab, so a return value would be echoed.
export function plot(figure: Figure, options: { height?: number } = {}): void {
  const includeBundle = !bundleSent;
  const rendered: Rendered = { html: figureHtml(figure, { includeBundle, height: options.height }), text: figureText(figure) };
  bundleSent = true;
  displayHtml(rendered);
}
