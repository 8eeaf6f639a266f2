// For test files whose demos read other demos at their defaults (05.x, and claims.test.ts running every demo): the
// result cache (lib/demos/result-cache.ts) in a folder of the file's own, set at once (some describe blocks run their
// demos while the file is collected) and removed after; and between tests one macrotask turn, which keeps vitest's
// worker answering its RPC while the runs are long and synchronous. (Not a test file: vitest only collects *.test.ts.)
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, afterEach } from "vitest";
import { RESULT_CACHE_VARIABLE } from "../../lib/demos/result-cache";

export function resultCacheForThisFile(): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "l11-test-results-"));
  process.env[RESULT_CACHE_VARIABLE] = dir;
  afterAll(() => {
    delete process.env[RESULT_CACHE_VARIABLE];
    fs.rmSync(dir, { recursive: true, force: true });
  });
  afterEach(() => new Promise<void>((resolve) => setImmediate(resolve)));
}
