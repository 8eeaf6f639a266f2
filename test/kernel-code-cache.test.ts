// The kernel's V8 code cache (scripts/kernel-code-cache.cjs): a module under the given roots is compiled from the
// bytes V8 wrote for it the last time, and runs exactly as Node's own loader runs it. Each case runs in a child
// process (the hook replaces Module.prototype._compile for the whole process).
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const HOOK = path.join(__dirname, "..", "scripts", "kernel-code-cache.cjs");
let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "l11-code-cache-"));
  fs.mkdirSync(path.join(dir, "pkg"));
  fs.writeFileSync(path.join(dir, "pkg", "helper.js"), "exports.twice = (x) => 2 * x;\n");
  fs.writeFileSync(
    path.join(dir, "pkg", "main.js"),
    [
      'const { twice } = require("./helper");',
      "exports.value = twice(21);",
      "exports.resolved = require.resolve('./helper');",
      "exports.sameCache = require.cache === require('module')._cache;",
      "exports.where = [__filename, __dirname, module.id === __filename, this === module.exports];",
    ].join("\n") + "\n",
  );
  fs.writeFileSync(path.join(dir, "pkg", "esm.js"), "export const x = 1;\n");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Loads pkg/main.js with the hook installed (root: pkg/), saves, prints what the module exported and the stats. */
function load(extra = "") {
  const script = `
    const hook = require(${JSON.stringify(HOOK)}).install({ dir: ${JSON.stringify(path.join(dir, "cache"))}, roots: [${JSON.stringify(path.join(dir, "pkg") + path.sep)}] });
    const main = require(${JSON.stringify(path.join(dir, "pkg", "main.js"))});
    ${extra}
    hook.save();
    console.log(JSON.stringify({ main, stats: hook.stats }));`;
  const r = spawnSync(process.execPath, ["-e", script], { encoding: "utf8" });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as { main: Record<string, unknown>; stats: Record<string, number>; esm?: unknown };
}
const cacheFiles = () => (fs.existsSync(path.join(dir, "cache")) ? fs.readdirSync(path.join(dir, "cache")).sort() : []);

describe("the kernel's V8 code cache", () => {
  it("writes a cache per module on the first load and compiles from it on the next; the modules run as under Node's loader", () => {
    const first = load();
    expect(first.stats).toEqual({ hits: 0, misses: 2, rejected: 0, written: 2 });
    expect(cacheFiles()).toHaveLength(2);
    const second = load();
    expect(second.stats).toEqual({ hits: 2, misses: 0, rejected: 0, written: 0 });
    const main = path.join(dir, "pkg", "main.js");
    for (const run of [first, second]) {
      expect(run.main).toEqual({ value: 42, resolved: path.join(dir, "pkg", "helper.js"), sameCache: true, where: [main, path.dirname(main), true, true] });
    }
  });

  it("a changed file misses, is written anew, and its old cache is removed", () => {
    load();
    const before = cacheFiles();
    fs.writeFileSync(path.join(dir, "pkg", "helper.js"), "exports.twice = (x) => x + x + 0;\n");
    const after = load();
    expect(after.stats).toEqual({ hits: 1, misses: 1, rejected: 0, written: 1 });
    expect(after.main.value).toBe(42);
    const now = cacheFiles();
    expect(now).toHaveLength(2);
    expect(now.filter((f) => before.includes(f))).toHaveLength(1); // main.js's cache kept, helper.js's replaced
  });

  it("bytes V8 cannot use are rejected (the module compiles from source) and rewritten", () => {
    load();
    for (const f of cacheFiles()) fs.writeFileSync(path.join(dir, "cache", f), "not V8's bytes");
    const r = load();
    expect(r.stats).toEqual({ hits: 0, misses: 0, rejected: 2, written: 2 });
    expect(r.main.value).toBe(42);
    expect(load().stats.hits).toBe(2);
  });

  it("leaves modules outside the roots, and a file that is not CommonJS, to Node's own loader", () => {
    const r = load(`try { require(${JSON.stringify(path.join(dir, "pkg", "esm.js"))}); } catch (e) { console.error(e.message); }`);
    expect(r.stats.misses).toBe(2); // main.js and helper.js; esm.js went to Node's own loader
    expect(cacheFiles()).toHaveLength(2);
  });
});
