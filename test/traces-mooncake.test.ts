// The Mooncake / aiperf block-trace loader on small fixture files written here (good lines, each kind of bad line,
// gzip, a file larger than one chunk), the shipped conversation trace and its committed summary, and the trace as
// simulator requests.
import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as zlib from "zlib";
import { afterAll, describe, expect, it } from "vitest";
import {
  BlockTrace,
  blockReuse,
  blockTraceRequests,
  computeMooncakeSummary,
  infiniteCacheHitRate,
  loadMooncakeConversation,
  loadMooncakeTrace,
  loadMooncakeTraceSync,
  lruTokenHitRate,
  MOONCAKE_ATTRIBUTION,
  mooncakeConversationFile,
  mooncakeSummary,
  mooncakeSummaryTable,
  parseMooncakeText,
  TraceFormatError,
  traceWindow,
} from "../lib/traces";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "mooncake-test-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(name: string, text: string, gzip = false): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, gzip ? zlib.gzipSync(text) : text);
  return file;
}

const line = (timestamp: unknown, input: unknown, output: unknown, ids: unknown) => JSON.stringify({ timestamp, input_length: input, output_length: output, hash_ids: ids });
// request 0: two blocks (512 + 88); request 1 shares block 0 and adds two (512 + 512 + 1); request 2 repeats request 1's
// prompt 1.5 s later (an extra field is ignored)
const GOOD = [
  line(0, 600, 10, [0, 1]),
  line(250, 1025, 3, [0, 2, 3]),
  JSON.stringify({ timestamp: 1750, input_length: 1025, output_length: 7, hash_ids: [0, 2, 3], session_id: "x" }),
].join("\n");

/** Both loaders (stream and synchronous) agree; returns the synchronous result. */
async function loadBoth(file: string, options = {}): Promise<BlockTrace> {
  const streamed = await loadMooncakeTrace(file, options);
  const sync = loadMooncakeTraceSync(file, options);
  expect(sync).toEqual(streamed);
  return sync;
}

async function failure(file: string, options = {}): Promise<TraceFormatError> {
  let streamed: unknown;
  await loadMooncakeTrace(file, options).catch((e) => (streamed = e));
  let sync: unknown;
  try {
    loadMooncakeTraceSync(file, options);
  } catch (e) {
    sync = e;
  }
  expect(streamed).toBeInstanceOf(TraceFormatError);
  expect(sync).toBeInstanceOf(TraceFormatError);
  expect((sync as Error).message).toBe((streamed as Error).message);
  return sync as TraceFormatError;
}

