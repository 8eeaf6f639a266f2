// `npm run bench -- <names> --against [<commit>]`: the same benches on another commit, in the same invocation, so
// the ratio is measured on one machine at one time (issue 27). The other commit is checked out into a temporary
// git worktree (detached), given this checkout's node_modules by a symlink, and built there (its own build/lib;
// with `lecture` its own set-up for the notebooks: kernel spec and globals), and this checkout's bench files are
// copied over its own (both sides measured by the same code; only the library and notebooks differ). Then every
// bench file runs alternately here and there, --rounds times (default 3; 1 for lecture, whose file already repeats), and each
// metric keeps its best value per side (the highest rate, the lowest time) and the ratio of the two. The worktree
// is removed at the end, also after an error or Ctrl-C.
//
// Default commit: the merge base with main when this is another branch that has commits of its own, else HEAD~1.
// Node built-ins only; the pure parts (option parsing, the default commit, combining figures) are exported for
// test/bench-against.test.ts.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";

/** Splits `--against[=<rev>]` / `--against <rev>` and `--rounds=N` off the arguments. A bare word after
 * --against is its commit when it is not a bench name. */
export function parseAgainst(argv, benchNames) {
  const rest = [];
  let against = null;
  let rounds = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--against") {
      const next = argv[i + 1];
      if (next !== undefined && !next.startsWith("-") && !benchNames.includes(next)) {
        against = next;
        i++;
      } else against = "";
    } else if (a.startsWith("--against=")) {
      against = a.slice("--against=".length);
    } else if (a === "--rounds" || a.startsWith("--rounds=")) {
      const v = a === "--rounds" ? argv[++i] : a.slice("--rounds=".length);
      rounds = Number(v);
      if (!(Number.isInteger(rounds) && rounds >= 1 && rounds <= 20)) throw new Error(`bench: --rounds must be an integer in [1, 20], got ${JSON.stringify(v)}`);
    } else rest.push(a);
  }
  if (rounds !== null && against === null) throw new Error("bench: --rounds only goes with --against");
  return { against, rounds, rest };
}

function git(cwd, args) {
  const r = spawnSync("git", args, { cwd, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`git ${args.join(" ")} failed: ${(r.stderr || r.stdout).trim()}`);
  return r.stdout.trim();
}

/** The commit to compare with when none is given: the merge base with `main` when HEAD is on another branch ahead
 * of it, else HEAD~1. */
export function defaultAgainst(root) {
  const head = git(root, ["rev-parse", "HEAD"]);
  const main = spawnSync("git", ["rev-parse", "--verify", "-q", "main^{commit}"], { cwd: root, encoding: "utf8" });
  if (main.status === 0) {
    const base = spawnSync("git", ["merge-base", "HEAD", "main"], { cwd: root, encoding: "utf8" });
    const sha = base.stdout.trim();
    if (base.status === 0 && sha && sha !== head) return { rev: sha, why: "the merge base with main" };
  }
  return { rev: git(root, ["rev-parse", "HEAD~1"]), why: "HEAD~1" };
}

/** Checks out `rev` into a temporary worktree beside this checkout's node_modules and builds it there.
 * `setup`: "build" (build/lib only) or "notebooks" (scripts/setup.mjs --for-tests: also the kernel spec and the
 * notebook globals). Returns { dir, sha, cleanup }. */
export function prepareAgainst(root, rev, { setup = "build", log = () => undefined, tmp = os.tmpdir(), benchFrom = null } = {}) {
  const sha = git(root, ["rev-parse", "--verify", `${rev}^{commit}`]);
  const dir = fs.mkdtempSync(path.join(tmp, `bench-against-${sha.slice(0, 8)}-`));
  let removed = false;
  const cleanup = () => {
    if (removed) return;
    removed = true;
    spawnSync("git", ["worktree", "remove", "--force", dir], { cwd: root, encoding: "utf8" });
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    log(`bench: checking out ${sha.slice(0, 8)} into ${dir} …`);
    git(root, ["worktree", "add", "--detach", "--force", dir, sha]);
    if (benchFrom) copyBenchFiles(benchFrom, dir);
    const modules = path.join(root, "node_modules");
    if (fs.existsSync(modules)) fs.symlinkSync(fs.realpathSync(modules), path.join(dir, "node_modules"), "dir");
    const script = setup === "notebooks" ? ["scripts/setup.mjs", "--for-tests"] : ["scripts/build-lib.mjs"];
    log(`bench: building ${sha.slice(0, 8)} (${script.join(" ")}) …`);
    const r = spawnSync(process.execPath, script, { cwd: dir, encoding: "utf8", maxBuffer: 16 * 1024 * 1024 });
    if (r.status !== 0) throw new Error(`bench: ${script.join(" ")} failed in ${sha.slice(0, 8)}:\n${(r.stdout + r.stderr).slice(-3000)}`);
  } catch (e) {
    cleanup();
    throw e;
  }
  return { dir, sha, cleanup };
}

/** This checkout's bench files (bench/*.ts) over the other commit's: both sides are measured by the same code, only
 * the library differs. Its golden tables (bench/golden/) and everything else stay the other commit's. */
export function copyBenchFiles(from, dir) {
  const src = path.join(from, "bench");
  const dst = path.join(dir, "bench");
  fs.mkdirSync(dst, { recursive: true });
  for (const f of fs.readdirSync(src)) if (f.endsWith(".ts")) fs.copyFileSync(path.join(src, f), path.join(dst, f));
}

/** Removes the worktree on exit and on Ctrl-C / kill. */
export function cleanupOnExit(cleanup) {
  process.on("exit", cleanup);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.once(sig, () => {
      cleanup();
      process.exit(130);
    });
  }
}

/** Which way a metric is better, from its unit: "higher" (per second), "lower" (seconds, MB), or null (counts,
 * percentages, ratios: no speed-up ratio). */
export function betterWay(unit) {
  if (/%|\bratio\b|÷|\bcells? over\b|notebooks that|demos|differ|tables/i.test(unit)) return null;
  if (/\bper\b.*\bsecond|\/s\b|per (wall|CPU)-?s/i.test(unit)) return "higher";
  if (/\b(wall|CPU) s\b|\bs\b|seconds|\bMB\b/i.test(unit)) return "lower";
  return null;
}

/** Best of several rounds per metric (`runs`: the { metric: { value, unit } } of each round). */
export function bestOf(runs) {
  const out = {};
  for (const run of runs) {
    for (const [k, m] of Object.entries(run)) {
      const way = betterWay(m.unit);
      const prev = out[k];
      if (!prev || (way === "higher" && m.value > prev.value) || (way === "lower" && m.value < prev.value)) out[k] = { ...m };
    }
  }
  return out;
}

/** This commit's metrics beside the other's: `<metric>` (this one), `<metric>.against`, and `<metric>.speedup` (this
 * commit's speed ÷ the other's: > 1 is faster) where the unit tells which way is better. */
export function combine(current, against, sha) {
  const out = {};
  for (const [k, m] of Object.entries(current)) {
    out[k] = m;
    const o = against[k];
    if (!o) continue;
    out[`${k}.against`] = { value: o.value, unit: `${o.unit} [commit ${sha.slice(0, 8)}]` };
    const way = betterWay(m.unit);
    if (way && o.value > 0 && m.value > 0) {
      const ratio = way === "higher" ? m.value / o.value : o.value / m.value;
      out[`${k}.speedup`] = { value: Number(ratio.toPrecision(3)), unit: `× speed of ${sha.slice(0, 8)} (${way === "higher" ? "this ÷ that" : "that ÷ this"}; > 1 = faster here)` };
    }
  }
  return out;
}
