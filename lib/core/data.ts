// Locates and reads the project's data/ folder, from the library (tsx, vitest) or a notebook (tslab, via the
// notebooks/lib symlink), without relying on the caller's working directory.
import * as fs from "fs";
import * as path from "path";

let cachedDir: string | undefined;

export function dataDir(): string {
  if (cachedDir) return cachedDir;
  const starts = [__dirname, process.cwd()];
  for (const start of starts) {
    let dir = path.resolve(start);
    for (let i = 0; i < 6; i++) {
      const candidate = path.join(dir, "data", "hardware.json");
      if (fs.existsSync(candidate)) {
        cachedDir = path.join(dir, "data");
        return cachedDir;
      }
      dir = path.dirname(dir);
    }
  }
  throw new Error(`data/ folder not found (looked upward from ${starts.join(" and ")})`);
}

export function readDataJson<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(dataDir(), name), "utf8")) as T;
}

/** When this code runs from build/lib (the notebooks' compiled copy), the newest lib/ source edited after the last
 * build, else null — so a notebook can say "restart after rebuilding" instead of silently running old code. */
export function staleBuildSource(): string | null {
  const here = path.resolve(__dirname);
  const marker = `${path.sep}build${path.sep}lib`;
  const at = here.lastIndexOf(marker);
  if (at < 0) return null;
  const root = here.slice(0, at);
  const stamp = path.join(root, "build", ".stamp");
  if (!fs.existsSync(stamp)) return null;
  const built = fs.statSync(stamp).mtimeMs;
  const walk = (dir: string): string | null => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        const found = walk(full);
        if (found) return found;
      } else if (entry.name.endsWith(".ts") && fs.statSync(full).mtimeMs > built) return full;
    }
    return null;
  };
  const src = path.join(root, "lib");
  return fs.existsSync(src) ? walk(src) : null;
}
