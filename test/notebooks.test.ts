// Every notebook under notebooks/ runs top to bottom in the tslab kernel through Jupyter (nbclient), via the one
// runner the handouts use (scripts/run_notebooks.py). The runner fails on an error, on an aborted or skipped cell
// (tslab silently aborts the cells after a failing one), and prints the cell with its stderr; the second block
// checks that it really does, on small fixture notebooks.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { beforeAll, describe, expect, it } from "vitest";
import { NOTEBOOKS_DIR, ROOT, ensureKernelSpec, runNotebooks } from "./support/processes";
import { figureProblems } from "../lib/view/figure/check";
import type { Figure } from "../lib/view/plot";

const NOTEBOOK_TIMEOUT_MS = 15 * 60_000; // generous: the first test waits for the whole collection (about a minute)
const FIXTURE_TIMEOUT_MS = 2 * 60_000;
const notebooks = fs.existsSync(NOTEBOOKS_DIR) ? fs.readdirSync(NOTEBOOKS_DIR).filter((f) => f.endsWith(".ipynb")).sort() : [];
const fixture = (name: string) => path.join(ROOT, "test", "fixtures", name);

beforeAll(async () => {
  await ensureKernelSpec();
}, 60_000);

interface SummaryEntry {
  name: string;
  ok: boolean;
  seconds: number;
  kernelStartSeconds: number;
  failure: string | null;
  cells: Array<[number, number]>;
}

// The whole collection runs once, in one runner, as `npm run handouts` runs it (each notebook with a fresh kernel,
// the next kernel starting while the current notebook runs); each notebook is then its own test.
interface CollectionRun {
  code: number | null;
  output: string;
  summary: SummaryEntry[];
  /** per notebook name: every chart its outputs draw, as drawn (the runner's --figures-dir) */
  figures: Map<string, Array<{ cell: number; figure: Figure }>>;
  /** per notebook name: its handout page as the runner exported it (--html-dir) */
  html: Map<string, string>;
}
let collection: Promise<CollectionRun> | null = null;
function runCollection(): Promise<CollectionRun> {
  if (collection) return collection;
  collection = (async () => {
    const summaryFile = path.join(os.tmpdir(), `notebooks-test-${process.pid}.json`);
    const figuresDir = fs.mkdtempSync(path.join(os.tmpdir(), "notebooks-test-figures-"));
    const htmlDir = fs.mkdtempSync(path.join(os.tmpdir(), "notebooks-test-html-"));
    const r = await runNotebooks(
      notebooks.map((n) => path.join(NOTEBOOKS_DIR, n)),
      ["--summary", summaryFile, "--figures-dir", figuresDir, "--html-dir", htmlDir, "--edition", "student"],
    );
    const summary: SummaryEntry[] = fs.existsSync(summaryFile) ? JSON.parse(fs.readFileSync(summaryFile, "utf8")) : [];
    fs.rmSync(summaryFile, { force: true });
    const figures = new Map(fs.readdirSync(figuresDir).map((f) => [f.replace(/\.json$/, ""), JSON.parse(fs.readFileSync(path.join(figuresDir, f), "utf8"))]));
    fs.rmSync(figuresDir, { recursive: true, force: true });
    const html = new Map(fs.readdirSync(htmlDir).filter((f) => f.endsWith(".html")).map((f) => [f.replace(/\.html$/, ""), fs.readFileSync(path.join(htmlDir, f), "utf8")]));
    fs.rmSync(htmlDir, { recursive: true, force: true });
    return { code: r.code, output: r.output, summary, figures, html };
  })();
  return collection;
}

