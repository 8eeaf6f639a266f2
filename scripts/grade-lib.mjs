// The grader's parts that do not run anything: which files are submissions of notebook 08, how a submission is
// prepared for its run (locked cells restored from the course's notebook — the instructor copy, hidden tests
// included — reference answers left out, every cell labelled with its part and the set-up cells marked), which
// locked cells a student changed (nbgrader checksums), how an executed submission is scored (the check() and test
// records and each cell's status), and the gradebook (CSV, Markdown; read back for a merge of hand scores).
import { HOMEWORK_NOTEBOOK, INSTRUCTOR_TAG, cellTags, exerciseLabel, nbgraderOf, sourceText, studentEdition } from "./editions.mjs";
import { isLockedCell, nbgraderChecksum } from "./nbgrader-checksum.mjs";

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
  const homework = refNb.metadata?.lecture11?.notebook ?? HOMEWORK_NOTEBOOK;
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
  if (tagged !== undefined && tagged !== homework) return { ok: false, reason: `是本课的另一本笔记本（${tagged}），不是练习 ${homework}` };
  if (tagged === undefined) {
    // Its metadata may have been dropped by an editor: then most of our graded cells must be there by grade_id.
    const wanted = new Set(referenceParts(refNb).map((p) => p.gradeId));
    const found = nb.cells.filter((c) => wanted.has(nbgraderOf(c)?.grade_id)).length;
    if (found < wanted.size / 2) return { ok: false, reason: `不是第 11 讲的练习笔记本（${homework}）：没有它的元数据，也没有它的评分单元格` };
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
  labelParts(cells);
  return { ...nb, cells, metadata: { ...nb.metadata, kernelspec: refNb.metadata.kernelspec, language_info: refNb.metadata.language_info } };
}

/** Marks each cell for the runner's --isolate-parts (in place): grader.setup on the locked cells that are not
 * graded (the import cell), grader.part on every other cell = the grade_id of the next grade cell at or after it
 * (an answer cell and its check cell are one part; a cell after the last part belongs to none). */
export function labelParts(cells) {
  let part = null;
  for (let i = cells.length - 1; i >= 0; i--) {
    const g = nbgraderOf(cells[i]);
    if (g?.grade) part = g.grade_id;
    const grader = { ...(cells[i].metadata?.grader ?? {}) };
    if (g?.locked && !g.grade && !g.solution) grader.setup = true;
    else if (part !== null) grader.part = part;
    cells[i].metadata = { ...(cells[i].metadata ?? {}), grader };
  }
  return cells;
}

/** How the grader names a locked cell in notes: 导入单元格, 练习 4(c) 的检查单元格, 单元格 imports2. */
function lockedCellName(gradeId) {
  if (gradeId === "imports") return "导入单元格";
  if (/^ex/.test(gradeId)) return `练习 ${exerciseLabel(gradeId)} 的检查单元格`;
  return `锁定单元格 ${gradeId}`;
}

/** The locked cells (nbgrader's is_locked: grade cells that are not answers, and locked cells) a submission changed
 * or deleted, judged by nbgrader's checksum: the submitted cell must checksum as in the release (hidden tests
 * removed) or as in the instructor's copy. Returns [{ gradeId, name, how: "changed" | "missing" }]. */
export function tamperedCells(nb, refNb) {
  const released = studentEdition(refNb, refNb.metadata?.lecture11?.notebook ?? HOMEWORK_NOTEBOOK);
  const instructor = new Map(refNb.cells.filter((c) => nbgraderOf(c)?.grade_id).map((c) => [nbgraderOf(c).grade_id, c]));
  const submitted = new Map();
  for (const c of nb.cells) {
    const id = nbgraderOf(c)?.grade_id;
    if (typeof id === "string" && !submitted.has(id)) submitted.set(id, c);
  }
  const out = [];
  for (const ref of released.cells.filter(isLockedCell)) {
    const id = nbgraderOf(ref).grade_id;
    const cell = submitted.get(id);
    if (!cell) {
      out.push({ gradeId: id, name: lockedCellName(id), how: "missing" });
      continue;
    }
    const allowed = new Set([nbgraderChecksum(ref), nbgraderChecksum(instructor.get(id) ?? ref)]);
    let sum = "";
    try {
      sum = nbgraderChecksum({ ...cell, metadata: { ...cell.metadata, nbgrader: { ...nbgraderOf(cell) } } });
    } catch {
      sum = "";
    }
    if (!allowed.has(sum)) out.push({ gradeId: id, name: lockedCellName(id), how: "changed" });
  }
  return out;
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
  const part = cell.metadata?.grader?.part;
  const i = cell.metadata?.grader?.sourceIndex;
  const where = i === undefined ? "一个单元格" : `第 ${i + 1} 个单元格`;
  return part ? `练习 ${exerciseLabel(part)} 里的${where}` : where;
}

