// The lecture's exercises (§9): reference answers computed by the library, and check(id, answer) for readers.
import { ParameterError } from "../core/errors";

/** A reference answer: a number, several numbers in the lecture's order, or a word such as "exploit". */
export type Answer = number | string | Array<number | string>;

export interface Exercise {
  /** the lecture's part, e.g. "1a" */
  id: string;
  /** the question in one line (Chinese, our words) */
  question: string;
  /** computes the reference answer with the library (undefined for free-text parts) */
  reference?: () => Answer;
  /** relative tolerance for numbers (default 0.02) */
  relTolerance?: number;
  /** absolute tolerance for numbers (used when larger than the relative one) */
  absTolerance?: number;
  /** shown when the reader's answer is wrong */
  hint: string;
  /** the worked explanation, revealed on demand; may quote computed numbers */
  explanation: () => string;
}

const exercises = new Map<string, Exercise>();

export function registerExercise(exercise: Exercise): void {
  if (exercises.has(exercise.id)) throw new Error(`exercise ${exercise.id} registered twice`);
  exercises.set(exercise.id, exercise);
}

export function listExercises(): Exercise[] {
  return [...exercises.values()].sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
}

export function getExercise(id: string): Exercise {
  const e = exercises.get(id);
  if (!e) throw new ParameterError("id", `unknown exercise ${JSON.stringify(id)}; known: ${listExercises().map((x) => x.id).join(", ")}`);
  return e;
}

/** The library's answer to a part that has one (throws for free-text parts: use explanation instead). */
export function referenceAnswer(id: string): Answer {
  const e = getExercise(id);
  if (!e.reference) throw new ParameterError("id", `exercise ${id} is answered in words: call reveal("${id}")`);
  return e.reference();
}

function closeEnough(given: number, expected: number, e: Exercise): boolean {
  const tol = Math.max(Math.abs(expected) * (e.relTolerance ?? 0.02), e.absTolerance ?? 0);
  return Number.isFinite(given) && Math.abs(given - expected) <= tol;
}

function normalizeWord(s: string): string {
  return s.trim().toLowerCase().replace(/\s+/g, "").replace(/＋/g, "+");
}

export interface CheckResult {
  id: string;
  passed: boolean;
  /** why it failed: shape, which entry, or the hint */
  message: string;
}

/** Compares a reader's answer with the reference: numbers within tolerance, words case-insensitively. */
export function evaluate(id: string, answer: unknown): CheckResult {
  const e = getExercise(id);
  const expected = referenceAnswer(id);
  const want = Array.isArray(expected) ? expected : [expected];
  const got = Array.isArray(answer) ? answer : [answer];
  if (got.length !== want.length) {
    return { id, passed: false, message: `expected ${want.length} value${want.length > 1 ? "s" : ""} in the lecture's order, got ${got.length}. ${e.hint}` };
  }
  for (let i = 0; i < want.length; i++) {
    const w = want[i];
    const g = got[i];
    const ok =
      typeof w === "number" ? typeof g === "number" && closeEnough(g, w, e) : typeof g === "string" && normalizeWord(g) === normalizeWord(String(w));
    if (!ok) {
      const shown = typeof g === "number" ? String(g) : JSON.stringify(g); // NaN, not JSON's null
      const which = want.length > 1 ? `value ${i + 1} (${shown}) is off. ` : "";
      return { id, passed: false, message: `${which}${e.hint}` };
    }
  }
  return { id, passed: true, message: "matches the library's answer" };
}
