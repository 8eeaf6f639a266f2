// Regenerates data/azure-2023-summary.json from the Azure LLM inference trace CSVs (CC BY 4.0; cite Splitwise, ISCA 2024).
//   npx tsx scripts/azure-summary.ts [--dir=/path/to/azure-llm-2023] [--check]
// The folder defaults to $AZURE_TRACE_DIR, then the project's data/azure-llm-2023 (gzip-compressed CSVs).
// --check compares with the committed file instead of writing it (exit code 1 when they differ).
import * as fs from "fs";
import * as path from "path";
import { dataDir } from "../lib/core/data";
import { locateAzureTraces } from "../lib/traces/azure";
import { computeAzureSummary } from "../lib/traces/azure-summary";

const args = process.argv.slice(2);
const dir = args.find((a) => a.startsWith("--dir="))?.slice("--dir=".length);
const check = args.includes("--check");
const where = locateAzureTraces({ dir });
if (!where.available) {
  console.error(where.message);
  process.exit(2);
}
const text = JSON.stringify(computeAzureSummary({ dir: where.dir }), null, 2) + "\n";
const target = path.join(dataDir(), "azure-2023-summary.json");
if (check) {
  const same = fs.existsSync(target) && fs.readFileSync(target, "utf8") === text;
  console.log(same ? `${target} is up to date` : `${target} differs from the figures recomputed from ${where.dir}`);
  process.exit(same ? 0 : 1);
}
fs.writeFileSync(target, text);
console.log(`wrote ${target} from ${where.dir}`);
