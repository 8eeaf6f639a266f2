// A cache of tslab's cell conversions (issue 27: a cell's TypeScript compile is 60 ms in a kernel, 11 s of the
// lecture's 44). tslab turns each cell into JavaScript with convert(prevDecl, src): the earlier cells' declarations and
// the cell's text go into its TypeScript program, which is type-checked and emitted. What comes out — the JavaScript,
// the declarations the next cell sees, the diagnostics — depends on those two texts and on the files the program
// reads: the library's declarations, the @types packages, TypeScript's own lib files, tslab's options for this Node.
// So a conversion is stored under a hash of (those files' fingerprint, prevDecl, src) and read back the next time the
// same cell follows the same earlier cells: "Restart & Run All", a notebook run again, the cell below an edited rule
// re-run twice. A cell converts in ≈ 2 ms instead of ≈ 60 ms, with the identical result (test/kernel-cell-cache.test.ts
// converts every notebook's cells both ways).
//
// What the fingerprint covers (fingerprintOf): this format, Node's version (tslab picks its target from it), tslab and
// its TypeScript, the working folder, package-lock.json (every installed package's version, @types included), the
// generated @types/l11-notebook-globals and the library the cells import (the texts of lib/**/*.d.ts and .json, the
// names of its other files). A cell that can read anything else is converted as without the cache: a relative import
// outside ./lib (tslab compiles a .ts file it imports beside the cell), a `/// <reference`, a kernel that registered a
// %module. A result with side outputs (another file compiled with the cell) is never stored.
//
// One file per conversion in `dir` (<sha256>.json), written under a temporary name and renamed (kernels started at
// the same time may write the same file); a file that cannot be read or parsed is a miss. prune() keeps the newest
// KEEP of more than MAX files (a hit touches its file). L11_CELL_CACHE=off turns the cache off; L11_CELL_CACHE=<folder>
// puts it there (the bench measures a cold cache so).
"use strict";
const crypto = require("crypto");
const fs = require("fs");
const path = require("path");

const FORMAT = "l11-cell-cache 1";
const MAX = 4000;
const KEEP = 2500;

function readOr(file, fallback) {
  try {
    return fs.readFileSync(file);
  } catch {
    return fallback;
  }
}

function versionOf(name, from) {
  try {
    return JSON.parse(fs.readFileSync(require.resolve(`${name}/package.json`, { paths: [from] }), "utf8")).version;
  } catch {
    return "none";
  }
}

/** The files under `dir` (symlinks followed), sorted by their path below it: { rel, full, text } with `text` what
 * `withText` says of the name (the fingerprint reads those files' texts, the names of the others). null when `dir`
 * cannot be read. Directory entries' types come from readdir; only a symlink is stat'ed here. */
function filesUnder(dir, withText, rel = "") {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  const out = [];
  for (const e of entries.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))) {
    const full = path.join(dir, e.name);
    const name = rel ? `${rel}/${e.name}` : e.name;
    let isDir = e.isDirectory();
    if (e.isSymbolicLink()) {
      try {
        isDir = fs.statSync(full).isDirectory();
      } catch {
        isDir = false;
      }
    }
    if (isDir) out.push(...(filesUnder(full, withText, name) ?? []));
    else out.push({ rel: name, full, text: withText(e.name) });
  }
  return out;
}

/** Adds the files under `dir` to `hash` (filesUnder): the texts of those it reads, the names of the others. */
function addTree(hash, dir, withText) {
  const files = filesUnder(dir, withText);
  if (files === null) {
    hash.update(`missing ${dir}\0`);
    return;
  }
  for (const f of files) {
    if (f.text) {
      hash.update(`file ${f.rel}\0`);
      hash.update(readOr(f.full, "\0unreadable\0"));
      hash.update("\0");
    } else {
      hash.update(`name ${f.rel}\0`);
    }
  }
}

/** The library's files whose text a conversion can read (beside its .js, which a declaration file shadows). */
const isDeclaration = (name) => name.endsWith(".d.ts") || name.endsWith(".json");

/** The hash of everything a conversion in `cwd` reads besides prevDecl and the cell (the header above). */
function fingerprintOf({ cwd, root }) {
  const hash = crypto.createHash("sha256");
  const tslabDir = path.dirname(require.resolve("tslab/package.json", { paths: [cwd, root] }));
  hash.update([FORMAT, process.version, versionOf("tslab", cwd), versionOf("@tslab/typescript-for-tslab", tslabDir), cwd].join("\0"));
  hash.update("\0lock\0");
  hash.update(readOr(path.join(root, "package-lock.json"), "none"));
  hash.update("\0globals\0");
  addTree(hash, path.join(root, "node_modules", "@types", "l11-notebook-globals"), () => true);
  hash.update("\0lib\0");
  addTree(hash, path.join(cwd, "lib"), isDeclaration);
  return hash.digest("hex");
}

/** The sizes and modification times of the files under `dir` whose texts the fingerprint reads, the names of the
 * others (filesUnder), in one string. */
function statsUnder(dir, withText) {
  const files = filesUnder(dir, withText);
  if (files === null) return "-";
  let out = "";
  for (const f of files) {
    if (!f.text) {
      out += `${f.rel};`;
      continue;
    }
    try {
      const st = fs.statSync(f.full);
      out += `${f.rel}:${st.size}:${st.mtimeMs};`;
    } catch {
      out += `${f.rel}:gone;`;
    }
  }
  return out;
}

