// The reader-facing calls: check(id, answer) shows a 正确 / 还不对 / 尚未作答 badge and records the result for progress() and
// for the grader; reveal(id) shows the folded worked answer; rubric(id) the points of a part answered in words.
import { kernel } from "../view/display";
import { evaluate, type CheckResult } from "./evaluate";
import { badgeHtml, badgeText, progressHtml, revealHtml, rubricHtml, rubricOf } from "./render";
import { exerciseLabel, getExercise, listCodingExercises, listExercises } from "./registry";

/** The MIME type of the machine-readable check() record beside the badge (scripts/grade.mjs reads it). */
export const CHECK_MIME = "application/vnd.lecture11.check+json";

const session = new Map<string, CheckResult>();

type DisplayBundle = { data: Record<string, unknown>; metadata: Record<string, unknown>; transient: Record<string, unknown> };
type WriteDisplayData = (bundle: DisplayBundle, update: boolean) => void;

/** tslab's display helpers send one MIME type per output; the badge and its record must be one output (the HTML for
 * people, the JSON for the grader), so this goes one level down to the function they call (tslab 1.0.22). */
function writeBundle(data: Record<string, unknown>): boolean {
  if (!kernel()) return false;
  try {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const jupyter = require("tslab/dist/jupyter") as { lastWriteDisplayData: WriteDisplayData | null };
    if (typeof jupyter.lastWriteDisplayData !== "function") return false;
    jupyter.lastWriteDisplayData({ data, metadata: {}, transient: {} }, false);
    return true;
  } catch {
    return false;
  }
}

/** Shows HTML for people and a text fallback, with extra MIME types (a machine-readable record) in the same output. */
export function showBundle(html: string, text: string, extra: Record<string, unknown> = {}): void {
  show(html, text, extra);
}

function show(html: string, text: string, extra: Record<string, unknown> = {}): void {
  if (writeBundle({ "text/html": html, "text/plain": text, ...extra })) return;
  const k = kernel();
  if (k) k.display.html(html);
  else console.log(text);
}

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

/** Thrown by check() under nbgrader's autograder when a part is not right (nbgrader gives a test cell its points
 * when it does not raise); prints as one Chinese line, not a stack. */
export class ExerciseNotPassed extends Error {
  constructor(readonly result: CheckResult) {
    super(`练习 ${result.label}：${result.status === "unanswered" ? "尚未作答" : "还不对"} — ${result.message}`);
    this.name = "ExerciseNotPassed";
  }

  [inspectCustom](): string {
    return this.message;
  }
}

/** Checks a reader's answer, shows the badge, records the result. Returns nothing (a notebook would echo a value).
 * Under nbgrader (NBGRADER_EXECUTION set) a part that is not right throws, so nbgrader's test cell earns 0. */
export function check(id: string, answer: unknown): void {
  const result = evaluate(id, answer);
  session.set(result.id, result);
  const record = { id: result.id, label: result.label, status: result.status, kind: result.kind, points: result.points, maxPoints: result.maxPoints, message: result.message, tolerance: result.tolerance };
  show(badgeHtml(result), badgeText(result), { [CHECK_MIME]: record });
  if (typeof process !== "undefined" && process.env.NBGRADER_EXECUTION && !result.passed) throw new ExerciseNotPassed(result);
}

/** Like check, but silent, and throws when the answer is not right (for tests and scripted self-checks). */
export function checkStrict(id: string, answer: unknown): true {
  const result = evaluate(id, answer);
  if (!result.passed) throw new ExerciseNotPassed(result);
  return true;
}

/** Shows the worked answer of a part, folded (<details>), with its computed numbers. */
export function reveal(id: string): void {
  const e = getExercise(id);
  show(revealHtml(e), `练习 ${exerciseLabel(e.id)} 参考答案\n\n${e.explanation()}`);
}

/** Shows the rubric of a part answered in words, or of a checked part's written half (instructor edition). */
export function rubric(id: string): void {
  const e = getExercise(id);
  const r = rubricOf(e);
  show(rubricHtml(e), `练习 ${r.label} 评分标准（共 ${r.points} 分）\n${r.items.map((x) => `- （${x.points} 分）${x.text}`).join("\n")}`);
}

/** The latest check() result of each part in this kernel session. */
export function sessionResults(): CheckResult[] {
  return [...session.values()];
}

/** Records a result for progress() (a coding exercise's test cell, lib/exercises/tests.ts). */
export function recordResult(result: CheckResult): void {
  session.set(result.id, result);
}

export function resetProgress(): void {
  session.clear();
}

/** The reader's own progress: which parts are right, not yet right, or still open (from this session's checks). */
export function progress(): void {
  const { html, text } = progressHtml([...listExercises(), ...listCodingExercises()].map((exercise) => ({ exercise, result: session.get(exercise.id) })));
  show(html, text);
}
