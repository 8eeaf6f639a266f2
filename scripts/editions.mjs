// The editions of a notebook, as files: the student edition leaves out the cells tagged `instructor` (reference
// answers and rubrics) and carries no outputs. Used by `npm run release` and by the grader (scripts/grade.mjs);
// the handouts apply the same filter to the executed notebook (apply_edition in scripts/run_notebooks.py).

export const INSTRUCTOR_TAG = "instructor";
/** The notebook the grader takes submissions of (its notebook metadata `lecture11.notebook`). */
export const HOMEWORK_NOTEBOOK = "08-exercises";

export const sourceText = (cell) => (Array.isArray(cell.source) ? cell.source.join("") : String(cell.source ?? ""));
export const cellTags = (cell) => (Array.isArray(cell?.metadata?.tags) ? cell.metadata.tags : []);
export const nbgraderOf = (cell) => (cell?.metadata?.nbgrader && typeof cell.metadata.nbgrader === "object" ? cell.metadata.nbgrader : null);

/** A copy of the notebook as a student receives it: no instructor cells, no outputs or execution counts; its
 * metadata names the notebook (`lecture11.notebook`), so the grader can tell a wrong file handed in. */
export function studentEdition(nb, name) {
  const copy = structuredClone(nb);
  copy.cells = copy.cells
    .filter((c) => !cellTags(c).includes(INSTRUCTOR_TAG))
    .map((c) => {
      if (c.cell_type === "code") {
        c.outputs = [];
        c.execution_count = null;
      }
      if (c.metadata) delete c.metadata.runner;
      return c;
    });
  const own = copy.metadata?.lecture11 ?? {};
  copy.metadata = { ...copy.metadata, lecture11: { ...own, notebook: own.notebook ?? name, edition: "student" } };
  delete copy.metadata.runner;
  return copy;
}

/** "ex4c" → "4(c)", "ex8" → "8" (the lecture's numbering). */
export function exerciseLabel(gradeId) {
  const m = /^ex(\d+)([a-z]?)$/.exec(gradeId);
  if (!m) return gradeId;
  return m[2] ? `${m[1]}(${m[2]})` : m[1];
}
