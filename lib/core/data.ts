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
