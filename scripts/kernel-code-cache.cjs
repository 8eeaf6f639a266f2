// A V8 code cache for the JavaScript the tslab kernel loads at every start (TypeScript's 8 MB compiler, tslab,
// the ZeroMQ binding), loaded by scripts/kernel-startup.cjs. Node 20 has no module.enableCompileCache (Node ≥ 22.1),
// so this is the small require hook that does the same: a module under one of the given roots is compiled through
// vm.Script with the bytes V8 wrote for it last time (`cachedData`), which spares V8 parsing and compiling the
// functions the kernel's start-up runs. After the kernel's start-up (tslab's converter built and warmed)
// `save()` writes, for each module whose cache was missing or rejected, `script.createCachedData()` — taken after
// running, so it holds the functions compiled lazily during the start-up too.
//
// One file per module in `dir`: <hash of the path>-<hash of path, size, mtime, Node version, arch>.bin, so a changed
// file, another Node or another machine's copy simply misses (and V8 itself rejects bytes that do not fit its
// version, flags or the source: then the module compiles as usual and its cache is written anew). Writes go to a
// temporary name and are renamed into place (kernels started at the same time may write the same file).
// L11_CODE_CACHE=off turns the hook off.
"use strict";
const Module = require("module");
const vm = require("vm");
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");

const sha = (text) => crypto.createHash("sha1").update(text).digest("hex").slice(0, 16);

/** The cache file of `filename` as it is now (size and mtime in the name), or null when it cannot be stat'ed. */
function cacheFileOf(dir, filename) {
  let stat;
  try {
    stat = fs.statSync(filename);
  } catch {
    return null;
  }
  const key = [filename, stat.size, stat.mtimeMs, process.version, process.arch].join("\0");
  return path.join(dir, `${sha(filename)}-${sha(key)}.bin`);
}

/** `require` for a module compiled here, as Node's own loader makes it (resolve, cache, main, extensions). */
function requireFor(mod) {
  const require = (id) => mod.require(id);
  require.resolve = (request, options) => Module._resolveFilename(request, mod, false, options);
  require.resolve.paths = (request) => Module._resolveLookupPaths(request, mod);
  require.main = process.mainModule;
  require.extensions = Module._extensions;
  require.cache = Module._cache;
  return require;
}

function readOrNull(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

/**
 * Installs the hook for modules whose path starts with one of `roots`; returns { save, stats }. save() writes the
 * caches that were missing or rejected (once; later calls write what was compiled since).
 */
function install({ dir, roots }) {
  const pending = new Map(); // cache file -> vm.Script compiled without usable cached data
  const stats = { hits: 0, misses: 0, rejected: 0, written: 0 };
  const original = Module.prototype._compile;
  Module.prototype._compile = function (content, filename, format) {
    if (format === "module" || !filename.endsWith(".js") || !roots.some((root) => filename.startsWith(root))) {
      return original.apply(this, arguments);
    }
    const file = cacheFileOf(dir, filename);
    if (file === null) return original.apply(this, arguments);
    const cachedData = readOrNull(file) ?? undefined;
    let script;
    try {
      script = new vm.Script(Module.wrap(content), { filename, cachedData });
    } catch {
      return original.apply(this, arguments); // not a plain CommonJS file (ES module syntax, …): Node's own way
    }
    if (cachedData === undefined) stats.misses++;
    else if (script.cachedDataRejected) stats.rejected++;
    else stats.hits++;
    if (cachedData === undefined || script.cachedDataRejected) pending.set(file, script);
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, requireFor(this), this, filename, path.dirname(filename));
  };

  function save() {
    if (pending.size === 0) return;
    try {
      fs.mkdirSync(dir, { recursive: true });
    } catch {
      return;
    }
    for (const [file, script] of pending) {
      try {
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, script.createCachedData());
        fs.renameSync(tmp, file);
        stats.written++;
        removeStale(dir, file);
      } catch {
        // a read-only or full disk: the next kernel compiles as usual
      }
    }
    pending.clear();
  }
  return { save, stats };
}

/** Removes the caches of older versions of the same module (same path hash, other key). */
function removeStale(dir, file) {
  const base = path.basename(file);
  const prefix = base.slice(0, base.indexOf("-") + 1);
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(prefix) && name !== base && name.endsWith(".bin")) fs.rmSync(path.join(dir, name), { force: true });
  }
}

module.exports = { install, cacheFileOf };
