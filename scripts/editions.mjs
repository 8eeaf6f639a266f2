// The editions of a notebook, as files: the student edition leaves out the cells tagged `instructor` (reference
// answers and rubrics), the hidden tests of the grade cells (nbgrader's `### BEGIN HIDDEN TESTS` … `### END HIDDEN
// TESTS`, written after `//` in TypeScript), replaces the reference code of solution cells (`### BEGIN SOLUTION` …
// `### END SOLUTION`) by a stub, carries no outputs, and writes nbgrader's checksum into every grade, solution and
// locked cell (scripts/nbgrader-checksum.mjs). The course's notebook itself is the instructor copy. Used by
// `npm run release`, the student workspace and the grader (scripts/grade.mjs); the handouts apply the same filter to
// the executed notebook (apply_edition in scripts/run_notebooks.py).
import { writeChecksums } from "./nbgrader-checksum.mjs";

export const INSTRUCTOR_TAG = "instructor";
/** The notebook the grader takes submissions of (its notebook metadata `lecture11.notebook`). */
export const HOMEWORK_NOTEBOOK = "08-exercises";

export const sourceText = (cell) => (Array.isArray(cell.source) ? cell.source.join("") : String(cell.source ?? ""));
export const cellTags = (cell) => (Array.isArray(cell?.metadata?.tags) ? cell.metadata.tags : []);
export const nbgraderOf = (cell) => (cell?.metadata?.nbgrader && typeof cell.metadata.nbgrader === "object" ? cell.metadata.nbgrader : null);

/** nbgrader's delimiters (matched anywhere in a line, the whole line goes, as nbgrader's ClearHiddenTests and
 * ClearSolutions do). */
export const HIDDEN_TESTS = { begin: "BEGIN HIDDEN TESTS", end: "END HIDDEN TESTS" };
export const SOLUTION = { begin: "BEGIN SOLUTION", end: "END SOLUTION" };
/** What a solution region becomes in the student's copy (nbgrader's code stub, in TypeScript and Chinese). */
export const SOLUTION_STUB = ["// 在这里写你的代码", 'throw new Error("尚未实现");'];

/** A line-delimited region problem, as one Chinese line naming the cell. */
class RegionError extends Error {}

/** The lines of `text` with every region between a `begin` line and an `end` line replaced by `replace(indent)`
 * (both delimiter lines included). Throws a RegionError for a nested or unclosed region. */
function replaceRegions(text, { begin, end }, replace, where) {
  const out = [];
  let inside = false;
  let found = false;
  for (const line of text.split("\n")) {
    if (line.includes(begin)) {
      if (inside) throw new RegionError(`${where}：「${begin}」嵌套了（前一个还没有「${end}」）`);
      inside = true;
      found = true;
      out.push(...replace(/^\s*/.exec(line)[0]));
    } else if (line.includes(end)) {
      if (!inside) throw new RegionError(`${where}：有「${end}」却没有对应的「${begin}」`);
      inside = false;
    } else if (!inside) out.push(line);
  }
  if (inside) throw new RegionError(`${where}：「${begin}」没有对应的「${end}」`);
  return { text: out.join("\n"), found };
}

const cellName = (cell, index) => `单元格 ${index + 1}${nbgraderOf(cell)?.grade_id ? `（${nbgraderOf(cell).grade_id}）` : ""}`;

/** A grade cell without its hidden tests (nbgrader's ClearHiddenTests); a hidden region outside a grade cell is an
 * error, as in nbgrader. Returns the source. */
export function stripHiddenTests(cell, index = 0) {
  const { text, found } = replaceRegions(sourceText(cell), HIDDEN_TESTS, () => [], cellName(cell, index));
  if (found && !nbgraderOf(cell)?.grade) throw new RegionError(`${cellName(cell, index)}：隐藏测试只能写在评分单元格（nbgrader grade）里`);
  return text;
}

/** A solution cell's source with each `### BEGIN SOLUTION` … `### END SOLUTION` region replaced by the stub. */
export function stubSolutions(cell, index = 0) {
  const { text, found } = replaceRegions(sourceText(cell), SOLUTION, (indent) => SOLUTION_STUB.map((l) => indent + l), cellName(cell, index));
  if (found && !nbgraderOf(cell)?.solution) throw new RegionError(`${cellName(cell, index)}：参考解答区域只能写在答案单元格（nbgrader solution）里`);
  return text;
}

/** Whether an error is a malformed hidden-test / solution region (its message is one Chinese line for the user). */
export const isRegionError = (e) => e instanceof RegionError;

/** A copy of the notebook as a student receives it: no instructor cells, no hidden tests, solution regions
 * stubbed, no outputs or execution counts, nbgrader checksums written; its metadata names the notebook
 * (`lecture11.notebook`), so the grader can tell a wrong file handed in. */
export function studentEdition(nb, name) {
  const copy = structuredClone(nb);
  copy.cells = copy.cells
    .filter((c) => !cellTags(c).includes(INSTRUCTOR_TAG))
    .map((c, index) => {
      const hidden = stripHiddenTests(c, index);
      if (hidden !== sourceText(c)) c.source = hidden;
      const stubbed = stubSolutions(c, index);
      if (stubbed !== sourceText(c)) c.source = stubbed;
      if (c.cell_type === "code") {
        c.outputs = [];
        c.execution_count = null;
      }
      if (c.metadata) delete c.metadata.runner;
      return c;
    });
  writeChecksums(copy);
  const own = copy.metadata?.lecture11 ?? {};
  copy.metadata = { ...copy.metadata, lecture11: { ...own, notebook: own.notebook ?? name, edition: "student" } };
  delete copy.metadata.runner;
  return copy;
}

/** "ex4c" → "4(c)", "ex8" → "8" (the lecture's numbering); the written half of a checked part, "ex1b_why", →
 * "1(b) 为什么". */
export function exerciseLabel(gradeId) {
  const m = /^ex(\d+)([a-z]?)(_why)?$/.exec(gradeId);
  if (!m) return gradeId;
  return `${m[2] ? `${m[1]}(${m[2]})` : m[1]}${m[3] ? " 为什么" : ""}`;
}
