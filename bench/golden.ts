// Bench "golden": same seed → same numbers, before and after any optimization. Runs every registered demo with its
// default parameters and compares its Table (every row's every cell, the title, columns and notes) with the file
// committed in bench/golden/<id>.json; `--update` rewrites the files from the code as it is now.
//
// A file holds the demo's defaults, a SHA-256 of the table's canonical JSON (a fingerprint to quote; it must match
// the table stored next to it), the table itself, compared cell by cell so a difference is reported as the first
// differing cell, and the claims' verdicts by claim id (the conclusions the table supports; their wording may change
// without touching the file). --small runs the demos at test/support/demo-sizes.ts's small parameters against
// bench/golden/small/ (what `npm test` checks for the demos too slow at their defaults). Numbers are compared exactly
// unless --tolerance=R is given (relative; e.g. 1e-12 lets a changed summation order through).
//
// Usage: npx tsx bench/golden.ts [--json] [--update --reason "why the tables change"] [--small] [--tolerance=R] [--ids=03.1,06.1]
//   JSON: { "golden": { "demos": {…}, "differing": {…}, "<id>": { value: seconds, unit } } }
// Also run (on the fast demos) by test/bench-golden.test.ts.
import { createHash } from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import type { Table } from "../lib/core/table";
import { listDemos, runDemo } from "../lib/demos/index";
import { SMALL } from "../test/support/demo-sizes";
import { option } from "./options";

export const GOLDEN_DIR = path.join(__dirname, "golden");
/** golden files of the demos at their small parameters (test/support/demo-sizes.ts) */
export const SMALL_GOLDEN_DIR = path.join(GOLDEN_DIR, "small");

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A number JSON cannot hold (NaN, ±Infinity), written as { "nonFinite": "NaN" }. */
function encode(value: unknown): Json {
  if (typeof value === "number") return Number.isFinite(value) ? value : { nonFinite: String(value) };
  if (value === undefined) return null;
  if (value === null || typeof value === "boolean" || typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(encode);
  if (typeof value === "object") {
    const out: { [key: string]: Json } = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (v !== undefined) out[k] = encode(v);
    return out;
  }
  return String(value);
}

/** The parts of a Table that carry results, in a stable JSON form (a column's format function is written as "function"). */
export function canonicalTable(t: Table): Json {
  return encode({
    title: t.title,
    columns: t.columns.map((c) => ({ key: c.key, label: c.label, unit: c.unit, format: typeof c.format === "function" ? "function" : c.format, formatFrom: c.formatFrom })),
    rows: t.rows,
    notes: t.notes ?? [],
  });
}

export function hashOf(canonical: Json): string {
  return createHash("sha256").update(JSON.stringify(canonical)).digest("hex");
}

export interface GoldenFile {
  id: string;
  title: string;
  /** the parameters the table was produced with (the defaults, or the small set merged over them) */
  defaults: Json;
  sha256: string;
  table: Json;
  /** the claims' verdicts, by id: [id, verdict] or [id, verdict, [each reading's verdict]] */
  claims?: Json[];
}

/** A table's judged claims as [id, verdict(, readings' verdicts)]: ids and verdicts only, never the wording. */
export function claimVerdicts(table: Table): Json[] {
  return (table.claims ?? []).map((c) => (c.readings ? [c.id, c.verdict, c.readings.map((r) => r.verdict)] : [c.id, c.verdict]));
}

export function goldenPath(id: string, dir = GOLDEN_DIR): string {
  return path.join(dir, `${id}.json`);
}

export function readGolden(id: string, dir = GOLDEN_DIR): GoldenFile | null {
  const p = goldenPath(id, dir);
  return fs.existsSync(p) ? (JSON.parse(fs.readFileSync(p, "utf8")) as GoldenFile) : null;
}

export function goldenOf(id: string, table: Table, params: Record<string, unknown> = {}): GoldenFile {
  const demo = listDemos().find((d) => d.id === id);
  const canonical = canonicalTable(table);
  return { id, title: table.title, defaults: encode({ ...(demo?.defaults ?? {}), ...params }), sha256: hashOf(canonical), table: canonical, claims: claimVerdicts(table) };
}

/** The file's text: one line per column, row and note, so a changed number shows up as a one-line git diff. */
export function formatGolden(g: GoldenFile): string {
  const t = g.table as { title: Json; columns: Json[]; rows: Json[]; notes: Json[] };
  const list = (xs: Json[]) => (xs.length ? `[\n${xs.map((x) => `   ${JSON.stringify(x)}`).join(",\n")}\n  ]` : "[]");
  return [
    "{",
    ` "id": ${JSON.stringify(g.id)},`,
    ` "title": ${JSON.stringify(g.title)},`,
    ` "defaults": ${JSON.stringify(g.defaults)},`,
    ` "sha256": ${JSON.stringify(g.sha256)},`,
    ` "table": {`,
    `  "title": ${JSON.stringify(t.title)},`,
    `  "columns": ${list(t.columns)},`,
    `  "rows": ${list(t.rows)},`,
    `  "notes": ${list(t.notes)}`,
    " },",
    ` "claims": ${g.claims?.length ? `[\n${g.claims.map((c) => `  ${JSON.stringify(c)}`).join(",\n")}\n ]` : "[]"}`,
    "}",
    "",
  ].join("\n");
}

function show(x: Json | undefined): string {
  const s = JSON.stringify(x);
  return s === undefined ? "(missing)" : s.length > 120 ? `${s.slice(0, 117)}…` : s;
}

function sameNumber(a: number, b: number, tolerance: number): boolean {
  if (a === b) return true;
  return tolerance > 0 && Math.abs(a - b) <= tolerance * Math.max(Math.abs(a), Math.abs(b));
}

/** The first difference between two canonical values, as a path and both values; null when equal (within tolerance). */
export function firstDifference(expected: Json | undefined, actual: Json | undefined, tolerance = 0, where = ""): string | null {
  if (typeof expected === "number" && typeof actual === "number") return sameNumber(expected, actual, tolerance) ? null : `${where}: golden ${expected}, now ${actual}`;
  if (expected === null || actual === null || typeof expected !== "object" || typeof actual !== "object") return expected === actual ? null : `${where}: golden ${show(expected)}, now ${show(actual)}`;
  if (Array.isArray(expected) !== Array.isArray(actual)) return `${where}: golden ${show(expected)}, now ${show(actual)}`;
  if (Array.isArray(expected) && Array.isArray(actual)) {
    for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
      const d = firstDifference(expected[i], actual[i], tolerance, `${where}[${i}]`);
      if (d) return d;
    }
    return expected.length === actual.length ? null : `${where}: golden has ${expected.length} entries, now ${actual.length}`;
  }
  const e = expected as { [key: string]: Json };
  const a = actual as { [key: string]: Json };
  for (const k of new Set([...Object.keys(e), ...Object.keys(a)])) {
    const d = firstDifference(e[k], a[k], tolerance, where ? `${where}.${k}` : k);
    if (d) return d;
  }
  return null;
}

