// Claims: every demo owns its conclusions. At default parameters each claim is judged (none "unjudged"); under
// perturbed parameters (a subset of a list, another seed, smaller runs) every demo still runs and every claim
// renders without an exception — a reader's changed parameter never breaks a cell.
import * as v8 from "v8";
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { listDemos, runDemo, getDemo, paramDoc } from "../lib/demos/index";
import { claimsMarkdown, claimsText } from "../lib/view/claims";
import { tableHtml, tableText } from "../lib/view/table";
import { evaluateClaim, need, needRow } from "../lib/demos/claims";
import type { Table } from "../lib/core/table";
import { resultCacheForThisFile } from "./support/result-cache-folder";
import { ALLOWED_ERRORS, SMALL } from "./support/demo-sizes";

// A result cache of this file's own: 05.x read their sub-demos at those demos' defaults, which the tests before them computed already.
resultCacheForThisFile();

const CJK = /[\u4e00-\u9fff]/;

// Each demo at its defaults, run once for the tests below that read it.
const atDefaults = new Map<string, Table>();
function defaultTable(id: string): Table {
  let t = atDefaults.get(id);
  if (!t) {
    t = runDemo(id);
    atDefaults.set(id, t);
  }
  return t;
}

/** Parameter sets derived from a base: the base, another seed, and every list cut to its first / last element. */
function perturbations(id: string): Array<{ label: string; params: Record<string, unknown>; key?: string }> {
  const demo = getDemo(id);
  const base = SMALL[id] ?? {};
  const merged: Record<string, unknown> = { ...demo.defaults, ...base };
  const out: Array<{ label: string; params: Record<string, unknown>; key?: string }> = [{ label: "small", params: base }];
  if (typeof merged.seed === "number") out.push({ label: "seed + 1", params: { ...base, seed: (merged.seed as number) + 1 }, key: "seed" });
  if (typeof merged.seed === "string") out.push({ label: "another seed", params: { ...base, seed: `${merged.seed}-b` }, key: "seed" });
  for (const [k, v] of Object.entries(merged)) {
    if (!Array.isArray(v) || v.length < 2) continue;
    out.push({ label: `${k} = [first]`, params: { ...base, [k]: [v[0]] }, key: k });
    out.push({ label: `${k} = [last]`, params: { ...base, [k]: [v[v.length - 1]] }, key: k });
  }
  return out;
}

describe("claims at default parameters", { timeout: 120_000 }, () => {
  for (const d of listDemos()) {
    it(`${d.id} declares claims, and at its defaults each is judged`, () => {
      expect(d.claims?.length ?? 0, `demo ${d.id} has no claims`).toBeGreaterThan(0);
      const t = defaultTable(d.id);
      // every declared claim is judged, none is dropped or added (a loop over no claims would pass)
      expect((t.claims ?? []).map((c) => c.id), `${d.id}: claims judged ≠ claims declared`).toEqual((d.claims ?? []).map((c) => c.id));
      for (const c of t.claims ?? []) {
        expect(c.error, `${d.id}/${c.id}: ${c.error}`).toBeUndefined();
        expect(c.verdict, `${d.id}/${c.id} cannot be judged at defaults: ${c.reason}`).not.toBe("unjudged");
        expect(CJK.test(c.says), `${d.id}/${c.id}: the claim is not in Chinese`).toBe(true);
      }
      expect(new Set((t.claims ?? []).map((c) => c.id)).size).toBe(t.claims?.length);
      // plain data, so the notebooks' result cache can keep it (a function format, say, could not be cloned)
      expect(() => v8.serialize(t), `${d.id}'s table cannot be kept by the result cache`).not.toThrow();
    });
  }
});

