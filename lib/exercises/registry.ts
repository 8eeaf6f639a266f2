// The lecture's exercises (§9): what each part asks, its reference answer computed by the library, how a reader's
// answer is compared with it, its points, and (for the parts answered in words) a rubric.
import { ParameterError } from "../core/errors";

/** A reference answer: a number, several numbers in the lecture's order, or a word such as "exploit". */
export type Answer = number | string | Array<number | string>;

/** A known wrong answer and what it suggests the reader did (shown instead of the generic hint). */
export interface Mistake {
  /** the wrong value, or a test on the parsed value */
  value: number | ((x: number) => boolean);
  /** tolerance around `value` (relative; default the slot's own tolerance) */
  relTolerance?: number;
  message: string;
}

/** One value of an answer: its name in messages, how close counts, and what it may be written as. */
export interface Slot {
  /** how messages name this value, e.g. "二选一" */
  label: string;
  /** relative tolerance (default 0.02) */
  relTolerance?: number;
  /** absolute tolerance (used when larger than the relative one) */
  absTolerance?: number;
  /** a share (0–1): 36 or "36%" for 0.36 is accepted, with a note */
  share?: boolean;
  /** the question asks "about how many": the rounded whole number is accepted too, with a note */
  wholeNumberToo?: boolean;
  /** for a word: each choice is [canonical, ...other ways to write it] */
  choices?: string[][];
  mistakes?: Mistake[];
}

export interface RubricItem {
  points: number;
  /** what earns these points (Chinese) */
  text: string;
}

export interface Exercise {
  /** the lecture's part, e.g. "4c"; "4" is the stem of exercise 4 (asked before its (a)) */
  id: string;
  /** the question in one line (Chinese, our words) */
  question: string;
  /** points: for a checked part all-or-nothing; for a part answered in words the rubric's total */
  points: number;
  /** computes the reference answer with the library (undefined for the parts answered in words) */
  reference?: () => Answer;
  /** one per value of the reference, in its order */
  slots?: Slot[];
  /** the precision the part expects, in words (its answer cell states it) */
  precision?: string;
  /** shown when the reader's answer is wrong */
  hint: string;
  /** the worked explanation, revealed on demand; may quote computed numbers; **bold** marks the answer values */
  explanation: () => string;
  /** for the parts answered in words: what earns the points */
  rubric?: RubricItem[];
  /** a checked part's written half (the "why" of 1(b), 6(b)): its own "你的答案" cell (grade_id ex<id>_why),
   * graded by hand with this rubric */
  why?: { question: string; points: number; rubric: RubricItem[] };
  /** a coding exercise of ours (10–12, not the lecture's): graded by the tests of its test cell (runTests), its
   * rubric lists those tests with their points */
  coding?: true;
}

const exercises = new Map<string, Exercise>();

export function registerExercise(exercise: Exercise): void {
  if (exercises.has(exercise.id)) throw new Error(`exercise ${exercise.id} registered twice`);
  if (exercise.rubric) {
    const sum = exercise.rubric.reduce((a, r) => a + r.points, 0);
    if (sum !== exercise.points) throw new Error(`exercise ${exercise.id}: rubric adds up to ${sum}, points say ${exercise.points}`);
  }
  if (exercise.why) {
    const sum = exercise.why.rubric.reduce((a, r) => a + r.points, 0);
    if (sum !== exercise.why.points) throw new Error(`exercise ${exercise.id}: the why rubric adds up to ${sum}, its points say ${exercise.why.points}`);
  }
  exercises.set(exercise.id, exercise);
}

export function listExercises(): Exercise[] {
  return [...exercises.values()].sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
}

const codingExercises = new Map<string, Exercise>();

/** Our coding exercises (10–12, after the lecture's nine): their rubric is the list of tests, adding up to points. */
export function registerCodingExercise(exercise: Exercise & { coding: true; rubric: RubricItem[] }): void {
  if (exercises.has(exercise.id) || codingExercises.has(exercise.id)) throw new Error(`exercise ${exercise.id} registered twice`);
  const sum = exercise.rubric.reduce((a, r) => a + r.points, 0);
  if (sum !== exercise.points) throw new Error(`exercise ${exercise.id}: its tests add up to ${sum}, points say ${exercise.points}`);
  codingExercises.set(exercise.id, exercise);
}

/** The coding exercises, in order (not among listExercises(): those are the lecture's). */
export function listCodingExercises(): Exercise[] {
  return [...codingExercises.values()].sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
}

/** "4c", "4(c)", "4（c）", "练习 4C" → "4c". */
export function normalizeExerciseId(id: string): string {
  return String(id)
    .normalize("NFKC")
    .toLowerCase()
    .replace(/练习|exercise|ex/g, "")
    .replace(/[\s()（）.·_-]/g, "");
}

/** The lecture's way of writing a part: "4(c)", "4", "8". */
export function exerciseLabel(id: string): string {
  const m = /^(\d+)([a-z]?)$/.exec(id);
  return m && m[2] ? `${m[1]}(${m[2]})` : id;
}

export function getExercise(id: string): Exercise {
  const e = exercises.get(normalizeExerciseId(id)) ?? codingExercises.get(normalizeExerciseId(id));
  if (!e) throw new ParameterError("id", `没有练习 ${JSON.stringify(id)}；可选：${[...listExercises(), ...listCodingExercises()].map((x) => exerciseLabel(x.id)).join("、")}`);
  return e;
}

/** Parts checked by check() (they have a reference answer); the others are answered in words. */
export function isChecked(e: Exercise): boolean {
  return e.reference !== undefined;
}

/** The library's answer to a part that has one (throws for a part answered in words: use explanation instead). */
export function referenceAnswer(id: string): Answer {
  const e = getExercise(id);
  if (e.coding) throw new ParameterError("id", `练习 ${exerciseLabel(e.id)} 是编码题，没有数值答案：运行它的测试单元格`);
  if (!e.reference) throw new ParameterError("id", `练习 ${exerciseLabel(e.id)} 是文字题，没有可核对的数值答案：运行 reveal("${e.id}") 看参考答案`);
  return e.reference();
}

/** The nbgrader grade_id of a part's graded cell ("ex4c"; its answer cell is "ex4c_answer"). */
export function gradeId(id: string): string {
  return `ex${id}`;
}