describe("Mooncake / aiperf trace loader", () => {
  it("reads good lines: arrivals in seconds from the first, lengths, blocks in order, the last block partial", async () => {
    const t = await loadBoth(write("good.jsonl", GOOD));
    expect(t.name).toBe("good");
    expect(Array.from(t.timestampsMs)).toEqual([0, 250, 1750]);
    expect(Array.from(t.arrivalSeconds)).toEqual([0, 0.25, 1.75]);
    expect(Array.from(t.inputTokens)).toEqual([600, 1025, 1025]);
    expect(Array.from(t.outputTokens)).toEqual([10, 3, 7]);
    expect(Array.from(t.blockStart)).toEqual([0, 2, 5, 8]);
    expect(Array.from(t.blockIds)).toEqual([0, 1, 0, 2, 3, 0, 2, 3]);
    expect(t.maxBlockId).toBe(3);
    expect(t.skippedLines).toEqual([]);
    // CRLF line ends, a BOM, blank lines and a missing final newline change nothing
    const crlf = await loadBoth(write("crlf.jsonl", "\ufeff" + GOOD.split("\n").join("\r\n\r\n") + "\r\n"));
    expect({ ...crlf, name: t.name, source: t.source }).toEqual(t);
  });

  it("reads a gzip file like the plain one (recognised by its bytes, not its name)", async () => {
    const plain = await loadBoth(write("p.jsonl", GOOD));
    const gz = await loadBoth(write("p.jsonl.gz", GOOD, true));
    expect(gz.name).toBe("p");
    expect({ ...gz, source: plain.source }).toEqual(plain);
    const misnamed = await loadBoth(write("q.jsonl", GOOD, true));
    expect(Array.from(misnamed.blockIds)).toEqual(Array.from(plain.blockIds));
    const truncated = path.join(tmp, "cut.jsonl.gz");
    fs.writeFileSync(truncated, zlib.gzipSync(GOOD).subarray(0, 20));
    expect(() => loadMooncakeTraceSync(truncated)).toThrow(/cut\.jsonl\.gz: not a readable gzip file/);
    await expect(loadMooncakeTrace(truncated)).rejects.toThrow(/cut\.jsonl\.gz: not a readable gzip file/);
  });

  const BAD: Array<[string, string, RegExp]> = [
    ["not JSON", "{timestamp: 5", /line 2: not valid JSON/],
    ["not an object", "[1, 2]", /line 2: not a JSON object/],
    ["a missing field", JSON.stringify({ timestamp: 300, input_length: 600, hash_ids: [0, 9] }), /line 2: missing field output_length/],
    ["two missing fields", JSON.stringify({ timestamp: 300, output_length: 4 }), /line 2: missing fields input_length, hash_ids/],
    ["a negative input length", line(300, -5, 4, []), /line 2: field input_length: -5 is negative/],
    ["a negative output length", line(300, 600, -1, [0, 9]), /line 2: field output_length: -1 is negative/],
    ["a zero output length", line(300, 600, 0, [0, 9]), /line 2: field output_length: 0 is outside 1/],
    ["a fractional length", line(300, 600.5, 4, [0, 9]), /line 2: field input_length: 600\.5 is not a whole number/],
    ["a string timestamp", line("300", 600, 4, [0, 9]), /line 2: field timestamp: "300" is not a finite number/],
    ["a negative timestamp", line(-1, 600, 4, [0, 9]), /line 2: field timestamp: -1/],
    ["too few hash ids", line(300, 1100, 4, [0, 9]), /line 2: field hash_ids: 2 block ids, but input_length 1100 needs ⌈1100 \/ 512⌉ = 3/],
    ["too many hash ids", line(300, 400, 4, [0, 9]), /line 2: field hash_ids: 2 block ids, but input_length 400 needs ⌈400 \/ 512⌉ = 1/],
    ["hash_ids not an array", line(300, 600, 4, "0,9"), /line 2: field hash_ids: not an array/],
    ["a bad hash id", line(300, 600, 4, [0, -3]), /line 2: field hash_ids\[1\]: -3 is not a whole number ≥ 0/],
    ["a block id with another size", line(300, 1000, 4, [0, 1]), /line 2: field hash_ids\[1\]: block 1 holds 488 tokens here but 88 on line 1/],
    ["a partial block reusing a full block's id in the same line", line(300, 1100, 4, [7, 8, 7]), /line 2: field hash_ids\[2\]: block 7 holds 76 tokens here but 512 at hash_ids\[0\]/],
  ];

  it("fails on each kind of bad line, naming the line number and the field", async () => {
    const first = line(100, 600, 10, [0, 1]);
    for (const [what, bad, message] of BAD) {
      const e = await failure(write("bad.jsonl", [first, bad, line(900, 600, 2, [0, 1])].join("\n")));
      expect(e.message, what).toMatch(message);
      expect(e.badRows.map((b) => b.line), what).toEqual([2]);
      expect(e.message, what).toMatch(/skipBadLines: true/);
    }
    const back = await failure(write("back.jsonl", [first, line(900, 600, 2, [0, 1]), line(400, 600, 2, [0, 1])].join("\n")));
    expect(back.message).toMatch(/line 3: field timestamp: 400 ms is earlier than line 2's 900 ms/);
  });

  it("keeps a block's size and first line for large ids as for small ones (ids past 2^24 are looked up another way)", async () => {
    const big = 2 ** 40 + 1;
    for (const id of [3, 70_000, big]) {
      const e = await failure(write("sizes.jsonl", [line(100, 600, 10, [0, id]), line(200, 600, 10, [0, 5]), line(300, 1000, 4, [0, id])].join("\n")));
      expect(e.message, `id ${id}`).toMatch(new RegExp(`line 3: field hash_ids\\[1\\]: block ${id} holds 488 tokens here but 88 on line 1`));
      const ok = parseMooncakeText([line(100, 600, 10, [0, id]), line(300, 600, 4, [0, id])].join("\n"));
      expect(ok.maxBlockId, `id ${id}`).toBe(id);
    }
  });

  it("lists every bad line (up to 10 in the message), and skips them only when asked", async () => {
    const lines = [line(0, 600, 10, [0, 1])];
    for (let i = 1; i <= 12; i++) lines.push(i % 2 ? line(i * 10, -1, 1, []) : line(i * 10, 600, 1, [0, 1]));
    const file = write("many.jsonl", lines.join("\n"));
    const e = await failure(file);
    expect(e.badRows.map((b) => b.line)).toEqual([2, 4, 6, 8, 10, 12]);
    expect(e.message).toMatch(/^.*many\.jsonl: 6 bad lines \(line 2: field input_length: -1 is negative; line 4/);
    const t = await loadBoth(file, { skipBadLines: true });
    expect(t.inputTokens.length).toBe(7);
    expect(t.skippedLines.map((b) => b.line)).toEqual([2, 4, 6, 8, 10, 12]);
    // a skipped line's blocks are not registered: a later line may give block 5 another size
    const s = parseMooncakeText([line(0, 600, 1, [0, 5]), line(1, -1, 1, [9]), line(2, 1000, 1, [0, 9])].join("\n"), { skipBadLines: true });
    expect(Array.from(s.blockIds)).toEqual([0, 5, 0, 9]);
  });

  it("an empty file, or one whose every line is bad, is an error (a trace needs a request)", async () => {
    expect((await failure(write("empty.jsonl", ""))).message).toMatch(/no requests \(the file has no lines\)/);
    expect((await failure(write("allbad.jsonl", line(0, -1, 1, [])), { skipBadLines: true })).message).toMatch(/all 1 lines were bad/);
  });

  it("streams files larger than one chunk, line numbers counted through", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 4000; i++) lines.push(line(i * 100, 1100, 1 + (i % 5), [0, 1 + 2 * i, 2 + 2 * i]));
    lines[3210] = line(3210 * 100, 1100, 1, [0, 1]);
    const file = write("big.jsonl.gz", lines.join("\n"), true);
    expect(zlib.gunzipSync(fs.readFileSync(file)).length).toBeGreaterThan(3 * 64 * 1024);
    const e = await failure(file);
    expect(e.badRows.map((b) => b.line)).toEqual([3211]);
    const t = await loadBoth(file, { skipBadLines: true });
    expect(t.inputTokens.length).toBe(3999);
    expect(t.arrivalSeconds[3999 - 1]).toBe(399.9);
  });
});

