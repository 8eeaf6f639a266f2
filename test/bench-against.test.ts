// `npm run bench -- … --against <commit>` (scripts/bench-against.mjs): the option parsing, the default commit, how
// the figures of the two sides combine, and the temporary worktree's set-up and clean-up — on a small git
// repository made here (no real bench runs).
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script without types
import * as against from "../scripts/bench-against.mjs";

const NAMES = ["sim-throughput", "lecture", "golden"];

describe("--against: options", () => {
  it("takes a commit after --against or after =, and none when a name or an option follows", () => {
    expect(against.parseAgainst(["sim-throughput", "--against", "c3f766e"], NAMES)).toEqual({ against: "c3f766e", rounds: null, rest: ["sim-throughput"] });
    expect(against.parseAgainst(["--against=HEAD~2", "lecture", "--repeats=1"], NAMES)).toEqual({ against: "HEAD~2", rounds: null, rest: ["lecture", "--repeats=1"] });
    expect(against.parseAgainst(["--against", "lecture"], NAMES)).toEqual({ against: "", rounds: null, rest: ["lecture"] });
    expect(against.parseAgainst(["golden", "--against", "--json"], NAMES)).toEqual({ against: "", rounds: null, rest: ["golden", "--json"] });
    expect(against.parseAgainst(["golden", "--against", "main", "--rounds", "5"], NAMES)).toEqual({ against: "main", rounds: 5, rest: ["golden"] });
    expect(against.parseAgainst(["golden"], NAMES)).toEqual({ against: null, rounds: null, rest: ["golden"] });
  });

  it("refuses --rounds outside [1, 20] or without --against", () => {
    expect(() => against.parseAgainst(["--against", "--rounds=0"], NAMES)).toThrow(/--rounds/);
    expect(() => against.parseAgainst(["--against", "--rounds=x"], NAMES)).toThrow(/--rounds/);
    expect(() => against.parseAgainst(["--rounds=2"], NAMES)).toThrow(/only goes with --against/);
  });
});

describe("--against: combining the two sides", () => {
  const rate = "simulated requests per wall-second (long documents)";
  const secs = "wall s, every demo";

  it("tells rates (higher is better) from times (lower is better); counts and percentages get no ratio", () => {
    expect(against.betterWay(rate)).toBe("higher");
    expect(against.betterWay("engine iterations per wall-second (same run)")).toBe("higher");
    expect(against.betterWay(secs)).toBe("lower");
    expect(against.betterWay("CPU s of the run")).toBe("lower");
    expect(against.betterWay("MB, peak resident set")).toBe("lower");
    expect(against.betterWay("% slower with the timeline on")).toBeNull();
    expect(against.betterWay("demos whose table differs from the golden file")).toBeNull();
  });

  it("keeps the best round per side and divides: 300 vs 100 requests/s is 3×, 2 s vs 5 s is 2.5×", () => {
    const here = against.bestOf([{ r: { value: 250, unit: rate }, t: { value: 2.5, unit: secs } }, { r: { value: 300, unit: rate }, t: { value: 2, unit: secs } }]);
    const there = against.bestOf([{ r: { value: 100, unit: rate }, t: { value: 5, unit: secs } }, { r: { value: 90, unit: rate }, t: { value: 6, unit: secs } }]);
    expect(here.r.value).toBe(300);
    expect(here.t.value).toBe(2);
    const out = against.combine(here, there, "0123456789abcdef");
    expect(out["r.against"].value).toBe(100);
    expect(out["r.speedup"].value).toBe(3);
    expect(out["t.against"].value).toBe(5);
    expect(out["t.speedup"].value).toBe(2.5);
    expect(out["r.against"].unit).toContain("01234567");
  });
});

describe("--against: the temporary worktree", () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "bench-against-test-"));
  const repo = path.join(tmp, "repo");
  afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
  const git = (...args: string[]) => {
    const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], { cwd: repo, encoding: "utf8" });
    if (r.status !== 0) throw new Error(r.stderr);
    return r.stdout.trim();
  };
  // A build script that records which commit it built (and fails on demand).
  const commit = (label: string, fail = false) => {
    fs.mkdirSync(path.join(repo, "scripts"), { recursive: true });
    const body = fail ? "process.exit(3);" : `fs.mkdirSync("build/lib", { recursive: true }); fs.writeFileSync("build/lib/built.txt", ${JSON.stringify(label)} + " " + fs.existsSync("node_modules/dep.txt"));`;
    fs.writeFileSync(path.join(repo, "scripts", "build-lib.mjs"), `import * as fs from "node:fs";\n${body}\n`);
    git("add", "scripts");
    git("commit", "-q", "-m", label);
    return git("rev-parse", "HEAD");
  };
  fs.mkdirSync(repo);
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(repo, ".gitignore"), "node_modules\nbuild\n");
  fs.mkdirSync(path.join(repo, "node_modules"));
  fs.writeFileSync(path.join(repo, "node_modules", "dep.txt"), "x");
  const one = commit("one");
  const two = commit("two");
  const broken = commit("broken", true);
  const worktrees = () => git("worktree", "list").split("\n").length;

  it("defaults to HEAD~1 on main, and to the merge base with main on a branch ahead of it", () => {
    expect(against.defaultAgainst(repo).rev).toBe(two);
    git("checkout", "-q", "-b", "feature");
    commit("three");
    expect(against.defaultAgainst(repo).rev).toBe(broken);
    git("checkout", "-q", "main");
  });

  it("checks the commit out beside this checkout's node_modules, builds it there, and removes it all again", () => {
    const logs: string[] = [];
    const w = against.prepareAgainst(repo, "HEAD~2", { tmp, log: (m: string) => logs.push(m) });
    expect(w.sha).toBe(one);
    expect(fs.readFileSync(path.join(w.dir, "build", "lib", "built.txt"), "utf8")).toBe("one true");
    expect(fs.lstatSync(path.join(w.dir, "node_modules")).isSymbolicLink()).toBe(true);
    expect(worktrees()).toBe(2);
    expect(logs.some((m) => m.includes(one.slice(0, 8)))).toBe(true);
    w.cleanup();
    w.cleanup(); // twice is harmless (exit handler after an explicit clean-up)
    expect(fs.existsSync(w.dir)).toBe(false);
    expect(worktrees()).toBe(1);
  });

  it("with benchFrom, this checkout's bench files replace the other commit's (its golden tables stay)", () => {
    const here = path.join(tmp, "here");
    fs.mkdirSync(path.join(here, "bench", "golden"), { recursive: true });
    fs.writeFileSync(path.join(here, "bench", "speed.ts"), "// this checkout's bench");
    fs.writeFileSync(path.join(here, "bench", "golden", "x.json"), "{}");
    const w = against.prepareAgainst(repo, two, { tmp, benchFrom: here });
    try {
      expect(fs.readFileSync(path.join(w.dir, "bench", "speed.ts"), "utf8")).toBe("// this checkout's bench");
      expect(fs.existsSync(path.join(w.dir, "bench", "golden", "x.json"))).toBe(false);
    } finally {
      w.cleanup();
    }
    fs.rmSync(here, { recursive: true, force: true });
  });

  it("a failed build or an unknown commit leaves no worktree behind", () => {
    expect(() => against.prepareAgainst(repo, broken, { tmp })).toThrow(/build-lib\.mjs failed/);
    expect(() => against.prepareAgainst(repo, "no-such-commit", { tmp })).toThrow(/rev-parse/);
    expect(worktrees()).toBe(1);
    expect(fs.readdirSync(tmp).filter((f) => f.startsWith("bench-against-"))).toEqual([]);
  });
});
