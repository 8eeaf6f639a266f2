// Verdict and status marks are drawn by the page (a word in a coloured CSS badge), never by an emoji or dingbat font:
// without an emoji font U+2705, U+274C and U+26AA are empty boxes, and the handouts ship a Chinese font only. The sources of lib/view
// and lib/exercises hold no such mark, and what they render (markdown, HTML, text) holds none either.
import * as fs from "fs";
import * as path from "path";
import { describe, expect, it } from "vitest";
import type { ClaimResult, Table, Verdict } from "../lib/core/table";
import { claimsMarkdown, claimsText, verdictBadge, verdictText } from "../lib/view/claims";
import { readingsTable } from "../lib/view/readings";
import { badgeHtml as checkBadgeHtml, badgeText, progressHtml } from "../lib/exercises/render";
import { listExercises } from "../lib/exercises";
import type { CheckResult } from "../lib/exercises/evaluate";

const ROOT = path.join(__dirname, "..");
/** Pictographs (emoji, whether or not they default to emoji presentation) and the dingbat marks a font must draw. */
const MARK = /[\p{Extended_Pictographic}\u2713\u2714\u2717\u2718\u25cb\u25cf\u26aa\u26ab\u270e\ufe0f]/u;
/** ©, ® and ™ are Extended_Pictographic too, but every text font has them. */
const markIn = (text: string): string[] => [...text].filter((ch) => MARK.test(ch) && !"©®™".includes(ch)).map((ch) => `U+${(ch.codePointAt(0) as number).toString(16).toUpperCase()}`);

function sourcesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourcesUnder(p) : /\.(ts|mjs|cjs|j2|css|html)$/.test(e.name) ? [p] : [];
  });
}

const verdicts: Verdict[] = ["holds", "fails", "unjudged"];
const claim = (verdict: Verdict, readings?: ClaimResult["readings"]): ClaimResult => ({ id: `c-${verdict}`, says: "说", ours: "1", verdict, readings }) as ClaimResult;
const table: Table = {
  id: "99.1",
  title: "t",
  columns: [],
  rows: [],
  claims: [
    ...verdicts.map((v) => claim(v)),
    claim("holds", [
      { reading: "讲义的读法", verdict: "holds", ours: "a" },
      { reading: "发布的代码", verdict: "fails", ours: "b" },
    ] as ClaimResult["readings"]),
  ],
};

describe("verdict marks are words the page draws, not emoji", () => {
  it("no source file of lib/view, lib/exercises or the handout template holds an emoji or dingbat mark", () => {
    const files = [...sourcesUnder(path.join(ROOT, "lib", "view")), ...sourcesUnder(path.join(ROOT, "lib", "exercises")), ...sourcesUnder(path.join(ROOT, "scripts", "handout-template"))];
    expect(files.length).toBeGreaterThan(5);
    const found = files.flatMap((f) => fs.readFileSync(f, "utf8").split("\n").flatMap((line, i) => markIn(line).map((code) => `${path.relative(ROOT, f)}:${i + 1} ${code}`)));
    expect(found).toEqual([]);
  });

  it("each verdict is its word, in a coloured badge in HTML and markdown, plain in text", () => {
    expect(verdicts.map(verdictText)).toEqual(["成立", "不成立", "无法判断"]);
    for (const v of verdicts) {
      const badge = verdictBadge(v);
      expect(badge).toMatch(new RegExp(`^<span class="l11-badge l11-verdict l11-verdict-${v}" style="[^"]*(background|border):[^"]*">${verdictText(v)}</span>$`));
      expect(markIn(badge)).toEqual([]);
    }
    // the three badges differ in colour
    expect(new Set(verdicts.map((v) => /style="([^"]*)"/.exec(verdictBadge(v))?.[1])).size).toBe(3);
  });

  it("claims as markdown (notebook, handout, report()) carry badges; as text (CLI) plain words; neither an emoji", () => {
    const markdown = claimsMarkdown(table, { besideTable: true });
    expect(markdown.match(/class="l11-badge l11-verdict/g)?.length).toBe(6); // 4 claims + 2 readings
    expect(markdown).toContain("发布的代码：<span");
    const text = claimsText(table);
    expect(text).not.toContain("<");
    expect(text).toMatch(/^ {2}无法判断　\[c-unjudged\]/m);
    expect(text).toContain("发布的代码：不成立");
    const readings = readingsTable([table]);
    expect(readings.rows[0].second).toBe("不成立（发布的代码）");
    expect([markdown, text, JSON.stringify(readings.rows)].flatMap(markIn)).toEqual([]);
  });

  it("exercise checks and the progress table show 正确 / 还不对 / 尚未作答 badges, no dingbat marks", () => {
    const exercises = listExercises();
    const results: CheckResult[] = (["correct", "wrong", "unanswered"] as const).map((status) => ({ id: "1a", label: "1(a)", status, points: 0, maxPoints: 2, message: "m" }) as unknown as CheckResult);
    const html = results.map(checkBadgeHtml).join("");
    expect(html).toContain(">正确</span>");
    expect(html).toContain(">还不对</span>");
    expect(html).toContain(">尚未作答</span>");
    const progress = progressHtml(exercises.map((exercise) => ({ exercise })));
    expect(progress.html).toContain(">文字题</span>");
    expect([html, ...results.map(badgeText), progress.html, progress.text].flatMap(markIn)).toEqual([]);
  });
});
