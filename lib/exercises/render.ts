// HTML for what check(), reveal(), rubric() and progress() show. The worked answers are written in a small
// markdown (**bold**, `code`, [link](url), $math$, blank-line paragraphs) and rendered here, not by the notebook:
// Notebook 6's markdown does not close **bold** before a full-width 。, and a reference answer must fold (<details>).
import { escapeHtml } from "../view/table";
import { badgeHtml as wordBadge } from "../view/badge";
import { foldedHtml } from "../view/fold";
import type { CheckResult } from "./evaluate";
import { exerciseLabel, type Exercise } from "./registry";

/** The reference answer's values are the **bold** spans of its explanation (the handout tests search for them). */
export function boldSpans(markdown: string): string[] {
  return [...markdown.matchAll(/\*\*(.+?)\*\*/g)].map((m) => m[1]);
}

/** The explanation markdown as HTML; math stays as $…$ text for MathJax. */
export function explanationHtml(markdown: string): string {
  return markdown
    .split(/\n\s*\n/)
    .map((paragraph) => {
      const inline = escapeHtml(paragraph)
        .replace(/\*\*(.+?)\*\*/g, '<b class="l11-answer">$1</b>')
        .replace(/`([^`]+)`/g, "<code>$1</code>")
        .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>');
      return `<p>${inline}</p>`;
    })
    .join("\n");
}

// The status is a word in a coloured badge drawn by the page (view/badge.ts), not a check mark or a cross from a font.
const COLOURS = { correct: "#1a7f37", wrong: "#cf222e", unanswered: "#6e7781" };
const WORDS = { correct: "正确", wrong: "还不对", unanswered: "尚未作答" };
const WRITTEN = { word: "文字题", colour: "#57606a" };

function statusBadge(status: CheckResult["status"]): string {
  return wordBadge({ word: WORDS[status], colour: COLOURS[status], outline: status === "unanswered", kind: `l11-status-${status}` });
}

export function badgeHtml(r: CheckResult): string {
  const colour = COLOURS[r.status];
  const points = `<span style="color:#57606a">（${r.points} / ${r.maxPoints} 分）</span>`;
  return (
    `<div class="l11-check l11-${r.status}" style="border-left:4px solid ${colour};padding:4px 8px;margin:4px 0">` +
    `${statusBadge(r.status)} <b style="color:${colour}">练习 ${escapeHtml(r.label)}</b>${points} — ${escapeHtml(r.message)}</div>`
  );
}

export function badgeText(r: CheckResult): string {
  return `练习 ${r.label} ${WORDS[r.status]}（${r.points} / ${r.maxPoints} 分）— ${r.message}`;
}

/** A folded reference answer: closed until the reader opens it, in the notebook and in the instructor handout. */
export function revealHtml(e: Exercise): string {
  return foldedHtml({ kind: "l11-reveal", titleHtml: `练习 ${escapeHtml(exerciseLabel(e.id))} 参考答案`, hint: "（点开查看）", bodyHtml: explanationHtml(e.explanation()) });
}

/** The rubric a part is graded by hand with: its own (a part answered in words) or its written half's ("为什么"). */
export function rubricOf(e: Exercise): { label: string; points: number; items: Array<{ points: number; text: string }> } {
  if (e.rubric) return { label: exerciseLabel(e.id), points: e.points, items: e.rubric };
  if (e.why) return { label: `${exerciseLabel(e.id)} 为什么`, points: e.why.points, items: e.why.rubric };
  return { label: exerciseLabel(e.id), points: e.points, items: [] };
}

export function rubricHtml(e: Exercise): string {
  const r = rubricOf(e);
  const items = r.items.map((x) => `<li>（${x.points} 分）${escapeHtml(x.text)}</li>`).join("");
  return foldedHtml({ kind: "l11-rubric", titleHtml: `练习 ${escapeHtml(r.label)} 评分标准`, hint: `（共 ${r.points} 分，点开查看）`, bodyHtml: `<ul>${items}</ul>` });
}

export interface ProgressRow {
  exercise: Exercise;
  /** the latest check() of this part in this kernel session, if any */
  result?: CheckResult;
}

/** The closing table of notebook 08: each part done / right / open, and the points so far. */
export function progressHtml(rows: ProgressRow[]): { html: string; text: string } {
  const auto = (r: ProgressRow) => r.exercise.reference !== undefined || r.exercise.coding === true;
  const checked = rows.filter(auto);
  const words = rows.filter((r) => !auto(r));
  const right = checked.filter((r) => r.result?.status === "correct");
  const wrong = checked.filter((r) => r.result?.status === "wrong");
  const open = checked.length - right.length - wrong.length;
  // a check() part earns all or nothing; a coding exercise the points of the tests it passed
  const earned = checked.reduce((a, r) => a + (r.result && r.result.status !== "unanswered" ? r.result.points : 0), 0);
  const max = checked.reduce((a, r) => a + r.exercise.points, 0);
  const wordPoints = words.reduce((a, r) => a + r.exercise.points, 0);
  const state = (r: ProgressRow) => {
    if (!auto(r)) return { badge: wordBadge({ ...WRITTEN, outline: true, kind: "l11-status-written" }), head: WRITTEN.word, word: "写在「你的答案」里，老师按评分标准给分", colour: WRITTEN.colour };
    const s = r.result?.status ?? "unanswered";
    const word = r.result && s !== "unanswered" ? (r.exercise.coding ? `最近一次测试：${r.result.points} / ${r.exercise.points} 分` : "最近一次检查") : "";
    return { badge: statusBadge(s), head: WORDS[s], word, colour: COLOURS[s] };
  };
  const body = rows
    .map((r) => {
      const s = state(r);
      const word = s.word ? ` <span style="color:${s.colour}">${escapeHtml(s.word)}</span>` : "";
      return `<tr><td>${escapeHtml(exerciseLabel(r.exercise.id))}</td><td style="text-align:right">${r.exercise.points}</td><td style="text-align:left">${s.badge}${word}</td></tr>`;
    })
    .join("");
  const summary =
    `自动检查的 ${checked.length} 题：做对 ${right.length} 题（${earned} / ${max} 分），还不对 ${wrong.length} 题，尚未作答 ${open} 题；` +
    `文字题 ${words.length} 题（共 ${wordPoints} 分）由老师评分。`;
  const html =
    `<div class="l11-progress"><p><b>我的进度</b>：${escapeHtml(summary)}</p>` +
    `<table><thead><tr><th>练习</th><th>分值</th><th style="text-align:left">状态</th></tr></thead><tbody>${body}</tbody></table>` +
    `<p style="color:#57606a">状态只来自这次内核会话里运行过的 check() 和编码题的测试单元格：重启内核后，请先运行上面各题的检查单元格。</p></div>`;
  const stateText = (r: ProgressRow) => {
    const s = state(r);
    return s.word ? `${s.head}（${s.word}）` : s.head;
  };
  const text = [`我的进度：${summary}`, ...rows.map((r) => `  ${exerciseLabel(r.exercise.id)}  ${r.exercise.points} 分  ${stateText(r)}`)].join("\n");
  return { html, text };
}
