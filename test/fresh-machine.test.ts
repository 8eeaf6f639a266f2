// What a new user meets on a fresh machine, beyond the notebooks themselves:
// - the CLI behaves like a Unix tool: piped into `head` (or into a reader that has already gone) it stops quietly;
// - log-scale axes label every decade with its value (1, 10, 100 …), as drawn by Plotly in Chromium;
// - the set-up installs only what is missing, without recommended packages, never `apt-get upgrade`, and includes
//   the CJK fonts; every dependency with an install script is listed in package.json's allowScripts (npm 11 warns
//   about unlisted ones, npm 12 blocks them);
// - the README stands alone: every file it links is in the project (the design summary is docs/design.md).
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { pathToFileURL } from "url";
import { chromium } from "playwright-core";
import { describe, expect, it } from "vitest";
import { lines } from "../lib/view/charts";
import { figureHtml, resetPlots } from "../lib/view/plot";
import { PYTHON, ROOT, runProcess } from "./support/processes";

const TSX = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
const CLI = path.join(ROOT, "lib", "cli.ts");

// A reader that stops early: a pipe one page (4096 bytes) deep, read up to its first line and closed, so the CLI is
// still writing when the reader goes (Node then fails the pending write with EPIPE: unhandled, that is a crash with
// a stack trace). Python sets the pipe's size; Node cannot.
const EARLY_READER = `
import fcntl, json, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ
p = subprocess.Popen(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
os.close(w)
with os.fdopen(r, "rb") as f:
    first = f.readline()
err = p.stderr.read()
print(json.dumps({"code": p.wait(), "first": first.decode(errors="replace"), "stderr": err.decode(errors="replace")}))
`;

describe("the CLI in a pipe", () => {
  it(
    "npm run demo -- 01.2 --help | head -1: one line, exit 0, nothing on stderr",
    async () => {
      const err = path.join(os.tmpdir(), `l11-cli-pipe-${process.pid}.txt`);
      try {
        const script = `set -o pipefail; "${process.execPath}" "${TSX}" "${CLI}" 01.2 --help 2>"$ERR" | head -1`;
        const r = await runProcess("bash", ["-c", script], { env: { ...process.env, ERR: err } });
        expect(fs.readFileSync(err, "utf8"), "stderr of the CLI").toBe("");
        expect(r.code, r.output).toBe(0);
        expect(r.output.trim().split("\n")).toHaveLength(1);
      } finally {
        fs.rmSync(err, { force: true });
      }
    },
    60_000,
  );

  for (const args of [["--list"], ["05.1", "--json"]]) {
    it(
      `npm run demo -- ${args.join(" ")}, its reader gone after the first line: exit 0, no EPIPE`,
      async () => {
        const whole = await runProcess(process.execPath, [TSX, CLI, ...args]);
        expect(Buffer.byteLength(whole.output), "the output outgrows the pipe (else this proves nothing)").toBeGreaterThan(4096);
        const r = await runProcess(PYTHON, ["-c", EARLY_READER, process.execPath, TSX, CLI, ...args]);
        const probe = JSON.parse(r.output.trim().split("\n").pop() ?? "{}");
        expect(probe.stderr, "stderr of the CLI").toBe("");
        expect(probe.code).toBe(0);
        expect(probe.first.length).toBeGreaterThan(0);
      },
      60_000,
    );
  }
});

describe("log axes", () => {
  it(
    "label every decade with its value, not Plotly's leading digits (a \"2\" that means 20 s)",
    async () => {
      resetPlots();
      const table = {
        title: "对数轴",
        columns: [
          { key: "rate", label: "到达率", unit: "请求/秒" },
          { key: "p99", label: "P99 时延", unit: "秒" },
        ],
        rows: [0.5, 2, 20, 150, 900, 4000].map((p99, i) => ({ rate: i + 1, p99 })),
      };
      const figure = lines(table, { x: "rate", y: "p99", logY: true });
      expect(figure.layout?.yaxis).toMatchObject({ type: "log", dtick: 1, exponentformat: "none" });
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "l11-logaxis-"));
      const file = path.join(dir, "chart.html");
      fs.writeFileSync(file, `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>${figureHtml(figure, { includeBundle: true })}</body></html>`);
      const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--headless", "--no-sandbox", "--disable-gpu"] });
      try {
        const page = await browser.newPage();
        await page.goto(pathToFileURL(file).href);
        await page.waitForFunction(() => document.querySelector(".l11-plot svg.main-svg .ytick"), null, { timeout: 30_000 });
        const ticks = await page.evaluate(() => Array.from(document.querySelectorAll(".ytick text")).map((t) => t.textContent ?? ""));
        expect(ticks).toEqual(["1", "10", "100", "1000"]);
      } finally {
        await browser.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe("the set-up", () => {
  it("installs only the missing Debian packages, without recommends or upgrades, the CJK fonts among them", async () => {
    const project = await import(pathToFileURL(path.join(ROOT, "scripts", "project.mjs")).href);
    expect(project.DEBIAN_JUPYTER).toContain("fonts-noto-cjk");
    expect(project.DEBIAN_TEST).toEqual(expect.arrayContaining([...project.DEBIAN_JUPYTER, "chromium"]));
    expect(project.aptInstallArgs(["fonts-noto-cjk"])).toEqual(["install", "-y", "--no-install-recommends", "--no-upgrade", "fonts-noto-cjk"]);
    for (const file of ["scripts/setup.mjs", "scripts/project.mjs", ".ci/run"]) {
      const text = fs.readFileSync(path.join(ROOT, file), "utf8");
      expect(text, file).not.toMatch(/apt-get(\s+-\S+)*\s+(dist-|full-)?upgrade/);
    }
  });

  it("lists every dependency with an install script in package.json's allowScripts", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, "package-lock.json"), "utf8"));
    const withScripts = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
      .filter(([where, entry]) => where !== "" && entry.hasInstallScript)
      .map(([where]) => where.replace(/^.*node_modules\//, ""));
    expect(withScripts.length).toBeGreaterThan(0); // esbuild (through tsx, vitest) and zeromq (through tslab)
    const covered = Object.keys(pkg.allowScripts ?? {}).map((k) => k.replace(/(.)@.*$/, "$1"));
    expect(withScripts.filter((name) => !covered.includes(name))).toEqual([]);
  });
});

describe("the README", () => {
  const readme = fs.readFileSync(path.join(ROOT, "README.md"), "utf8");

  it("stands alone: every file it links is in the project, the design summary included", () => {
    expect(readme).not.toContain("shared/reference");
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((u) => !/^[a-z]+:/i.test(u));
    expect(links).toContain("docs/design.md");
    for (const link of links) expect(fs.existsSync(path.join(ROOT, link)), `README links ${link}`).toBe(true);
  });

  it("says what the set-up installs and roughly how much", () => {
    expect(readme).toContain("--no-install-recommends");
    expect(readme).toContain("fonts-noto-cjk");
    expect(readme).toMatch(/\d+ MB/);
  });
});
