// Notebook 08 as committed (the course's source) and as released to students: every part has its answer cell and
// its locked check cell (or a "你的答案" cell for a part answered in words), in the lecture's order; the answer
// cell states the points and the precision the library checks with; the cells carry valid nbgrader metadata
// (schema 3) whose points are the library's; reference answers and rubrics sit in cells tagged `instructor`,
// which the student edition (`npm run release`) leaves out, together with every rendered reference value.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { boldSpans, exerciseLabel, gradeId, listExercises, referenceAnswer, type Exercise } from "../lib/exercises";
import { releaseHomework } from "./support/homework";
import { NOTEBOOKS_DIR, ROOT, runProcess } from "./support/processes";

interface Cell {
  cell_type: string;
  source: string | string[];
  metadata: { nbgrader?: Record<string, unknown>; tags?: string[] };
  outputs?: unknown[];
  execution_count?: number | null;
}
const text = (c: Cell) => (Array.isArray(c.source) ? c.source.join("") : c.source);
const tags = (c: Cell) => c.metadata?.tags ?? [];
const nb = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS_DIR, "08-exercises.ipynb"), "utf8")) as { cells: Cell[]; metadata: Record<string, any> };
const cells = nb.cells;
const byGradeId = (list: Cell[], id: string) => list.findIndex((c) => c.metadata?.nbgrader?.grade_id === id);

// nbgrader's cell metadata, schema version 3 (nbgrader/nbgraderformat/v3.json and MetadataValidatorV3).
const NBGRADER_KEYS = new Set(["schema_version", "grade", "locked", "solution", "task", "grade_id", "points", "checksum", "cell_type"]);
function nbgraderProblems(cell: Cell): string[] {
  const m = cell.metadata.nbgrader;
  if (!m) return [];
  const problems: string[] = [];
  for (const k of Object.keys(m)) if (!NBGRADER_KEYS.has(k)) problems.push(`unknown key ${k}`);
  if (m.schema_version !== 3) problems.push("schema_version is not 3");
  for (const k of ["grade", "locked", "solution"]) if (typeof m[k] !== "boolean") problems.push(`${k} is not a boolean`);
  if ((m.grade || m.solution || m.locked) && !(typeof m.grade_id === "string" && /^[a-zA-Z0-9_-]+$/.test(m.grade_id))) problems.push("grade_id missing or malformed");
  if (m.grade && !(typeof m.points === "number" && m.points >= 0)) problems.push("a grade cell without points");
  if (!m.grade && "points" in m) problems.push("points on a cell that is not graded");
  if (cell.cell_type === "markdown" && Boolean(m.grade) !== Boolean(m.solution)) problems.push("a markdown cell must be grade and solution together");
  return problems;
}