/** Describes a row by its text cells (e.g. workload=longDocQA policy=preble) so a difference can be found in the table. */
function rowLabel(table: Json, index: number): string {
  const rows = (table as { rows?: Json[] }).rows;
  const row = rows?.[index] as { [key: string]: Json } | undefined;
  if (!row) return "";
  const parts = Object.entries(row)
    .filter(([, v]) => typeof v === "string" || typeof v === "boolean")
    .slice(0, 4)
    .map(([k, v]) => `${k}=${String(v)}`);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** Columns that are measured on this machine (wall-clock speeds), left out of the comparison by name. */
export const MEASURED_COLUMNS: Record<string, readonly string[]> = { "03.9": ["decisionsPerSecond"] };

function withoutMeasured(id: string, table: Json): Json {
  const drop = MEASURED_COLUMNS[id];
  if (!drop || table === null || typeof table !== "object" || Array.isArray(table)) return table;
  const t = table as { [key: string]: Json };
  const rows = (t.rows as Json[]).map((r) => Object.fromEntries(Object.entries(r as { [key: string]: Json }).filter(([k]) => !drop.includes(k))) as Json);
  return { ...t, rows };
}

/** Null when `table` matches the golden file, else a message naming the demo and the first differing cell. */
export function compareWithGolden(id: string, table: Table, golden: GoldenFile | null, tolerance = 0): string | null {
  if (!golden) return `demo ${id}: no golden file ${path.relative(process.cwd(), goldenPath(id))} (run \`npm run bench -- golden --update\` and commit it)`;
  const canonical = canonicalTable(table);
  const d = firstDifference(withoutMeasured(id, golden.table), withoutMeasured(id, canonical), tolerance);
  if (d === null) {
    if (tolerance === 0 && hashOf(golden.table) !== golden.sha256) return `demo ${id}: golden file's sha256 does not match its table (edited by hand?); run \`npm run bench -- golden --update --reason "…"\``;
    return compareClaims(id, golden.claims, claimVerdicts(table));
  }
  const m = /^rows\[(\d+)\]/.exec(d);
  const label = m ? rowLabel(golden.table, Number(m[1])) : "";
  return `demo ${id}: ${d.replace(/^rows\[(\d+)\]\.?/, (_, i) => `row ${i}${label} column `)}`;
}

/** Null when the verdicts match the golden file's, claim by claim (by id), else the first difference. */
function compareClaims(id: string, golden: Json[] | undefined, now: Json[]): string | null {
  if (!golden) return `demo ${id}: the golden file has no claims; run \`npm run bench -- golden --update --reason "…"\``;
  const byId = (xs: Json[]) => new Map(xs.map((c) => [(c as Json[])[0] as string, c]));
  const g = byId(golden);
  const n = byId(now);
  for (const [claim, c] of g) {
    const m = n.get(claim);
    if (!m) return `demo ${id}: claim ${claim} is no longer judged`;
    if (JSON.stringify(m) !== JSON.stringify(c)) return `demo ${id}: claim ${claim}: golden ${JSON.stringify((c as Json[]).slice(1))}, now ${JSON.stringify((m as Json[]).slice(1))}`;
  }
  for (const claim of n.keys()) if (!g.has(claim)) return `demo ${id}: claim ${claim} is new (not in the golden file)`;
  return null;
}

export interface GoldenRun {
  id: string;
  seconds: number;
  cpuSeconds: number;
  /** null = same as the golden file (or just written with --update) */
  difference: string | null;
}

/** Runs the demos (default parameters) and compares or, with update, rewrites their golden files. */
export function runGolden(o: { ids?: string[]; update?: boolean; small?: boolean; tolerance?: number; dir?: string; progress?: (m: string) => void } = {}): GoldenRun[] {
  const dir = o.dir ?? (o.small ? SMALL_GOLDEN_DIR : GOLDEN_DIR);
  const demos = listDemos().filter((d) => !o.ids || o.ids.includes(d.id));
  const unknown = (o.ids ?? []).filter((id) => !demos.some((d) => d.id === id));
  if (unknown.length) throw new Error(`golden: unknown demo(s) ${unknown.join(", ")}; known: ${listDemos().map((d) => d.id).join(", ")}`);
  if (o.update) fs.mkdirSync(dir, { recursive: true });
  const out: GoldenRun[] = [];
  for (const [k, d] of demos.entries()) {
    o.progress?.(`golden: ${d.id} (${k + 1}/${demos.length})`);
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const params = o.small ? (SMALL[d.id] ?? {}) : {};
    const table = runDemo(d.id, params, { progress: (m) => o.progress?.(`golden: ${d.id} (${k + 1}/${demos.length}) ${m}`) });
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    let difference: string | null = null;
    if (o.update) {
      const g = goldenOf(d.id, table, params);
      const file = goldenPath(d.id, dir);
      const text = formatGolden(g);
      if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text) fs.writeFileSync(file, text);
    } else difference = compareWithGolden(d.id, table, readGolden(d.id, dir), o.tolerance ?? 0);
    out.push({ id: d.id, seconds, cpuSeconds: (c.user + c.system) / 1e6, difference });
  }
  return out;
}


