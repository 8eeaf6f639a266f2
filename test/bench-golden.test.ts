// Same seed → same numbers: the fast demos, at their default parameters, must reproduce the tables committed in
// bench/golden/*.json cell for cell (bench/golden.ts; `npm run bench -- golden` checks every demo). After a change
// that is meant to change results, rewrite the files with `npm run bench -- golden --update --reason "…"` and commit them with that reason.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { canonicalTable, compareWithGolden, firstDifference, formatGolden, GOLDEN_DIR, goldenOf, goldenPath, MEASURED_COLUMNS, readGolden, SMALL_GOLDEN_DIR } from "../bench/golden";
import { SMALL } from "./support/demo-sizes";
import type { Table } from "../lib/core/table";
import { listDemos, runDemo } from "../lib/demos/index";

// More than ~1 s each at their defaults: checked at their small parameters (test/support/demo-sizes.ts) against
// bench/golden/small/ here, and at their defaults by `npm run bench -- golden`.
const SLOW = new Set(["01.2", "01.3", "02.1", "03.1", "03.2", "03.4", "03.6", "03.10", "03.11", "04.2", "04.3", "05.3", "05.4", "05.5", "06.1", "06.4"]);
// 03.9 times the scheduler on this machine: its speed column is left out of the comparison by name
// (MEASURED_COLUMNS in bench/golden.ts), the rest of its table is compared.
const ENVIRONMENT = new Set<string>([]);

describe("golden outputs (bench/golden/*.json)", () => {
  it("every registered demo has a golden file (the slow ones a small one too)", () => {
    const missing = listDemos().filter((d) => !fs.existsSync(goldenPath(d.id)) || (SLOW.has(d.id) && !fs.existsSync(goldenPath(d.id, SMALL_GOLDEN_DIR)))).map((d) => d.id);
    expect(missing, `no golden file for ${missing.join(", ")}: run \`npm run bench -- golden --update\` and commit bench/golden/`).toEqual([]);
  });

  for (const d of listDemos().filter((x) => !SLOW.has(x.id) && !ENVIRONMENT.has(x.id))) {
    it(`${d.id} at default parameters reproduces its golden table and verdicts`, () => {
      const difference = compareWithGolden(d.id, runDemo(d.id), readGolden(d.id));
      expect(difference, `${difference}\n(if the change is intended: npm run bench -- golden --update --reason "…")`).toBeNull();
    });
  }
  for (const d of listDemos().filter((x) => SLOW.has(x.id))) {
    it(`${d.id} at its small parameters reproduces bench/golden/small/${d.id}.json and its verdicts`, () => {
      expect(SMALL[d.id], `${d.id} has no small parameters in test/support/demo-sizes.ts`).toBeDefined();
      const difference = compareWithGolden(d.id, runDemo(d.id, SMALL[d.id]), readGolden(d.id, SMALL_GOLDEN_DIR));
      expect(difference, `${difference}\n(if the change is intended: npm run bench -- golden --small --ids=${d.id} --update --reason "…")`).toBeNull();
    }, 60_000);
  }
});

describe("one unit for the prefix-cache hit rate", () => {
  it("every golden table (defaults and small) shows a hit rate as a percentage with one decimal, never as a fraction", () => {
    const seen: string[] = [];
    for (const dir of [GOLDEN_DIR, SMALL_GOLDEN_DIR]) {
      for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
        const g = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8")) as { id: string; table: { columns: { key: string; label: string; format?: string; formatFrom?: string }[]; rows: Record<string, unknown>[] } };
        for (const c of g.table.columns) {
          if (/hitrate/i.test(c.key) || c.label.includes("命中率")) {
            seen.push(`${g.id}:${c.key}`);
            expect(c.format, `${file}: column ${c.key} (${c.label})`).toBe("percent1");
          }
          // a column of mixed measures: its hit-rate rows (a text cell naming 命中率) take percent1 from their own cell
          if (c.formatFrom) for (const r of g.table.rows.filter((x) => Object.values(x).some((v) => typeof v === "string" && v.includes("命中率")))) expect(r[c.formatFrom], `${file}: ${c.key} of a hit-rate row`).toBe("percent1");
        }
      }
    }
    expect(seen.length).toBeGreaterThan(10);
  });
});

describe("the golden comparison itself", () => {
  it("a measured-speed column (03.9's decisionsPerSecond) is left out of the comparison, every other cell is not", () => {
    const speed: Table = { title: "s", columns: [{ key: "decile", label: "d" }, { key: "decisionsPerSecond", label: "v" }], rows: [{ decile: 1, decisionsPerSecond: 1000 }] };
    const g = goldenOf("03.9", speed);
    expect(compareWithGolden("03.9", { ...speed, rows: [{ decile: 1, decisionsPerSecond: 5 }] }, g)).toBeNull();
    expect(compareWithGolden("03.9", { ...speed, rows: [{ decile: 2, decisionsPerSecond: 1000 }] }, g)).toMatch(/column decile/);
    expect(MEASURED_COLUMNS["03.9"]).toEqual(["decisionsPerSecond"]);
  });

  const table: Table = {
    title: "t",
    columns: [
      { key: "policy", label: "policy", format: "text" },
      { key: "mean", label: "mean", unit: "s", format: "fixed2" },
    ],
    rows: [
      { policy: "a", mean: 1.5 },
      { policy: "b", mean: NaN },
      { policy: "c", mean: Infinity },
    ],
    notes: ["n"],
  };

  it("writes a file that reads back equal, NaN and Infinity included", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "golden-"));
    const g = goldenOf("00.1", table);
    fs.writeFileSync(path.join(dir, "00.1.json"), formatGolden(g));
    const back = readGolden("00.1", dir);
    expect(back).toEqual(g);
    expect(compareWithGolden("00.1", table, back)).toBeNull();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("names the demo, the row (by its text cells) and the column of the first difference", () => {
    const g = goldenOf("00.1", table);
    const changed = { ...table, rows: [table.rows[0], { policy: "b", mean: 2 }, table.rows[2]] };
    expect(compareWithGolden("00.1", changed, g)).toBe('demo 00.1: row 1 (policy=b) column mean: golden {"nonFinite":"NaN"}, now 2');
    const tiny = { ...table, rows: [{ policy: "a", mean: 1.5 * (1 + 1e-15) }, table.rows[1], table.rows[2]] };
    expect(compareWithGolden("00.1", tiny, g)).toMatch(/row 0 \(policy=a\) column mean: golden 1.5, now 1.50000/);
    expect(compareWithGolden("00.1", tiny, g, 1e-12)).toBeNull();
    expect(compareWithGolden("00.1", { ...table, rows: table.rows.slice(0, 2) }, g)).toMatch(/rows: golden has 3 entries, now 2/);
    expect(compareWithGolden("00.1", table, null)).toMatch(/no golden file/);
  });

  it("a golden file whose table was edited by hand no longer matches its hash", () => {
    const g = goldenOf("00.1", table);
    const edited = { ...g, table: canonicalTable({ ...table, notes: ["edited"] }) };
    expect(compareWithGolden("00.1", { ...table, notes: ["edited"] }, edited)).toMatch(/sha256 does not match/);
    expect(firstDifference(g.table, edited.table)).toMatch(/notes\[0\]/);
  });
});
