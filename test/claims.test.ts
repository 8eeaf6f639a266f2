// Claims: every demo owns its conclusions. At default parameters each claim is judged (none "unjudged"); under
// perturbed parameters (a subset of a list, another seed, smaller runs) every demo still runs and every claim
// renders without an exception — a reader's changed parameter never breaks a cell.
import * as v8 from "v8";
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { compareRouters, listDemos, runDemo, getDemo, paramDoc } from "../lib/demos/index";
import { claimsMarkdown, claimsText, verdictBadge } from "../lib/view/claims";
import { tableHtml, tableText } from "../lib/view/table";
import { lectureReading, withoutCitations } from "../lib/view/lecture-reading";
import { cannotJudge, evaluateClaim, need, needRow, notActed } from "../lib/demos/claims";
import type { ClaimResult, Table } from "../lib/core/table";
import { spacedText } from "../lib/core/glossary";
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

/** Every verdict that is not "holds", under any reading, carries its reason (a Chinese `why`). */
function expectReasons(id: string, c: ClaimResult): void {
  for (const v of [c, ...(c.readings ?? [])]) {
    if (v.verdict === "holds") continue;
    expect(v.why?.trim(), `${id}/${c.id}${"reading" in v ? ` (${v.reading})` : ""} is ${v.verdict} without a why`).toBeTruthy();
    expect(CJK.test(v.why ?? ""), `${id}/${c.id}: the why is not in Chinese`).toBe(true);
  }
}

