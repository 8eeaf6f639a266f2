// sideBySide() turns a long table (a row per cell × configuration) so that the configurations stand side by side, and
// report(t, { compact }) shows such a view with the full table folded under it. The appendix (notebook 10) shows
// 03.1 this way: its cell runs here on the stored default table (bench/golden/03.1.json, claims judged on it as
// runDemo judges them), and what it displays is read back — the rows shown open, the rows one click away, the verdicts.
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Table } from "../lib/core/table";

const shown: Array<{ html?: string; markdown?: string }> = [];
vi.mock("../lib/view/display", async (importOriginal) => {
  const original = await importOriginal<typeof import("../lib/view/display")>();
  return {
    ...original,
    displayHtml: (r: { html: string }) => void shown.push({ html: r.html }),
    displayMarkdown: (markdown: string) => void shown.push({ markdown }),
  };
});

import { report, resetNotes, shownHtml, sideBySide, tableHtml } from "../lib/view/index";
import { demoDefaults, getDemo } from "../lib/demos/index";
import { evaluateClaims } from "../lib/demos/claims";
import { readGolden } from "../bench/golden";
import { runPageCell } from "./support/page-code";

beforeEach(() => {
  shown.length = 0;
  resetNotes();
});

const long: Table = {
  title: "latency",
  columns: [
    { key: "workload", label: "负载", format: "name" },
    { key: "rate", label: "请求率", unit: "请求/秒", format: "sig3" },
    { key: "policy", label: "配置", format: "name" },
    { key: "meanLatency", label: "平均延迟", unit: "秒", format: "fixed2" },
    { key: "overloaded", label: "过载" },
    { key: "vsBaseline", label: "基线 ÷ 此配置", unit: "倍", format: "fixed2" },
  ],
  rows: [
    { workload: "videoQA", rate: 2, policy: "baseline", meanLatency: 1.5, overloaded: false, vsBaseline: 1 },
    { workload: "videoQA", rate: 2, policy: "preble", meanLatency: 0.75, overloaded: false, vsBaseline: 2 },
    { workload: "videoQA", rate: 8, policy: "baseline", meanLatency: 32.4, overloaded: true, vsBaseline: 1 },
    { workload: "videoQA", rate: 8, policy: "preble", meanLatency: 1.6, overloaded: false, vsBaseline: 20.25 },
    { workload: "videoQA", rate: 8, policy: "prebleReleased", meanLatency: 4.78, overloaded: true, vsBaseline: NaN },
  ],
  notes: ["a note of the table"],
};

describe("sideBySide", () => {
  const view = sideBySide(long, { rows: ["workload", "rate"], across: "policy", values: ["meanLatency"], flag: "overloaded", also: { from: "preble", columns: ["vsBaseline"] } });

  it("makes one row per cell and one column per configuration, in the table's order", () => {
    expect(view.rows.map((r) => [r.workload, r.rate])).toEqual([["videoQA", 2], ["videoQA", 8]]);
    expect(view.columns.map((c) => c.key)).toEqual(["workload", "rate", "baseline|meanLatency", "preble|meanLatency", "prebleReleased|meanLatency", "also|preble|vsBaseline"]);
    expect(view.columns[3]).toMatchObject({ label: "完整 Preble", unit: "秒", format: "fixed2" });
    expect(view.columns[5].label).toBe("完整 Preble：基线 ÷ 此配置");
  });

  it("copies every number from the table (none recomputed), marks a flagged run and leaves a missing run empty", () => {
    expect(view.rows[0]).toMatchObject({ "baseline|meanLatency": 1.5, "preble|meanLatency": 0.75, "prebleReleased|meanLatency": null, "also|preble|vsBaseline": 2 });
    expect(view.rows[1]).toMatchObject({ "baseline|meanLatency": "32.40（过载）", "preble|meanLatency": 1.6, "prebleReleased|meanLatency": "4.78（过载）", "also|preble|vsBaseline": 20.25 });
    expect(tableHtml(view)).toContain(">—<");
  });

  it("says how to read it, keeps the table's notes, claims and parameters", () => {
    const withClaims = { ...long, id: "x", params: { a: 1 }, claims: [] };
    const v = sideBySide(withClaims, { rows: ["workload", "rate"], across: "policy", values: ["meanLatency"] });
    expect(v.notes?.[0]).toMatch(/^每行一格（负载 × 请求率），每个配置一列：平均延迟；/);
    expect(v.notes?.slice(1)).toEqual(long.notes);
    expect(v).toMatchObject({ id: "x", params: { a: 1 }, claims: [] });
  });

  it("names a column the table does not have", () => {
    expect(() => sideBySide(long, { rows: ["workload"], across: "router", values: ["meanLatency"] })).toThrow(/no column "router"/);
  });
});