describe("claims survive changed parameters", { timeout: 120_000 }, () => {
  // One test per perturbation: a long synchronous run per test keeps vitest's worker responsive between them.
  for (const d of listDemos()) {
    for (const p of perturbations(d.id)) {
      it(`${d.id} with ${p.label}: runs and every claim renders`, () => {
        let t: Table;
        try {
          t = runDemo(d.id, p.params);
        } catch (e) {
          const allowed = p.key !== undefined && ALLOWED_ERRORS[d.id]?.[p.key] !== undefined;
          if (e instanceof ParameterError && allowed) return;
          throw new Error(`${d.id} with ${p.label}: ${(e as Error).message}`);
        }
        for (const c of t.claims ?? []) expect(c.error, `${d.id} with ${p.label}, claim ${c.id}: ${c.error}`).toBeUndefined();
        expect(() => claimsMarkdown(t) + claimsText(t) + tableHtml(t) + tableText(t)).not.toThrow();
      });
    }
  }
});

describe("the reading surface is Chinese", () => {
  for (const d of listDemos()) {
    it(`${d.id}: name, parameters and table headers`, () => {
      expect(CJK.test(d.title), `demo ${d.id}'s name "${d.title}"`).toBe(true);
      for (const k of Object.keys(d.defaults)) {
        const doc = paramDoc(d, k);
        expect(doc && CJK.test(doc.meaning), `${d.id}: parameter ${k} has no Chinese meaning`).toBe(true);
        expect(doc?.range, `${d.id}: parameter ${k} has no allowed range`).toBeTruthy();
      }
    });
  }
});

describe("table headers are Chinese", { timeout: 300_000 }, () => {
  it("at least 80% of the column headers over every demo's table at defaults contain Chinese", () => {
    let chinese = 0;
    let total = 0;
    const english: string[] = [];
    for (const d of listDemos()) {
      const t = defaultTable(d.id);
      for (const c of t.columns) {
        total++;
        if (CJK.test(c.label)) chinese++;
        else english.push(`${d.id}:${c.label}`);
      }
      expect(CJK.test(t.title), `${d.id}'s table title "${t.title}"`).toBe(true);
    }
    expect(chinese / total, `headers without Chinese: ${english.join(" | ")}`).toBeGreaterThanOrEqual(0.8);
  });
});

describe("judge helpers", () => {
  const t: Table = { title: "t", columns: [{ key: "policy", label: "策略", format: "name" }, { key: "mean", label: "平均" }], rows: [{ policy: "jsq", mean: 2 }] };
  it("need returns the cell, and a missing row makes the claim unjudged with the row named in Chinese", () => {
    expect(need(t, { policy: "jsq" }, "mean")).toBe(2);
    const c = evaluateClaim({ id: "x", says: "随机更慢", judge: (tb) => ({ holds: need(tb, { policy: "random" }, "mean") > 1, ours: "" }) }, t, {});
    expect(c.verdict).toBe("unjudged");
    expect(c.reason).toContain("策略 = 随机");
    expect(c.error).toBeUndefined();
  });
  it("an unexpected error is caught and flagged, never thrown", () => {
    const c = evaluateClaim({ id: "y", says: "说", judge: () => { throw new TypeError("boom"); } }, t, {});
    expect(c.verdict).toBe("unjudged");
    expect(c.error).toBe("boom");
  });
  it("two readings: the first is the verdict, both are listed", () => {
    const c = evaluateClaim({ id: "z", says: "说", judge: () => [{ reading: "讲义的读法", holds: true, ours: "a" }, { reading: "发布的代码", holds: false, ours: "b" }] }, t, {});
    expect(c.verdict).toBe("holds");
    expect(c.readings?.map((r) => r.verdict)).toEqual(["holds", "fails"]);
    expect(claimsText({ ...t, claims: [c] })).toContain("发布的代码：❌ 不成立");
  });
  it("needRow refuses an ambiguous selector", () => {
    const t2: Table = { ...t, rows: [{ policy: "jsq", mean: 1 }, { policy: "jsq", mean: 2 }] };
    const c = evaluateClaim({ id: "w", says: "说", judge: (tb) => ({ holds: Boolean(needRow(tb, { policy: "jsq" })), ours: "" }) }, t2, {});
    expect(c.reason).toContain("2 行");
  });
});
