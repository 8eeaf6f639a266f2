// The data behind the three pictures of issue 25 (the charts are tested in view-pictures.test.ts): §1.3's exact queue
// lengths over time (QueueTracer, simulateDispatch's queueTrace, herdingQueues), §3.2's per-decision cached / missed
// (the Preble router's decision log, e2DecisionLine), §3.1's global tree after a handful of dispatches.
import { describe, expect, it } from "vitest";
import { QueueTracer, type QueueView } from "../lib/dispatch/observers";
import { simulateDispatch } from "../lib/dispatch/servers";
import { herdingQueues, mostFedServers } from "../lib/demos/dispatch/herding";
import { runDemo } from "../lib/demos/index";
import { e2DecisionLine, globalTreeAtDispatch } from "../lib/demos/preble/pictures";
import { queueLengthChart } from "../lib/view/queue-chart";
import { e2DecisionChart } from "../lib/view/decision-chart";
import { radixTreeSvg } from "../lib/view/radix-tree-svg";
import { configurationRun } from "../lib/cluster/preble/runs";
import { simulateCluster } from "../lib/cluster/simulate";
import { figureProblems } from "../lib/view/figure/check";
import { readableFigure } from "../lib/view/figure/readable";
import { facetLines } from "../lib/view/charts";
import type { Table } from "../lib/core/table";

/** A view of 3 servers (ring capacity 4) holding the given completion times, server 0's starting mid-ring. */
function view(inSystem: number[][]): QueueView {
  const capacity = 4;
  const ring = new Float64Array(3 * capacity);
  const head = new Int32Array([3, 0, 0]);
  const count = new Int32Array(inSystem.map((q) => q.length));
  inSystem.forEach((q, s) => q.forEach((done, k) => (ring[s * capacity + ((head[s] + k) & (capacity - 1))] = done)));
  return { servers: 3, capacity, ring, head, count };
}

/** Jobs on server s at time τ from per-job records: arrived at or before τ, completing after it. */
function lengthFromRecords(rec: { arrival: Float64Array; completion: Float64Array; server: Int32Array }, s: number, tau: number): number {
  let n = 0;
  for (let i = 0; i < rec.arrival.length; i++) if (rec.server[i] === s && rec.arrival[i] <= tau && rec.completion[i] > tau) n++;
  return n;
}

