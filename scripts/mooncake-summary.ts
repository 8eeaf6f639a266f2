// Regenerates data/mooncake-conversation-summary.json from data/mooncake-fast25/conversation_trace.jsonl.gz
// (Mooncake FAST '25, Apache-2.0; see data/README.md).
//   npx tsx scripts/mooncake-summary.ts [--check]
// --check compares with the committed file instead of writing it (exit code 1 when they differ).
import * as fs from "fs";
import * as path from "path";
import { dataDir } from "../lib/core/data";
import { computeMooncakeSummary } from "../lib/traces/mooncake-conversation";

const text = JSON.stringify(computeMooncakeSummary(), null, 2) + "\n";
const target = path.join(dataDir(), "mooncake-conversation-summary.json");
if (process.argv.includes("--check")) {
  const same = fs.existsSync(target) && fs.readFileSync(target, "utf8") === text;
  console.log(same ? `${target} is up to date` : `${target} differs from the figures recomputed from the trace`);
  process.exit(same ? 0 : 1);
}
fs.writeFileSync(target, text);
console.log(`wrote ${target}`);
