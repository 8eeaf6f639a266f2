// The kernel loads the library's modules behind its start (scripts/kernel-startup.cjs, preloadLibrary): the import
// cell then finds them in Node's module cache. What must not change for the reader: lib/index itself still runs in
// the import cell (its warning about a stale build shows there), and a library rebuilt after the kernel started is
// the one the import cell loads (the preloaded modules are dropped), as without the preload.
// Real kernels through the project's runner, on a copy of build/lib in a folder of its own.
import * as fs from "fs";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, TSLAB_KERNELSPEC, ensureKernelSpec, runNotebooks } from "./support/processes";

let dir = "";

const notebook = (cells: string[]) => ({
  cells: cells.map((source, i) => ({ cell_type: "code", execution_count: null, id: `c${i}`, metadata: {}, outputs: [], source })),
  metadata: { kernelspec: TSLAB_KERNELSPEC },
  nbformat: 4,
  nbformat_minor: 5,
});

// Before the import: the modules lib/index re-exports are in the cache, lib/index is not, and the engines' warm-up ran;
// one module's exports kept.
const PROBE = [
  'const libDir = require("path").dirname(require("fs").realpathSync("lib/index.js"));',
  'const loaded = Object.keys(require.cache).filter((f) => f.startsWith(libDir + "/"));',
  'if (loaded.length < 50 || loaded.includes(libDir + "/index.js")) throw new Error(`preloaded ${loaded.length} modules, lib/index among them: ${loaded.includes(libDir + "/index.js")}`);',
  'const coreBefore = require.cache[libDir + "/core/index.js"]!.exports;',
  // the engines' warm-up ran behind the start, on the preloaded library (lib/demos/warm-up.ts)
  'const warmed = require.cache[libDir + "/demos/warm-up.js"]?.exports.warmRunsDone();',
  'if (warmed !== 8) throw new Error(`warm-up runs before the first cell: ${warmed}`);',
].join("\n");
const IMPORT = 'import { check } from "./lib/index";\nvoid check;';
const SAME = 'if (require.cache[libDir + "/core/index.js"]!.exports !== coreBefore) throw new Error("the import cell loaded the library again");';
const FRESH = 'if (require.cache[libDir + "/core/index.js"]!.exports === coreBefore) throw new Error("the import cell kept the modules of the build before the rebuild");';
const REBUILD = 'const later = new Date(Date.now() + 60_000);\nrequire("fs").utimesSync("../build/.stamp", later, later);';

beforeAll(async () => {
  await ensureKernelSpec();
  // Under the project, so that tslab finds its types (node_modules/@types) and the library its data/ folder.
  fs.mkdirSync(path.join(ROOT, ".cache"), { recursive: true });
  dir = fs.mkdtempSync(path.join(ROOT, ".cache", "test-preload-"));
  fs.cpSync(path.join(ROOT, "build", "lib"), path.join(dir, "build", "lib"), { recursive: true });
  const stamp = path.join(dir, "build", ".stamp");
  fs.writeFileSync(stamp, "built\n");
  const past = new Date(Date.now() - 3_600_000);
  fs.utimesSync(stamp, past, past);
  // a library source newer than the build: lib/index warns when it runs
  fs.mkdirSync(path.join(dir, "lib"));
  fs.writeFileSync(path.join(dir, "lib", "edited.ts"), "export const edited = 1;\n");
  fs.mkdirSync(path.join(dir, "notebooks"));
  fs.symlinkSync(path.join("..", "build", "lib"), path.join(dir, "notebooks", "lib"));
  fs.writeFileSync(path.join(dir, "notebooks", "a-preloaded.ipynb"), JSON.stringify(notebook([PROBE, IMPORT, SAME])));
  fs.writeFileSync(path.join(dir, "notebooks", "b-rebuilt.ipynb"), JSON.stringify(notebook([PROBE, REBUILD, IMPORT, FRESH])));
}, 60_000);

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the library loaded behind the kernel's start", () => {
  it(
    "is what the import cell uses, the stale-build warning still in the import cell; a rebuild since the start is loaded anew",
    async () => {
      const executed = path.join(dir, "executed");
      const nbs = ["a-preloaded", "b-rebuilt"].map((n) => path.join(dir, "notebooks", `${n}.ipynb`));
      const r = await runNotebooks(nbs, ["--executed-dir", executed]);
      expect(r.code, r.output).toBe(0);
      const outputs = (name: string, cell: number): string => {
        const nb = JSON.parse(fs.readFileSync(path.join(executed, `${name}.ipynb`), "utf8"));
        return nb.cells[cell].outputs.map((o: { text?: string | string[] }) => [o.text ?? ""].flat().join("")).join("");
      };
      expect(outputs("a-preloaded", 0)).not.toContain("warning:");
      expect(outputs("a-preloaded", 1)).toContain("changed after the notebooks' library was compiled");
      expect(outputs("a-preloaded", 1)).toContain("edited.ts");
      // b's stamp is newer than the source once its second cell ran: no warning there
      expect(outputs("b-rebuilt", 2)).not.toContain("warning:");
    },
    180_000,
  );
});
