// The grader's parts that do not run anything: which files are submissions of notebook 08, how a submission is
// prepared for its run (locked cells restored from the course's notebook, reference answers left out), how an
// executed submission is scored (the check() records and each cell's status), and the gradebook (CSV, Markdown).
import { HOMEWORK_NOTEBOOK, INSTRUCTOR_TAG, cellTags, exerciseLabel, nbgraderOf, sourceText } from "./editions.mjs";

/** The MIME type of check()'s machine-readable record (CHECK_MIME in lib/exercises/check.ts). */
export const CHECK_MIME = "application/vnd.lecture11.check+json";

/** The graded parts of the course's notebook, in its order: nbgrader grade cells (code = checked, markdown = open). */
export function referenceParts(refNb) {
  return refNb.cells
    .map((cell, index) => ({ cell, index, g: nbgraderOf(cell) }))
    .filter(({ g }) => g && g.grade && /^ex/.test(g.grade_id))
    .map(({ cell, index, g }) => ({
      gradeId: g.grade_id,
      label: exerciseLabel(g.grade_id),
      kind: cell.cell_type === "code" ? "checked" : "open",
      points: g.points,
      index,
      // an open part counts as answered once its "你的答案" cell differs from the course's
      placeholder: cell.cell_type === "code" ? undefined : sourceText(cell),
    }));
}

/** Whether a file is a notebook of this homework: { ok, nb } or { ok: false, reason } (the reason in Chinese). */
export function classifySubmission(name, text, refNb) {
  const ext = /\.[^./\\]+$/.exec(name)?.[0] ?? "";
  let nb;
  try {
    nb = JSON.parse(text);
  } catch {
    // (not the parser's own words: they differ between Node versions, and the gradebook should not)
    return { ok: false, reason: ext.toLowerCase() === ".ipynb" ? "不是完整的 Jupyter 笔记本（文件不是合法的 JSON：可能没保存完或被截断）" : `不是笔记本文件（${ext || "没有扩展名"}，内容也不是笔记本）` };
  }
  if (!nb || typeof nb !== "object" || !Array.isArray(nb.cells) || nb.nbformat !== 4) {
    return { ok: false, reason: "不是 Jupyter 笔记本（没有 nbformat 4 的 cells）" };
  }
  const tagged = nb.metadata?.lecture11?.notebook;
  if (tagged !== undefined && tagged !== HOMEWORK_NOTEBOOK) return { ok: false, reason: `是本课的另一本笔记本（${tagged}），不是练习 ${HOMEWORK_NOTEBOOK}` };
  if (tagged === undefined) {
    // Its metadata may have been dropped by an editor: then most of our graded cells must be there by grade_id.
    const wanted = new Set(referenceParts(refNb).map((p) => p.gradeId));
    const found = nb.cells.filter((c) => wanted.has(nbgraderOf(c)?.grade_id)).length;
    if (found < wanted.size / 2) return { ok: false, reason: `不是第 11 讲的练习笔记本（${HOMEWORK_NOTEBOOK}）：没有它的元数据，也没有它的评分单元格` };
  }
  return { ok: true, nb };
}

/** The submission as it is run: instructor cells dropped, outputs cleared, every locked cell (the import, the
 * check() cells) as the course wrote it — a missing one is put back after the cell before it — and each cell's
 * index in the file the student handed in kept in metadata.grader.sourceIndex (for the notes). */
export function prepareSubmission(nb, refNb) {
  const locked = new Map();
  refNb.cells.forEach((c, i) => {
    const g = nbgraderOf(c);
    if (g?.locked) locked.set(g.grade_id, { cell: c, previous: i > 0 ? nbgraderOf(refNb.cells[i - 1])?.grade_id : undefined });
  });
  const cells = [];
  const seen = new Set();
  nb.cells.forEach((c, sourceIndex) => {
    if (cellTags(c).includes(INSTRUCTOR_TAG)) return;
    const cell = structuredClone(c);
    cell.metadata = { ...(cell.metadata ?? {}), grader: { sourceIndex } };
    delete cell.metadata.runner;
    const id = nbgraderOf(c)?.grade_id;
    const ref = id !== undefined ? locked.get(id) : undefined;
    if (ref) {
      cell.cell_type = ref.cell.cell_type;
      cell.source = sourceText(ref.cell);
      seen.add(id);
    }
    if (cell.cell_type === "code") {
      cell.outputs = [];
      cell.execution_count = null;
    }
    cells.push(cell);
  });
  for (const [id, { cell, previous }] of locked) {
    if (seen.has(id)) continue;
    const at = previous === undefined ? 1 : cells.findIndex((c) => nbgraderOf(c)?.grade_id === previous);
    const restored = { ...structuredClone(cell), outputs: [], execution_count: null };
    restored.metadata = { ...restored.metadata, grader: { restored: true } };
    cells.splice(at < 0 ? cells.length : Math.min(at + (previous === undefined ? 0 : 1), cells.length), 0, restored);
  }
  return { ...nb, cells, metadata: { ...nb.metadata, kernelspec: refNb.metadata.kernelspec, language_info: refNb.metadata.language_info } };
}

