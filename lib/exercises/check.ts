// The reader-facing calls: check(id, answer) renders a ✓/✗ badge; reveal(id) shows the worked answer.
import { displayHtml, displayMarkdown } from "../view/display";
import { escapeHtml } from "../view/table";
import { evaluate, getExercise } from "./registry";

/** Checks a reader's answer, shows a ✓/✗ badge with a hint, and returns whether it passed. In a notebook write
 * `const passed = check(…)`: tslab echoes a bare last expression, which would print a stray true / false. */
export function check(id: string, answer: unknown): boolean {
  const result = evaluate(id, answer);
  const colour = result.passed ? "#1a7f37" : "#cf222e";
  const mark = result.passed ? "✓" : "✗";
  const html =
    `<div class="l11-check" style="border-left:4px solid ${colour};padding:4px 8px;margin:4px 0">` +
    `<b style="color:${colour}">${mark} 练习 ${escapeHtml(id)}</b> ` +
    `${result.passed ? "正确 · correct" : "还不对 · not yet"} — ${escapeHtml(result.message)}</div>`;
  displayHtml({ html, text: `${mark} exercise ${id}: ${result.passed ? "correct" : "not yet"} — ${result.message}` });
  return result.passed;
}

/** Like check, but throws when the answer is wrong (for tests and scripted self-checks). */
export function checkStrict(id: string, answer: unknown): true {
  const result = evaluate(id, answer);
  if (!result.passed) throw new Error(`exercise ${id}: ${result.message}`);
  return true;
}

/** Shows the worked answer of an exercise part, with its computed numbers. */
export function reveal(id: string): void {
  const e = getExercise(id);
  displayMarkdown(`**练习 ${id} 参考答案 · Reference answer**\n\n${e.explanation()}`);
}
