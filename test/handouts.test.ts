// A handout opens from disk in headless Chromium with the network cut off, and everything renders: each Plotly
// chart draws its SVG, MathJax typesets the math, tables are there, and the page logs no errors.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { pathToFileURL } from "url";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTEBOOKS_DIR, ROOT, ensureKernelSpec, runProcess, type ProcessResult } from "./support/processes";

const CHROMIUM = "/usr/bin/chromium"; // Debian's package (installed by `npm test`'s set-up / .ci/run)
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-quic",
];

// The overview notebook when it exists, else the first notebook.
function pickNotebook(): string {
  const names = fs.readdirSync(NOTEBOOKS_DIR).filter((f) => f.endsWith(".ipynb")).sort();
  const name = names.includes("00-overview.ipynb") ? "00-overview.ipynb" : names[0];
  if (!name) throw new Error("no notebook under notebooks/ to export");
  return path.join(NOTEBOOKS_DIR, name);
}

const notebook = pickNotebook();
const stem = path.basename(notebook, ".ipynb");
let outDir = "";
let exported: ProcessResult;
let browser: Browser | undefined;

beforeAll(async () => {
  await ensureKernelSpec();
  outDir = fs.mkdtempSync(path.join(os.tmpdir(), "l11-handout-"));
  exported = await runProcess(process.execPath, [path.join(ROOT, "scripts", "handouts.mjs"), "--out", outDir, notebook]);
}, 10 * 60_000);

afterAll(async () => {
  await browser?.close();
  if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
});

describe(`handout of ${path.basename(notebook)}`, () => {
  it("is exported with an index and MathJax beside it", () => {
    expect(exported.code, exported.output).toBe(0);
    const index = fs.readFileSync(path.join(outDir, "index.html"), "utf8");
    expect(index).toContain(`href="${stem}.html"`);
    expect(fs.existsSync(path.join(outDir, `${stem}.html`))).toBe(true);
    expect(fs.existsSync(path.join(outDir, "mathjax", "tex-chtml-full.js"))).toBe(true);
    const html = fs.readFileSync(path.join(outDir, `${stem}.html`), "utf8");
    // Nothing the page loads by itself points off the disk (the Plotly bundle merely mentions URLs in its code).
    const loads = [...html.matchAll(/<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(loads.filter((u) => /^(https?:)?\/\/|^file:/.test(u))).toEqual([]);
  });

  it(
    "renders charts, tables and math from disk with the network blocked and no console errors",
    async () => {
      expect(exported.code, exported.output).toBe(0);
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const blocked: string[] = [];
      await context.route("**/*", (route) => {
        const url = route.request().url();
        if (/^(file|data|blob):/.test(url)) return route.continue();
        blocked.push(url);
        return route.abort("internetdisconnected");
      });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(`console: ${m.text()}`);
      });
      page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
      page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()} (${r.failure()?.errorText})`));

      await page.goto(pathToFileURL(path.join(outDir, `${stem}.html`)).href, { waitUntil: "load" });

      // Charts: every chart div gets Plotly's SVG.
      const charts = await page.locator(".l11-plot").count();
      expect(charts).toBeGreaterThan(0);
      await page
        .waitForFunction(() => Array.from(document.querySelectorAll(".l11-plot")).every((d) => d.querySelector("svg.main-svg")), null, { timeout: 60_000 })
        .catch(() => undefined);
      const drawn = await page.locator(".l11-plot:has(svg.main-svg)").count();
      expect(drawn, "charts drawn").toBe(charts);

      // Math: MathJax finished typesetting, produced output, and no TeX source is left visible.
      await page.waitForFunction(() => Boolean((window as any).MathJax?.startup?.promise), null, { timeout: 30_000 });
      await page.evaluate(() => (window as any).MathJax.startup.promise);
      expect(await page.locator("mjx-container").count()).toBeGreaterThan(0);
      const leftover = await page.evaluate(() => {
        const body = document.body.cloneNode(true) as HTMLElement;
        body.querySelectorAll("pre, code, script, style, mjx-container, .jp-InputArea").forEach((e) => e.remove());
        const visible = body.textContent ?? "";
        return [...(visible.match(/\$[^$\n]{1,200}\$/g) ?? []), ...(visible.match(/\\(ln|rho|frac|cdot|sum|le|ge)\b/g) ?? [])];
      });
      expect(leftover, "raw TeX left in the page").toEqual([]);

      // Tables: the demo tables render as HTML tables with header cells.
      expect(await page.locator(".jp-OutputArea-output table th").count()).toBeGreaterThan(0);

      expect(blocked, "requests that tried to leave the disk").toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
    5 * 60_000,
  );
});