describe("block-trace statistics", () => {
  const t = parseMooncakeText(GOOD);
  it("reuse distance, infinite-cache and LRU hit rates on a hand-checked trace", () => {
    const r = blockReuse(t);
    // accesses: 0 1 | 0 2 3 | 0 2 3
    expect(Array.from(r.stackDistance)).toEqual([-1, -1, 1, -1, -1, 2, 2, 2]);
    expect(Array.from(r.tokens)).toEqual([512, 88, 512, 512, 1, 512, 512, 1]);
    expect(r.distinctBlocks).toBe(4);
    expect(Array.from(r.reuseSeconds).slice(5)).toEqual([1.5, 1.5, 1.5]);
    // infinite cache: request 1 hits block 0 (512 of 1025), request 2 hits everything but its last token
    expect(infiniteCacheHitRate(t, 0, 3, 0)).toBeCloseTo((512 + 1024) / (600 + 1025 + 1025), 12);
    expect(infiniteCacheHitRate(t, 0, 3, 2)).toBeCloseTo(1024 / 1025, 12);
    expect(lruTokenHitRate(r, 3)).toBeCloseTo((512 + 1025) / 2650, 12);
    expect(lruTokenHitRate(r, 2)).toBeCloseTo(512 / 2650, 12);
  });
  it("requests: a segment per block (the last one partial), outputs with ids above every block, arrivals time-scaled", () => {
    const reqs = blockTraceRequests(t, { first: 1, count: 2 }, 2);
    expect(reqs.map((r) => r.arrival)).toEqual([0, 3]);
    expect(reqs[0].segments).toEqual([{ id: 0, tokens: 512 }, { id: 2, tokens: 512 }, { id: 3, tokens: 1 }]);
    expect(reqs[0].segments[1]).toBe(reqs[1].segments[1]); // one shared object per full block
    expect(reqs.map((r) => r.segments.reduce((s, x) => s + x.tokens, 0))).toEqual([1025, 1025]);
    expect(reqs.map((r) => r.outputSegment)).toEqual([{ id: 5, tokens: 3 }, { id: 6, tokens: 7 }]);
    expect(reqs.map((r) => r.id)).toEqual([0, 1]);
    expect(() => blockTraceRequests(t, { first: 2, count: 2 })).toThrow(/count/);
  });
});

