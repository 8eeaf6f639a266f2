// No markdown cell of any notebook names a claim by its id (`only-landed-cache`, `gap-at-video-8`, …): the reader only
// ever sees a claim's Chinese text, so prose links to the claim's section or quotes that text.
import * as fs from "fs";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { listDemos } from "../lib/demos/index";

const NOTEBOOKS = path.join(__dirname, "..", "notebooks");

/** Every registered claim id (the demos' declared claims, whether or not a run at defaults lists them). */
function claimIds(): string[] {
  return [...new Set(listDemos().flatMap((d) => (d.claims ?? []).map((c) => c.id)))];
}

/** An id occurs as a word of its own (not inside a longer identifier or a Chinese-free English phrase like "budget"
 * in running text would be: ids of one plain English word are matched only in code spans). */
function mentions(text: string, id: string): boolean {
  const escaped = id.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (!id.includes("-")) return new RegExp("`" + escaped + "`").test(text);
  return new RegExp(`(^|[^A-Za-z0-9-])${escaped}($|[^A-Za-z0-9-])`).test(text);
}

describe("no claim id in the notebooks' prose", () => {
  const ids = claimIds();
  const files = fs.readdirSync(NOTEBOOKS).filter((f) => f.endsWith(".ipynb"));
  it("there are claims and notebooks to check", () => {
    expect(ids.length).toBeGreaterThan(50);
    expect(files.length).toBeGreaterThan(5);
  });
  for (const file of files) {
    it(file, () => {
      const nb = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS, file), "utf8")) as { cells: Array<{ cell_type: string; source: string[] | string }> };
      const found: string[] = [];
      nb.cells.forEach((cell, i) => {
        if (cell.cell_type !== "markdown") return;
        const text = Array.isArray(cell.source) ? cell.source.join("") : cell.source;
        for (const id of ids) if (mentions(text, id)) found.push(`cell ${i}: ${id}`);
      });
      expect(found, `${file} names claims by id in markdown`).toEqual([]);
    });
  }
});
