#!/usr/bin/env node
// `npm run mutation [-- core…]`: StrykerJS over each decision core in turn (test/support/mutation-cores.mjs), each
// against its own unit tests; reports in reports/mutation/<core>/, then one line per core with its score. Slow (see
// README); not part of `npm test` or CI.
import { spawnSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { fileURLToPath } from "url";
import { CORES } from "../test/support/mutation-cores.mjs";

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const asked = process.argv.slice(2).filter((a) => !a.startsWith("-"));
for (const a of asked) if (!(a in CORES)) {
  console.error(`mutation: unknown core ${a}; known: ${Object.keys(CORES).join(", ")}`);
  process.exit(2);
}
const names = asked.length ? asked : Object.keys(CORES);
const summary = [];
for (const name of names) {
  const started = Date.now();
  console.log(`mutation: ${name} — ${CORES[name].what}`);
  const r = spawnSync(process.execPath, [path.join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run"], { cwd: root, stdio: "inherit", env: { ...process.env, MUTATION_CORE: name } });
  const minutes = (Date.now() - started) / 60000;
  const report = path.join(root, "reports/mutation", name, "mutation.json");
  let score = "no report";
  if (r.status === 0 && fs.existsSync(report)) {
    const files = JSON.parse(fs.readFileSync(report, "utf8")).files;
    const all = Object.values(files).flatMap((f) => f.mutants);
    const count = (s) => all.filter((m) => s.includes(m.status)).length;
    const detected = count(["Killed", "Timeout"]);
    const valid = detected + count(["Survived", "NoCoverage"]);
    score = `${detected}/${valid} killed (${((100 * detected) / valid).toFixed(1)}%)`;
  }
  summary.push(`${name.padEnd(11)} ${score}, ${minutes.toFixed(1)} min`);
}
console.log(`\nmutation scores (equivalent survivors in test/MUTATION.md):\n${summary.join("\n")}`);