if (require.main === module) {
  const argv = process.argv.slice(2);
  const json = argv.includes("--json");
  const update = argv.includes("--update");
  // Rewriting the golden files accepts whatever the code computes now: say why, for the commit message.
  const reason = option(argv, "reason");
  if (update && !reason?.trim()) {
    console.error('golden --update: give the reason the tables change, e.g. --reason "E2 的阈值改为 ≥"; it is printed for the commit message');
    process.exit(2);
  }
  const ids = option(argv, "ids")?.split(",");
  const tolerance = Number(option(argv, "tolerance") ?? 0);
  const tty = process.stderr.isTTY;
  const started = Date.now();
  const small = argv.includes("--small");
  const runs = runGolden({ ids, update, small, tolerance, progress: (m) => tty && process.stderr.write(`\r${m.slice(0, 110)}\x1b[K`) });
  if (tty) process.stderr.write("\r\x1b[K");
  const differing = runs.filter((r) => r.difference);
  for (const r of differing) console.error(r.difference);
  const r3 = (x: number) => Number(x.toPrecision(3));
  const metrics: Record<string, { value: number; unit: string }> = {
    demos: { value: runs.length, unit: update ? "demos whose golden file was (re)written" : "demos compared with bench/golden/*.json (default parameters)" },
    differing: { value: differing.length, unit: "demos whose table differs from the golden file (0 = same numbers)" },
    totalSeconds: { value: r3(runs.reduce((s, r) => s + r.seconds, 0)), unit: "wall s, every demo one after another in one process" },
    totalCpuSeconds: { value: r3(runs.reduce((s, r) => s + r.cpuSeconds, 0)), unit: "CPU s of this process (more than wall when workers or the GC run alongside)" },
  };
  for (const r of runs) metrics[r.id] = { value: r3(r.seconds), unit: `wall s (CPU ${r.cpuSeconds.toFixed(2)} s)` };
  if (json) console.log(JSON.stringify({ golden: metrics }));
  else {
    console.log(`bench/golden.ts — Node ${process.version}, ${os.cpus().length} CPU(s), load average ${os.loadavg()[0].toFixed(1)}`);
    for (const r of runs) console.log(`  ${r.id.padEnd(6)} ${r.seconds.toFixed(2).padStart(6)} s (CPU ${r.cpuSeconds.toFixed(2)} s)  ${update ? "written" : r.difference ? "DIFFERS" : "same"}`);
    console.log(`${update ? "wrote" : "compared"} ${runs.length} demo(s)${update ? "" : `, ${differing.length} differ`} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (update) console.log(`golden tables rewritten: ${reason}   (put this line in the commit message)`);
  }
  if (differing.length) process.exitCode = 1;
}