describe("notebooks execute top to bottom in the tslab kernel", () => {
  it("there are notebooks to run", () => {
    expect(notebooks.length).toBeGreaterThan(0);
  });

  for (const name of notebooks) {
    it(
      name,
      async () => {
        const r = await runCollection();
        const entry = r.summary.find((e) => e.name === name.replace(/\.ipynb$/, ""));
        if (!entry) throw new Error(`${name}: no result from the runner (exit ${r.code}):\n${r.output.slice(-4000)}`);
        if (!entry.ok) throw new Error(`${name} failed after ${entry.seconds.toFixed(1)} s:\n${entry.failure}`);
        expect(entry.cells.length).toBeGreaterThan(0);
        console.log(`${name}: ok in ${entry.seconds.toFixed(1)} s (kernel start ${entry.kernelStartSeconds.toFixed(1)} s, ${entry.cells.length} code cells)`);
      },
      NOTEBOOK_TIMEOUT_MS,
    );
  }
});

// Every chart of the run, as the reader sees it (after lib/view's readability pass): a title on every axis, at
// least two labelled ticks on every log axis, no two series alike (lib/view/figure/check.ts).
describe("every chart a notebook draws reads at a glance", () => {
  for (const name of notebooks) {
    it(
      name,
      async () => {
        const r = await runCollection();
        const stem = name.replace(/\.ipynb$/, "");
        if (!r.summary.find((e) => e.name === stem)?.ok) return; // its failure is reported above
        const drawn = r.figures.get(stem);
        if (!drawn) throw new Error(`${name}: the runner wrote no figures file`);
        // a notebook that plots has figures in the file (else the dump missed them and the check below proves nothing)
        const cells = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS_DIR, name), "utf8")).cells as Array<{ cell_type: string; source: string | string[] }>;
        const plots = cells.some((c) => c.cell_type === "code" && /\bplot\(/.test(Array.isArray(c.source) ? c.source.join("") : c.source));
        if (plots) expect(drawn.length, `${name}: charts found in its outputs`).toBeGreaterThan(0);
        const problems = drawn.flatMap(({ cell, figure }) => {
          const title = String((figure.layout?.title as { text?: string } | undefined)?.text ?? "").replace(/<br>/g, "");
          return figureProblems(figure).map((p) => `cell ${cell} «${title}»: ${p}`);
        });
        expect(problems, `${name}: ${drawn.length} chart(s)`).toEqual([]);
      },
      NOTEBOOK_TIMEOUT_MS,
    );
  }
});

/** The text a reader sees on a handout page: no script or style, tags and comments dropped, an entity one character,
 * every run of white space one space. */
function visibleText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, "")
    .replace(/<!--[\s\S]*?-->/g, "")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, "x")
    .replace(/\s+/g, " ")
    .trim();
}

// Issue 28: §3 a student can read. Notebook 03 teaches the lecture's reading; the released code's material is in its
// appendix. Measured on the handout pages of the one collection run above (no notebook runs twice).
describe("notebook 03's handout is short and links its appendix", () => {
  const PREBLE = "03-preble";
  const APPENDIX = "10-appendix-preble-as-released";
  it("03's markdown links the appendix near the top; the appendix is a notebook that links back", () => {
    const md = (name: string) => (JSON.parse(fs.readFileSync(path.join(NOTEBOOKS_DIR, `${name}.ipynb`), "utf8")).cells as Array<{ cell_type: string; source: string | string[] }>).filter((c) => c.cell_type === "markdown").map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source));
    expect(md(PREBLE)[0]).toContain(`](${APPENDIX}.ipynb)`);
    expect(md(APPENDIX).join("\n")).toContain("](03-preble.ipynb)");
  });
  it("visibleText counts what a reader sees", () => {
    expect(visibleText("<p>讲 <b>义</b>\n\n &amp; x</p><script>var f = 1;</script><style>p{}</style><!-- c -->")).toBe("讲 义 x x");
  });
  it(
    "at most 38,000 characters of text and 12 charts; it links the appendix, which links back",
    async () => {
      const r = await runCollection();
      if (!r.summary.find((e) => e.name === PREBLE)?.ok) return; // its failure is reported above
      const page = r.html.get(PREBLE);
      if (!page) throw new Error(`${PREBLE}: the runner wrote no handout page`);
      const chars = visibleText(page).length;
      console.log(`${PREBLE} handout: ${chars} characters of text, ${r.figures.get(PREBLE)?.length ?? 0} charts`);
      expect(chars).toBeLessThanOrEqual(38_000);
      expect(r.figures.get(PREBLE)?.length ?? 0).toBeLessThanOrEqual(12);
      expect(page).toContain(`href="${APPENDIX}.html`);
      expect(fs.existsSync(path.join(NOTEBOOKS_DIR, `${APPENDIX}.ipynb`))).toBe(true);
      const appendix = r.html.get(APPENDIX);
      if (appendix) expect(appendix).toContain(`href="${PREBLE}.html`);
    },
    NOTEBOOK_TIMEOUT_MS,
  );
});