describe("exact queue lengths over time (§1.3)", () => {
  it("3 servers, 5 jobs: the trace equals the hand-computed one", () => {
    // window [1, 10). Before it: A on server 0 completes at 2 (in system at 1), B on server 1 completed at 0.8 (not).
    // In it: C at 1.5 on server 2 until 4; D at 3 on server 0 until 5; E at 4 on server 2 until 11 (after the window).
    const tracer = new QueueTracer(3, { from: 1, to: 10 }, 1);
    const v = view([[2], [0.8], []]);
    tracer.beforeArrival(0.5, v); // an arrival before the window: nothing yet
    tracer.arrival(0.5, 0, 2);
    tracer.beforeArrival(1.5, v);
    tracer.arrival(1.5, 2, 4);
    tracer.beforeArrival(3, v);
    tracer.arrival(3, 0, 5);
    tracer.refreshAt(0);
    tracer.refreshAt(4);
    tracer.beforeArrival(4, v);
    tracer.arrival(4, 2, 11); // C leaves and E arrives at 4: server 2 stays at 1
    expect(tracer.result()).toEqual({
      times: [1, 1.5, 2, 3, 4, 5, 10],
      lengths: [
        [1, 1, 0, 1, 1, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 1, 1, 1, 1, 1, 1],
      ],
      refreshTimes: [4],
    });
  });

  it("a window after the last arrival starts from the queues left then", () => {
    const tracer = new QueueTracer(3, { from: 5, to: 8 }, 1);
    tracer.end(view([[4, 6], [], [7.5]]));
    expect(tracer.result()).toEqual({ times: [5, 6, 7.5, 8], lengths: [[1, 0, 0, 0], [0, 0, 0, 0], [1, 1, 0, 0]], refreshTimes: [] });
  });

  it("refuses a window too long to keep", () => {
    expect(() => new QueueTracer(16, { from: 0, to: 1e6 }, 14.4)).toThrow(/queueTrace\.to/);
    expect(() => new QueueTracer(3, { from: 2, to: 1 }, 1)).toThrow(/queueTrace\.to/);
  });

  it("in a run, equals the jobs in system rebuilt from the per-job records, and changes nothing else", () => {
    for (const policy of ["jsq", "powerOfTwo", "random"] as const) {
      const base = { servers: 3, utilization: 0.8, jobs: 400, policy, refresh: 2, seed: 7, recordJobs: true };
      const plain = simulateDispatch(base);
      const traced = simulateDispatch({ ...base, queueTrace: { from: 20, to: 60 } });
      expect(Array.from(traced.responseTimes)).toEqual(Array.from(plain.responseTimes));
      expect(Array.from(traced.records!.server)).toEqual(Array.from(plain.records!.server));
      const { times, lengths, refreshTimes } = traced.queueTrace!;
      expect(times[0]).toBe(20);
      expect(times[times.length - 1]).toBe(60);
      expect(refreshTimes).toEqual(Array.from({ length: 20 }, (_, k) => 20 + 2 * k));
      for (let i = 0; i + 1 < times.length; i++) {
        const mid = (times[i] + times[i + 1]) / 2;
        for (let s = 0; s < 3; s++) expect(lengths[s][i]).toBe(lengthFromRecords(traced.records!, s, mid));
      }
    }
  });

  it("herdingQueues: stale JSQ only feeds the servers shortest in the last snapshot; one panel per load-aware policy", () => {
    const t = runDemo("01.4", { servers: 6, utilization: 0.9, jobs: 2000, refresh: 4, policies: ["random", "jsq", "powerOfTwo"], seeds: 1 });
    const panels = herdingQueues(t, { from: 40, intervals: 5 });
    expect(panels.map((p) => p.policy)).toEqual(["jsq", "powerOfTwo"]);
    const jsq = panels[0];
    expect(jsq.refreshTimes).toEqual([40, 44, 48, 52, 56]);
    const at = (s: number, tau: number) => jsq.queues[s][jsq.times.findIndex((x, i) => x <= tau && (i + 1 === jsq.times.length || jsq.times[i + 1] > tau))];
    let arrivals = 0;
    for (let i = 1; i < jsq.times.length; i++) {
      const r = Math.floor(jsq.times[i] / 4) * 4;
      const snapshot = jsq.queues.map((_, s) => at(s, r)); // the snapshot counts the jobs in system at r
      const shortest = Math.min(...snapshot);
      for (let s = 0; s < 6; s++) {
        if (jsq.queues[s][i] > jsq.queues[s][i - 1]) {
          arrivals++;
          expect(snapshot[s]).toBe(shortest);
        }
      }
    }
    expect(arrivals).toBeGreaterThan(50);
    for (const p of panels) {
      expect(p.emphasis).toEqual(mostFedServers(p.times, p.queues, 4));
      expect(figureProblems(readableFigure(queueLengthChart(panels, { sameQueueScale: true })))).toEqual([]);
    }
  });

  it("mostFedServers: per refresh interval the server whose queue rose most often", () => {
    // interval [0, 2): server 1 gets two arrivals, server 0 one; interval [2, 4): server 0 gets one
    const times = [0, 0.5, 1, 1.5, 3, 4];
    const queues = [
      [0, 1, 1, 1, 2, 2],
      [0, 0, 1, 2, 2, 2],
    ];
    expect(mostFedServers(times, queues, 2)).toEqual([0, 1]);
  });
});

describe("E2's decision line (§3.2)", () => {
  it("every decision logged with the global match: exploit above cached = missed, explore on or below, on the line's workload", () => {
    const { decisions } = e2DecisionLine({ workload: "toolCallingHotSpot", rate: 70, replicas: 8, configuration: "e2+rebalance", requestCount: 600, seed: 2 });
    expect(decisions.length).toBe(600);
    for (const d of decisions) {
      if (d.kind === "explore") expect(d.cachedTokens).toBeLessThanOrEqual(d.missedTokens);
      else expect(d.cachedTokens).toBeGreaterThan(d.missedTokens); // exploit, and rebalance (a redirected exploit)
      expect(d.cachedTokens).toBeGreaterThanOrEqual(0);
    }
    expect(new Set(decisions.map((d) => d.kind)).has("exploit")).toBe(true);
    expect(new Set(decisions.map((d) => d.kind)).has("explore")).toBe(true);
    expect(figureProblems(readableFigure(e2DecisionChart(decisions)))).toEqual([]);
  });

  it("the log is off by default, and recording it changes no decision", () => {
    const base = configurationRun({ workload: "toolCalling", rate: 24, replicas: 4, configuration: "preble", requestCount: 300, seed: 1 });
    const off = simulateCluster(base);
    expect(off.routerStats.decisions).toBeUndefined();
    const on = simulateCluster({ ...base, router: { ...(base.router as { name: string }), recordDecisions: true } });
    expect(on.records.map((r) => r.replica)).toEqual(off.records.map((r) => r.replica));
    const a = e2DecisionLine({ workload: "toolCalling", rate: 24, replicas: 4, configuration: "preble", requestCount: 300, seed: 1 });
    // pairing is explore's first branch: drawn as explore, below the line
    for (const d of a.decisions) expect(d.kind === "explore").toBe(d.cachedTokens <= d.missedTokens);
  });
});

