// One TypeScript program update per cell instead of two (issue 27). tslab's converter (tslab/dist/converter.js,
// convert()) updates its program with the cell, reads the cell file's top-level names from the binder (`locals`),
// then updates the program again with `export { those names }` appended, and type-checks and emits that. The names
// are a function of the cell's text alone — the binder fills `locals` from the file's own declarations — so here the
// cell's file is parsed and bound on its own (the same name, text and language version; a few milliseconds) and the
// program is updated once: 49.6 → 40.6 ms a cell over the collection's 184 code cells, with every output,
// declaration output and diagnostic identical (test/tslab-convert-patch.test.ts converts real and tricky cells both
// ways). JavaScript cells (tslab's JS kernel) keep tslab's own way.
//
// The patch is a text replacement of the one function's opening lines, applied when tslab's converter is loaded:
// if tslab's text differs (another version), nothing is patched and the kernel works as plain tslab
// (patchConverterSource returns null; status() says why). L11_CONVERT_PATCH=off turns it off.
"use strict";
const fs = require("fs");
const Module = require("module");
const path = require("path");

// tslab's lines from the cell's names to the export suffix, kept as they are in both versions
const KEYS = `        const keys = new Set();
        if (locals) {
            locals.forEach((_, key) => {
                keys.add(key);
            });
        }
        if (keys.size > 0) {
            // Export all local variables.
            // TODO: Disallow "export" in the input.
            const suffix = "\\nexport {" + Array.from(keys).join(", ") + "}";
            updateContent(prevDecl, src + suffix);
`;

const ORIGINAL = `    function convert(prevDecl, src) {
        updateContent(prevDecl, src);
        let declsFile = builder.getSourceFile(declFilename);
        let srcFile = builder.getSourceFile(srcFilename);
        const locals = srcFile.locals;
${KEYS}            declsFile = builder.getSourceFile(declFilename);
            srcFile = builder.getSourceFile(srcFilename);
        }
`;

const PATCHED = `    function convert(prevDecl, src) {
        // (scripts/tslab-convert-patch.cjs) the cell's top-level names from its file bound on its own: one program
        // update per cell; a JavaScript cell goes tslab's way
        const alone = srcFilename.endsWith(".ts");
        let locals;
        if (alone) {
            const cellFile = ts.createSourceFile(srcFilename, srcPrefix + src, transpileTarget, false);
            ts.bindSourceFile(cellFile, builder.getCompilerOptions());
            locals = cellFile.locals;
        } else {
            updateContent(prevDecl, src);
            locals = builder.getSourceFile(srcFilename).locals;
        }
${KEYS}        } else if (alone) {
            updateContent(prevDecl, src);
        }
        let declsFile = builder.getSourceFile(declFilename);
        let srcFile = builder.getSourceFile(srcFilename);
`;

let state = { applied: false, reason: "not installed" };

/** tslab's converter.js with convert() patched, or null when its text is not the one this patch knows. */
function patchConverterSource(source) {
  const normalized = source.replace(/\r\n/g, "\n");
  const at = normalized.indexOf(ORIGINAL);
  if (at < 0 || normalized.indexOf(ORIGINAL, at + 1) >= 0) return null;
  if (!/\bconst ts = /.test(normalized) || !/\bconst srcPrefix = /.test(normalized)) return null;
  return normalized.slice(0, at) + PATCHED + normalized.slice(at + ORIGINAL.length);
}

/** The path of tslab's converter as the kernel resolves it (from the notebooks' folder or this one), or null. */
function converterFile(paths = [process.cwd(), __dirname]) {
  try {
    return require.resolve("tslab/dist/converter", { paths });
  } catch {
    return null;
  }
}

/** Loads `file` (tslab's converter) patched, whenever it is first required in this process. */
function install(file = converterFile()) {
  if (process.env.L11_CONVERT_PATCH === "off") return (state = { applied: false, reason: "L11_CONVERT_PATCH=off" });
  if (file === null) return (state = { applied: false, reason: "tslab's converter not found" });
  if (require.cache[file]) return (state = { applied: false, reason: "tslab's converter was loaded before the patch" });
  const previous = Module._extensions[".js"];
  Module._extensions[".js"] = function (module, filename) {
    if (filename !== file) return previous.apply(this, arguments);
    Module._extensions[".js"] = previous;
    const patched = patchConverterSource(fs.readFileSync(filename, "utf8"));
    if (patched === null) {
      state = { applied: false, reason: `${path.relative(process.cwd(), filename)} is not the text this patch knows (another tslab version)` };
      return previous.apply(this, arguments);
    }
    state = { applied: true, reason: null };
    return module._compile(patched, filename);
  };
  state = { applied: false, reason: "tslab's converter not loaded yet" };
  return state;
}

/** Whether the patch is in force, and why not. */
function status() {
  return state;
}

/** A second, patched copy of tslab's converter module (tests: both versions side by side), or null. */
function loadPatchedCopy(file = converterFile()) {
  const patched = file && patchConverterSource(fs.readFileSync(file, "utf8"));
  if (!patched) return null;
  const m = new Module(file, null);
  m.filename = file;
  m.paths = Module._nodeModulePaths(path.dirname(file));
  m._compile(patched, file);
  return m.exports;
}

module.exports = { install, status, patchConverterSource, converterFile, loadPatchedCopy };
