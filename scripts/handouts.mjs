// `npm run handouts`: executes every notebook (scripts/run_notebooks.py, the same runner the tests use) and writes
// dist/handouts/: index.html, one HTML per notebook, and the MathJax files they load. The pages open from disk with
// no network: Plotly is inlined in the first chart of each notebook, MathJax sits beside the pages, and the
// template (scripts/handout-template) loads nothing from a CDN.
// Two editions: student (the default; the cells tagged `instructor` — reference answers, rubrics — are left out)
// into dist/handouts, and instructor (everything; reference answers folded in <details>) into
// dist/handouts-instructor.
//   node scripts/handouts.mjs [--edition student|instructor] [--out DIR] [notebooks/NN-name.ipynb ...]
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { HANDOUT_FONT_CSS, HANDOUT_FONT_FAMILY, addHandoutFont } from "./handout-fonts.mjs";
import { parseOptions } from "./options.mjs";
import { PYTHON, ROOT, jupyterEnv, listNotebooks } from "./project.mjs";

const started = Date.now();
const USAGE = "npm run handouts -- [--edition student|instructor] [--out DIR] [notebooks/NN-name.ipynb …]";
const { values, positional } = parseOptions(process.argv.slice(2), {
  usage: USAGE,
  options: { out: { value: true }, edition: { value: true, choices: ["student", "instructor"] } },
});
const edition = String(values.edition ?? "student");
const outDir = values.out ? path.resolve(String(values.out)) : path.join(ROOT, "dist", edition === "student" ? "handouts" : "handouts-instructor");
const chosen = positional.map((p) => path.resolve(p));
for (const nb of chosen) {
  if (!fs.existsSync(nb) || !nb.endsWith(".ipynb")) {
    console.error(`handouts: not a notebook: ${nb}\nusage: ${USAGE}`);
    process.exit(2);
  }
}
const notebooks = chosen.length > 0 ? chosen : listNotebooks();
if (notebooks.length === 0) {
  console.error("handouts: no notebooks found under notebooks/");
  process.exit(1);
}

// Fresh output: drop pages from earlier runs (a renamed notebook must not leave its old page behind).
fs.mkdirSync(outDir, { recursive: true });
for (const f of fs.readdirSync(outDir)) if (f.endsWith(".html") || f === "mathjax") fs.rmSync(path.join(outDir, f), { recursive: true, force: true });

// MathJax 3 (npm `mathjax`): the single-file TeX → CommonHTML build with every TeX extension, plus its fonts.
const mathjax = path.join(ROOT, "node_modules", "mathjax");
const mjOut = path.join(outDir, "mathjax");
fs.mkdirSync(mjOut, { recursive: true });
fs.copyFileSync(path.join(mathjax, "es5", "tex-chtml-full.js"), path.join(mjOut, "tex-chtml-full.js"));
fs.cpSync(path.join(mathjax, "es5", "output", "chtml", "fonts", "woff-v2"), path.join(mjOut, "output", "chtml", "fonts", "woff-v2"), { recursive: true });
fs.copyFileSync(path.join(mathjax, "LICENSE"), path.join(mjOut, "LICENSE"));

const summaryFile = path.join(outDir, ".summary.json");
console.log(`handouts: executing ${notebooks.length} notebook(s) into ${path.relative(process.cwd(), outDir) || "."} (${edition} edition)`);
const r = spawnSync(
  PYTHON,
  [path.join(ROOT, "scripts", "run_notebooks.py"), "--html-dir", outDir, "--mathjax-url", "mathjax/tex-chtml-full.js", "--summary", summaryFile, "--edition", edition, ...notebooks],
  { stdio: "inherit", env: jupyterEnv(), cwd: ROOT },
);
if (r.error) {
  console.error(`handouts: could not run ${PYTHON}: ${r.error.message}`);
  process.exit(1);
}
const summary = fs.existsSync(summaryFile) ? JSON.parse(fs.readFileSync(summaryFile, "utf8")) : [];
fs.rmSync(summaryFile, { force: true });

const escape = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
const items = summary
  .map((e) =>
    e.ok
      ? `<li><a href="${escape(encodeURI(e.html))}">${escape(e.title)}</a>${e.subtitle ? `<br><span class="sub">${escape(e.subtitle)}</span>` : ""}<span class="file">${escape(e.name)}.ipynb</span></li>`
      : `<li class="failed">${escape(e.title)} <span class="file">${escape(e.name)}.ipynb — 执行失败 · failed to run</span></li>`,
  )
  .join("\n");
const EDITION_NAME = edition === "student" ? "学生版" : "教师版";
const EDITION_NOTE = edition === "student" ? "这是学生版：练习的参考答案和评分标准不在其中。" : "这是教师版：练习的参考答案和文字题的评分标准折叠在各题下面。";
const index = `<!DOCTYPE html>
<html lang="zh">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>第 11 讲 · 负载均衡与路由 — 讲义（${EDITION_NAME}）· Handouts</title>
<link rel="stylesheet" type="text/css" href="${HANDOUT_FONT_CSS}">
<style>
body { font-family: '${HANDOUT_FONT_FAMILY}', sans-serif; max-width: 860px; margin: 2em auto; padding: 0 1em; line-height: 1.5; color: #222; }
h1 { font-size: 1.5em; }
ul.pages { list-style: none; padding-left: 0; }
li { margin: 0.7em 0; }
.sub { color: #555; font-size: 0.92em; }
.file { display: block; color: #888; font-size: 0.8em; font-family: monospace; }
.failed { color: #a00; }
</style>
</head>
<body>
<h1>第 11 讲 · 负载均衡与路由：Preble 与 LLMSelector<br><small>Lecture 11 · Load Balancing &amp; Routing — handouts · ${EDITION_NAME}</small></h1>
<p>每一页都是执行过的笔记本：表格、图和公式都在本地渲染，不需要网络。${EDITION_NOTE} Each page is an executed notebook; charts, tables and math render offline.</p>
<ul class="pages">
${items}
</ul>
</body>
</html>
`;
fs.writeFileSync(path.join(outDir, "index.html"), index);
// The Chinese font the pages carry (only the cuts their characters need), so they show Chinese on any machine.
const font = addHandoutFont(outDir);
console.log(
  `handouts: font: ${font.files} file(s) of Noto Sans SC, ${(font.bytes / 1024).toFixed(0)} KB, for ${font.characters} CJK characters in ${font.pages} page(s)` +
    (font.missing.length ? `; no glyph for ${font.missing.join(" ")}` : ""),
);

const failed = summary.filter((e) => !e.ok).length + Math.max(0, notebooks.length - summary.length);
const seconds = ((Date.now() - started) / 1000).toFixed(1);
console.log(`handouts: ${summary.length - failed} page(s) written to ${path.join(outDir, "index.html")} in ${seconds} s${failed ? `; ${failed} notebook(s) failed` : ""}`);
process.exit(r.status === 0 && failed === 0 ? 0 : 1);