describe("the global tree at dispatch (§3.1)", () => {
  it("after one request: the instruction prefix and the problem, both just inserted, on the request's GPU", () => {
    const t = globalTreeAtDispatch({ requests: 1, replicas: 4, seed: 3 });
    const gpu = t.requests[0].gpu;
    expect(t.nodes.map((n) => [n.label.startsWith("题目") ? "题目" : n.label, n.gpus, n.inserted])).toEqual([
      ["共享指令前缀", [gpu], true],
      ["题目", [gpu], true],
    ]);
    expect(t.nodes[0].tokens + t.nodes[1].tokens).toBe(t.requests[0].missed);
  });

  it("after a handful: one problem node per problem under the shared prefix, only the last request's new segments marked", () => {
    const t = globalTreeAtDispatch({ requests: 17, replicas: 4, seed: 3 });
    const problems = [...new Set(t.requests.map((r) => r.problem))];
    expect(t.nodes.length).toBe(1 + problems.length);
    expect(t.nodes.slice(1).every((n) => n.parent === t.nodes[0].id)).toBe(true);
    // the last request inserted its problem segment only if no earlier request had that problem; never the prefix
    const last = t.requests[16];
    const seenBefore = t.requests.slice(0, 16).some((r) => r.problem === last.problem);
    expect(t.nodes.filter((n) => n.inserted).map((n) => n.label)).toEqual(seenBefore ? [] : [`题目 ${last.problem}`]);
    // every GPU a request went to holds the prefix and that request's problem
    for (const r of t.requests) {
      expect(t.nodes[0].gpus).toContain(r.gpu);
      expect(t.nodes.find((n) => n.label === `题目 ${r.problem}`)!.gpus).toContain(r.gpu);
    }
    const svg = radixTreeSvg(t.nodes, { gpuCount: t.gpuCount, title: t.title });
    expect(svg.match(/class="l11-node"/g)?.length).toBe(t.nodes.length);
    expect(svg).toContain("font-family:inherit");
  });
});