describe("the notebook runner catches what nbclient lets through", () => {
  it(
    "fails on a throwing cell, naming the cell with its source and stderr, and lists the cells left unrun",
    async () => {
      const r = await runNotebooks([fixture("runner-error.ipynb")]);
      expect(r.code).toBe(1);
      expect(r.output).toMatch(/FAILED .*runner-error\.ipynb: cell 2 \(code cell 2\) raised an error/);
      expect(r.output).toContain('throw new Error("fixture boom " + answer);'); // the cell's source
      expect(r.output).toContain("Error: fixture boom 42"); // its stderr, with a value computed by cell 1
      expect(r.output).toMatch(/1 later code cell\(s\) not run: cells 3/);
    },
    FIXTURE_TIMEOUT_MS,
  );

  it(
    "fails on a TypeScript compile error (tslab reports it on stderr only)",
    async () => {
      const r = await runNotebooks([fixture("runner-type-error.ipynb")]);
      expect(r.code).toBe(1);
      expect(r.output).toMatch(/cell 2 \(code cell 2\) raised an error/);
      expect(r.output).toContain("Type 'string' is not assignable to type 'number'");
    },
    FIXTURE_TIMEOUT_MS,
  );

  it(
    "lets a cell tagged raises-exception raise, and still runs the cells after it",
    async () => {
      const r = await runNotebooks([fixture("runner-allowed-error.ipynb")]);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(/runner-allowed-error: ok in/);
    },
    FIXTURE_TIMEOUT_MS,
  );

  it(
    "runs several notebooks, one after another or --jobs 2 at once: a failing one does not stop the others, and the summary keeps the given order",
    async () => {
      for (const jobs of ["1", "2"]) {
        const summaryFile = path.join(os.tmpdir(), `runner-jobs-${process.pid}-${jobs}.json`);
        const r = await runNotebooks([fixture("runner-error.ipynb"), fixture("runner-allowed-error.ipynb")], ["--jobs", jobs, "--summary", summaryFile]);
        expect(r.code, r.output).toBe(1);
        expect(r.output).toMatch(/1 notebook\(s\) ran cleanly, 1 failed/);
        const summary = JSON.parse(fs.readFileSync(summaryFile, "utf8")) as SummaryEntry[];
        fs.rmSync(summaryFile, { force: true });
        expect(summary.map((e) => [e.name, e.ok])).toEqual([
          ["runner-error", false],
          ["runner-allowed-error", true],
        ]);
        for (const e of summary) expect(e.kernelStartSeconds).toBeGreaterThan(0);
      }
      const bad = await runNotebooks([fixture("runner-allowed-error.ipynb")], ["--jobs", "0"]);
      expect(bad.code).toBe(2);
      expect(bad.output).toContain("--jobs must be an integer >= 1, got 0");
      const behind = await runNotebooks([fixture("runner-allowed-error.ipynb")], ["--ahead", "-1"]);
      expect(behind.code).toBe(2);
      expect(behind.output).toContain("--ahead must be an integer >= 0, got -1");
    },
    2 * FIXTURE_TIMEOUT_MS,
  );

  it(
    "fails on a cell the kernel aborted (without waiting out tslab's cancel window after an error)",
    async () => {
      const r = await runNotebooks([fixture("runner-allowed-error.ipynb")], ["--after-error-wait", "0"]);
      expect(r.code).toBe(1);
      expect(r.output).toMatch(/cell 3 \(code cell 3\) was aborted by the kernel/);
    },
    FIXTURE_TIMEOUT_MS,
  );
});