describe("notebook 08: the course's source", () => {
  it("names itself in its metadata (the grader takes only this notebook)", () => {
    expect(nb.metadata.lecture11?.notebook).toBe("08-exercises");
  });

  it("carries valid nbgrader metadata (schema 3), with unique grade_ids", () => {
    const problems = cells.flatMap((c, i) => nbgraderProblems(c).map((p) => `cell ${i}: ${p}`));
    expect(problems).toEqual([]);
    const ids = cells.map((c) => c.metadata.nbgrader?.grade_id).filter((x) => x !== undefined);
    expect(new Set(ids).size).toBe(ids.length);
    expect(cells[byGradeId(cells, "imports")].metadata.nbgrader).toMatchObject({ locked: true, grade: false, solution: false });
  });

  it("has every part in the lecture's order, each with its answer cell, locked check cell and folded reference answer (one instructor cell per exercise)", () => {
    const order = listExercises().map((e) => byGradeId(cells, gradeId(e.id)));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    for (const e of listExercises()) {
      const at = byGradeId(cells, gradeId(e.id));
      const graded = cells[at];
      expect(graded.metadata.nbgrader, e.id).toMatchObject({ grade: true, points: e.points });
      if (e.reference) checkedPart(e, at);
      else openPart(e, at);
    }
  });

  function checkedPart(e: Exercise, at: number) {
    const answer = cells[at - 1];
    const check = cells[at];
    expect(answer.metadata.nbgrader, e.id).toMatchObject({ grade_id: `${gradeId(e.id)}_answer`, solution: true, grade: false, locked: false });
    expect(check.metadata.nbgrader, e.id).toMatchObject({ solution: false, locked: true });
    expect(check.cell_type).toBe("code");
    expect(text(check)).toBe(`check("${e.id}", answer${e.id});`);
    const first = text(answer).split("\n")[0];
    expect(first, e.id).toContain(`练习 ${exerciseLabel(e.id)}（${e.points} 分）· 你的答案：`);
    expect(first, e.id).toContain(e.precision!);
    const ref = referenceAnswer(e.id);
    if (Array.isArray(ref)) expect(first, e.id).toContain(`[${e.slots!.map((s) => s.label).join(", ")}]`);
    expect(text(answer), e.id).toMatch(new RegExp(`const answer${e.id} = (NaN|"\\?"|\\[[NaN, "?]+\\]);`));
    revealAfter(e, at);
  }

  /** The exercise's instructor cell (after its last part) reveals this part, and a part answered in words is
   * followed there by its rubric; the cell holds only parts of the same exercise. */
  function revealAfter(e: Exercise, at: number) {
    const index = cells.findIndex((c, i) => i > at && tags(c).includes("instructor") && text(c).includes(`reveal("${e.id}");`));
    expect(index, e.id).toBeGreaterThan(at);
    const cell = cells[index];
    expect(tags(cell), e.id).toEqual(["instructor", "hide-input"]);
    expect(text(cell)).toContain(e.rubric ? `reveal("${e.id}");\nrubric("${e.id}");` : `reveal("${e.id}");`);
    const exercise = (id: string) => id.replace(/[a-z]$/, "");
    const ids = [...text(cell).matchAll(/(?:reveal|rubric)\("(\w+)"\)/g)].map((m) => m[1]);
    expect(ids.every((id) => exercise(id) === exercise(e.id)), e.id).toBe(true);
    const nextHeading = cells.findIndex((c, i) => i > at && c.cell_type === "markdown" && /^## 练习 /.test(text(c)));
    if (nextHeading >= 0) expect(index, e.id).toBeLessThan(nextHeading);
  }

  function openPart(e: Exercise, at: number) {
    const answer = cells[at];
    expect(answer.cell_type, e.id).toBe("markdown");
    expect(answer.metadata.nbgrader, e.id).toMatchObject({ solution: true, grade: true, locked: false });
    expect(text(answer), e.id).toContain(`**你的答案**（练习 ${exerciseLabel(e.id)}，${e.points} 分`);
    revealAfter(e, at);
  }

  it("has a written answer cell for the why half of 1(b) and 6(b), right after its check cell, with its rubric in the instructor cell", () => {
    for (const e of listExercises().filter((x) => x.why)) {
      const at = byGradeId(cells, `${gradeId(e.id)}_why`);
      expect(at, e.id).toBe(byGradeId(cells, gradeId(e.id)) + 1);
      expect(cells[at].cell_type).toBe("markdown");
      expect(cells[at].metadata.nbgrader).toMatchObject({ grade: true, solution: true, locked: false, points: e.why!.points });
      expect(text(cells[at])).toContain(`**你的答案**（练习 ${exerciseLabel(e.id)} 为什么，${e.why!.points} 分`);
      expect(text(cells[at + 1])).toContain(`rubric("${e.id}");`);
    }
    expect(listExercises().filter((x) => x.why).map((x) => x.id)).toEqual(["1b", "6b"]);
  });

  // Notebook 6 renders markdown with its own marked build, which leaves "**36%**。" as literal asterisks
  const NOTEBOOK6_MARKED = "/usr/lib/python3/dist-packages/notebook/static/components/marked/lib/marked.js";
  it.skipIf(!fs.existsSync(NOTEBOOK6_MARKED))("renders every markdown cell's bold in Notebook 6's own markdown renderer", () => {
    // eslint-disable-next-line @typescript-eslint/no-var-requires
    const marked = require(NOTEBOOK6_MARKED) as { parse(s: string): string };
    expect(marked.parse("≈ **36%**。")).toContain("**"); // the renderer's known failure, so this test can see it
    const literal = cells.filter((c) => c.cell_type === "markdown").filter((c) => marked.parse(text(c)).includes("**"));
    expect(literal.map(text)).toEqual([]);
  });

  it("ends with the reader's progress and the navigation cell", () => {
    const code = cells.filter((c) => c.cell_type === "code");
    expect(text(code[code.length - 1])).toBe("progress();");
    expect(text(cells[cells.length - 1])).toMatch(/← 上一页：\[07 · .*\]\(07-summary-pitfalls\.ipynb\) · 下一页：\[09 · .*\]\(09-further-reading\.ipynb\) →/);
  });

  it("keeps every instructor-only cell to reference answers, rubrics and the note for instructors", () => {
    for (const c of cells.filter((x) => tags(x).includes("instructor"))) {
      if (c.cell_type === "code") expect(text(c)).toMatch(/^(reveal|rubric)\("[0-9a-z]+"\);(\n(reveal|rubric)\("[0-9a-z]+"\);)*$/);
      else expect(text(c)).toMatch(/^> \*\*教师版。\*\*/);
    }
  });
});

describe("npm run release: the student edition", () => {
  let tmp = "";
  let student: { cells: Cell[]; metadata: Record<string, any> };
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-release-"));
    student = (await releaseHomework(tmp)) as typeof student;
  }, 60_000);
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it("leaves out the instructor cells and nothing else; no outputs; its metadata says student", () => {
    expect(student.cells.length).toBe(cells.filter((c) => !tags(c).includes("instructor")).length);
    expect(student.cells.some((c) => tags(c).includes("instructor"))).toBe(false);
    expect(student.cells.every((c) => c.cell_type !== "code" || ((c.outputs ?? []).length === 0 && c.execution_count === null))).toBe(true);
    expect(student.metadata.lecture11).toEqual({ notebook: "08-exercises", edition: "student" });
    for (const e of listExercises()) expect(byGradeId(student.cells, gradeId(e.id)), e.id).toBeGreaterThan(0);
  });

  it("contains none of the reference answers' rendered values that its questions do not already state", () => {
    const all = student.cells.map(text).join("\n");
    const source = cells.filter((c) => !tags(c).includes("instructor")).map(text).join("\n");
    for (const e of listExercises()) {
      for (const value of boldSpans(e.explanation())) if (!source.includes(value)) expect(all, `${e.id}: ${value}`).not.toContain(value);
      for (const r of e.rubric ?? []) expect(all).not.toContain(r.text.slice(0, 12));
    }
    expect(all).not.toMatch(/reveal\(|rubric\(/);
  });

  it("writes every notebook of the course by default, and a README for the students", async () => {
    const dir = path.join(tmp, "all");
    const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "release.mjs"), "--out", dir]);
    expect(r.code, r.output).toBe(0);
    const names = fs.readdirSync(NOTEBOOKS_DIR).filter((f) => f.endsWith(".ipynb")).sort();
    expect(fs.readdirSync(dir).sort()).toEqual([...names, "README.md"].sort());
    const preble = JSON.parse(fs.readFileSync(path.join(dir, "03-preble.ipynb"), "utf8"));
    expect(preble.metadata.lecture11).toEqual({ notebook: "03-preble", edition: "student" });
  });

  it("refuses an unknown option or a missing --out with a usage line (exit 2)", async () => {
    for (const args of [["--bogus"], [], ["--out"]]) {
      const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "release.mjs"), ...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.output).toMatch(/usage: npm run release -- --out DIR/);
    }
  });
});

describe("npm run handouts refuses bad command lines", () => {
  it("an unknown option, an unknown edition or a missing value: a usage line and exit 2 (nothing executed)", async () => {
    for (const args of [["--bogus"], ["--edition", "teacher"], ["--edition=tutor"], ["--out"], ["notebooks/nope.ipynb"]]) {
      const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "handouts.mjs"), ...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.output).toMatch(/usage: npm run handouts -- \[--edition student\|instructor\]/);
    }
  });
});