describe("facetLines' marked points (03.12's chosen GPU, 03.1's overloaded cells)", () => {
  const t: Table = {
    title: "t",
    columns: [{ key: "panel", label: "面板" }, { key: "x", label: "序号" }, { key: "y", label: "代价（秒）" }, { key: "gpu", label: "GPU" }, { key: "chosen", label: "选中" }],
    rows: [
      { panel: "a", x: 0, y: 5, gpu: 0, chosen: true },
      { panel: "a", x: 0, y: 6, gpu: 1, chosen: false },
      { panel: "a", x: 1, y: 7, gpu: 0, chosen: false },
      { panel: "a", x: 1, y: 4, gpu: 1, chosen: true },
      { panel: "b", x: 0, y: 3, gpu: 0, chosen: false },
      { panel: "b", x: 0, y: 2, gpu: 1, chosen: true },
    ],
  };
  it("draws them as one cross trace per panel after (over) the panel's lines, each cross in its group's colour", () => {
    const f = facetLines(t, { facet: "panel", x: "x", y: "y", group: "gpu", markWhen: "chosen" });
    // a numeric group is named with its column's label ("GPU 0", not a bare "0")
    expect(f.data.map((d) => [d.name, d.xaxis])).toEqual([["GPU 0", "x"], ["GPU 1", "x"], ["选中", "x"], ["选中", "x"], ["GPU 0", "x2"], ["GPU 1", "x2"], ["选中", "x2"]]);
    const lineColour = (i: number) => (f.data[i].line as { color: string }).color;
    // the legend's cross is a grey key of its own (the crosses take their groups' colours; the legend would show the first)
    expect(f.data[2]).toMatchObject({ mode: "markers", x: [null], y: [null], showlegend: true, legendgroup: "选中", marker: { symbol: "x", color: "#555555" } });
    expect(f.data[3]).toMatchObject({ mode: "markers", x: [0, 1], y: [5, 4], showlegend: false, legendgroup: "选中" });
    expect((f.data[3].marker as { color: string[] }).color).toEqual([lineColour(0), lineColour(1)]);
    expect(f.data[6]).toMatchObject({ x: [0], y: [2], showlegend: false });
    expect(figureProblems(readableFigure(f))).toEqual([]);
  });

  it("with a dashed companion: the dotted lines come last in each panel, over the crosses; the legend has a colour a group and a grey key a line style", () => {
    const withGap: Table = { ...t, columns: [...t.columns, { key: "gap", label: "差", legend: "M + P（说明）" }, { key: "mark", label: "标记", legend: "被选中的那块" }], rows: t.rows.map((r) => ({ ...r, gap: 0, mark: r.chosen })) };
    const f = facetLines(withGap, { facet: "panel", x: "x", y: "y", group: "gpu", dashed: "gap", dashedName: "M + P", markWhen: "mark" });
    const kinds = f.data.map((d) => `${d.xaxis ?? "key"}:${d.mode === "markers" ? "cross" : (d.line as { dash?: string }).dash === "dot" ? "dotted" : "solid"}`);
    expect(kinds).toEqual(["x:solid", "x:solid", "key:solid", "key:dotted", "x:cross", "x:cross", "x:dotted", "x:dotted", "x2:solid", "x2:solid", "x2:cross", "x2:dotted", "x2:dotted"]);
    // the legend: the groups, the two line styles named by the columns' legend names (before dashedName), the crosses
    expect(f.data.filter((d) => d.showlegend === true).map((d) => d.name)).toEqual(["GPU 0", "GPU 1", "代价（秒）", "M + P（说明）", "被选中的那块"]);
    // the dotted lines' own names (hover) use dashedName, in their group's legend group
    expect(f.data.filter((d) => d.xaxis === "x" && (d.line as { dash?: string } | undefined)?.dash === "dot").map((d) => [d.name, d.legendgroup, d.showlegend])).toEqual([["GPU 0 · M + P", "0", false], ["GPU 1 · M + P", "1", false]]);
    expect(figureProblems(readableFigure(f))).toEqual([]);
  });

  it("with dashedTitle the dotted lines of each panel get a y axis of their own on its right, over that panel's; without it they share the panel's", () => {
    const withGap: Table = { ...t, columns: [...t.columns, { key: "gap", label: "差" }], rows: t.rows.map((r) => ({ ...r, gap: 0.01 })) };
    const f = facetLines(withGap, { facet: "panel", x: "x", y: "y", group: "gpu", dashed: "gap", dashedTitle: "差（秒）" });
    const dotted = f.data.filter((d) => (d.line as { dash?: string } | undefined)?.dash === "dot" && d.xaxis !== undefined);
    expect(dotted.map((d) => [d.xaxis, d.yaxis])).toEqual([["x", "y3"], ["x", "y3"], ["x2", "y4"], ["x2", "y4"]]);
    expect(f.data.filter((d) => d.mode === "lines+markers" && d.xaxis !== undefined).map((d) => d.yaxis)).toEqual(["y", "y", "y2", "y2"]);
    const layout = f.layout as Record<string, unknown>;
    expect(layout.yaxis3).toMatchObject({ title: "差（秒）", overlaying: "y", anchor: "x", side: "right", showgrid: false });
    expect(layout.yaxis4).toMatchObject({ title: "差（秒）", overlaying: "y2", anchor: "x2", side: "right" });
    // zero at the same height on both axes of a panel: each range from 0 to its own column's largest, padded alike
    const range = (k: string) => (layout[k] as { range: [number, number] }).range;
    expect(range("yaxis")).toEqual([-0.08 * 7, 1.08 * 7]);
    expect(range("yaxis3")[1]).toBeCloseTo(1.08 * 0.01, 12);
    expect(range("yaxis3")[0] / range("yaxis3")[1]).toBeCloseTo(range("yaxis")[0] / range("yaxis")[1], 12);
    expect(range("yaxis2")[0] / range("yaxis2")[1]).toBeCloseTo(range("yaxis4")[0] / range("yaxis4")[1], 12);
    // a negative value: Plotly's own ranges
    const negative = facetLines({ ...withGap, rows: withGap.rows.map((r, i) => (i === 0 ? { ...r, gap: -1 } : r)) }, { facet: "panel", x: "x", y: "y", group: "gpu", dashed: "gap", dashedTitle: "差（秒）" });
    expect((negative.layout as Record<string, { range?: unknown }>).yaxis.range).toBeUndefined();
    expect((negative.layout as Record<string, { range?: unknown }>).yaxis3.range).toBeUndefined();
    expect(figureProblems(readableFigure(f))).toEqual([]);
    const shared = facetLines(withGap, { facet: "panel", x: "x", y: "y", group: "gpu", dashed: "gap" });
    expect(shared.data.filter((d) => (d.line as { dash?: string } | undefined)?.dash === "dot" && d.xaxis !== undefined).map((d) => d.yaxis)).toEqual(["y", "y", "y2", "y2"]);
    expect((shared.layout as Record<string, unknown>).yaxis3).toBeUndefined();
  });
});
