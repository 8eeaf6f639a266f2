// The notebooks' result cache (lib/demos/result-cache.ts): a stored result reads back as the same table, the key is
// the id and the merged parameters (whatever the key order), another code version is another folder, a damaged file
// is ignored, and runDemo uses the cache only when LECTURE_RESULT_CACHE names a folder.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterEach, describe, expect, it } from "vitest";
import { codeVersion, openResultCache, RESULT_CACHE_VARIABLE, resultCacheFromEnv } from "../lib/demos/result-cache";
import { runDemo } from "../lib/demos/index";
import type { Table } from "../lib/core/table";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "result-cache-"));
const table = (x: number): Table => ({ title: "t", columns: [{ key: "x", label: "x" }], rows: [{ x, nan: NaN, inf: Infinity, none: undefined }], notes: ["n"] });

afterEach(() => {
  delete process.env[RESULT_CACHE_VARIABLE];
});

describe("result cache", () => {
  it("reads back what it stored, NaN, Infinity and undefined included; the key ignores the order of parameters", () => {
    const c = openResultCache(tmp());
    c.set("01.1", { a: 1, b: [2, 3] }, table(5));
    const back = c.get("01.1", { b: [2, 3], a: 1 });
    expect(back).toEqual(table(5));
    expect(Number.isNaN(back!.rows[0].nan)).toBe(true);
    expect(back!.rows[0].inf).toBe(Infinity);
    expect("none" in back!.rows[0]).toBe(true);
    // a fresh copy each time: a reader's edit to one result does not reach the next
    back!.rows[0].x = 99;
    expect(c.get("01.1", { a: 1, b: [2, 3] })!.rows[0].x).toBe(5);
  });

  it("another id, other parameters or a NaN parameter are other keys", () => {
    const c = openResultCache(tmp());
    c.set("01.1", { a: 1 }, table(1));
    expect(c.get("01.2", { a: 1 })).toBeUndefined();
    expect(c.get("01.1", { a: 2 })).toBeUndefined();
    expect(c.get("01.1", { a: 1, b: 0 })).toBeUndefined();
    c.set("01.1", { a: NaN }, table(2));
    expect(c.get("01.1", { a: null })).toBeUndefined();
    expect(c.get("01.1", { a: NaN })!.rows[0].x).toBe(2);
  });

  it("keeps each code version in a folder of its own, and ignores a damaged file", () => {
    const root = tmp();
    const c = openResultCache(root);
    expect(path.basename(c.dir)).toBe(codeVersion());
    expect(codeVersion()).toMatch(/^[0-9a-f]{16}$/);
    c.set("02.1", { seed: 1 }, table(3));
    const files = fs.readdirSync(c.dir);
    expect(files).toHaveLength(1);
    fs.writeFileSync(path.join(c.dir, files[0]), "not a v8 value");
    expect(c.get("02.1", { seed: 1 })).toBeUndefined();
    c.set("02.1", { seed: 1 }, table(4));
    expect(c.get("02.1", { seed: 1 })!.rows[0].x).toBe(4);
    expect(fs.readdirSync(c.dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("runDemo reads and writes it only when LECTURE_RESULT_CACHE names a folder", () => {
    expect(resultCacheFromEnv()).toBeNull();
    process.env[RESULT_CACHE_VARIABLE] = "off";
    expect(resultCacheFromEnv()).toBeNull();
    const root = tmp();
    process.env[RESULT_CACHE_VARIABLE] = root;
    const first = runDemo("00.1");
    const dir = resultCacheFromEnv()!.dir;
    expect(fs.readdirSync(dir)).toHaveLength(1);
    // what the second call returns is the stored file: change it on disk and the change shows
    const stored = openResultCache(root);
    stored.set("00.1", first.params!, { ...first, title: "from the cache" });
    expect(runDemo("00.1").title).toBe("from the cache");
    expect(runDemo("00.1", { ...first.params }).title).toBe("from the cache");
    delete process.env[RESULT_CACHE_VARIABLE];
    expect(runDemo("00.1").title).toBe(first.title);
  });
});
