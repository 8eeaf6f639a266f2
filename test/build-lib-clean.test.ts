// scripts/project.mjs buildLib: deleting build/lib (the natural way to force a clean build) must give a full build.
// tsc's incremental mode trusts build/.tsbuildinfo and does not check that its outputs exist; without the fix the
// second build below emitted nothing and the set-up failed on a missing build/lib/index.js. Runs on a scratch copy of
// lib/, scripts/ and the tsconfig files (data/ linked), with the project's node_modules linked entry by entry (its own @types folder,
// so the notebook globals the build writes stay in the scratch copy).
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = path.join(__dirname, "..");
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "l11-build-"));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function scratchProject(): void {
  for (const d of ["lib", "scripts"]) fs.cpSync(path.join(ROOT, d), path.join(scratch, d), { recursive: true });
  for (const f of ["tsconfig.json", "tsconfig.build.json", "package.json"]) fs.copyFileSync(path.join(ROOT, f), path.join(scratch, f));
  fs.symlinkSync(path.join(ROOT, "data"), path.join(scratch, "data"));
  const modules = path.join(scratch, "node_modules");
  fs.mkdirSync(path.join(modules, "@types"), { recursive: true });
  for (const e of fs.readdirSync(path.join(ROOT, "node_modules"))) {
    if (e !== "@types") fs.symlinkSync(path.join(ROOT, "node_modules", e), path.join(modules, e));
  }
  for (const e of fs.readdirSync(path.join(ROOT, "node_modules", "@types"))) {
    if (e !== "l11-notebook-globals") fs.symlinkSync(path.join(ROOT, "node_modules", "@types", e), path.join(modules, "@types", e));
  }
}

const build = () => spawnSync(process.execPath, [path.join(scratch, "scripts", "build-lib.mjs")], { cwd: scratch, encoding: "utf8" });

describe("building the library after build/lib was deleted", () => {
  it("compiles everything again (the incremental build info alone does not count as a build)", () => {
    scratchProject();
    const first = build();
    expect(first.status, first.stderr).toBe(0);
    const index = path.join(scratch, "build", "lib", "index.js");
    expect(fs.existsSync(index)).toBe(true);
    expect(fs.existsSync(path.join(scratch, "build", ".tsbuildinfo"))).toBe(true);
    fs.rmSync(path.join(scratch, "build", "lib"), { recursive: true });
    const second = build();
    expect(second.status, second.stderr).toBe(0);
    expect(fs.existsSync(index)).toBe(true);
    expect(fs.existsSync(path.join(scratch, "build", "lib", "cluster", "sweep.js"))).toBe(true);
  }, 180_000);
});
