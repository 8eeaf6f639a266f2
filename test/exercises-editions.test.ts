// The two editions of notebook 08's handout, executed: the student edition contains none of the reference answers
// (the HTML is searched for each reference value's rendered text) nor the rubrics; the instructor edition contains
// all of them, each folded in a <details> element.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boldSpans, exerciseLabel, listExercises } from "../lib/exercises";
import { NOTEBOOKS_DIR, ROOT, ensureKernelSpec, runProcess, type ProcessResult } from "./support/processes";

const NOTEBOOK = path.join(NOTEBOOKS_DIR, "08-exercises.ipynb");
let tmp = "";
const runs: Record<string, ProcessResult> = {};
const html: Record<string, string> = {};

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;");
/** What a reader sees: tags dropped, entities decoded, whitespace collapsed. */
const visible = (h: string) =>
  h
    .replace(/In&nbsp;\[\d*\]:/g, " ") // the prompts' numbers are not content
    .replace(/<script[\s\S]*?<\/script>/g, " ")
    .replace(/<style[\s\S]*?<\/style>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

beforeAll(async () => {
  await ensureKernelSpec();
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-editions-"));
  for (const edition of ["student", "instructor"]) {
    const out = path.join(tmp, edition);
    runs[edition] = await runProcess(process.execPath, [path.join(ROOT, "scripts", "handouts.mjs"), "--edition", edition, "--out", out, NOTEBOOK]);
    const file = path.join(out, "08-exercises.html");
    html[edition] = fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "";
  }
}, 10 * 60_000);

afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

// The source text a student edition shows anyway (questions, prose, code — as released: no instructor cell, no
// hidden test, no reference code): a reference value that appears there (say "10" or "C+C", named in a question)
// cannot be searched for as a leak; every other one can.
let studentSource = "";
beforeAll(async () => {
  const { studentEdition } = (await import(path.join(ROOT, "scripts", "editions.mjs"))) as { studentEdition: (nb: unknown, name: string) => { cells: Array<{ source: string | string[] }> } };
  studentSource = studentEdition(JSON.parse(fs.readFileSync(NOTEBOOK, "utf8")), "08-exercises")
    .cells.map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source))
    .join("\n");
});

/** Whether `value` occurs in `text` as a value, not as a part of another number ("60" is not in "A6000" or "0.60"). */
function containsValue(text: string, value: string): boolean {
  const escaped = value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(?<![\\d.,])${escaped}(?![\\d]|[.,]\\d)`).test(text);
}

/** Reference values (and rubric lines) a reader can see in the page, other than those the questions state. */
function leaksIn(page: string): string[] {
  const seen = visible(page);
  const leaks: string[] = [];
  for (const e of listExercises()) {
    for (const value of boldSpans(e.explanation())) {
      if (containsValue(studentSource, value)) continue;
      if (containsValue(seen, value)) leaks.push(`${exerciseLabel(e.id)}: ${value}`);
    }
    for (const r of e.rubric ?? []) if (seen.includes(r.text.slice(0, 16))) leaks.push(`${exerciseLabel(e.id)} rubric: ${r.text.slice(0, 16)}`);
  }
  return leaks;
}

describe("handout editions of notebook 08", () => {
  it("both export", () => {
    for (const edition of ["student", "instructor"]) {
      expect(runs[edition].code, runs[edition].output).toBe(0);
      expect(html[edition].length).toBeGreaterThan(1000);
      const index = fs.readFileSync(path.join(tmp, edition, "index.html"), "utf8");
      expect(index).toContain(edition === "student" ? "学生版" : "教师版");
    }
  });

  it("the student edition contains no reference answer, no rubric, no reveal or rubric cell", () => {
    const h = html.student;
    expect(h).not.toMatch(/l11-reveal|l11-rubric|l11-answer|参考答案（点开查看）|评分标准（共/);
    expect(h).not.toMatch(/reveal\(|rubric\(/);
    expect(leaksIn(h)).toEqual([]);
    // not searched: the values the questions name themselves (small numbers, "C+C", "利用"); the same search finds
    // every other one in the instructor edition
    const values = listExercises().flatMap((e) => boldSpans(e.explanation()));
    const unsearched = [...new Set(values.filter((v) => containsValue(studentSource, v)))].sort();
    expect(unsearched).toEqual(["1,987", "10", "2", "4", "55", "6", "8", "C+C", "副本 2", "利用"].sort());
    const rubricLines = listExercises().reduce((a, e) => a + (e.rubric?.length ?? 0), 0);
    expect(leaksIn(html.instructor).length).toBe(values.filter((v) => !containsValue(studentSource, v)).length + rubricLines);
    // its In [n] prompts run on without gaps where the instructor cells were
    const prompts = [...h.matchAll(/In&nbsp;\[(\d+)\]:/g)].map((m) => Number(m[1]));
    expect(prompts).toEqual(prompts.map((_, i) => i + 1));
  });

  it("the instructor edition contains every reference value and rubric, each folded in <details>", () => {
    const h = html.instructor;
    const folds = [...h.matchAll(/<details class="l11-(reveal|rubric)"[\s\S]*?<\/details>/g)].map((m) => m[0]);
    for (const e of listExercises()) {
      const label = escapeHtml(exerciseLabel(e.id));
      const reveal = folds.find((f) => f.includes(`练习 ${label} 参考答案`));
      expect(reveal, e.id).toBeDefined();
      for (const value of boldSpans(e.explanation())) expect(reveal, `${e.id}: ${value}`).toContain(`<b class="l11-answer">${escapeHtml(value)}</b>`);
      expect(reveal!).not.toContain("**");
      if (!e.reference) {
        const rubric = folds.find((f) => f.includes(`练习 ${label} 评分标准`));
        expect(rubric, e.id).toBeDefined();
        for (const r of e.rubric ?? []) expect(rubric, e.id).toContain(escapeHtml(r.text));
      }
    }
    expect(h).toContain("<b>练习 4(c) 参考答案</b>");
  });
});