describe("claims at default parameters", { timeout: 120_000 }, () => {
  it("the router arena (compareRouters, notebook 06): every verdict that does not hold carries its reason, shown on its 原因 line", () => {
    const allToFirst = { name: "全派给第一个副本", route: () => 0 };
    const t = compareRouters([allToFirst], { workloads: ["longDocQA"], requestCounts: { longDocQA: 60 }, baselines: ["cacheAwareGuarded"] });
    const failing = (t.claims ?? []).filter((c) => c.verdict !== "holds");
    expect(failing.length).toBeGreaterThan(0);
    for (const c of t.claims ?? []) expectReasons("compareRouters", c);
    for (const c of failing) expect(claimsMarkdown(t)).toContain(`    - 原因：${c.why}`);
  });
  for (const d of listDemos()) {
    it(`${d.id} declares claims, and at its defaults each is judged`, () => {
      expect(d.claims?.length ?? 0, `demo ${d.id} has no claims`).toBeGreaterThan(0);
      const t = defaultTable(d.id);
      // every declared claim is judged, none is dropped or added (a loop over no claims would pass)
      expect((t.claims ?? []).map((c) => c.id), `${d.id}: claims judged ≠ claims declared`).toEqual((d.claims ?? []).map((c) => c.id));
      for (const c of t.claims ?? []) {
        expect(c.error, `${d.id}/${c.id}: ${c.error}`).toBeUndefined();
        // unjudged at defaults only where a mechanism the claim is about never acted (saying so with the count), where
        // a one-seed ranking moves by less than the seeds' noise (03.11's ladder; saying so), or where pairing's effect
        // is inside the effect band (03.2, 03.11: neither better nor worse; saying so)
        if (c.verdict === "unjudged") expect(c.why, `${d.id}/${c.id} cannot be judged at defaults: ${c.reason}`).toMatch(/触发了 0 次|一次也没|只有一个种子，这一步的变化又都不到|以内：不算变好或变差/);
        expect(CJK.test(c.says), `${d.id}/${c.id}: the claim is not in Chinese`).toBe(true);
        expectReasons(d.id, c);
        // "n 个种子中 k 个成立" counts the seeds where the whole claim holds: a verdict on the means that no seed
        // shares would mean the seed-by-seed test checks less (or other) than the claim
        for (const v of [c, ...(c.readings ?? [])]) {
          if (!v.seeds) continue;
          if (v.verdict === "holds") expect(v.seeds.agree, `${d.id}/${c.id}: holds on the means, on no seed`).toBeGreaterThan(0);
          if (v.verdict === "fails") expect(v.seeds.agree, `${d.id}/${c.id}: fails on the means, holds on every seed`).toBeLessThan(v.seeds.total);
        }
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
    expect(claimsText({ ...t, claims: [c] })).toContain("发布的代码：不成立");
  });
  it("a failure carries its why, rendered right under the verdict (notebook and CLI); a holding claim's why is dropped", () => {
    const fails = evaluateClaim({ id: "f", says: "轮转更快", judge: () => ({ holds: false, ours: "1 对 2", why: "轮转慢了 1 秒" }) }, t, {});
    const holds = evaluateClaim({ id: "h", says: "随机更慢", judge: () => ({ holds: true, ours: "2 对 1", why: "不该出现" }) }, t, {});
    expect(fails.why).toBe("轮转慢了 1 秒");
    expect(holds.why).toBeUndefined();
    const md = claimsMarkdown({ ...t, claims: [fails, holds] }).split("\n");
    const at = md.findIndex((l) => l.includes("轮转更快"));
    expect(md[at + 1]).toBe("    - 原因：轮转慢了 1 秒");
    expect(md.join("\n")).not.toContain("不该出现");
    expect(claimsText({ ...t, claims: [fails] })).toContain("原因：轮转慢了 1 秒");
  });
  it("a reading whose mechanism never acted is unjudged with the count; the others keep their verdicts", () => {
    const c = evaluateClaim(
      { id: "m", says: "再平衡改善 P99", judge: () => [{ reading: "讲义的读法", holds: false, ours: "0%", unjudged: notActed(0, "再平衡", "比值低于 Th_bal") }, { reading: "开源代码的读法", holds: false, ours: "慢 3%", why: "慢了 3%" }] },
      t,
      {},
    );
    expect(c.verdict).toBe("unjudged");
    expect(c.why).toBe("再平衡在这次运行里触发了 0 次：比值低于 Th_bal，无从判断它的效果");
    expect(c.readings?.map((r) => [r.verdict, r.why])).toEqual([["unjudged", c.why], ["fails", "慢了 3%"]]);
    expect(notActed(3, "再平衡")).toBeUndefined();
  });
  it("a claim that cannot be judged gives its reason on the same 原因 line as a failure, never in parentheses (notebook, CLI, line mode)", () => {
    const unjudged = evaluateClaim({ id: "u", says: "换了硬件也成立", lecture: "0.28 秒", judge: () => cannotJudge("讲义的数字是 A6000 的，这组参数换了硬件") }, t, {});
    const missing = evaluateClaim({ id: "m", says: "随机更慢", judge: (tb) => ({ holds: need(tb, { policy: "random" }, "mean") > 1, ours: "" }) }, t, {});
    const partly = evaluateClaim({ id: "p", says: "再平衡改善 P99", judge: () => [{ reading: "讲义的读法", holds: false, ours: "快 0%", unjudged: notActed(0, "再平衡") }, { reading: "开源代码的读法", holds: false, ours: "慢 3%", why: "慢了 3%" }] }, t, {});
    for (const c of [unjudged, missing]) {
      const md = claimsMarkdown({ ...t, claims: [c] }).split("\n");
      const at = md.findIndex((l) => l.includes(c.says));
      expect(md[at]).not.toContain("（" + c.reason);
      expect(md[at]).not.toMatch(/[；　]$/); // no dangling separator where the figures would be
      expect(md[at + 1]).toBe(`    - 原因：${c.reason}`);
      const text = claimsText({ ...t, claims: [c] });
      expect(text).toContain(`原因：${c.reason}`);
      expect(text).not.toContain(`（${c.reason}）`);
    }
    const line = claimsMarkdown({ ...t, claims: [partly] }, { readings: "line" }).split("\n");
    const at = line.findIndex((l) => l.includes("再平衡改善 P99"));
    expect(line[at]).toContain("这里：快 0%");
    expect(line[at]).not.toContain("触发了 0 次");
    expect(line[at + 1]).toBe(`    - 原因：${partly.why}`);
    expect(line[at + 2]).toContain("开源代码的读法下：");
    expect(line[at + 2]).not.toContain("原因");
    expect(line[at + 3]).toBe("        - 原因：慢了 3%");
  });
  it("generated sentences are spaced where Chinese meets a Latin letter or digit, as the prose is", () => {
    expect(spacedText("在Mooncake 对话 trace上")).toBe("在 Mooncake 对话 trace 上");
    expect(spacedText("最好的Dynamo KV 路由器 46.0 秒")).toBe("最好的 Dynamo KV 路由器 46.0 秒");
    expect(spacedText("第1轮：E2（开源）")).toBe("第 1 轮：E2（开源）");
    const same = "负载 0.7：轮转 83.8 秒，最少负载 49.3 秒（1.70×）；3 个种子中 3 个成立";
    expect(spacedText(same)).toBe(same);
    const c = evaluateClaim({ id: "s", says: "你的路由器在Mooncake 对话 trace上更快", judge: () => ({ holds: false, ours: "最快的是SGLang 路由器", why: "比SGLang慢" }) }, t, {});
    expect([c.says, c.ours, c.why]).toEqual(["你的路由器在 Mooncake 对话 trace 上更快", "最快的是 SGLang 路由器", "比 SGLang 慢"]);
  });
  it("line mode: one verdict, and one line for the released reading only where it differs (见附录)", () => {
    const differs = evaluateClaim({ id: "d", says: "说 A", judge: () => [{ reading: "讲义的读法", holds: true, ours: "a" }, { reading: "开源代码的读法", holds: false, ours: "b", why: "开源代码只服务一个组" }] }, t, {});
    const same = evaluateClaim({ id: "s", says: "说 B", judge: () => [{ reading: "讲义的读法", holds: true, ours: "a" }, { reading: "开源代码的读法", holds: true, ours: "b" }] }, t, {});
    const md = claimsMarkdown({ ...t, claims: [differs, same] }, { readings: "line" });
    expect(md).toContain("    - 开源代码的读法下：");
    expect(md).toContain("开源代码的读法下：" + verdictBadge("fails") + "（见[附录](10-appendix-preble-as-released.ipynb)）\n        - 原因：开源代码只服务一个组");
    expect(claimsMarkdown({ ...t, claims: [differs] }, { readings: "line", appendix: "" })).toContain(verdictBadge("fails") + "（见附录）\n        - 原因：开源代码只服务一个组");
    expect(md.match(/开源代码的读法/g)?.length).toBe(1);
    expect(md).not.toContain("讲义的读法：");
  });
  it("lectureReading: the released rows, columns, notes and file / line citations left out; the claims keep both readings", () => {
    const c = evaluateClaim({ id: "r", says: "说", judge: () => [{ reading: "讲义的读法", holds: true, ours: "改派 3 次（gsw:378）" }, { reading: "开源代码的读法", holds: false, ours: "b", why: "迁移搬不走热前缀（gsw:419–429）" }] }, t, {});
    const table: Table = {
      title: "热点",
      columns: [{ key: "policy", label: "配置" }, { key: "mean", label: "平均" }, { key: "migrated", label: "迁移" }, { key: "vsPaperBaseline", label: "论文的基线 ÷" }],
      rows: [{ policy: "e2", mean: 1, migrated: null, vsPaperBaseline: 2 }, { policy: "e2+migrateReleased", mean: 2, migrated: 5, vsPaperBaseline: 3 }, { policy: "baselinePaper", mean: 3, migrated: null, vsPaperBaseline: 1 }, { policy: "x", released: true, mean: 4 }],
      notes: ["配置：E2 = 只有 E2；论文的基线 = 轮转（e2e_4r_toolbench_config.py:23–29）；E2 + 再平衡 = 改派（gsw:378）。", "autoscaleReleased：开源代码的读法。", "开源代码的读法只在几格里另跑。"],
      claims: [c],
    };
    const l = lectureReading(table);
    expect(l.rows.map((r) => r.policy)).toEqual(["e2"]);
    expect(l.columns.map((col) => col.key)).toEqual(["policy", "mean"]);
    expect(l.notes).toEqual(["配置：E2 = 只有 E2；E2 + 再平衡 = 改派。"]);
    expect(l.claims?.[0].ours).toBe("改派 3 次");
    expect(l.claims?.[0].readings?.[1].why).toBe("迁移搬不走热前缀");
    expect(withoutCitations("初值 0.15 秒；gsw:152–159、195–197。见 simulator.py:349–364")).toBe("初值 0.15 秒。见");
  });
  it("a narrower statement of ours is marked as ours", () => {
    const c = evaluateClaim({ id: "o", says: "我们的说法", ourStatement: true, judge: () => ({ holds: true, ours: "x" }) }, t, {});
    expect(c.ourStatement).toBe(true);
    expect(claimsMarkdown({ ...t, claims: [c] })).toContain("我们的说法（我们补充的说法，不是讲义的结论）");
  });
  it("only: just the named claims, in the table's order; an id the table lacks is a parameter error", () => {
    const a = evaluateClaim({ id: "a", says: "说甲", judge: () => ({ holds: true, ours: "x" }) }, t, {});
    const b = evaluateClaim({ id: "b", says: "说乙", judge: () => ({ holds: true, ours: "y" }) }, t, {});
    const c = evaluateClaim({ id: "c", says: "说丙", judge: () => ({ holds: false, ours: "z" }) }, t, {});
    const md = claimsMarkdown({ ...t, claims: [a, b, c] }, { only: ["c", "a"] });
    expect(md).toContain("说甲");
    expect(md).toContain("说丙");
    expect(md).not.toContain("说乙");
    expect(md.indexOf("说甲")).toBeLessThan(md.indexOf("说丙"));
    expect(claimsText({ ...t, claims: [a, b, c] }, { only: ["b"] })).not.toContain("说甲");
    expect(() => claimsMarkdown({ ...t, claims: [a] }, { only: ["nope"] })).toThrow(ParameterError);
  });
  it("needRow refuses an ambiguous selector", () => {
    const t2: Table = { ...t, rows: [{ policy: "jsq", mean: 1 }, { policy: "jsq", mean: 2 }] };
    const c = evaluateClaim({ id: "w", says: "说", judge: (tb) => ({ holds: Boolean(needRow(tb, { policy: "jsq" })), ours: "" }) }, t2, {});
    expect(c.reason).toContain("2 行");
  });
});
