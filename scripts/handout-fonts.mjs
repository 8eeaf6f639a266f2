// The handouts' own Chinese font, so that a handout shows Chinese on a machine without any CJK font (no tofu boxes),
// offline. The font is Noto Sans SC from the npm package @fontsource/noto-sans-sc (SIL Open Font License 1.1), which
// ships it cut into ~100 files by unicode-range. addHandoutFont(dir) reads every page in `dir`, keeps only the cuts
// that hold a CJK character the pages use (code points from U+2E80 on: CJK ideographs, CJK punctuation, full-width
// forms; Latin, Greek and math symbols are left to the system's own sans-serif), copies those .woff2 files to
// dir/fonts/ with the licence, and writes dir/fonts/noto-sans-sc.css with their @font-face rules (each with its
// unicode-range cut down to the CJK part, so a browser loads only the cuts a page needs and draws only CJK from it).
// Pages link that CSS and put HANDOUT_FONT_FAMILY FIRST in their font lists (scripts/handout-template, the index in
// scripts/handouts.mjs): Latin text, outside its unicode-range, still comes from the system's fonts. First, not last:
// Chromium does not redraw text whose first font is a system font once a web font further down the list has loaded,
// so a fallback-only web font leaves tofu boxes on the page (seen in Chromium 156; test/handouts.test.ts checks).
// Node built-ins only.
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "./project.mjs";

/** The family name the pages use for the handout font (our own name, so no system font of that name can stand in). */
export const HANDOUT_FONT_FAMILY = "L11 Noto Sans SC";
export const HANDOUT_FONT_CSS = "fonts/noto-sans-sc.css";
/** Regular and bold: headings, table headers and chart titles are bold. */
const WEIGHTS = [400, 700];
/** From here on a character is drawn from the handout font (when the system has no glyph for it). */
const FIRST_CJK = 0x2e80;

const PACKAGE = path.join(ROOT, "node_modules", "@fontsource", "noto-sans-sc");

/** @returns {{label: string, weight: number, file: string, unicodeRange: string, ranges: [number, number][]}[]} */
export function fontCuts(weights = WEIGHTS) {
  const cuts = [];
  for (const weight of weights) {
    const css = fs.readFileSync(path.join(PACKAGE, `${weight}.css`), "utf8");
    for (const m of css.matchAll(/\/\*\s*(\S+)\s*\*\/\s*@font-face\s*\{([^}]*)\}/g)) {
      const body = m[2];
      const file = /url\(\.\/files\/([^)]+\.woff2)\)/.exec(body)?.[1];
      const unicodeRange = /unicode-range:\s*([^;]+);/.exec(body)?.[1].trim();
      if (!file || !unicodeRange) continue;
      const ranges = unicodeRange.split(",").map((r) => {
        const [lo, hi] = r.trim().replace(/^U\+/i, "").split("-");
        return /** @type {[number, number]} */ ([parseInt(lo, 16), parseInt(hi ?? lo, 16)]);
      });
      // Only the CJK part of the cut's range: its Latin letters and digits stay with the system's fonts.
      const cjk = ranges.filter(([, hi]) => hi >= FIRST_CJK).map(([lo, hi]) => /** @type {[number, number]} */ ([Math.max(lo, FIRST_CJK), hi]));
      if (cjk.length === 0) continue;
      const hex = (n) => n.toString(16);
      const range = cjk.map(([lo, hi]) => (lo === hi ? `U+${hex(lo)}` : `U+${hex(lo)}-${hex(hi)}`)).join(",");
      cuts.push({ label: m[1], weight, file, unicodeRange: range, ranges: cjk });
    }
  }
  return cuts;
}

/** The CJK code points in a page's source: its text and markup, \uXXXX escapes in inline JSON (chart titles),
 * &#…; entities. Style sheets (icon fonts' private-use code points) and a library bundle inlined in a page
 * (Plotly's, 1.5 MB: its code names characters that no page shows) are skipped. */
export function cjkCodePoints(html, into = new Set()) {
  const decoded = html
    .replace(/<style\b[^>]*>[\s\S]*?<\/style>/g, "")
    .replace(/<script\b[^>]*>([\s\S]*?)<\/script>/g, (all, body) => (body.length > 100_000 ? "" : all))
    .replace(/\\u([0-9a-fA-F]{4})/g, (_, h) => String.fromCharCode(parseInt(h, 16)))
    .replace(/&#x([0-9a-fA-F]+);/g, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d) => String.fromCodePoint(parseInt(d, 10)));
  for (const ch of decoded) {
    const cp = ch.codePointAt(0);
    if (cp >= FIRST_CJK && !(cp >= 0xd800 && cp <= 0xf8ff) && cp !== 0xfeff) into.add(cp); // not surrogates, private use
  }
  return into;
}

/**
 * Copies the cuts of the font that the pages in `dir` (every *.html) need into dir/fonts/ and writes the CSS.
 * @returns {{files: number, bytes: number, characters: number, missing: string[], pages: number}}
 */
export function addHandoutFont(dir) {
  const pages = fs.readdirSync(dir).filter((f) => f.endsWith(".html"));
  const used = new Set();
  for (const page of pages) cjkCodePoints(fs.readFileSync(path.join(dir, page), "utf8"), used);
  const out = path.join(dir, "fonts");
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });

  const cuts = fontCuts();
  const covers = (cut, cp) => cut.ranges.some(([lo, hi]) => cp >= lo && cp <= hi);
  const chosen = cuts.filter((cut) => [...used].some((cp) => covers(cut, cp)));
  const regular = cuts.filter((c) => c.weight === WEIGHTS[0]);
  const missing = [...used].filter((cp) => !regular.some((cut) => covers(cut, cp))).map((cp) => String.fromCodePoint(cp));

  let bytes = 0;
  const rules = [];
  for (const cut of chosen) {
    fs.copyFileSync(path.join(PACKAGE, "files", cut.file), path.join(out, cut.file));
    bytes += fs.statSync(path.join(out, cut.file)).size;
    rules.push(
      `/* ${cut.label} */\n@font-face {\n  font-family: '${HANDOUT_FONT_FAMILY}';\n  font-style: normal;\n  font-display: block;\n` +
        `  font-weight: ${cut.weight};\n  src: url(./${cut.file}) format('woff2');\n  unicode-range: ${cut.unicodeRange};\n}\n`,
    );
  }
  const version = JSON.parse(fs.readFileSync(path.join(PACKAGE, "package.json"), "utf8")).version;
  const header =
    `/* Noto Sans SC (Google; SIL Open Font License 1.1, see OFL.txt beside this file), from @fontsource/noto-sans-sc ${version}:\n` +
    `   the ${chosen.length} unicode-range cut(s) of weights ${WEIGHTS.join(", ")} that hold the ${used.size} CJK characters these handouts use.\n` +
    `   Written by scripts/handout-fonts.mjs. */\n`;
  fs.writeFileSync(path.join(out, "noto-sans-sc.css"), header + rules.join("\n"));
  fs.copyFileSync(path.join(PACKAGE, "LICENSE"), path.join(out, "OFL.txt"));
  return { files: chosen.length, bytes, characters: used.size, missing, pages: pages.length };
}
