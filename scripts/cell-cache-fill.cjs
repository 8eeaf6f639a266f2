// Fills the kernels' cell cache (scripts/kernel-cell-cache.cjs) ahead of a reader's first "Run All": each notebook's
// code cells are converted in order, as a kernel converts them (each after the declarations of the cells before it),
// by tslab's converter with the kernel's patch (scripts/tslab-convert-patch.cjs), in the notebooks' folder. A cell
// already stored is read back, so a second fill costs ≈ 0.4 s; after a change to the library every cell is converted
// again (≈ 10 s for the 186 cells). scripts/setup.mjs runs it; L11_CELL_CACHE=off skips it, as it turns the cache off.
//
// The fill stops a notebook at its first cell with a type error (Run All stops there too) and skips %module and
// browser cells (the kernel's cache leaves those to tslab).
//
// Usage: node scripts/cell-cache-fill.cjs [--cwd DIR] [notebook.ipynb …]
//   DIR: the kernels' working folder (default notebooks/; `npm start` fills its workspace copy so); the notebooks
//   default to every .ipynb in it
//   prints one line: cells, read back, converted, seconds
"use strict";
const fs = require("fs");
const path = require("path");

const ROOT = path.join(__dirname, "..");
const NOTEBOOKS = path.join(ROOT, "notebooks");

/** The code cells' sources of a notebook file. */
function codeCells(file) {
  const nb = JSON.parse(fs.readFileSync(file, "utf8"));
  return nb.cells.filter((c) => c.cell_type === "code").map((c) => (Array.isArray(c.source) ? c.source.join("") : c.source));
}

/** Converts the code cells of `files` through the cell cache of `cwd` (the kernel's working folder). */
function fill({ files, cwd = NOTEBOOKS, root = ROOT, env = process.env }) {
  const { cellCacheFromEnv } = require("./kernel-cell-cache.cjs");
  const here = fs.realpathSync(cwd);
  const cache = cellCacheFromEnv({ cwd: here, root, env });
  if (cache === null) return { skipped: "L11_CELL_CACHE=off" };
  const started = Date.now();
  const before = process.cwd();
  process.chdir(here); // tslab names the cell's file after the working folder, as in the kernel
  let converter = null;
  let meta = null;
  try {
    const convert = cache.wrap((prevDecl, src) => {
      if (converter === null) {
        require("./tslab-convert-patch.cjs").install();
        converter = require(require.resolve("tslab/dist/converter", { paths: [here, __dirname] })).createConverter({ isJS: false, isBrowser: false });
      }
      return converter.convert(prevDecl, src);
    });
    let cells = 0;
    for (const file of files) {
      let prevDecl = "";
      for (const src of codeCells(file)) {
        // tslab reads a cell's mode from a leading /** … */ comment's @module or @browser tag (its metadata module loads
        // TypeScript: only for such a cell)
        if (src.includes("/**") && /@(module|browser)\b/.test(src)) {
          if (meta === null) meta = require(require.resolve("tslab/dist/metadata", { paths: [here, __dirname] }));
          const m = meta.getCodeMetadata(src);
          if (m.module || m.mode === "browser") continue;
        }
        cells++;
        const r = convert(prevDecl, src);
        if (r.diagnostics.length > 0) break;
        prevDecl = r.declOutput || "";
      }
    }
    return { cells, readBack: cache.stats.hits, converted: cache.stats.misses, seconds: (Date.now() - started) / 1000 };
  } finally {
    if (converter) converter.close();
    process.chdir(before);
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const at = args.indexOf("--cwd");
  const cwd = at >= 0 ? path.resolve(args.splice(at, 2)[1] || ".") : NOTEBOOKS;
  const missing = [cwd, ...args.map((f) => path.resolve(f))].find((f) => !fs.existsSync(f));
  if (missing) {
    console.error(`cells: ${missing} does not exist`);
    process.exit(2);
  }
  const files = args.length ? args.map((f) => path.resolve(f)) : fs.readdirSync(cwd).filter((f) => f.endsWith(".ipynb")).sort().map((f) => path.join(cwd, f));
  const r = fill({ files, cwd });
  if (r.skipped) console.log(`cells: not compiled ahead (${r.skipped})`);
  else console.log(`cells: ${r.cells} code cells, ${r.readBack} read back, ${r.converted} compiled ahead in ${r.seconds.toFixed(1)} s`);
  process.exit(0); // tslab's converter keeps a watch open
}

module.exports = { fill, codeCells };
