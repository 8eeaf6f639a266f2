// A handout opens from disk in headless Chromium with the network cut off, and everything renders: each Plotly
// chart draws its SVG, MathJax typesets the math, tables are there, and the page logs no errors. And on a machine
// without any CJK font (Chromium run with a fontconfig set-up that hides the system's CJK fonts) the Chinese text,
// chart titles and table headers included, is drawn from the handout's own font (fonts/ beside the pages), not as
// tofu boxes. The same set-up hides emoji fonts too (as on most servers and many laptops): every verdict mark is a
// word in a badge drawn by the page, and no emoji or dingbat code point is left on it to become a box.
// L11_HANDOUT_SCREENSHOT=FILE.png saves a screenshot of the page in that setting.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { pathToFileURL } from "url";
import { spawnSync } from "child_process";
import { chromium, type Browser, type Page } from "playwright-core";
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

// A fontconfig set-up with everything the system has except the fonts that cover Chinese, Japanese or Korean, and
// the emoji fonts (by file name, and every colour font): what a machine without fonts-noto-cjk and without an emoji
// font shows. Its cache goes to a temporary folder.
function fontConfigWithoutCjkOrEmoji(dir: string): string {
  fs.mkdirSync(path.join(dir, "cache"), { recursive: true });
  const reject = ["zh-cn", "zh-tw", "zh-hk", "ja", "ko"].map((l) => `      <pattern><patelt name="lang"><string>${l}</string></patelt></pattern>`);
  const emoji = ["*emoji*", "*Emoji*", "*EMOJI*", "*Symbola*", "*twemoji*"].map((g) => `      <glob>${g}</glob>`);
  const file = path.join(dir, "fonts.conf");
  fs.writeFileSync(
    file,
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <cachedir>${path.join(dir, "cache")}</cachedir>
  <selectfont>
    <rejectfont>
${emoji.join("\n")}
${reject.join("\n")}
      <pattern><patelt name="color"><bool>true</bool></patelt></pattern>
    </rejectfont>
  </selectfont>
</fontconfig>
`,
  );
  return file;
}

// How the page lays out its Chinese: the advance width of every CJK ideograph on it (HTML text through a Range per
// character, chart text through SVG's getSubStringLength), as a fraction of its font size. Noto Sans SC draws an
// ideograph 1 em wide; a tofu box is narrower (about 0.4 em in proportional text, 0.6 em in monospace). Measured on
// the page as laid out, not on a fresh canvas: Chromium can leave tofu on the page when a font loads late.
async function cjkWidths(page: Page) {
  return page.evaluate(() => {
    const ideograph = /[\u4e00-\u9fff]/;
    const narrow: string[] = [];
    let measured = 0;
    const note = (c: string, width: number, fontSize: number, el: Element) => {
      measured++;
      if (width < 0.9 * fontSize) narrow.push(`${c} ${(width / fontSize).toFixed(2)} em in <${el.tagName.toLowerCase()} class="${el.getAttribute("class") ?? ""}">`);
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
      const parent = n.parentElement;
      if (!parent || parent.closest("script, style, svg, mjx-container")) continue;
      const fontSize = parseFloat(getComputedStyle(parent).fontSize);
      for (let i = 0; i < n.data.length; i++) {
        if (!ideograph.test(n.data[i])) continue;
        const range = document.createRange();
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const width = range.getBoundingClientRect().width;
        if (width > 0) note(n.data[i], width, fontSize, parent); // 0: not displayed (a collapsed or hidden element)
      }
    }
    for (const t of Array.from(document.querySelectorAll("svg text")) as SVGTextElement[]) {
      const text = t.textContent ?? "";
      const fontSize = parseFloat(getComputedStyle(t).fontSize);
      for (let i = 0; i < text.length; i++) if (ideograph.test(text[i])) note(text[i], t.getSubStringLength(i, 1), fontSize, t);
    }
    return { measured, narrow };
  });
}

// Verdict marks on the page: the badges' words, and every emoji or dingbat code point left in its visible text
// (©, ® and ™ are pictographs to Unicode but in every text font).
async function verdictMarks(page: Page) {
  return page.evaluate(() => {
    const badges = Array.from(document.querySelectorAll(".l11-verdict")).map((b) => b.textContent ?? "");
    const mark = /[\p{Extended_Pictographic}\u2713\u2714\u2717\u2718\u25cb\u26aa\u270e\ufe0f]/u;
    const marks: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode() as Text | null; n; n = walker.nextNode() as Text | null) {
      if (n.parentElement?.closest("script, style")) continue;
      for (const ch of n.data) if (mark.test(ch) && !"©®™".includes(ch)) marks.push(`U+${(ch.codePointAt(0) as number).toString(16).toUpperCase()} in "${n.data.slice(0, 40)}"`);
    }
    return { badges, marks };
  });
}

// Whether two different characters, drawn in plain sans-serif, come out pixel for pixel the same: the same tofu box,
// because the machine has no font for them.
async function drawsSameBox(page: Page, a: string, b: string): Promise<boolean> {
  return page.evaluate(([x, y]) => {
    const draw = (c: string) => {
      const canvas = document.createElement("canvas");
      canvas.width = canvas.height = 64;
      const ctx = canvas.getContext("2d")!;
      ctx.font = "48px sans-serif";
      ctx.fillText(c, 4, 52);
      return Array.from(ctx.getImageData(0, 0, 64, 64).data).join(",");
    };
    return draw(x) === draw(y);
  }, [a, b]);
}

// The control for emoji: two different emoji marks come out as the same box (no emoji font on this set-up).
const emojiDrawsTofu = (page: Page): Promise<boolean> => drawsSameBox(page, "\u2705", "\u274c");

// The control: two different ideographs come out as the same box -- the machine has no CJK font, so whatever
// Chinese the page shows comes from its own font.
const sansSerifDrawsTofu = (page: Page): Promise<boolean> => drawsSameBox(page, "负", "载");

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
    // Its own Chinese font: the cuts of Noto Sans SC the pages need, their @font-face rules, the licence (OFL).
    const fonts = fs.readdirSync(path.join(outDir, "fonts"));
    expect(fonts).toEqual(expect.arrayContaining(["noto-sans-sc.css", "OFL.txt"]));
    expect(fonts.filter((f) => f.endsWith(".woff2")).length).toBeGreaterThan(0);
    expect(fs.readFileSync(path.join(outDir, "fonts", "OFL.txt"), "utf8")).toContain("SIL OPEN FONT LICENSE Version 1.1");
    expect(html).toContain('href="fonts/noto-sans-sc.css"');
    expect(index).toContain('href="fonts/noto-sans-sc.css"');
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
      // Their headers wrap at spaces and between Chinese characters only: never inside a Latin word or a number
      // ("P99", "req/s"), and a header's unit ("(个服务时间)") stays on one line. A probe table of narrow columns,
      // put among the page's outputs, makes its headers wrap whatever this page's own tables do.
      await page.evaluate(() => {
        const area = document.querySelector(".jp-OutputArea-output.jp-RenderedHTMLCommon");
        const probe = document.createElement("div");
        probe.className = "l11-table";
        const th = (label: string, unit: string) => `<th style="width:56px">${label}${unit ? ` <span class="l11-unit">(${unit})</span>` : ""}</th>`;
        probe.innerHTML = `<table style="width:224px"><thead><tr>${th("平均响应", "个服务时间")}${th("到达率", "req/s")}${th("P99 响应时间 Pareto", "")}${th("每个刷新间隔里收到最多的那台的份额", "")}</tr></thead></table>`;
        area?.appendChild(probe);
      });
      const badBreaks = await page.evaluate(() => {
        const bad: string[] = [];
        const latin = /[A-Za-z0-9/%.]/;
        for (const th of Array.from(document.querySelectorAll(".jp-OutputArea-output table th"))) {
          const chars: Array<[string, number, boolean]> = [];
          const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
          const range = document.createRange();
          for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
            const inUnit = Boolean(node.parentElement?.closest(".l11-unit"));
            for (let k = 0; k < node.data.length; k++) {
              range.setStart(node, k);
              range.setEnd(node, k + 1);
              const rect = range.getClientRects()[0];
              if (rect && node.data[k].trim()) chars.push([node.data[k], Math.round(rect.top), inUnit]);
            }
          }
          for (let k = 1; k < chars.length; k++) {
            const [a, top0, unit0] = chars[k - 1];
            const [b, top1, unit1] = chars[k];
            if (top1 === top0) continue;
            const adjacent = th.textContent?.includes(a + b);
            if ((adjacent && latin.test(a) && latin.test(b)) || (unit0 && unit1)) bad.push(`${th.textContent}: ${a}|${b}`);
          }
        }
        return bad;
      });
      expect(badBreaks, "table headers broken inside a word, a number or a unit").toEqual([]);
      const probeLines = await page.evaluate(() => {
        const th = Array.from(document.querySelectorAll(".jp-OutputArea-output table th")).find((e) => e.textContent?.startsWith("每个刷新间隔"));
        const range = document.createRange();
        range.selectNodeContents(th as Node);
        return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
      });
      expect(probeLines, "a Chinese header still wraps between its characters").toBeGreaterThan(2);

      expect(blocked, "requests that tried to leave the disk").toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
    5 * 60_000,
  );

  it(
    "shows its Chinese from its own font and its verdicts as words on a machine without CJK or emoji fonts (no tofu)",
    async () => {
      expect(exported.code, exported.output).toBe(0);
      const fontConfig = fontConfigWithoutCjkOrEmoji(path.join(outDir, ".fontconfig"));
      const env = { ...process.env, FONTCONFIG_FILE: fontConfig } as Record<string, string>;
      // The set-up really hides them (fc-list comes with Debian's fontconfig; without it the control below still holds).
      const listed = spawnSync("fc-list", [":lang=zh", "family"], { env, encoding: "utf8" });
      expect(listed.error, "fc-list is missing: run `sudo apt-get install -y --no-install-recommends fontconfig`").toBeUndefined();
      expect(listed.stdout.trim(), "CJK fonts the test's fontconfig still shows").toBe("");
      const emojiFonts = spawnSync("fc-list", ["family", "file"], { env, encoding: "utf8" });
      expect(emojiFonts.stdout.split("\n").filter((l) => /emoji/i.test(l)), "emoji fonts the test's fontconfig still shows").toEqual([]);

      const noCjk = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, env });
      try {
        const context = await noCjk.newContext({ viewport: { width: 1280, height: 900 } });
        await context.route("**/*", (route) => (/^(file|data|blob):/.test(route.request().url()) ? route.continue() : route.abort("internetdisconnected")));
        for (const page of [`${stem}.html`, "index.html"]) {
          const tab = await context.newPage();
          await tab.goto(pathToFileURL(path.join(outDir, page)).href, { waitUntil: "load" });
          if (page !== "index.html") {
            await tab.waitForFunction(() => Array.from(document.querySelectorAll(".l11-plot")).every((d) => d.querySelector("svg.main-svg")), null, { timeout: 60_000 });
            await tab.evaluate(() => (window as any).MathJax?.startup?.promise);
          }
          await tab.evaluate(() => document.fonts.ready);
          expect(await sansSerifDrawsTofu(tab), "plain sans-serif draws tofu on this set-up (the control)").toBe(true);
          expect(await emojiDrawsTofu(tab), "emoji draw as tofu on this set-up (the control)").toBe(true);
          // Verdicts are words in badges the page draws (their Chinese is measured with the rest below), and no emoji
          // or dingbat code point is left to become a box.
          const verdicts = await verdictMarks(tab);
          if (page !== "index.html") expect(verdicts.badges.length, `${page}: verdict badges`).toBeGreaterThan(0);
          for (const word of verdicts.badges) expect(["成立", "不成立", "无法判断"]).toContain(word);
          expect(verdicts.marks, `${page}: emoji or dingbat marks in the text`).toEqual([]);
          // The browser loaded faces of the handout font (from disk, beside the page)...
          const loaded = await tab.evaluate(() => {
            let n = 0;
            document.fonts.forEach((f) => {
              if (f.family.replace(/["']/g, "") === "L11 Noto Sans SC" && f.status === "loaded") n++;
            });
            return n;
          });
          expect(loaded, `${page}: loaded faces of the handout font`).toBeGreaterThan(0);
          // ...and every Chinese character on the page, prose, headings, tables, code comments and chart text, is a
          // full-width glyph, not a tofu box.
          const widths = await cjkWidths(tab);
          expect(widths.measured, `${page}: Chinese characters measured`).toBeGreaterThan(page === "index.html" ? 20 : 200);
          expect(widths.narrow.slice(0, 20), `${page}: Chinese characters drawn as tofu (${widths.narrow.length} of ${widths.measured})`).toEqual([]);
          if (page !== "index.html" && process.env.L11_HANDOUT_SCREENSHOT) await tab.screenshot({ path: process.env.L11_HANDOUT_SCREENSHOT });
          await tab.close();
        }
        await context.close();
      } finally {
        await noCjk.close();
      }
    },
    5 * 60_000,
  );
});