/** Why a run ended early, as { event, later } ("超时（单个单元格超过 8 秒）", "前面有单元格超时"), or null. */
function stopReason(stopped, timeoutSeconds) {
  if (!stopped) return null;
  if (/timed out/.test(stopped)) return { event: `超时（单个单元格超过 ${timeoutSeconds} 秒）`, later: "前面有单元格超时" };
  if (/kernel died/i.test(stopped)) return { event: "内核退出了", later: "内核在前面退出了" };
  if (/did not start/.test(stopped)) return { event: "内核没能启动", later: "内核没能启动" };
  return { event: "运行中断了", later: "运行在前面中断了" };
}

const statusOf = (cell) => cell?.metadata?.runner?.status ?? "not-run";
const isCode = (cell) => cell.cell_type === "code" && sourceText(cell).trim() !== "";

/** A restart of the kernel (runner --isolate-parts) as one note: what happened where, and that grading went on. */
function restartNote(restart, cells, timeoutSeconds) {
  const cell = cells[restart.cell];
  const where = cell ? describeCell(cell) : `第 ${restart.cell + 1} 个单元格`;
  const what = restart.event === "timeout" ? `超过 ${timeoutSeconds} 秒没有结束` : "让内核退出了";
  const setup = restart.setupOk === false ? "（重跑导入单元格时出错，后面的题可能受影响）" : "";
  return `${where}${what}：换了新内核、重跑了导入单元格${setup}，后面的题照常评分`;
}

/** The row of a checked part (check() or test cell) from its cells' statuses and the record its grade cell wrote. */
function checkedRow(part, cells, stoppedBy, timeoutSeconds) {
  const row = { exercise: part.label, gradeId: part.gradeId, kind: part.kind, status: "not-run", points: 0, maxPoints: part.points, tampered: false, note: "" };
  const own = cells.filter((c) => isCode(c) && c.metadata?.grader?.part === part.gradeId);
  const gradeCell = own.find((c) => nbgraderOf(c)?.grade_id === part.gradeId);
  const failed = own.find((c) => ["timeout", "kernel-died"].includes(statusOf(c)));
  if (failed) {
    const timedOut = statusOf(failed) === "timeout";
    row.status = timedOut ? "timeout" : "error";
    row.note = timedOut
      ? `${describeCell(failed)}超过 ${timeoutSeconds} 秒没有结束（可能是死循环）；这题不得分，后面的题照常评分`
      : `${describeCell(failed)}让内核退出了；这题不得分，后面的题照常评分`;
    return row;
  }
  if (gradeCell && statusOf(gradeCell) === "ok") {
    const record = (gradeCell.outputs ?? []).map((o) => o.data?.[CHECK_MIME]).find((r) => r && typeof r === "object");
    if (!record) {
      row.status = "error";
      row.note = "检查单元格没有给出结果";
      return row;
    }
    row.status = ["correct", "wrong", "unanswered"].includes(record.status) ? record.status : "wrong";
    if (record.kind === "tests" && record.timedOut === true) row.status = "timeout"; // a test hit runTests' time limit
    row.points = record.kind === "tests" ? Math.min(Number(record.points) || 0, part.points) : row.status === "correct" ? part.points : 0;
    row.note = [String(record.message ?? ""), row.status !== "unanswered" && record.tolerance ? `（${record.tolerance}）` : ""].join("");
    return row;
  }
  const erroredAnswer = own.find((c) => c !== gradeCell && statusOf(c) === "error");
  if (erroredAnswer) {
    row.status = "error";
    row.note = `${nbgraderOf(erroredAnswer)?.grade_id?.endsWith("_answer") ? "答案单元格" : describeCell(erroredAnswer)}出错：${firstErrorLine(erroredAnswer)}`;
  } else if (gradeCell && statusOf(gradeCell) === "error") {
    row.status = "error";
    row.note = `检查单元格出错：${firstErrorLine(gradeCell)}`;
  } else if (!gradeCell) row.note = "找不到检查单元格";
  else if (statusOf(gradeCell) === "skipped") row.note = "没有运行（这题前面的单元格失败了）";
  else if (statusOf(gradeCell) === "aborted") row.note = "没有运行（内核取消了这个单元格）";
  else row.note = stoppedBy ? `没有运行（${stoppedBy.later}）` : "没有运行";
  return row;
}

