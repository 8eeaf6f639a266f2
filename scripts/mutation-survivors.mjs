#!/usr/bin/env node
// Lists a mutation report's survivors (and mutants no test covers), one line each: file:line  mutator  replacement.
// Usage: node scripts/mutation-survivors.mjs reports/mutation/<core>/mutation.json
import * as fs from "fs";

const report = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
for (const [file, f] of Object.entries(report.files)) {
  const all = f.mutants;
  const detected = all.filter((m) => m.status === "Killed" || m.status === "Timeout").length;
  const valid = all.filter((m) => ["Killed", "Timeout", "Survived", "NoCoverage"].includes(m.status)).length;
  console.log(`${file}: ${detected}/${valid} (${((100 * detected) / Math.max(1, valid)).toFixed(1)}%)`);
  for (const m of all.filter((x) => x.status === "Survived" || x.status === "NoCoverage").sort((a, b) => a.location.start.line - b.location.start.line)) {
    const text = f.source.split("\n")[m.location.start.line - 1].trim();
    console.log(`  ${m.status === "NoCoverage" ? "nocov" : "surv "} ${m.location.start.line}:${m.location.start.column} ${m.mutatorName} → ${JSON.stringify(m.replacement).slice(0, 60)}   | ${text.slice(0, 90)}`);
  }
}