function firstErrorLine(cell) {
  const parts = [];
  for (const out of cell.outputs ?? []) {
    if (out.output_type === "stream" && out.name === "stderr") parts.push(Array.isArray(out.text) ? out.text.join("") : out.text);
    else if (out.output_type === "error") parts.push(`${out.ename}: ${out.evalue}`);
  }
  // tslab writes a compile error as "1:17 - Cannot find name …", a runtime one as its stack: where, the source line,
  // a caret, then "TypeError: …" — the line a student needs.
  const lines = parts.join("\n").replace(/\x1b\[[0-9;]*[A-Za-z]/g, "").split("\n").map((s) => s.trim()).filter((s) => s !== "");
  const line = lines.find((s) => /^([A-Za-z]*Error|参数错误|ExerciseNotPassed)\b/.test(s)) ?? lines.find((s) => /^\d+:\d+ - /.test(s)) ?? lines[0];
  return line ? line.slice(0, 160) : "（没有错误信息）";
}

function describeCell(cell) {
  const id = nbgraderOf(cell)?.grade_id;
  if (id === "imports") return "导入单元格";
  if (id && /^ex.*_answer$/.test(id)) return `练习 ${exerciseLabel(id.replace(/_answer$/, ""))} 的答案单元格`;
  if (id && /^ex/.test(id)) return `练习 ${exerciseLabel(id)} 的检查单元格`;
  const i = cell.metadata?.grader?.sourceIndex;
  return i === undefined ? "一个单元格" : `第 ${i + 1} 个单元格`;
}

/** Why a run ended early, as { event, later } ("超时（单个单元格超过 8 秒）", "前面有单元格超时"), or null. */
function stopReason(stopped, timeoutSeconds) {
  if (!stopped) return null;
  if (/timed out/.test(stopped)) return { event: `超时（单个单元格超过 ${timeoutSeconds} 秒）`, later: "前面有单元格超时" };
  if (/kernel died/i.test(stopped)) return { event: "内核退出了", later: "内核在前面退出了" };
  if (/did not start/.test(stopped)) return { event: "内核没能启动", later: "内核没能启动" };
  return { event: "运行中断了", later: "运行在前面中断了" };
}

/** Scores one executed submission: a row per part ({ exercise, status, points, maxPoints, note }), the total, notes. */
export function scoreExecuted(executed, parts, { timeoutSeconds }) {
  const byId = new Map();
  for (const cell of executed.cells) {
    const id = nbgraderOf(cell)?.grade_id;
    if (id && !byId.has(id)) byId.set(id, cell);
  }
  const notes = [];
  const status = (cell) => cell?.metadata?.runner?.status ?? "not-run";
  const stoppedBy = stopReason(executed.metadata?.runner?.stopped ?? null, timeoutSeconds);
  if (stoppedBy) {
    const at = executed.cells.find((c) => c.cell_type === "code" && status(c) === "not-run" && sourceText(c).trim() !== "");
    notes.push(`${at ? `运行到${describeCell(at)}时` : ""}${stoppedBy.event}，之后的单元格没有运行；得分只算此前的检查`);
  }
  const errored = executed.cells.filter((c) => c.cell_type === "code" && status(c) === "error");
  for (const c of errored) if (!/^ex[^_]*$/.test(nbgraderOf(c)?.grade_id ?? "")) notes.push(`${describeCell(c)}出错：${firstErrorLine(c)}`);

  const rows = parts.map((part) => {
    const row = { exercise: part.label, kind: part.kind, status: "unanswered", points: 0, maxPoints: part.points, note: "" };
    const cell = byId.get(part.gradeId);
    if (part.kind === "open") {
      row.points = "";
      const text = cell ? sourceText(cell).trim() : "";
      const placeholder = part.placeholder ?? "";
      if (cell && text !== "" && text !== placeholder.trim()) {
        row.status = "to-grade";
        row.note = "文字题，待老师按评分标准给分";
      } else row.note = cell ? "「你的答案」还是原样" : "找不到「你的答案」单元格";
      return row;
    }
    if (!cell) {
      row.note = "找不到检查单元格";
      return row;
    }
    const s = status(cell);
    if (s === "ok") {
      const record = (cell.outputs ?? []).map((o) => o.data?.[CHECK_MIME]).find((r) => r && typeof r === "object");
      if (!record) row.note = "检查单元格没有给出结果";
      else {
        row.status = record.status === "correct" ? "correct" : record.status === "wrong" ? "wrong" : "unanswered";
        row.points = row.status === "correct" ? part.points : 0;
        row.note = String(record.message ?? "");
      }
    } else if (s === "error") {
      const answer = byId.get(`${part.gradeId}_answer`);
      row.status = "wrong";
      row.note = answer && status(answer) === "error" ? `答案单元格出错：${firstErrorLine(answer)}` : `检查单元格出错：${firstErrorLine(cell)}`;
    } else row.note = stoppedBy ? `没有运行（${stoppedBy.later}）` : "没有运行";
    return row;
  });
  const checked = rows.filter((r) => r.kind === "checked");
  const total = checked.reduce((a, r) => a + (typeof r.points === "number" ? r.points : 0), 0);
  const max = checked.reduce((a, r) => a + r.maxPoints, 0);
  return { rows, total, max, notes };
}

const csvField = (v) => {
  const s = v === undefined || v === null ? "" : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** gradebook.csv: one row per (file, part), a `total` row per file, a `skipped` row per file that is not graded. */
export function gradebookCsv(graded, skipped) {
  const lines = [["file", "exercise", "status", "points", "max_points", "note"].join(",")];
  for (const g of graded) {
    for (const r of g.rows) lines.push([g.file, r.exercise, r.status, r.points, r.maxPoints, r.note].map(csvField).join(","));
    lines.push([g.file, "total", "", g.total, g.max, g.notes.join("；")].map(csvField).join(","));
  }
  for (const s of skipped) lines.push([s.file, "", "skipped", "", "", s.reason].map(csvField).join(","));
  return lines.join("\n") + "\n";
}

const MARK = { correct: "✓", wrong: "✗", unanswered: "○", "to-grade": "✎" };
const mdCell = (s) => String(s).replace(/\|/g, "\\|").replace(/\n/g, " ");

/** gradebook.md: one line per student file (each part's mark and points, the total, notes), per-part counts, the
 * files skipped and why. */
export function gradebookMarkdown(graded, skipped, parts) {
  const autoMax = parts.filter((p) => p.kind === "checked").reduce((a, p) => a + p.points, 0);
  const openMax = parts.filter((p) => p.kind === "open").reduce((a, p) => a + p.points, 0);
  const out = [
    "# 第 11 讲 · 练习成绩汇总",
    "",
    `自动评分的小题共 ${autoMax} 分；文字题 ${parts.filter((p) => p.kind === "open").map((p) => p.label).join("、")} 共 ${openMax} 分，由老师按评分标准给分（gradebook.csv 里标为 to-grade）。`,
    "",
    "✓ 正确 · ✗ 不对 · ○ 未作答 · ✎ 文字题已作答、待评分；格子里的数是这题得的分。",
    "",
    `| 学生文件 | ${parts.map((p) => `${p.label}（${p.points}）`).join(" | ")} | 自动得分 | 备注 |`,
    `|---|${parts.map(() => ":-:").join("|")}|--:|---|`,
  ];
  for (const g of graded) {
    const marks = g.rows.map((r) => `${MARK[r.status]}${r.kind === "checked" ? ` ${r.points}` : ""}`);
    out.push(`| ${mdCell(g.file)} | ${marks.join(" | ")} | ${g.total} / ${g.max} | ${mdCell(g.notes.join("；"))} |`);
  }
  if (graded.length > 0) {
    const count = (i, s) => graded.filter((g) => g.rows[i].status === s).length;
    out.push(`| **做对 / 作答人数** | ${parts.map((p, i) => (p.kind === "checked" ? `${count(i, "correct")} / ${graded.length - count(i, "unanswered")}` : `${count(i, "to-grade")}`)).join(" | ")} | | |`);
  }
  out.push("");
  if (skipped.length > 0) {
    out.push("## 跳过的文件", "");
    for (const s of skipped) out.push(`- ${mdCell(s.file)}：${mdCell(s.reason)}`);
    out.push("");
  }
  return out.join("\n");
}
