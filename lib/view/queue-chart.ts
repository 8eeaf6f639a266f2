// §1.3's herding as the lecture draws it: the queue length of every server over time, one panel a dispatcher (e.g.
// stale JSQ with refresh T = 4 beside power of two). Under stale JSQ the snapshot's shortest queue is flooded until
// the next refresh, then another: a sawtooth that moves from server to server. Fed by plain arrays (a demo's trace).
import type { Figure } from "./figure/figure";
import { seriesLook } from "./figure/palette";

export interface QueuePanel {
  /** the panel's heading, e.g. "过时的 JSQ（T = 4）" */
  name: string;
  /** sample times (in mean service times, or seconds: say so in `timeTitle`) */
  times: number[];
  /** queues[server][i]: server's queue length at times[i] */
  queues: number[][];
  /** when the dispatcher's snapshot of the queues was refreshed: drawn as dotted vertical lines */
  refreshTimes?: number[];
  /** the servers to draw in colour (e.g. the one fed most in each refresh interval); the others thin and grey, one
   * legend entry. Absent: every server in colour. */
  emphasis?: number[];
}

const OTHERS = { name: "其他服务器", color: "#c8c8c8" };

/** The colour index of every server drawn in colour: its rank among the emphasised servers of all panels (so a few
 * of many servers get the first, most distinct colours), or the server index when no panel picks servers. */
function colourIndex(panels: QueuePanel[], servers: number): { index: Map<number, number>; count: number } {
  if (panels.every((p) => p.emphasis === undefined)) return { index: new Map(Array.from({ length: servers }, (_, s) => [s, s])), count: servers };
  const picked = [...new Set(panels.flatMap((p) => p.emphasis ?? Array.from({ length: p.queues.length }, (_, s) => s)))].sort((a, b) => a - b);
  return { index: new Map(picked.map((s, k) => [s, k])), count: picked.length };
}

function checkPanel(p: QueuePanel): void {
  for (const [s, q] of p.queues.entries()) {
    if (q.length !== p.times.length) throw new Error(`queueLengthChart: panel "${p.name}", server ${s}: ${q.length} queue lengths for ${p.times.length} times`);
  }
}

/** Vertical dotted lines at the refresh times of panel `axis` ("" for the first, "2" …). */
function refreshLines(p: QueuePanel, axis: string): Array<Record<string, unknown>> {
  return (p.refreshTimes ?? []).map((t) => ({ type: "line", xref: `x${axis}`, yref: `y${axis} domain`, x0: t, x1: t, y0: 0, y1: 1, line: { color: "#999999", width: 1, dash: "dot" } }));
}

/** One panel a dispatcher, stacked on a shared time axis; each server a step line in the same colour in every panel. */
export function queueLengthChart(panels: QueuePanel[], o: { title?: string; timeTitle?: string; queueTitle?: string; serverName?: (server: number) => string; sameQueueScale?: boolean } = {}): Figure {
  if (panels.length === 0) throw new Error("queueLengthChart: no panel to draw");
  panels.forEach(checkPanel);
  const servers = Math.max(...panels.map((p) => p.queues.length));
  const serverName = o.serverName ?? ((s: number) => `服务器 ${s}`);
  const data: Array<Record<string, unknown>> = [];
  const colours = colourIndex(panels, servers);
  let othersShown = false;
  const layout: Record<string, unknown> = {
    title: o.title ?? "每台服务器的队列长度随时间变化",
    grid: { rows: panels.length, columns: 1, pattern: "independent", ygap: panels.length > 1 ? 0.3 : 0.25 },
    height: 300 * panels.length + 120,
    legend: { title: { text: "服务器" } },
    annotations: [] as unknown[],
    shapes: [] as unknown[],
  };
  panels.forEach((p, i) => {
    const axis = i === 0 ? "" : String(i + 1);
    const inColour = new Set(p.emphasis ?? p.queues.map((_, s) => s));
    const legendShown = new Set(data.filter((d) => d.showlegend).map((d) => d.name));
    // grey ones first, so the coloured lines lie on top
    p.queues.forEach((q, s) => {
      if (inColour.has(s)) return;
      data.push({ type: "scatter", mode: "lines", name: OTHERS.name, legendgroup: OTHERS.name, showlegend: !othersShown, line: { shape: "hv", width: 1, color: OTHERS.color }, x: p.times, y: q, xaxis: `x${axis}`, yaxis: `y${axis}` });
      othersShown = true;
    });
    p.queues.forEach((q, s) => {
      if (!inColour.has(s)) return;
      const look = seriesLook(colours.index.get(s) ?? s, colours.count);
      data.push({ type: "scatter", mode: "lines", name: serverName(s), legendgroup: serverName(s), showlegend: !legendShown.has(serverName(s)), line: { shape: "hv", width: p.emphasis ? 2 : 1.5, color: look.color, ...(look.dash !== "solid" ? { dash: look.dash } : {}) }, x: p.times, y: q, xaxis: `x${axis}`, yaxis: `y${axis}` });
    });
    layout[`xaxis${axis}`] = { title: o.timeTitle ?? "时间（平均服务时间）", ...(i > 0 ? { matches: "x" } : {}) };
    layout[`yaxis${axis}`] = { title: o.queueTitle ?? "队列长度（请求数）", rangemode: "tozero", ...(i > 0 && o.sameQueueScale ? { matches: "y" } : {}) };
    (layout.annotations as unknown[]).push({ text: `<b>${p.name}</b>`, xref: `x${axis} domain`, yref: `y${axis} domain`, x: 0, xanchor: "left", y: 1.02, yanchor: "bottom", showarrow: false });
    (layout.shapes as unknown[]).push(...refreshLines(p, axis));
  });
  return { data, layout: layout as Figure["layout"] };
}
