// `npm run bench [-- <name> ...] [--json]`: runs bench/<name>.ts with tsx (every bench/*.ts when no name is given),
// one after another; results are recorded by hand in bench/RESULTS.md.
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { ROOT } from "./project.mjs";

const args = process.argv.slice(2);
const flags = args.filter((a) => a.startsWith("-"));
const names = args.filter((a) => !a.startsWith("-")).map((n) => n.replace(/^bench\//, "").replace(/\.ts$/, ""));
const benchDir = path.join(ROOT, "bench");
const all = fs.readdirSync(benchDir).filter((f) => f.endsWith(".ts")).map((f) => f.slice(0, -3)).sort();
const chosen = names.length > 0 ? names : all;
const unknown = chosen.filter((n) => !all.includes(n));
if (unknown.length > 0 || chosen.length === 0) {
  console.error(`bench: ${unknown.length ? `no bench/${unknown.join(".ts, bench/")}.ts; ` : ""}available: ${all.join(", ") || "(none)"}`);
  process.exit(1);
}
const tsx = path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs");
for (const name of chosen) {
  if (!flags.includes("--json")) console.log(`bench: ${name}`);
  const r = spawnSync(process.execPath, [tsx, path.join(benchDir, `${name}.ts`), ...flags], { stdio: "inherit", cwd: ROOT });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