describe("a folded table and report(t, { compact })", () => {
  it("folds the full table under one line that counts its rows and columns", () => {
    const html = shownHtml(long, { folded: true });
    expect(html).toMatch(/^<details class="l11-table-fold"[^>]*><summary><b>全表：5 行、6 列<\/b>（点开查看）<\/summary><div class="l11-table">/);
    expect(html.match(/<tr><td/g)).toHaveLength(5);
    expect(shownHtml(long)).not.toContain("<details");
  });

  it("shows the compact view, the full table folded, then the claims judged on the full table", () => {
    const t = { ...long, id: "x", claims: [{ id: "c", says: "结论", verdict: "holds" as const, ours: "1 对 2" }] };
    report(t, { compact: sideBySide(t, { rows: ["workload", "rate"], across: "policy", values: ["meanLatency"] }) });
    expect(shown).toHaveLength(3);
    expect(shown[0].html).not.toContain("<details");
    expect(shown[1].html).toMatch(/^<details/);
    expect(shown[2].markdown).toContain("**结论核对**（演示 x，由上表的数字判断）");
  });
});

/** The rows of the tables in `html` (body rows: a <tr> that opens with a <td>). */
const rowCount = (html: string) => (html.match(/<tr><td/g) ?? []).length;

describe("the appendix's 03.1 (notebook 10, cell a10-t31)", () => {
  const SHOWN_ROWS_AT_MOST = 20;
  const golden = readGolden("03.1");
  const decode = (v: unknown): any => {
    if (Array.isArray(v)) return v.map(decode);
    if (v && typeof v === "object") return "nonFinite" in v ? Number((v as { nonFinite: string }).nonFinite) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
    return v;
  };

  it(`shows at most ${SHOWN_ROWS_AT_MOST} rows open, every row of 03.1 one click away, and every claim's verdict`, () => {
    if (!golden) throw new Error("bench/golden/03.1.json is missing");
    const table = decode(golden.table) as Table;
    const runDemo = (id: string, p: Record<string, unknown>) => {
      expect(id).toBe("03.1");
      const params = { ...demoDefaults("03.1"), ...p };
      expect(JSON.parse(JSON.stringify(params)), "the cell's parameters are 03.1's defaults: the stored table is its run").toEqual(golden.defaults);
      return { ...table, id, params, claims: evaluateClaims(getDemo(id).claims ?? [], table, params) };
    };
    const charts: unknown[] = [];
    const { t31 } = runPageCell("10-appendix-preble-as-released.ipynb", "a10-t31", { runDemo, plot: (figure: unknown) => void charts.push(figure) });
    expect(charts).toHaveLength(1);
    const html = shown.flatMap((s) => (s.html ? [s.html] : [])).join("\n");
    const open = html.replace(/<details\b[\s\S]*?<\/details>/g, "");
    const folded = [...html.matchAll(/<details\b[\s\S]*?<\/details>/g)].map((m) => m[0]).join("\n");
    expect(rowCount(open)).toBeGreaterThan(0);
    expect(rowCount(open)).toBeLessThanOrEqual(SHOWN_ROWS_AT_MOST);
    expect(t31.rows.length).toBe(table.rows.length);
    expect(rowCount(folded)).toBe(table.rows.length);
    expect(folded).toContain(`全表：${table.rows.length} 行、${table.columns.length} 列`);
    // the verdicts, judged on the full table, as the golden file has them
    const markdown = shown.flatMap((s) => (s.markdown ? [s.markdown] : [])).join("\n");
    expect(markdown).toContain("**结论核对**（演示 03.1，由上表的数字判断）");
    const claims = t31.claims as Array<{ id: string; says: string; verdict: string; readings?: Array<{ verdict: string }> }>;
    expect(claims.map((c) => (c.readings ? [c.id, c.verdict, c.readings.map((r) => r.verdict)] : [c.id, c.verdict]))).toEqual(golden.claims);
    for (const c of claims) expect(markdown).toContain(c.says);
    expect(markdown.match(/l11-verdict-/g)?.length ?? 0).toBeGreaterThanOrEqual(claims.length);
  });
});
