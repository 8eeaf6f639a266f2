// The written answers' round trip (`npm run grade -- … --written DIR`, then `--merge scores.csv`):
// - one HTML page per written part: the question and the rubric (from the instructor cells: an instructor markdown
//   cell, or the library's rubric that a `rubric("…")` cell shows) beside every student's answer rendered from its
//   Markdown (escaped, offline: no script, no network), plus index.html and a scores.csv template
//   (file, part, points, comment);
// - the merge: the instructor's points and comments folded into the gradebook's rows, refusing a file or a part the
//   gradebook does not have, a part that is not written, and points outside 0 … the part's maximum (one Chinese line
//   each, naming the file and the part).
import * as fs from "node:fs";
import { createRequire } from "node:module";
import * as path from "node:path";
import { INSTRUCTOR_TAG, cellTags, nbgraderOf, sourceText } from "./editions.mjs";
import { parseCsv } from "./grade-lib.mjs";
import { escapeHtml, renderMarkdown } from "./markdown-lite.mjs";
import { ROOT } from "./project.mjs";

/** The library's rubric of exercise `id` as Markdown (the compiled library: what rubric("…") shows). */
function libraryRubric(id) {
  const require = createRequire(import.meta.url);
  const lib = require(path.join(ROOT, "build", "lib", "exercises", "index.js"));
  const r = lib.rubricOf(lib.getExercise(id));
  return r.items.map((x) => `- （${x.points} 分）${x.text}`).join("\n");
}

/** The written parts of the instructor's notebook, each with its question (the markdown cells just before its
 * answer cell, back to the previous part) and its rubric (the instructor cells after it, up to the next part). */