/** The row of a part answered in words: to-grade once its "你的答案" cell differs from the course's. */
function writtenRow(part, byId) {
  const row = { exercise: part.label, gradeId: part.gradeId, kind: part.kind, status: "unanswered", points: "", maxPoints: part.points, tampered: false, note: "" };
  const cell = byId.get(part.gradeId);
  const text = cell ? sourceText(cell).trim() : "";
  if (cell && text !== "" && text !== (part.placeholder ?? "").trim()) {
    row.status = "to-grade";
    row.note = "文字题，待老师按评分标准给分";
  } else row.note = cell ? "「你的答案」还是原样" : "找不到「你的答案」单元格";
  return row;
}

/** Scores one executed submission: a row per part ({ exercise, status, points, maxPoints, tampered, note }), the
 * notes (restarts, errors outside a part, an early stop, changed locked cells). `tampered` lists the locked cells
 * the student changed (tamperedCells); they were run as the course wrote them. */
export function scoreExecuted(executed, parts, { timeoutSeconds, tampered = [] }) {
  const byId = new Map();
  for (const cell of executed.cells) {
    const id = nbgraderOf(cell)?.grade_id;
    if (id && !byId.has(id)) byId.set(id, cell);
  }
  const notes = [];
  const runner = executed.metadata?.runner ?? {};
  const stoppedBy = stopReason(runner.stopped ?? null, timeoutSeconds);
  for (const r of runner.restarts ?? []) notes.push(restartNote(r, executed.cells, timeoutSeconds));
  if (stoppedBy) {
    const at = executed.cells.find((c) => isCode(c) && statusOf(c) === "not-run");
    notes.push(`${at ? `运行到${describeCell(at)}时` : ""}${stoppedBy.event}，之后的单元格没有运行；得分只算此前的检查`);
  }
  for (const c of executed.cells.filter((x) => isCode(x) && statusOf(x) === "error")) {
    if (!c.metadata?.grader?.part) notes.push(`${describeCell(c)}出错：${firstErrorLine(c)}`);
  }
  if (tampered.length > 0) notes.push(`改动过的锁定单元格：${tampered.map((t) => `${t.name}${t.how === "missing" ? "（删掉了）" : ""}`).join("、")}；已按课程的原版运行和评分`);
  const changed = new Set(tampered.map((t) => t.gradeId));
  const rows = parts.map((part) => {
    const row = part.kind === "open" ? writtenRow(part, byId) : checkedRow(part, executed.cells, stoppedBy, timeoutSeconds);
    row.tampered = changed.has(part.gradeId);
    return row;
  });
  return { rows, notes, tampered: tampered.length > 0 };
}

/** Points earned and possible: auto-graded parts, hand-graded (written) parts, all. */
export function totalsOf(rows) {
  const num = (v) => (typeof v === "number" ? v : v === "" || v === undefined ? 0 : Number(v) || 0);
  const auto = rows.filter((r) => r.kind !== "open");
  const written = rows.filter((r) => r.kind === "open");
  const autoPoints = auto.reduce((a, r) => a + num(r.points), 0);
  const handPoints = written.reduce((a, r) => a + (r.status === "graded" ? num(r.points) : 0), 0);
  const autoMax = auto.reduce((a, r) => a + num(r.maxPoints), 0);
  const handMax = written.reduce((a, r) => a + num(r.maxPoints), 0);
  return { autoPoints, autoMax, handPoints, handMax, handGraded: written.filter((r) => r.status === "graded").length, written: written.length, points: autoPoints + handPoints, max: autoMax + handMax };
}

const csvField = (v) => {
  const s = v === undefined || v === null ? "" : String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export const GRADEBOOK_COLUMNS = ["file", "exercise", "status", "points", "max_points", "tampered", "note"];

/** gradebook.csv: one row per (file, part), a `total` row per file (every part's points, auto and hand, over every
 * part's maximum), a `skipped` row per file that is not graded. `tampered` is yes on a part whose check or test
 * cell was changed, and on the total row of a file with any changed locked cell. */
export function gradebookCsv(graded, skipped) {
  const lines = [GRADEBOOK_COLUMNS.join(",")];
  for (const g of graded) {
    for (const r of g.rows) lines.push([g.file, r.exercise, r.status, r.points, r.maxPoints, r.tampered ? "yes" : "", r.note].map(csvField).join(","));
    const t = totalsOf(g.rows);
    lines.push([g.file, "total", "", t.points, t.max, g.tampered ? "yes" : "", g.notes.join("；")].map(csvField).join(","));
  }
  for (const s of skipped) lines.push([s.file, "", "skipped", "", "", "", s.reason].map(csvField).join(","));
  return lines.join("\n") + "\n";
}

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF) into rows of strings; a BOM is dropped. */
export function parseCsv(text) {
  const rows = [];
  let row = [];
  let field = "";
  let quoted = false;
  const s = text.replace(/^\uFEFF/, "");
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') (field += '"'), i++;
      else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") row.push(field), (field = "");
    else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && s[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += ch;
  }
  if (field !== "" || row.length > 0) row.push(field), rows.push(row);
  return rows.filter((r) => !(r.length === 1 && r[0].trim() === ""));
}

