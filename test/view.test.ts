import { describe, expect, it } from "vitest";
import type { Table } from "../lib/core/table";
import { cell, rowWhere } from "../lib/core/table";
import { bars, checkFigure, figureHtml, formatValue, lines, mdText, tableHtml, tableJson, tableText, heatmap } from "../lib/view";

const sample: Table = {
  title: "Latency <by> policy",
  columns: [
    { key: "policy", label: "policy" },
    { key: "meanLatency", label: "mean latency", unit: "s", format: "fixed2" },
    { key: "hitRate", label: "hit rate", format: "percent1" },
    { key: "requests", label: "requests", format: "int" },
  ],
  rows: [
    { policy: "round<robin>", meanLatency: 3.14159, hitRate: 0.3333, requests: 12345 },
    { policy: "affinity & co", meanLatency: 1.5, hitRate: 0.58, requests: 99 },
  ],
  notes: ["rates in req/s <scaled>"],
};

describe("table rendering", () => {
  it("escapes cells, title and notes, and shows units in headers", () => {
    const html = tableHtml(sample);
    expect(html).toContain("round&lt;robin&gt;");
    expect(html).toContain("affinity &amp; co");
    expect(html).toContain("Latency &lt;by&gt; policy");
    expect(html).toContain("rates in req/s &lt;scaled&gt;");
    expect(html).not.toContain("<robin>");
    expect(html).toMatch(/mean latency <span class="l11-unit">\(s\)<\/span>/);
  });
  it("formats numbers per column", () => {
    const html = tableHtml(sample);
    expect(html).toContain(">3.14<");
    expect(html).toContain(">33.3%<");
    expect(html).toContain(">12,345<");
  });
  it("plain text aligns columns and keeps units and notes", () => {
    const text = tableText(sample).split("\n");
    expect(text[0]).toBe("Latency <by> policy");
    expect(text[1]).toContain("mean latency（s）");
    expect(text[3]).toContain("3.14");
    expect(text[3].length).toBe(text[4].length);
    expect(text[text.length - 1]).toBe("* rates in req/s <scaled>");
  });
  it("formats special values and CJK widths", () => {
    expect(formatValue(NaN, "fixed2")).toBe("—");
    expect(formatValue(Infinity)).toBe("∞");
    expect(formatValue(null)).toBe("—");
    expect(formatValue(true)).toBe("是");
    expect(formatValue("jsq", "name")).toBe("最短队列 (JSQ)");
    expect(formatValue("notInGlossary", "name")).toBe("notInGlossary");
    expect(formatValue(0.012345)).toBe("0.0123");
    expect(formatValue(1234.5)).toBe("1,235");
    const t: Table = { title: "t", columns: [{ key: "a", label: "策略" }, { key: "b", label: "x" }], rows: [{ a: "轮转", b: 1 }] };
    const [, header, rule] = tableText(t).split("\n");
    expect(rule.startsWith("----  ")).toBe(true);
    expect(header.startsWith("策略  ")).toBe(true);
  });
  it("a column of mixed measures takes each row's format from the cell its formatFrom names (else its own)", () => {
    const mixed: Table = {
      title: "t",
      columns: [{ key: "what", label: "what", format: "text" }, { key: "value", label: "value", format: "sig3", formatFrom: "valueFormat" }],
      rows: [{ what: "latency", value: 12.345 }, { what: "hit rate", value: 0.41234, valueFormat: "percent1" }, { what: "odd", value: 0.5, valueFormat: "nonsense" }],
    };
    const html = tableHtml(mixed);
    expect(html).toContain(">12.3<");
    expect(html).toContain(">41.2%<");
    expect(html).toContain(">0.500<");
    const text = tableText(mixed).split("\n");
    expect(text[4]).toMatch(/hit rate\s+41\.2%$/);
    const j = tableJson(mixed);
    expect(j.columns[1]).toMatchObject({ key: "value", format: "sig3", formatFrom: "valueFormat" });
    expect(j.rows[1]).toEqual({ what: "hit rate", value: 0.41234, valueFormat: "percent1" });
    expect(j.rows[0]).toEqual({ what: "latency", value: 12.345, valueFormat: null });
  });
  it("JSON rows are keyed by column key; lookups find one row or throw", () => {
    const j = tableJson(sample);
    expect(j.rows[1]).toEqual({ policy: "affinity & co", meanLatency: 1.5, hitRate: 0.58, requests: 99 });
    expect(cell(sample, { policy: "affinity & co" }, "hitRate")).toBe(0.58);
    expect(() => rowWhere(sample, { policy: "nope" })).toThrow(/found 0/);
  });
});

describe("charts", () => {
  it("builders take axis titles with units from the table's columns", () => {
    const f = bars(sample, { x: "policy", y: "meanLatency" });
    expect((f.layout?.yaxis?.title as string)).toBe("mean latency（s）");
    expect(f.data[0].type).toBe("bar");
    expect(f.layout?.xaxis?.type).toBe("category");
    expect(() => lines(sample, { x: "policy", y: "missing" })).toThrow(/column "missing"/);
  });
  it("a chart without axis titles is refused", () => {
    expect(() => checkFigure({ data: [{ type: "scatter", x: [1], y: [2] }], layout: { xaxis: { title: "x" } } })).toThrow(/yaxis.title/);
    expect(() => checkFigure({ data: [] })).toThrow(/non-empty/);
    // Only trace types the bundled (cartesian) plotly.js can draw are accepted; a pie needs no axes.
    expect(() => checkFigure({ data: [{ type: "sankey" }] })).toThrow(/trace type "sankey" is not in the bundled plotly.js.*bar, box/);
    expect(() => checkFigure({ data: [{ type: "pie", values: [1, 2] }] })).not.toThrow();
    const hm = heatmap({ z: [[1, 2], [3, 4]], x: ["a", "b"], y: ["c", "d"], title: "h", xTitle: "solve model", yTitle: "locate model" });
    expect(() => checkFigure(hm)).not.toThrow();
  });
  it("figure HTML has a deterministic id, inlines the bundle only when asked, and escapes </script>", () => {
    const fig = { data: [{ type: "scatter", x: [1], y: [2], name: "</script><b>" }], layout: { xaxis: { title: "x (s)" }, yaxis: { title: "y (s)" } } };
    const a = figureHtml(fig, { id: "chart-a" });
    expect(a).toContain('id="chart-a"');
    expect(a).not.toContain("</script><b>");
    expect(a.length).toBeLessThan(5000);
    const withBundle = figureHtml(fig, { id: "chart-b", includeBundle: true });
    expect(withBundle.length).toBeGreaterThan(1_000_000);
    expect(withBundle).toContain("if (!window.Plotly)");
  });
});

describe("md", () => {
  it("formats numbers in prose", () => {
    expect(mdText`hit ${0.58321} with ${219089} tokens and ${[1.5, 2]}`).toBe("hit 0.583 with 219,089 tokens and 1.50, 2");
  });
});
