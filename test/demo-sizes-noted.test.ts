// Issue 27 item 4: every demo says, in its definition, why its size (requests, seeds, trials …) is what it is — a
// "// Size:" comment just before its defaults (a demo made by a factory: "// Size (id, …):" in the factory).
import * as fs from "fs";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { listDemos } from "../lib/demos/index";

const ROOT = path.join(__dirname, "..", "lib", "demos");
const files = (dir: string): string[] => fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : []));
const sources = files(ROOT).map((f) => ({ f, text: fs.readFileSync(f, "utf8") }));

/** The comment that states demo `id`'s size, or null. */
function sizeNote(id: string): string | null {
  for (const { text } of sources) {
    const at = text.indexOf(`id: "${id}",`);
    if (at >= 0) {
      const defaults = text.indexOf("defaults", at);
      const m = /\/\/ Size: (.+)/.exec(text.slice(at, defaults));
      if (m) return m[1];
    }
    const factory = new RegExp(`// Size \\(([^)]*)\\): (.+)`).exec(text);
    if (factory && factory[1].split(/,\s*/).includes(id)) return factory[2];
  }
  return null;
}

describe("every demo says why its size is what it is", () => {
  it("finds the notes", () => {
    expect(listDemos().length).toBeGreaterThan(40);
  });
  for (const d of listDemos()) {
    it(`${d.id}: a "// Size:" note in its definition`, () => {
      const note = sizeNote(d.id);
      expect(note, `${d.id} has no "// Size:" comment before its defaults`).not.toBeNull();
      expect((note as string).length).toBeGreaterThan(30);
    });
  }
});
