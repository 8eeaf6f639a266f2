// npm run demo -- <id> [--json] [--seed N] [--key=value …]   |   npm run demo -- --list
import { getDemo, listDemos, runDemo } from "./demos/index";
import { tableJson, tableText } from "./view/table";

function parseValue(raw: string): unknown {
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (/^-?\d+(\.\d+)?(e-?\d+)?$/i.test(raw)) return Number(raw);
  if (raw.startsWith("[") || raw.startsWith("{")) {
    try {
      return JSON.parse(raw);
    } catch {
      throw new Error(`could not parse ${raw} as JSON`);
    }
  }
  if (raw.includes(",")) return raw.split(",").map(parseValue);
  return raw;
}

function usage(): string {
  const lines = ["usage: npm run demo -- <id> [--json] [--seed N] [--key=value …]", "       npm run demo -- --list", "", "demos:"];
  for (const d of listDemos()) lines.push(`  ${d.id.padEnd(6)} ${d.section.padEnd(6)} ${d.title}`);
  return lines.join("\n");
}

export function main(argv: string[]): number {
  const args = [...argv];
  if (args.length === 0 || args.includes("--help") || args.includes("-h") || args.includes("--list")) {
    const id = args.find((a) => !a.startsWith("-"));
    if (id && !args.includes("--list")) {
      const demo = getDemo(id);
      console.log(`${demo.id} (${demo.section}) ${demo.title}\nparameters (defaults):`);
      for (const [k, v] of Object.entries(demo.defaults)) console.log(`  --${k}=${JSON.stringify(v)}${demo.describe?.[k] ? `  ${demo.describe[k]}` : ""}`);
    } else console.log(usage());
    return 0;
  }
  let json = false;
  let id: string | undefined;
  const overrides: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--json") json = true;
    else if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      if (eq > 0) overrides[a.slice(2, eq)] = parseValue(a.slice(eq + 1));
      else if (i + 1 < args.length && !args[i + 1].startsWith("--")) overrides[a.slice(2)] = parseValue(args[++i]);
      else throw new Error(`option ${a} needs a value (--${a.slice(2)}=VALUE)`);
    } else if (!id) id = a;
    else throw new Error(`unexpected argument ${a}`);
  }
  if (!id) throw new Error("no demo id given\n" + usage());
  const demo = getDemo(id);
  // A single number for an array parameter means a one-element array.
  for (const [k, v] of Object.entries(overrides)) if (Array.isArray(demo.defaults[k]) && !Array.isArray(v)) overrides[k] = [v];
  const started = Date.now();
  const table = runDemo(id, overrides, { progress: (m) => process.stderr.isTTY && process.stderr.write(`\r${m}\x1b[K`) });
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  if (json) console.log(JSON.stringify(tableJson(table), null, 2));
  else console.log(`${tableText(table)}\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return 0;
}

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`error: ${(e as Error).message}`);
    process.exitCode = 2;
  }
}
