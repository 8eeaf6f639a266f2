// `npm run bench -- [names…] [--json] [--option=value …]`: the benches of issue 8, by name (no name = all of them).
//
//   e2-burst        Preble's E2 scheduler on a 50,000-request burst, by decile          bench/preble.ts
//   router-burst    every registered router on the same bursts                          bench/router-burst.ts
//   sim-throughput  cluster simulator: simulated requests and iterations per second      bench/cluster.ts
//                   … its scaling from 1,000 to 100,000 requests and peak memory          bench/sim-scaling.ts
//   balls           balls into bins up to n = 10^6                                       bench/dispatch.ts
//   queues          the §1 queue simulations at full size                                bench/dispatch.ts
//   lecture         every notebook executed in the tslab kernel, and each one alone      bench/lecture.ts
//   golden          every demo at default parameters vs bench/golden/*.json (--update)   bench/golden.ts
//   trace-replay    the whole Mooncake trace through one router on 8 replicas (< 2 s)      bench/trace-replay.ts
//
// Each bench file runs once (with tsx) even when it produces several names (or a name comes from several files:
// their metrics are merged), prints one JSON object with --json, and this script keeps the names asked for. With --json, stdout is ONE merged object
//   { "<name>": { "<metric>": { "value": number, "unit": "…" } } }
// and nothing else (progress and errors go to stderr; `npm run -s bench` keeps npm's own banner off stdout too);
// without it, a table per name. Other options go to every
// bench file (e.g. --repeats=3, --update, --notebooks=01,02). Results are recorded in bench/RESULTS.md.
// --against [<commit>] [--rounds=N] runs the same benches on another commit too, interleaved, with the speed-up
// of each metric (scripts/bench-against.mjs).
import { spawnSync } from "node:child_process";
import * as os from "node:os";
import * as path from "node:path";
import { bestOf, cleanupOnExit, combine, defaultAgainst, parseAgainst, prepareAgainst } from "./bench-against.mjs";
import { ROOT } from "./project.mjs";

export const BENCHES = [
  { name: "e2-burst", file: "preble.ts", args: ["--no-demo"], about: "Preble's E2 scheduler on a 50,000-request burst (decisions/s by decile)" },
  { name: "router-burst", file: "router-burst.ts", args: [], about: "every registered router on 50,000-request bursts (tool calling, video QA; 4 and 8 replicas)" },
  { name: "sim-throughput", file: "cluster.ts", args: [], about: "cluster simulator: simulated requests and engine iterations per second" },
  { name: "sim-throughput", file: "sim-scaling.ts", args: [], about: "… and how it scales from 1,000 to 100,000 requests, with peak memory" },
  { name: "balls", file: "dispatch.ts", args: [], about: "balls into bins up to n = 10^6" },
  { name: "queues", file: "dispatch.ts", args: [], about: "the §1 queue simulations at full size" },
  { name: "lecture", file: "lecture.ts", args: [], about: "every notebook in the tslab kernel (whole collection and each alone)" },
  { name: "golden", file: "golden.ts", args: [], about: "every demo at default parameters vs bench/golden/*.json (same seed → same numbers)" },
  { name: "trace-replay", file: "trace-replay.ts", args: [], about: "the whole Mooncake conversation trace (12,031 requests) through one router on 8 replicas, its load and demo 06.4" },
];

// Headline metrics under the names the issue uses (e.g. e2-burst.toolCallingDecisionsPerSec), copied from the
// bench's own metric when it is there.
const ALIASES = {
  "e2-burst": {
    toolCallingDecisionsPerSec: "toolCalling4DecisionsPerSecond",
    videoQADecisionsPerSec: "videoQA4DecisionsPerSecond",
  },
};

function usage() {
  return ["usage: npm run bench -- [names…] [--json] [--against [<commit>] [--rounds=N]] [--option=value …]", "names:", ...BENCHES.map((b, i) => `  ${(i > 0 && BENCHES[i - 1].name === b.name ? "" : b.name).padEnd(15)} ${b.about} (bench/${b.file})`)].join("\n");
}

/** The last line of `text` that parses as a JSON object. */
function lastJson(text) {
  const lines = text.trim().split("\n").reverse();
  for (const line of lines) {
    const t = line.trim();
    if (!t.startsWith("{")) continue;
    try {
      return JSON.parse(t);
    } catch {
      /* not this line */
    }
  }
  return null;
}