describe("the shipped Mooncake conversation trace", () => {
  const file = mooncakeConversationFile();
  const trace = loadMooncakeConversation();

  it("is in data/ (gzip) and inflates to the published file (sha256)", () => {
    expect(file).toBe(path.resolve(__dirname, "..", "data", "mooncake-fast25", "conversation_trace.jsonl.gz"));
    const sha = crypto.createHash("sha256").update(zlib.gunzipSync(fs.readFileSync(file))).digest("hex");
    expect(sha).toBe(MOONCAKE_ATTRIBUTION.sha256);
    const readme = fs.readFileSync(path.resolve(__dirname, "..", "data", "README.md"), "utf8");
    expect(readme).toContain(sha);
    expect(readme).toContain(crypto.createHash("sha256").update(fs.readFileSync(file)).digest("hex"));
    expect(fs.existsSync(path.join(path.dirname(file), "LICENSE-APACHE-2.0.txt"))).toBe(true);
    expect(loadMooncakeConversation()).toBe(trace); // loaded once per process
    expect(() => loadMooncakeConversation(path.join(tmp, "missing.jsonl.gz"))).toThrow(/missing\.jsonl\.gz not found/);
  });

  it("the summary recomputed from the file equals data/mooncake-conversation-summary.json", () => {
    expect(JSON.parse(JSON.stringify(computeMooncakeSummary(trace)))).toEqual(mooncakeSummary());
  });

  it("the committed summary has the trace's published figures", () => {
    const s = mooncakeSummary();
    expect(s.requests).toBe(12031);
    expect(s.durationMinutes).toBeCloseTo(59, 0);
    expect(s.meanRate).toBeCloseTo(3.4, 1);
    expect(Math.round(s.inputTokens.mean)).toBe(12035);
    expect(Math.round(s.outputTokens.mean)).toBe(343);
    expect(s.infiniteCache.blockHitRate).toBeCloseTo(0.366, 3);
    expect(s.sharedFirstBlock).toEqual({ id: 0, requests: 12031, share: 1 });
    expect(s.blocksPerRequest.mean).toBeCloseTo(s.totalBlocks / s.requests, 3);
    expect(s.reuseDistanceBlocks.p10 <= s.reuseDistanceBlocks.p50 && s.reuseDistanceBlocks.p50 <= s.reuseDistanceBlocks.p90).toBe(true);
    // an LRU cache hits more as it grows, and never more than an infinite cache
    const curve = Object.values(s.lruTokenHitRate);
    for (let i = 1; i < curve.length; i++) expect(curve[i]).toBeGreaterThanOrEqual(curve[i - 1]);
    expect(curve[curve.length - 1]).toBeLessThanOrEqual(s.infiniteCache.tokenHitRate);
    expect(s.attribution.license).toMatch(/Apache License 2\.0/);
    expect(s.attribution.cite).toMatch(/FAST 2025/);
  });

  it("the reader's table of the statistics (notebook 02 §2.1) is Chinese and reads the summary", () => {
    const t = mooncakeSummaryTable();
    const byFigure = Object.fromEntries(t.rows.map((r) => [r.figure, r.value]));
    expect(byFigure["请求数"]).toBe("12,031 个");
    expect(byFigure["无限缓存的命中上界"]).toBe("按块 36.6%，按 token 37.4%");
    expect(byFigure["以同一个块开头的请求"]).toBe("100.0%（块 0）");
    expect(t.notes?.join(" ")).toMatch(/Apache License 2\.0.*FAST 2025/);
    expect(t.notes?.join(" ")).toMatch(/约能放 428 块/);
  });

  it("a window of the trace by minutes", () => {
    const w = traceWindow(trace, 10, 5);
    expect(trace.arrivalSeconds[w.first]).toBeGreaterThanOrEqual(600);
    expect(trace.arrivalSeconds[w.first - 1]).toBeLessThan(600);
    expect(w.toSeconds).toBeLessThan(900);
    expect(trace.arrivalSeconds[w.first + w.count]).toBeGreaterThanOrEqual(900);
    const all = traceWindow(trace, 0, 60);
    expect(all).toMatchObject({ first: 0, count: 12031 });
    expect(() => traceWindow(trace, 60, 1)).toThrow(/fromMinute/);
    expect(() => traceWindow(trace, 0, 0)).toThrow(/minutes/);
  });
});