/** gradebook.csv read back: { graded, skipped } as gradebookCsv wrote them (parts' kinds from `parts`). */
export function readGradebookCsv(text, parts) {
  const [header, ...rows] = parseCsv(text);
  if (!header || header.join(",") !== GRADEBOOK_COLUMNS.join(",")) throw new Error("gradebook.csv 的表头不对：不是 npm run grade 写的成绩表");
  const byLabel = new Map(parts.map((p) => [p.label, p]));
  const graded = [];
  const skipped = [];
  const byFile = new Map();
  for (const [file, exercise, status, points, maxPoints, tampered, note] of rows) {
    if (status === "skipped") {
      skipped.push({ file, reason: note });
      continue;
    }
    let g = byFile.get(file);
    if (!g) byFile.set(file, (g = { file, rows: [], notes: [], tampered: false })), graded.push(g);
    if (exercise === "total") {
      g.notes = note ? note.split("；") : [];
      g.tampered = tampered === "yes";
      continue;
    }
    const part = byLabel.get(exercise);
    g.rows.push({
      exercise,
      gradeId: part?.gradeId,
      kind: part?.kind ?? "checked",
      status,
      points: points === "" ? "" : Number(points),
      maxPoints: Number(maxPoints),
      tampered: tampered === "yes",
      note,
    });
  }
  return { graded, skipped };
}

const MARK = { correct: "✓", wrong: "✗", unanswered: "○", "to-grade": "✎", graded: "✎", error: "⚠", timeout: "⏱", "not-run": "–" };
const mdCell = (s) => String(s).replace(/\|/g, "\\|").replace(/\n/g, " ");

/** gradebook.md: one line per student file (each part's mark and points, auto / hand / total, changed locked cells,
 * notes), per-part counts, the files skipped and why. */
export function gradebookMarkdown(graded, skipped, parts) {
  const autoMax = parts.filter((p) => p.kind !== "open").reduce((a, p) => a + p.points, 0);
  const openMax = parts.filter((p) => p.kind === "open").reduce((a, p) => a + p.points, 0);
  const out = [
    "# 第 11 讲 · 练习成绩汇总",
    "",
    `自动评分的小题共 ${autoMax} 分；文字题 ${parts.filter((p) => p.kind === "open").map((p) => p.label).join("、")} 共 ${openMax} 分，由老师按评分标准给分（gradebook.csv 里标为 to-grade，合并手工分数后为 graded）。`,
    "",
    "✓ 正确 · ✗ 不对 · ○ 未作答 · ⚠ 出错 · ⏱ 超时 · – 没有运行 · ✎ 文字题（待评分，或已给分）；格子里的数是这题得的分。",
    "「改动」列的 ⚠ 表示学生改过锁定的单元格（按 nbgrader 校验和判断），评分用的是课程的原版。",
    "",
    `| 学生文件 | ${parts.map((p) => `${p.label}（${p.points}）`).join(" | ")} | 自动得分 | 文字题得分 | 合计 | 改动 | 备注 |`,
    `|---|${parts.map(() => ":-:").join("|")}|--:|--:|--:|:-:|---|`,
  ];
  for (const g of graded) {
    const marks = g.rows.map((r) => `${MARK[r.status] ?? "?"}${r.points !== "" ? ` ${r.points}` : ""}`);
    const t = totalsOf(g.rows);
    const hand = t.handGraded > 0 ? `${t.handPoints} / ${t.handMax}（已评 ${t.handGraded} / ${t.written}）` : "待评";
    out.push(`| ${mdCell(g.file)} | ${marks.join(" | ")} | ${t.autoPoints} / ${t.autoMax} | ${hand} | ${t.points} / ${t.max} | ${g.tampered ? "⚠" : ""} | ${mdCell(g.notes.join("；"))} |`);
  }
  if (graded.length > 0) {
    const count = (i, ...statuses) => graded.filter((g) => statuses.includes(g.rows[i]?.status)).length;
    const answered = (i) => graded.length - count(i, "unanswered");
    out.push(`| **做对 / 作答人数** | ${parts.map((p, i) => (p.kind !== "open" ? `${count(i, "correct")} / ${answered(i)}` : `${count(i, "to-grade", "graded")}`)).join(" | ")} | | | | | |`);
  }
  out.push("");
  if (skipped.length > 0) {
    out.push("## 跳过的文件", "");
    for (const s of skipped) out.push(`- ${mdCell(s.file)}：${mdCell(s.reason)}`);
    out.push("");
  }
  return out.join("\n");
}
