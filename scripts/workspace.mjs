// The reader's workspace: `npm start` serves a git-ignored copy of the notebooks (workspace/student/ by default,
// workspace/instructor/ with `--edition instructor`), never the tracked notebooks/, so Notebook 6's autosave, the
// reader's edits and answers never touch a source file (issue 29). The student copy is exactly what
// `npm run release` writes (scripts/release.mjs is run, not re-implemented, so the two cannot drift apart); the
// instructor copy is the source notebook itself. A copy is made once; a later change of its source (a `git pull`)
// is reported, and replaced only on `--refresh`, which keeps the reader's copy as a dated backup beside it.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { NOTEBOOKS_DIR, PYTHON, ROOT, jupyterEnv } from "./project.mjs";

export const EDITIONS = ["student", "instructor"];
const MANIFEST = ".workspace.json";
const BUILD_LIB = path.join(ROOT, "build", "lib");

/** The workspace's root folder; LECTURE_WORKSPACE moves it (the tests use one of their own). */
export function workspaceRoot(env = process.env) {
  return env.LECTURE_WORKSPACE ? path.resolve(env.LECTURE_WORKSPACE) : path.join(ROOT, "workspace");
}

export const editionDir = (edition, root = workspaceRoot()) => path.join(root, edition);
const sha256 = (text) => createHash("sha256").update(text).digest("hex");
/** A path as the reader knows it: relative to the project when inside it. */
export const shown = (file) => (path.relative(ROOT, file).startsWith("..") ? file : path.relative(ROOT, file));
const sourceNames = (sourcesDir) => fs.readdirSync(sourcesDir).filter((f) => f.endsWith(".ipynb")).sort();

/** "03" → 03-preble.ipynb: the names `--refresh` accepts for each notebook (its number, its name, its file name). */
function refreshKeys(name) {
  const base = name.replace(/\.ipynb$/, "");
  return [base.slice(0, 2), base, name];
}

/**
 * The notebooks a `--refresh` value names ("03", "03,08", "03-preble", "all"), or an error message (Chinese, one line,
 * with the allowed values) when a part names none.
 * @returns {{ names: string[] } | { error: string }}
 */
export function resolveRefresh(value, sourcesDir = NOTEBOOKS_DIR) {
  const names = sourceNames(sourcesDir);
  if (value === "all") return { names };
  const picked = [];
  for (const part of String(value).split(",").map((s) => s.trim()).filter(Boolean)) {
    const name = names.find((n) => refreshKeys(n).includes(part));
    if (!name) {
      const allowed = names.map((n) => n.slice(0, 2)).join(" ");
      return { error: `--refresh 的值 ${JSON.stringify(part)} 不是课程的笔记本；可选：${allowed}（可用逗号连写），或 all` };
    }
    if (!picked.includes(name)) picked.push(name);
  }
  return picked.length > 0 ? { names: picked } : { error: "--refresh 需要笔记本编号，例如 --refresh 03" };
}

/** Each source notebook as a fresh copy of this edition has it: name → text. The student edition is what
 * `npm run release` writes (run into a temporary folder); the instructor edition is the source as committed. */