export function writtenParts(refNb, parts) {
  const cells = refNb.cells;
  const isPartCell = (c) => nbgraderOf(c)?.grade || nbgraderOf(c)?.solution;
  return parts
    .filter((p) => p.kind === "open")
    .map((p) => {
      const question = [];
      for (let i = p.index - 1; i >= 0 && !isPartCell(cells[i]); i--) {
        if (cells[i].cell_type === "markdown" && !cellTags(cells[i]).includes(INSTRUCTOR_TAG)) question.unshift(sourceText(cells[i]));
        if (/^## /.test(sourceText(cells[i]))) break;
      }
      const rubric = [];
      for (let i = p.index + 1; i < cells.length && !isPartCell(cells[i]); i++) {
        if (!cellTags(cells[i]).includes(INSTRUCTOR_TAG)) continue;
        if (cells[i].cell_type === "markdown") rubric.push(sourceText(cells[i]));
        else for (const m of sourceText(cells[i]).matchAll(/rubric\("([0-9a-z]+)"\)/g)) rubric.push(libraryRubric(m[1]));
      }
      return { ...p, question: question.join("\n\n"), rubric: rubric.join("\n\n") };
    });
}

/** The file name of a part's page: "ex2b" → "2b.html", "ex1b_why" → "1b-why.html". */
export const pageName = (gradeId) => `${gradeId.replace(/^ex/, "").replace(/_/g, "-")}.html`;

const STYLE = `body{font-family:"Noto Sans SC","Noto Sans CJK SC","Microsoft YaHei","PingFang SC",sans-serif;margin:0;color:#1f2328;line-height:1.6}
header{padding:12px 24px;border-bottom:1px solid #d0d7de;background:#f6f8fa}
main{display:grid;grid-template-columns:minmax(0,1fr) 26rem;gap:24px;padding:16px 24px}
aside{position:sticky;top:12px;align-self:start;max-height:calc(100vh - 24px);overflow:auto;border:1px solid #d0d7de;border-radius:6px;padding:8px 16px;background:#fffbea}
article{border:1px solid #d0d7de;border-radius:6px;padding:8px 16px;margin-bottom:16px}
article h2{font-size:1rem;margin:4px 0}.status{color:#57606a;font-weight:normal}.empty{color:#8c959f}
pre{background:#f6f8fa;padding:8px;overflow:auto}code{background:#f6f8fa}blockquote{border-left:3px solid #d0d7de;margin:0;padding-left:8px;color:#57606a}
@media (max-width:900px){main{grid-template-columns:1fr}aside{position:static;max-height:none}}`;

const page = (title, body) =>
  `<!DOCTYPE html>\n<html lang="zh-CN"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:">` +
  `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>\n`;

/** One written part's page: every submission's answer (or that it is unanswered) beside the rubric. */
function partPage(part, answers) {
  const articles = answers
    .map(({ file, row, text }) => {
      const answered = row?.status === "to-grade" || row?.status === "graded";
      const body = answered ? renderMarkdown(text) : `<p class="empty">（${escapeHtml(row?.note || "没有作答")}）</p>`;
      return `<article id="${escapeHtml(file)}"><h2>${escapeHtml(file)} <span class="status">· ${answered ? "已作答" : "未作答"}</span></h2>${body}</article>`;
    })
    .join("\n");
  return page(
    `练习 ${part.label} · 文字题批改`,
    `<header><h1>练习 ${escapeHtml(part.label)}（${part.points} 分）· 文字题批改</h1>${renderMarkdown(part.question)}` +
      `<p>把分数和评语填进同一文件夹的 <code>scores.csv</code>（file, part, points, comment），再运行 <code>npm run grade -- --merge scores.csv</code>。</p></header>` +
      `<main><section>${articles || '<p class="empty">没有学生文件。</p>'}</section>` +
      `<aside><h2>评分标准（共 ${part.points} 分）</h2>${renderMarkdown(part.rubric || "（教师单元格里没有这题的评分标准）")}</aside></main>`,
  );
}

/** Writes DIR/<part>.html for every written part, DIR/index.html and DIR/scores.csv; returns the files written.
 * `submissions`: [{ file, nb (as handed in), rows (the gradebook rows) }]. */
export function writeWrittenPages(dir, written, submissions) {
  fs.mkdirSync(dir, { recursive: true });
  const files = [];
  for (const part of written) {
    const answers = submissions.map(({ file, nb, rows }) => {
      const cell = nb.cells.find((c) => nbgraderOf(c)?.grade_id === part.gradeId);
      return { file, row: rows.find((r) => r.gradeId === part.gradeId), text: cell ? sourceText(cell) : "" };
    });
    fs.writeFileSync(path.join(dir, pageName(part.gradeId)), partPage(part, answers));
    files.push(pageName(part.gradeId));
  }
  const links = written.map((p) => `<li><a href="${escapeHtml(pageName(p.gradeId))}">练习 ${escapeHtml(p.label)}</a>（${p.points} 分）</li>`).join("");
  fs.writeFileSync(path.join(dir, "index.html"), page("文字题批改", `<header><h1>文字题批改</h1><p>${submissions.length} 份作业。每页是一道文字题：左边是每个学生的答案，右边是评分标准。</p></header><main><section><ul>${links}</ul></section></main>`));
  fs.writeFileSync(path.join(dir, "scores.csv"), scoresTemplate(written, submissions));
  return [...files, "index.html", "scores.csv"];
}

const csvField = (v) => {
  const s = v === undefined || v === null ? "" : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** scores.csv: a row per (file, written part); points empty to fill in (0 already for an unanswered part). */
export function scoresTemplate(written, submissions) {
  const lines = ["file,part,points,comment"];
  for (const { file, rows } of submissions) {
    for (const part of written) {
      const row = rows.find((r) => r.gradeId === part.gradeId);
      const unanswered = row?.status === "unanswered";
      lines.push([file, part.label, unanswered ? 0 : "", unanswered ? "没有作答" : ""].map(csvField).join(","));
    }
  }
  return lines.join("\n") + "\n";
}

/** A refused merge: every problem as one Chinese line. */
export class MergeError extends Error {
  constructor(lines) {
    super(lines.join("\n"));
    this.lines = lines;
  }
}

/** Folds scores.csv into the gradebook (graded as readGradebookCsv returns it) in place: each row with points sets
 * that written part to `graded` with the points and the comment. Throws a MergeError listing every refused row. */
export function mergeScores(graded, scoresText, parts, scoresName = "scores.csv") {
  const [header, ...rows] = parseCsv(scoresText);
  const cols = (header ?? []).map((h) => h.trim().toLowerCase());
  const at = (name) => cols.indexOf(name);
  if (at("file") < 0 || at("part") < 0 || at("points") < 0) throw new MergeError([`${scoresName} 的表头要有 file, part, points（和可选的 comment）`]);
  const byFile = new Map(graded.map((g) => [g.file, g]));
  const byLabel = new Map(parts.flatMap((p) => [[p.label, p], [p.gradeId, p], [p.gradeId.replace(/^ex/, ""), p]]));
  const problems = [];
  const updates = [];
  rows.forEach((r, i) => {
    const line = i + 2;
    const file = (r[at("file")] ?? "").trim();
    const label = (r[at("part")] ?? "").trim();
    const pointsText = (r[at("points")] ?? "").trim();
    const comment = at("comment") >= 0 ? (r[at("comment")] ?? "").trim() : "";
    const where = `${scoresName} 第 ${line} 行`;
    if (pointsText === "") return; // not graded yet
    const g = byFile.get(file);
    if (!g) return problems.push(`${where}：成绩表里没有学生文件 ${file || "（空）"}（${label}）`);
    const part = byLabel.get(label);
    if (!part) return problems.push(`${where}：${file} 的「${label || "（空）"}」不是这份作业的题号`);
    if (part.kind !== "open") return problems.push(`${where}：${file} 的 ${part.label} 是自动评分的题，不能手工给分`);
    const points = Number(pointsText);
    if (!Number.isFinite(points)) return problems.push(`${where}：${file} 的 ${part.label} 的分数「${pointsText}」不是数`);
    if (points < 0) return problems.push(`${where}：${file} 的 ${part.label} 给了 ${pointsText} 分，分数不能是负的`);
    if (points > part.points) return problems.push(`${where}：${file} 的 ${part.label} 给了 ${pointsText} 分，超过这题的满分 ${part.points} 分`);
    updates.push({ g, part, points, comment });
  });
  if (problems.length > 0) throw new MergeError(problems);
  for (const { g, part, points, comment } of updates) {
    const row = g.rows.find((x) => x.exercise === part.label);
    if (!row) continue;
    row.status = "graded";
    row.points = points;
    row.note = comment ? `老师评语：${comment}` : "老师已给分";
  }
  return { merged: updates.length };
}
