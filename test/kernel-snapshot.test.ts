// The kernel's V8 startup snapshot (scripts/kernel-snapshot.cjs): a declaration file parsed into the snapshot is
// handed back to TypeScript only when its name, text and language version are the ones it was parsed with; the
// kernel spec names a blob only when one was built for this Node, TypeScript and tslab; and a kernel started from
// it, through Jupyter, runs cells with most of its declaration files taken from the snapshot and errors with their
// stacks as in a plain kernel (a type error in a cell is still reported: test/notebooks.test.ts runs its fixtures
// in whatever kernel the spec names).
import * as path from "path";
import { beforeAll, describe, expect, it } from "vitest";
import { PYTHON, ROOT, RUNNER, ensureKernelSpec, runProcess } from "./support/processes";

// eslint-disable-next-line @typescript-eslint/no-var-requires
const snapshot = require(path.join(ROOT, "scripts", "kernel-snapshot.cjs")) as {
  buildKernelSnapshot(): { blob: string | null; built?: boolean; reason?: string };
  kernelSnapshotBlob(): string | null;
  reuseParsed(files: Map<string, unknown>, stats: { reused: number }, fileName: string, text: string, o: unknown): unknown;
  SNAPSHOT_DIR: string;
};

describe("which parsed declaration the snapshot hands back", () => {
  const parsed = { text: "declare const a: number;\n", languageVersion: 9 };
  const files = new Map<string, unknown>([["/x/a.d.ts", parsed]]);

  it("the same name, text and language version (a number or an options object): the snapshot's file, counted", () => {
    const stats = { reused: 0 };
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, 9)).toBe(parsed);
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, { languageVersion: 9, impliedNodeFormat: 1 })).toBe(parsed);
    expect(stats.reused).toBe(2);
  });

  it("a text changed since the build, another language version or another file: parsed as usual (undefined)", () => {
    const stats = { reused: 0 };
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", "declare const a: string;\n", 9)).toBeUndefined();
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, 8)).toBeUndefined();
    expect(snapshot.reuseParsed(files, stats, "/x/a.d.ts", parsed.text, { languageVersion: 99 })).toBeUndefined();
    expect(snapshot.reuseParsed(files, stats, "/x/b.d.ts", parsed.text, 9)).toBeUndefined();
    expect(stats.reused).toBe(0);
  });
});

describe("the kernel spec and the blob", () => {
  let blob: string | null = null;
  beforeAll(() => {
    const r = snapshot.buildKernelSnapshot();
    if (!r.blob) throw new Error(`the kernel snapshot could not be built: ${r.reason}`);
    blob = r.blob;
  }, 120_000);

  it("names the blob built for this Node (its folder says tslab, as the runner's tests look for), or starts tslab the plain way", async () => {
    const project = await import(path.join(ROOT, "scripts", "project.mjs"));
    expect(snapshot.kernelSnapshotBlob()).toBe(blob);
    expect(path.dirname(blob as string)).toBe(snapshot.SNAPSHOT_DIR);
    expect(blob).toContain("tslab");
    expect(project.kernelSpec()).toMatchObject({ argv: [process.execPath, "--snapshot-blob", blob, "kernel", "--config-path", "{connection_file}"], env: { NODE_OPTIONS: "" } });
    expect(project.kernelSpec(null).argv).toEqual([process.execPath, "--require", project.KERNEL_STARTUP, project.TSLAB_BIN, "kernel", "--config-path", "{connection_file}"]);
    expect(project.kernelSpec(null).env).toBeUndefined();
    const before = process.env.L11_KERNEL_SNAPSHOT;
    process.env.L11_KERNEL_SNAPSHOT = "off";
    try {
      expect(snapshot.kernelSnapshotBlob()).toBeNull();
      expect(project.kernelSpec().argv[1]).toBe("--require");
    } finally {
      if (before === undefined) delete process.env.L11_KERNEL_SNAPSHOT;
      else process.env.L11_KERNEL_SNAPSHOT = before;
    }
  });

  it("a kernel started from it runs cells, with most declaration files taken from the snapshot — also when the caller sets NODE_OPTIONS (V8 would refuse the snapshot under other flags)", async () => {
    await ensureKernelSpec();
    const r = await runProcess(PYTHON, [RUNNER, path.join(ROOT, "test", "fixtures", "kernel-snapshot.ipynb")], { env: { ...process.env, NODE_OPTIONS: "--expose-gc --max-old-space-size=3000", LECTURE_RESULT_CACHE: "off" } });
    expect(r.output).toMatch(/1 notebook\(s\) ran cleanly, 0 failed/);
    expect(r.code, r.output).toBe(0);
  }, 120_000);
});
