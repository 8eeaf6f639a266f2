export { listExercises, getExercise, referenceAnswer, exerciseLabel, normalizeExerciseId, isChecked, gradeId } from "./registry";
export type { Answer, Exercise, Slot, Mistake, RubricItem } from "./registry";
export { evaluate } from "./evaluate";
export type { CheckResult, CheckStatus, CheckKind } from "./evaluate";
export { check, checkStrict, reveal, rubric, progress, sessionResults, resetProgress, CHECK_MIME, ExerciseNotPassed } from "./check";
export { boldSpans, explanationHtml } from "./render";
import "./answers-dispatch-cache";
import "./answers-scheduling-selection";