export function editionTexts(edition, sourcesDir = NOTEBOOKS_DIR) {
  const names = sourceNames(sourcesDir);
  if (edition === "instructor") return new Map(names.map((n) => [n, fs.readFileSync(path.join(sourcesDir, n), "utf8")]));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "l11-workspace-"));
  try {
    const release = path.join(ROOT, "scripts", "release.mjs");
    const r = spawnSync(process.execPath, [release, "--out", tmp, ...names.map((n) => path.join(sourcesDir, n))], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`scripts/release.mjs failed (${r.status}):\n${r.stderr}${r.stdout}`);
    return new Map(names.map((n) => [n, fs.readFileSync(path.join(tmp, n), "utf8")]));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function readManifest(dir) {
  const file = path.join(dir, MANIFEST);
  if (!fs.existsSync(file)) return { notebooks: {} };
  try {
    const m = JSON.parse(fs.readFileSync(file, "utf8"));
    return { notebooks: m.notebooks ?? {} };
  } catch {
    return { notebooks: {} }; // a damaged manifest only costs the "did the source change" answer: copies are kept
  }
}

function writeManifest(dir, edition, manifest) {
  const text = JSON.stringify({ about: "npm start: what each copy was made from (sha256 of the fresh copy's text)", edition, notebooks: manifest.notebooks }, null, 1);
  fs.writeFileSync(path.join(dir, MANIFEST), text + "\n");
}

/** The `lib` link every notebook imports from (./lib/index), pointing at the compiled library. */
function ensureLibLink(dir) {
  const link = path.join(dir, "lib");
  // Relative inside the project (it survives moving the clone, as notebooks/lib does); absolute for a workspace elsewhere.
  const target = path.relative(ROOT, dir).startsWith("..") ? BUILD_LIB : path.relative(dir, BUILD_LIB);
  let current = null;
  try {
    current = fs.readlinkSync(link);
  } catch {
    if (fs.existsSync(link)) return `${shown(link)} 不是链接，保持原样（笔记本的 import 可能找不到库）`;
  }
  if (current === target) return null;
  if (current !== null) fs.unlinkSync(link);
  fs.symlinkSync(target, link);
  return null;
}

/** "03-preble.backup-2026-12-02-0704.ipynb" (seconds added when a backup of that minute exists). */
function backupPath(file, now) {
  const pad = (n) => String(n).padStart(2, "0");
  const stamp = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}-${pad(now.getHours())}${pad(now.getMinutes())}`;
  const base = file.replace(/\.ipynb$/, "");
  for (const suffix of [stamp, `${stamp}${pad(now.getSeconds())}`]) {
    const candidate = `${base}.backup-${suffix}.ipynb`;
    if (!fs.existsSync(candidate)) return candidate;
  }
  for (let i = 2; ; i++) {
    const candidate = `${base}.backup-${stamp}${pad(now.getSeconds())}-${i}.ipynb`;
    if (!fs.existsSync(candidate)) return candidate;
  }
}

/** Trusts the copies just written, in the project's own trust database (.jupyter/data/nbsignatures.db, the one
 * the server started by `npm start` reads), so they open without "Not Trusted". Later saves are signed by the
 * server itself. */
export function trustNotebooks(files, env = jupyterEnv()) {
  if (files.length === 0) return;
  const r = spawnSync(PYTHON, ["-m", "nbformat.sign", ...files], { encoding: "utf8", env });
  if (r.status !== 0) throw new Error(`could not trust the workspace notebooks (${PYTHON} -m nbformat.sign):\n${r.stderr}`);
}

/**
 * Makes the edition's workspace current without losing a reader's work: a missing copy is made, a copy the reader
 * never changed follows its source, a changed copy of a changed source is only reported, and the notebooks in
 * `refresh` are replaced after their copy is moved to a dated backup. Returns the folder and one line per event.
 * @param {{ edition: string, refresh?: string[], sourcesDir?: string, root?: string, now?: Date, trust?: (files: string[]) => void }} options
 */
export function prepareWorkspace({ edition, refresh = [], sourcesDir = NOTEBOOKS_DIR, root = workspaceRoot(), now = new Date(), trust = trustNotebooks }) {
  const dir = editionDir(edition, root);
  fs.mkdirSync(dir, { recursive: true });
  const lines = [];
  const linkProblem = ensureLibLink(dir);
  if (linkProblem) lines.push(linkProblem);
  const manifest = readManifest(dir);
  const texts = editionTexts(edition, sourcesDir);
  // .jupyter/ regenerated (deleted, a moved clone): the copies lost their trust with the old database; they are the
  // reader's own, made here, so they are trusted again rather than opening as "Not Trusted".
  const trustLost = !fs.existsSync(path.join(jupyterEnv().JUPYTER_DATA_DIR, "nbsignatures.db"));
  const written = [];
  const writeCopy = (name, text) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    manifest.notebooks[name] = { source: sha256(text), copy: sha256(text), copied: now.toISOString() };
    written.push(file);
  };
  let created = 0;
  for (const [name, text] of texts) {
    const file = path.join(dir, name);
    const entry = manifest.notebooks[name];
    if (!fs.existsSync(file)) {
      writeCopy(name, text);
      created++;
    } else if (refresh.includes(name)) {
      const backup = backupPath(file, now);
      fs.renameSync(file, backup);
      writeCopy(name, text);
      lines.push(`${name}：已换成新的副本，你原来的在 ${path.basename(backup)}`);
    } else if (entry?.source === sha256(text)) {
      continue; // source unchanged since the copy was made
    } else if (entry && sha256(fs.readFileSync(file, "utf8")) === entry.copy) {
      writeCopy(name, text); // the reader never changed it: following the source loses nothing
      lines.push(`${name}：源文件有更新，你没有改过这个副本，已换成新版本`);
    } else {
      lines.push(`${name}：源文件有更新（比如 git pull 之后），你的副本保持不变；换成新版本（旧的留作备份）：npm start -- --refresh ${name.slice(0, 2)}`);
    }
  }
  for (const name of Object.keys(manifest.notebooks)) {
    if (texts.has(name)) continue;
    if (fs.existsSync(path.join(dir, name))) lines.push(`${name}：课程里已没有这个笔记本，你的副本保留在 ${shown(dir)}/`);
    else delete manifest.notebooks[name];
  }
  if (created > 0) lines.unshift(`${shown(dir)}/：复制了 ${created} 个笔记本（${edition === "student" ? "学生版" : "教师版"}）`);
  writeManifest(dir, edition, manifest);
  trust(trustLost ? [...texts.keys()].map((n) => path.join(dir, n)).filter((f) => fs.existsSync(f)) : written);
  return { dir, lines };
}
