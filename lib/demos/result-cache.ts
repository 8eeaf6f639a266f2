// Demo results kept on disk between the kernels of one machine, so that a notebook that shows a demo an earlier
// notebook already ran (05 and 07 rerun the demos of 01–06 to judge their claims) reads that result instead of
// simulating it again. A result is a pure function of the demo's id, its parameters, the library's code and the data
// it reads, so the key is exactly those: the merged parameters, a hash of every file of the library as loaded
// (build/lib in a notebook, lib/ under tsx) and of the data/ files (size and modification time), and the one
// environment variable that moves the data (AZURE_TRACE_DIR). A changed line of code, a rebuilt library or another
// trace copy is another key; nothing has to be invalidated by hand.
//
// Off unless LECTURE_RESULT_CACHE names a folder (scripts/kernel-startup.cjs sets it to .cache/results for the
// notebooks; the CLI and the unit tests leave it unset; grading and the benches set it to "off" or a fresh folder).
// Values are stored with v8.serialize (NaN, Infinity and undefined survive, unlike JSON) and written atomically
// (a temporary file renamed into place), so two kernels writing the same key at once leave one whole file. A file
// that cannot be read back is ignored and rewritten. Each library version gets a folder of its own; folders of other
// versions are removed once they are a day old, and a folder keeps at most MAX_ENTRIES results.
//
// Parameters holding code the reader wrote (a dispatch policy, a router) never reach the cache: runDemo skips it
// (holdsFunction in registry.ts). Should a function get here anyway, its name and source text are part of the key.
import * as crypto from "crypto";
import * as fs from "fs";
import * as path from "path";
import * as v8 from "v8";
import { dataDir } from "../core/data";
import type { Table } from "../core/table";
import { AZURE_TRACE_DIR_VARIABLE } from "../traces/azure";

export const RESULT_CACHE_VARIABLE = "LECTURE_RESULT_CACHE";
const MAX_ENTRIES = 400;
const STALE_MS = 24 * 3600 * 1000;

/** Every file under `dir` (recursively), sorted, relative to it. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk(dir, "");
  return out;
}

let versionMemo: string | undefined;

/** A hash of the code and data a result depends on (computed once per process). */
export function codeVersion(): string {
  if (versionMemo) return versionMemo;
  const h = crypto.createHash("sha256");
  const libRoot = path.join(__dirname, "..");
  for (const f of filesUnder(libRoot)) {
    if (!/\.(js|ts|json)$/.test(f) || f.endsWith(".d.ts") || f.endsWith(".map")) continue;
    h.update(f).update("\0").update(fs.readFileSync(path.join(libRoot, f))).update("\0");
  }
  let data = "";
  try {
    data = dataDir();
  } catch {
    // no data/ folder: the demos that need it throw their own error
  }
  if (data) {
    for (const f of filesUnder(data)) {
      const s = fs.statSync(path.join(data, f));
      h.update(`data/${f}:${s.size}:${s.mtimeMs}\0`);
    }
  }
  h.update(`${AZURE_TRACE_DIR_VARIABLE}=${process.env[AZURE_TRACE_DIR_VARIABLE] ?? ""}`);
  versionMemo = h.digest("hex").slice(0, 16);
  return versionMemo;
}

/** JSON with object keys sorted, so that { a, b } and { b, a } are one key. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : typeof v === "number" && !Number.isFinite(v)
        ? `number:${v}`
        : typeof v === "function"
          ? `function:${v.name}:${String(v)}`
          : v,
  );
}

export interface ResultCache {
  readonly dir: string;
  get(id: string, params: Record<string, unknown>): Table | undefined;
  set(id: string, params: Record<string, unknown>, table: Table): void;
}

/** The cache in `root` (one folder per code version under it). */
export function openResultCache(root: string): ResultCache {
  const dir = path.join(path.resolve(root), codeVersion());
  const file = (id: string, params: Record<string, unknown>) =>
    path.join(dir, `${id}-${crypto.createHash("sha256").update(canonical({ id, params })).digest("hex").slice(0, 24)}.v8`);
  let pruned = false;
  const prune = () => {
    if (pruned) return;
    pruned = true;
    const now = Date.now();
    for (const e of fs.readdirSync(path.dirname(dir), { withFileTypes: true })) {
      const other = path.join(path.dirname(dir), e.name);
      if (e.isDirectory() && other !== dir && now - fs.statSync(other).mtimeMs > STALE_MS) fs.rmSync(other, { recursive: true, force: true });
    }
    const entries = fs.readdirSync(dir).filter((f) => f.endsWith(".v8"));
    if (entries.length >= MAX_ENTRIES) {
      const byAge = entries.map((f) => ({ f, t: fs.statSync(path.join(dir, f)).mtimeMs })).sort((a, b) => a.t - b.t);
      for (const { f } of byAge.slice(0, Math.ceil(byAge.length / 2))) fs.rmSync(path.join(dir, f), { force: true });
    }
  };
  return {
    dir,
    get(id, params) {
      const f = file(id, params);
      let bytes: Buffer;
      try {
        bytes = fs.readFileSync(f);
      } catch {
        return undefined;
      }
      try {
        const stored = v8.deserialize(bytes) as { key: string; table: Table };
        return stored.key === canonical({ id, params }) ? stored.table : undefined;
      } catch {
        return undefined; // a damaged file: run the demo, and set() writes it again
      }
    },
    set(id, params, table) {
      try {
        fs.mkdirSync(dir, { recursive: true });
        prune();
        const f = file(id, params);
        const tmp = `${f}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
        fs.writeFileSync(tmp, v8.serialize({ key: canonical({ id, params }), table }));
        fs.renameSync(tmp, f);
      } catch {
        // a full disk or a read-only folder: the result is still returned, only not kept
      }
    },
  };
}

let fromEnv: { setting: string; cache: ResultCache | null } | undefined;

/** The cache LECTURE_RESULT_CACHE names, or null when it is unset, empty or "off". */
export function resultCacheFromEnv(): ResultCache | null {
  const setting = typeof process !== "undefined" ? process.env[RESULT_CACHE_VARIABLE] ?? "" : "";
  if (fromEnv && fromEnv.setting === setting) return fromEnv.cache;
  const cache = setting === "" || setting === "off" ? null : openResultCache(setting);
  fromEnv = { setting, cache };
  return cache;
}
