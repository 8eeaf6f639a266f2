// nbgrader checksums: `npm run release` writes into every grade, solution and locked cell the checksum nbgrader's
// compute_checksum (nbgrader/utils.py) gives it. How equality with nbgrader is proven here: nbgrader is not
// installed (no Debian package; only the npm and Debian registries are reachable, so pip cannot fetch it), so
// test/support/nbgrader_checksum.py repeats nbgrader's steps exactly (hashlib.md5 over the source, cell_type,
// str(is_grade), str(is_solution), str(is_locked), grade_id, str(float(points))) on the notebook as nbformat reads
// it; and one checksum is computed here by hand, as a literal.
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CODING_SOURCE, releaseHomework } from "./support/homework";
import { PYTHON, ROOT, runProcess } from "./support/processes";

interface Checksum {
  nbgraderChecksum(cell: unknown): string;
  pythonFloatString(x: number): string;
}
const load = async () => (await import(path.join(ROOT, "scripts", "nbgrader-checksum.mjs"))) as Checksum;
let tmp = "";
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-checksum-"));
});
afterAll(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

async function nbgraderSums(file: string): Promise<Record<string, string>> {
  const r = await runProcess(PYTHON, [path.join(ROOT, "test", "support", "nbgrader_checksum.py"), file]);
  if (r.code !== 0) throw new Error(r.output);
  return JSON.parse(r.output);
}

describe("nbgrader checksums", () => {
  it("one by hand: check(\"1a\", answer1a) as a grade cell of 2 points", async () => {
    const cell = { cell_type: "code", source: ['check("1a", ', "answer1a);"], metadata: { nbgrader: { grade: true, grade_id: "ex1a", locked: true, solution: false, points: 2, schema_version: 3 } } };
    // source + cell_type + str(is_grade) + str(is_solution) + str(is_locked) + grade_id + str(float(points))
    const byHand = createHash("md5").update('check("1a", answer1a);codeTrueFalseTrueex1a2.0').digest("hex");
    expect(byHand).toBe("787d1696a6c96f8f96eaf868b0bd4bfa");
    expect((await load()).nbgraderChecksum(cell)).toBe("787d1696a6c96f8f96eaf868b0bd4bfa");
  });

  it("Python's str(float(points))", async () => {
    const { pythonFloatString } = await load();
    expect([2, 0.5, 1e16, 1e-5, 123.456, 1.5e-7, 1e15, 0.0001].map(pythonFloatString)).toEqual(["2.0", "0.5", "1e+16", "1e-05", "123.456", "1.5e-07", "1000000000000000.0", "0.0001"]);
  });

  for (const [name, source] of [["08-exercises", path.join(ROOT, "notebooks", "08-exercises.ipynb")], ["the coding fixture", CODING_SOURCE]] as const) {
    it(`the release of ${name} carries nbgrader's own checksum in every grade, solution and locked cell`, async () => {
      const student = await releaseHomework(path.join(tmp, path.basename(source, ".ipynb")), source);
      const written = Object.fromEntries(
        student.cells.filter((c) => (c.metadata?.nbgrader as any)?.checksum).map((c) => [(c.metadata!.nbgrader as any).grade_id, (c.metadata!.nbgrader as any).checksum]),
      );
      const expected = await nbgraderSums(path.join(tmp, path.basename(source, ".ipynb"), path.basename(source)));
      expect(Object.keys(expected).length).toBeGreaterThan(4);
      expect(written).toEqual(expected);
      for (const c of student.cells) if ((c.metadata?.nbgrader as any)?.checksum) expect((c.metadata!.nbgrader as any).cell_type).toBe(c.cell_type);
    });
  }

  it("a hidden-test region outside a grade cell, or an unclosed one, stops the release with one Chinese line", async () => {
    const nb = JSON.parse(fs.readFileSync(CODING_SOURCE, "utf8"));
    nb.cells[3].source = "// ### BEGIN HIDDEN TESTS\nconst x = 1;";
    const file = path.join(tmp, "bad.ipynb");
    fs.writeFileSync(file, JSON.stringify(nb));
    const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "release.mjs"), "--out", path.join(tmp, "bad-out"), file]);
    expect(r.code).toBe(1);
    expect(r.output.trim()).toBe("release: bad.ipynb 单元格 4（ex1_answer）：「BEGIN HIDDEN TESTS」没有对应的「END HIDDEN TESTS」");
  });
});
