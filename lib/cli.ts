// npm run demo -- <id> [--json] [--seed N] [--key=value …]   |   npm run demo -- --list
import { getDemo, runDemo } from "./demos/index";
import { tableJson, tableText } from "./view/table";
import { claimsText } from "./view/claims";
import { demoListTable, helpTable } from "./view/help";

function parseValue(raw: string): unknown {
  if (raw === "true") return true;
  if (raw === "false") return false;
  if (/^-?\d+(\.\d+)?(e-?\d+)?$/i.test(raw)) return Number(raw);
  if (raw.startsWith("[") || raw.startsWith("{")) {
    try {
      return JSON.parse(raw);
    } catch {
      throw new Error(`无法把 ${raw} 读作 JSON`);
    }
  }
  if (raw.includes(",")) return raw.split(",").map(parseValue);
  return raw;
}

function usage(): string {
  const lines = [
    "用法：npm run demo -- <演示编号> [--json] [--参数名=值 …]",
    "      npm run demo -- <演示编号> --help    列出这个演示的参数（默认值、允许范围、含义）",
    "      npm run demo -- --list",
    "",
    tableText(demoListTable()),
  ];
  return lines.join("\n");
}

export function main(argv: string[]): number {
  const args = [...argv];
  if (args.length === 0 || args.includes("--help") || args.includes("-h") || args.includes("--list")) {
    const id = args.find((a) => !a.startsWith("-"));
    if (id && !args.includes("--list")) {
      console.log(tableText(helpTable(id)));
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
      else throw new Error(`选项 ${a} 需要一个值（--${a.slice(2)}=值）`);
    } else if (!id) id = a;
    else throw new Error(`多余的参数 ${a}`);
  }
  if (!id) throw new Error("没有给出演示编号\n" + usage());
  const demo = getDemo(id);
  // A single number for an array parameter means a one-element array.
  for (const [k, v] of Object.entries(overrides)) if (Array.isArray(demo.defaults[k]) && !Array.isArray(v)) overrides[k] = [v];
  const started = Date.now();
  const table = runDemo(id, overrides, { progress: (m) => process.stderr.isTTY && process.stderr.write(`\r${m}\x1b[K`) });
  if (process.stderr.isTTY) process.stderr.write("\r\x1b[K");
  if (json) console.log(JSON.stringify(tableJson(table), null, 2));
  else {
    const judged = claimsText(table);
    console.log(`${tableText(table)}${judged ? `\n\n${judged}` : ""}\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  return 0;
}

if (require.main === module) {
  // Piped into `head`, stdout closes early: stop quietly, as a Unix tool does.
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code === "EPIPE") process.exit(0);
    throw e;
  });
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (e) {
    console.error(`错误：${(e as Error).message}`);
    process.exitCode = 2;
  }
}