/** Runs one bench file of the checkout at `root` (this one or an --against worktree); its JSON, or null. */
function runFile(root, file, args, flags, problem) {
  const tsx = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
  const r = spawnSync(process.execPath, [tsx, path.join(root, "bench", file), "--json", ...args, ...flags], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --expose-gc`.trim() },
  });
  const out = lastJson(r.stdout ?? "");
  const where = root === ROOT ? `bench/${file}` : `bench/${file} (${path.basename(root)})`;
  if (!out) {
    problem(`bench: ${where} printed no JSON (exit ${r.status}${r.error ? `, ${r.error.message}` : ""})${r.stdout ? `:\n${r.stdout.slice(-2000)}` : ""}`);
    return null;
  }
  if (r.status !== 0) problem(`bench: ${where} exited with ${r.status} (its figures are kept)`);
  return out;
}

/** Splits the arguments: --json, the bench names, the options that go to the bench files. */
function splitArgs(argv) {
  const json = argv.includes("--json");
  // "--key value" pairs are kept together for the bench files; names are the other bare words.
  const flags = [];
  const names = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--json") continue;
    if (a.startsWith("-")) flags.push(a);
    else if (i > 0 && argv[i - 1].startsWith("--") && !argv[i - 1].includes("=") && /^[\d.,]+$/.test(a)) flags.push(a);
    else names.push(a.replace(/^bench\//, "").replace(/\.ts$/, ""));
  }
  return { json, flags, names };
}

function main(argv) {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(usage());
    return 0;
  }
  const valid = [...new Set(BENCHES.map((b) => b.name))];
  let ag;
  try {
    ag = parseAgainst(argv, valid);
  } catch (e) {
    console.error(e.message);
    return 2;
  }
  const { json, flags, names } = splitArgs(ag.rest);
  const unknown = names.filter((n) => !valid.includes(n));
  if (unknown.length > 0) {
    console.error(`bench: unknown name${unknown.length > 1 ? "s" : ""} ${unknown.map((n) => JSON.stringify(n)).join(", ")}; valid names: ${valid.join(", ")}`);
    return 2;
  }
  const chosen = names.length > 0 ? BENCHES.filter((b) => names.includes(b.name)) : BENCHES;
  const files = [...new Set(chosen.map((b) => b.file))];
  let failed = 0;
  const problem = (m) => {
    failed++;
    console.error(m);
  };
  const started = Date.now();
  let other = null;
  if (ag.against !== null) {
    const rev = ag.against || defaultAgainst(ROOT).rev;
    other = prepareAgainst(ROOT, rev, { setup: files.includes("lecture.ts") ? "notebooks" : "build", log: (m) => console.error(m), benchFrom: ROOT });
    cleanupOnExit(other.cleanup);
  }
  const rounds = ag.rounds ?? (files.includes("lecture.ts") ? 1 : 3);
  const merged = {};
  for (const file of files) {
    const benches = chosen.filter((b) => b.file === file);
    const label = benches.map((b) => b.name).join(", ");
    if (!json) console.error(`bench: ${label} (bench/${file}) …`);
    const t0 = Date.now();
    const here = [];
    const there = [];
    for (let k = 0; k < (other ? rounds : 1); k++) {
      // Interleaved, alternating which side goes first.
      const sides = other ? (k % 2 === 0 ? ["here", "there"] : ["there", "here"]) : ["here"];
      for (const side of sides) {
        if (other) console.error(`bench: ${label}, round ${k + 1}/${rounds}, ${side === "here" ? "this checkout" : `commit ${other.sha.slice(0, 8)}`} …`);
        const out = runFile(side === "here" ? ROOT : other.dir, file, benches[0].args, flags, problem);
        if (out) (side === "here" ? here : there).push(out);
      }
    }
    for (const b of benches) {
      const mine = here.filter((o) => o[b.name]).map((o) => o[b.name]);
      if (mine.length === 0) {
        problem(`bench: bench/${file} gave no "${b.name}" group`);
        continue;
      }
      let group = bestOf(mine);
      if (other) group = combine(group, bestOf(there.filter((o) => o[b.name]).map((o) => o[b.name])), other.sha);
      merged[b.name] = { ...(merged[b.name] ?? {}), ...group };
    }
    if (!json) console.error(`bench: ${label} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  }
  if (other) other.cleanup();
  for (const [name, aliases] of Object.entries(ALIASES)) {
    const group = merged[name];
    if (!group) continue;
    for (const [alias, source] of Object.entries(aliases)) {
      if (group[source] && !group[alias]) group[alias] = { value: group[source].value, unit: `${group[source].unit} [= ${source}]` };
    }
  }
  if (json) console.log(JSON.stringify(merged));
  else printTables(merged, other, rounds, started, failed);
  return failed ? 1 : 0;
}

function printTables(merged, other, rounds, started, failed) {
  console.log(`npm run bench — Node ${process.version}, ${os.cpus().length} CPU(s) ${os.cpus()[0]?.model ?? ""}, load average ${os.loadavg()[0].toFixed(1)}`);
  if (other) console.log(`beside commit ${other.sha.slice(0, 8)} (a temporary worktree), ${rounds} interleaved round(s) each, best per side`);
  for (const [name, metrics] of Object.entries(merged)) {
    console.log(`\n${name}:`);
    const width = Math.min(48, Math.max(...Object.keys(metrics).map((k) => k.length)));
    for (const [metric, m] of Object.entries(metrics)) console.log(`  ${metric.padEnd(width)} ${String(m.value).padStart(10)}  ${m.unit}`);
  }
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s in all${failed ? `; ${failed} problem(s), see above` : ""})`);
}

process.exitCode = main(process.argv.slice(2));