/** When the fingerprint may have changed: the sizes and times of the library's files (≈ 200 stat calls, ≈ 2 ms, most
 * of a read-back cell; a rebuild, `tsc --watch` under `npm start` or an edit by hand all show), of the generated
 * globals and of package-lock.json. Taken before each cell; the fingerprint is computed again when they change. */
function stampsOf({ cwd, root }) {
  const globals = path.join(root, "node_modules", "@types", "l11-notebook-globals");
  let lock = "-";
  try {
    const st = fs.statSync(path.join(root, "package-lock.json"));
    lock = `${st.size}:${st.mtimeMs}`;
  } catch {
    // none: the fingerprint says so
  }
  return `${statsUnder(path.join(cwd, "lib"), isDeclaration)}|${statsUnder(globals, () => true)}|${lock}`;
}

// module names a cell imports: `from "x"`, `import "x"`, `import("x")`, `require("x")`
const SPECIFIER = /(?:\bfrom|\bimport|\brequire)\s*\(?\s*(["'`])([^"'`\n]*)\1/g;

/** Whether the conversion of `src` reads only what the fingerprint covers (the header above). */
function cacheable(src) {
  if (src.includes("/// <reference")) return false;
  for (const m of src.matchAll(SPECIFIER)) {
    const name = m[2];
    if ((name.startsWith(".") || name.startsWith("/")) && !/^\.\/lib(\/|$)/.test(name)) return false;
  }
  return true;
}

/** A stored conversion, or null when the file is missing, unreadable or not one of ours. */
function readEntry(file) {
  const text = readOr(file, null);
  if (text === null) return null;
  try {
    const entry = JSON.parse(text);
    if (entry.format !== FORMAT || !entry.result || !Array.isArray(entry.result.diagnostics)) return null;
    return entry.result;
  } catch {
    return null;
  }
}

function writeEntry(file, result) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, JSON.stringify({ format: FORMAT, result }));
    fs.renameSync(tmp, file);
    return true;
  } catch {
    fs.rmSync(tmp, { force: true });
    return false;
  }
}

/** Keeps the `keep` newest of more than `max` entries in `dir` (and removes temporary files a killed kernel left). */
function prune(dir, max = MAX, keep = KEEP) {
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  const stale = names.filter((n) => n.endsWith(".tmp"));
  const entries = names.filter((n) => n.endsWith(".json"));
  const drop = [...stale];
  if (entries.length > max) {
    const dated = entries.map((n) => {
      let t = 0;
      try {
        t = fs.statSync(path.join(dir, n)).mtimeMs;
      } catch {
        // gone meanwhile
      }
      return [t, n];
    });
    dated.sort((a, b) => b[0] - a[0]);
    drop.push(...dated.slice(keep).map((x) => x[1]));
  }
  for (const n of drop) fs.rmSync(path.join(dir, n), { force: true });
  return drop.length;
}

/**
 * A cache for the conversions of one kernel's working folder `cwd` (the project's root `root`), in `dir`.
 * wrap(convert) gives tslab's convert(prevDecl, src) with the cache in front; disable(reason) sends every later cell to
 * tslab (a %module cell: its file joins the program without changing prevDecl). `stats` counts what happened.
 */
function createCellCache({ dir, cwd, root }) {
  const stats = { hits: 0, misses: 0, stored: 0, passed: 0, disabled: null };
  let stamps = null;
  let fingerprint = null;
  const currentFingerprint = () => {
    const now = stampsOf({ cwd, root });
    if (now !== stamps) {
      fingerprint = fingerprintOf({ cwd, root });
      stamps = now;
    }
    return fingerprint;
  };
  const fileOf = (prevDecl, src) => {
    const key = crypto.createHash("sha256").update(currentFingerprint()).update("\0").update(prevDecl).update("\0").update(src).digest("hex");
    return path.join(dir, `${key}.json`);
  };
  return {
    stats,
    /** The fingerprint computed and old entries pruned ahead of the first cell (the kernel's start-up calls it). */
    prepare() {
      try {
        currentFingerprint();
        prune(dir);
      } catch {
        // the first cell tries again
      }
    },
    disable(reason) {
      stats.disabled = reason;
    },
    wrap(convert) {
      return function cachedConvert(prevDecl, src) {
        let file = null;
        if (stats.disabled === null && typeof prevDecl === "string" && typeof src === "string" && cacheable(src)) {
          try {
            file = fileOf(prevDecl, src);
          } catch {
            file = null; // no fingerprint (tslab not where expected): as without the cache
          }
        }
        if (file === null) {
          stats.passed++;
          return convert.apply(this, arguments);
        }
        const hit = readEntry(file);
        if (hit !== null) {
          stats.hits++;
          try {
            const now = new Date();
            fs.utimesSync(file, now, now); // prune() keeps what is used
          } catch {
            // read-only or removed meanwhile: the hit stands
          }
          return hit;
        }
        stats.misses++;
        const result = convert.apply(this, arguments);
        if (result && !result.sideOutputs && writeEntry(file, result)) stats.stored++;
        return result;
      };
    },
  };
}

/** The cache a kernel uses in `cwd`: L11_CELL_CACHE=off → null, a folder → there, unset → <root>/.cache/cells. */
function cellCacheFromEnv({ cwd, root, env = process.env }) {
  const setting = env.L11_CELL_CACHE;
  if (setting === "off") return null;
  const dir = setting ? path.resolve(setting) : path.join(root, ".cache", "cells");
  return createCellCache({ dir, cwd, root });
}

module.exports = { createCellCache, cellCacheFromEnv, cacheable, fingerprintOf, prune, FORMAT };
