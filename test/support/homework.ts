// Fixture submissions for the grader tests: the student edition of notebook 08 (written by `npm run release`) with
// the cells named in test/fixtures/homework/submissions.json (by nbgrader grade_id) replaced, plus the fixture files
// that are not submissions of it (a truncated notebook, a text file, another course's notebook).
import * as fs from "fs";
import * as path from "path";
import { ROOT, runProcess } from "./processes";

export const HOMEWORK_FIXTURES = path.join(ROOT, "test", "fixtures", "homework");
const OTHER_FILES = ["broken.ipynb", "notes.txt", "other-course.ipynb"];

interface Cell {
  cell_type: string;
  source: string | string[];
  metadata?: { nbgrader?: { grade_id?: string }; tags?: string[] };
}

/** The coding-exercise fixture: its instructor notebook (hidden tests, reference solutions) and its submissions. */
export const CODING_FIXTURES = path.join(HOMEWORK_FIXTURES, "coding");
export const CODING_SOURCE = path.join(CODING_FIXTURES, "fx-coding.ipynb");

/** Writes the student edition of a notebook (default notebook 08) into `dir` (through the release command) and
 * returns it parsed. */
export async function releaseHomework(dir: string, notebook = path.join(ROOT, "notebooks", "08-exercises.ipynb")): Promise<{ cells: Cell[]; metadata: Record<string, unknown> }> {
  const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "release.mjs"), "--out", dir, notebook]);
  if (r.code !== 0) throw new Error(`release failed:\n${r.output}`);
  return JSON.parse(fs.readFileSync(path.join(dir, path.basename(notebook)), "utf8"));
}

/** Writes every fixture submission into `dir`; returns the file names written. With `coding`, the coding fixture's
 * submissions (test/fixtures/homework/coding) and no other files. */
export async function writeSubmissions(dir: string, releaseDir: string, coding = false): Promise<string[]> {
  const sheetFile = coding ? path.join(CODING_FIXTURES, "submissions.json") : path.join(HOMEWORK_FIXTURES, "submissions.json");
  const names = await writeSheetSubmissions(dir, releaseDir, sheetFile, coding ? CODING_SOURCE : undefined);
  if (coding) return names;
  for (const f of OTHER_FILES) fs.copyFileSync(path.join(HOMEWORK_FIXTURES, f), path.join(dir, f));
  return [...names, ...OTHER_FILES];
}

/** Writes the submissions of one sheet (a JSON object: file name → { grade_id: source }) into `dir`, each the
 * student edition of `notebook` (default notebook 08) with those cells replaced; returns the file names. */
export async function writeSheetSubmissions(dir: string, releaseDir: string, sheetFile: string, notebook?: string): Promise<string[]> {
  fs.mkdirSync(dir, { recursive: true });
  const base = await releaseHomework(releaseDir, notebook);
  const sheets = JSON.parse(fs.readFileSync(sheetFile, "utf8")) as Record<string, Record<string, string> | string>;
  const names: string[] = [];
  for (const [name, sheet] of Object.entries(sheets)) {
    if (name.startsWith("_") || typeof sheet === "string") continue;
    const nb = structuredClone(base);
    const replaced = new Set<string>();
    for (const cell of nb.cells) {
      const id = cell.metadata?.nbgrader?.grade_id;
      if (id !== undefined && id in sheet) {
        cell.source = sheet[id];
        replaced.add(id);
      }
    }
    const missing = Object.keys(sheet).filter((id) => !replaced.has(id));
    if (missing.length > 0) throw new Error(`${name}: no cell with grade_id ${missing.join(", ")} in the student edition`);
    fs.writeFileSync(path.join(dir, name), JSON.stringify(nb, null, 1));
    names.push(name);
  }
  return names;
}
