// The reader's workspace (scripts/workspace.mjs, issue 29), without a server: the student copy is exactly what
// `npm run release` writes and the instructor copy the source; a copy is made once; after a source changes, a copy
// the reader never touched follows it, a changed one is reported in one line with the command that refreshes it and
// is left alone; `--refresh` keeps the reader's copy as a dated backup; `npm start`'s own options are checked
// before anything is written. (The server side — trusted, executed, saved, git clean — is workspace-server.test.ts.)
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOTEBOOKS_DIR, ROOT, runProcess } from "./support/processes";

let tmp = "";
let sources = "";
let root = "";

/** Runs prepareWorkspace in a child node (the script is an ES module of the set-up); trust is left out (the server
 * test checks it) so this file needs no Python. */
async function prepare(edition: string, refresh: string[] = []): Promise<{ dir: string; lines: string[] }> {
  const options = JSON.stringify({ edition, refresh, sourcesDir: sources, root, now: "2026-03-04T05:06:07" });
  const code = `import(${JSON.stringify(path.join(ROOT, "scripts", "workspace.mjs"))}).then((m) => {
    const o = ${options};
    process.stdout.write(JSON.stringify(m.prepareWorkspace({ ...o, now: new Date(o.now), trust: () => {} })));
  });`;
  const r = await runProcess(process.execPath, ["--input-type=module", "-e", code]);
  if (r.code !== 0) throw new Error(r.output);
  return JSON.parse(r.output);
}
const read = (file: string) => fs.readFileSync(file, "utf8");
const tagsOf = (text: string): string[] => JSON.parse(text).cells.flatMap((c: any) => c.metadata?.tags ?? []);
/** A source notebook edited as a `git pull` would: one more markdown cell at the end. */
function editSource(name: string, words: string) {
  const file = path.join(sources, name);
  const nb = JSON.parse(read(file));
  nb.cells.push({ id: `added-${nb.cells.length}`, cell_type: "markdown", metadata: {}, source: [words] });
  fs.writeFileSync(file, JSON.stringify(nb, null, 1) + "\n");
}

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-workspace-test-"));
  sources = path.join(tmp, "notebooks");
  root = path.join(tmp, "workspace");
  fs.mkdirSync(sources);
  for (const name of ["00-overview.ipynb", "08-exercises.ipynb"]) fs.copyFileSync(path.join(NOTEBOOKS_DIR, name), path.join(sources, name));
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe("the reader's workspace", () => {
  it("first start: the student edition, byte for byte what npm run release writes, with the lib link", async () => {
    const { dir, lines } = await prepare("student");
    expect(dir).toBe(path.join(root, "student"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/复制了 2 个笔记本（学生版）/);
    const released = path.join(tmp, "released");
    const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "release.mjs"), "--out", released, path.join(sources, "08-exercises.ipynb")]);
    expect(r.code).toBe(0);
    expect(read(path.join(dir, "08-exercises.ipynb"))).toBe(read(path.join(released, "08-exercises.ipynb")));
    expect(tagsOf(read(path.join(dir, "08-exercises.ipynb")))).not.toContain("instructor");
    expect(fs.realpathSync(path.join(dir, "lib"))).toBe(fs.realpathSync(path.join(ROOT, "build", "lib")));
  });

  it("--edition instructor: a folder beside it with the source notebooks, instructor cells included", async () => {
    const { dir } = await prepare("instructor");
    expect(dir).toBe(path.join(root, "instructor"));
    expect(read(path.join(dir, "08-exercises.ipynb"))).toBe(read(path.join(sources, "08-exercises.ipynb")));
    expect(tagsOf(read(path.join(dir, "08-exercises.ipynb")))).toContain("instructor");
  });

  it("a second start changes nothing and says nothing", async () => {
    const before = read(path.join(root, "student", "08-exercises.ipynb"));
    expect((await prepare("student")).lines).toEqual([]);
    expect(read(path.join(root, "student", "08-exercises.ipynb"))).toBe(before);
  });

  it("after a pull: an untouched copy follows its source, an edited one is reported and kept", async () => {
    const homework = path.join(root, "student", "08-exercises.ipynb");
    const mine = read(homework).replace("NaN", "42"); // the reader's answer
    expect(mine).not.toBe(read(homework));
    fs.writeFileSync(homework, mine);
    editSource("00-overview.ipynb", "新的一段（00）");
    editSource("08-exercises.ipynb", "新的一段（08）");

    const { lines } = await prepare("student");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^00-overview\.ipynb：.*没有改过.*已换成新版本/);
    expect(lines[1]).toMatch(/^08-exercises\.ipynb：源文件有更新.*npm start -- --refresh 08$/);
    expect(read(homework)).toBe(mine);
    expect(read(path.join(root, "student", "00-overview.ipynb"))).toContain("新的一段（00）");
    // Said again at every start until refreshed.
    expect((await prepare("student")).lines).toEqual([lines[1]]);
  });

  it("--refresh keeps the reader's copy as a dated backup and writes the new edition", async () => {
    const dir = path.join(root, "student");
    const mine = read(path.join(dir, "08-exercises.ipynb"));
    const { lines } = await prepare("student", ["08-exercises.ipynb"]);
    const backup = path.join(dir, "08-exercises.backup-2026-03-04-0506.ipynb");
    expect(lines).toEqual(["08-exercises.ipynb：已换成新的副本，你原来的在 08-exercises.backup-2026-03-04-0506.ipynb"]);
    expect(read(backup)).toBe(mine);
    expect(read(path.join(dir, "08-exercises.ipynb"))).toContain("新的一段（08）");
    expect(read(path.join(dir, "08-exercises.ipynb"))).not.toBe(mine);
    // Refreshed twice in the same minute: the first backup is not overwritten.
    await prepare("student", ["08-exercises.ipynb"]);
    expect(read(backup)).toBe(mine);
    expect(fs.readdirSync(dir).filter((f) => f.startsWith("08-exercises.backup-"))).toHaveLength(2);
    expect((await prepare("student")).lines).toEqual([]);
  });

  it("a deleted copy comes back fresh at the next start", async () => {
    const file = path.join(root, "student", "00-overview.ipynb");
    fs.rmSync(file);
    const { lines } = await prepare("student");
    expect(lines[0]).toMatch(/复制了 1 个笔记本/);
    expect(fs.existsSync(file)).toBe(true);
  });
});

describe("npm start's options", () => {
  const bad: [string[], RegExp][] = [
    [["--edition", "teacher"], /--edition 的值 "teacher" 不对；可选：student 或 instructor/],
    [["--edition"], /--edition 需要一个值/],
    [["--refresh", "3x"], /--refresh 的值 "3x" 不是课程的笔记本；可选：00 01 .* 10（可用逗号连写），或 all/],
    [["--refresh=03,99"], /--refresh 的值 "99" 不是课程的笔记本/],
  ];
  for (const [args, message] of bad) {
    it(`${args.join(" ")}: one line and the usage, exit 2, nothing written`, async () => {
      const where = path.join(tmp, "never");
      const r = await runProcess(process.execPath, [path.join(ROOT, "scripts", "start.mjs"), ...args, "--no-browser"], { env: { ...process.env, LECTURE_WORKSPACE: where } });
      expect(r.code).toBe(2);
      expect(r.output).toMatch(message);
      expect(r.output.trim().split("\n")).toHaveLength(2);
      expect(r.output).toMatch(/^usage: npm start -- \[--edition student\|instructor\]/m);
      expect(fs.existsSync(where)).toBe(false);
    });
  }
});
