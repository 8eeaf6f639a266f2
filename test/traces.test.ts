import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as zlib from "zlib";
import { afterAll, describe, expect, it } from "vitest";
import { mmppStatistics, rng } from "../lib/core";
import { runDemo } from "../lib/demos/index";
import {
  AZURE_TRACE_FILES,
  azureArrivals,
  azureSummary,
  computeAzureSummary,
  loadTrace,
  loadTraceSync,
  locateAzureTraces,
  parseTraceText,
  parseTraceTimestamp,
  TICKS_PER_SECOND,
  Trace,
  TraceFormatError,
  traceGapsSeconds,
} from "../lib/traces";

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "traces-test-"));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, text);
  return file;
}

const HEADER = "TIMESTAMP,ContextTokens,GeneratedTokens";
// the files' own layout: CRLF line ends, no newline after the last row
const GOOD = [HEADER, "2023-11-16 18:15:46.6805900,374,44", "2023-11-16 18:15:50.9951690,396,109", "2023-11-16 18:15:50.9951710,879,55", "2023-11-16 18:16:00.0000000,91,16"].join("\r\n");

/** Both file loaders (stream and synchronous chunks) must agree; returns the synchronous result. */
async function loadBoth(file: string, options = {}): Promise<Trace> {
  const streamed = await loadTrace(file, options);
  const chunked = loadTraceSync(file, options);
  expect(chunked).toEqual(streamed);
  return chunked;
}

/** The error thrown by both loaders (they must throw the same message). */
async function failure(file: string, options = {}): Promise<TraceFormatError> {
  let streamed: unknown;
  await loadTrace(file, options).catch((e) => (streamed = e));
  let chunked: unknown;
  try {
    loadTraceSync(file, options);
  } catch (e) {
    chunked = e;
  }
  expect(streamed).toBeInstanceOf(TraceFormatError);
  expect(chunked).toBeInstanceOf(TraceFormatError);
  expect((chunked as Error).message).toBe((streamed as Error).message);
  return chunked as TraceFormatError;
}

describe("CSV trace loader", () => {
  it("reads good rows: arrivals relative to the first row, gaps exact to the 100-ns tick", async () => {
    const t = await loadBoth(write("good.csv", GOOD));
    expect(t.name).toBe("good");
    expect(t.firstTimestamp).toBe("2023-11-16 18:15:46.6805900");
    expect(Array.from(t.contextTokens)).toEqual([374, 396, 879, 91]);
    expect(Array.from(t.generatedTokens)).toEqual([44, 109, 55, 16]);
    expect(Array.from(t.arrivalTicks)).toEqual([0, 43145790, 43145810, 133194100]);
    expect(t.arrivalSeconds[0]).toBe(0);
    expect(t.arrivalSeconds[3]).toBe(13.31941);
    // a 2 µs gap 4 s into the trace comes out as exactly 2e-6, not 4.3145810 − 4.3145790 in floating point
    expect(traceGapsSeconds(t)[1]).toBe(2e-6);
    expect(t.arrivalSeconds[2] - t.arrivalSeconds[1]).not.toBe(2e-6);
    expect(t.skippedRows).toEqual([]);
    expect(parseTraceText(GOOD)).toEqual({ ...t, name: "trace", source: "(text)" });
  });
  it("parses the timestamp on the UTC calendar: across midnight, year ends and leap days, with no daylight-saving shift", () => {
    const gap = (a: string, b: string) => {
      const t = parseTraceText(`${HEADER}\n${a},1,1\n${b},1,1\n`);
      return t.arrivalTicks[1] / TICKS_PER_SECOND;
    };
    expect(gap("2023-12-31 23:59:59.9999990", "2024-01-01 00:00:00.0000010")).toBe(2e-6);
    expect(gap("2024-02-28 23:59:59", "2024-03-01 00:00:00")).toBe(86401);
    // 2023-03-12 02:00 did not exist in US local time; the trace's clock is read as is
    expect(gap("2023-03-12 01:59:59.5", "2023-03-12 03:00:00.5")).toBe(3601);
    expect(parseTraceTimestamp("2023-11-16 18:15:46.68059")).toEqual(parseTraceTimestamp("2023-11-16T18:15:46.6805900"));
    for (const bad of ["2023-02-29 00:00:00", "2023-13-01 00:00:00", "2023-11-16 24:00:00", "2023-11-16 18:15:46.68059001", "2023-11-16 18:15:46Z", "16/11/2023 18:15:46"]) {
      expect(parseTraceTimestamp(bad)).toBeUndefined();
    }
  });
  it("fails on bad rows, listing each with its line number", async () => {
    const lines = GOOD.split("\r\n");
    const text = [
      lines[0],
      lines[1],
      "2023-11-16 18:15:47.0,12", // line 3: too few fields
      lines[2],
      "2023-11-16 18:15:51.0,-5,3", // line 5: negative tokens
      "2023-11-16 18:15:52.0,3.5,3", // line 6: fractional tokens
      "2023-02-30 18:15:53.0,1,1", // line 7: no such date
      "2023-11-16 18:15:40.0,1,1", // line 8: earlier than line 4
      lines[4],
    ].join("\n");
    const e = await failure(write("bad.csv", text));
    expect(e.badRows.map((b) => b.line)).toEqual([3, 5, 6, 7, 8]);
    expect(e.message).toMatch(/bad\.csv: 5 bad rows/);
    expect(e.message).toMatch(/line 3: expected 3 fields, got 2/);
    expect(e.message).toMatch(/line 8: TIMESTAMP is earlier than the previous row's \(line 4\)/);
    expect(e.message).toMatch(/skipBadRows/);
  });
  it("with skipBadRows, leaves bad rows out (listed in skippedRows) and counts arrivals from the first good row", async () => {
    const text = [HEADER, "not a timestamp,1,1", "2023-11-16 18:00:01.5,10,2", "", "2023-11-16 18:00:01.0,11,2", "2023-11-16 18:00:03.5,12,2", ""].join("\n");
    const t = await loadBoth(write("skip.csv", text), { skipBadRows: true });
    expect(t.skippedRows.map((b) => b.line)).toEqual([2, 5]);
    expect(Array.from(t.arrivalSeconds)).toEqual([0, 2]);
    expect(Array.from(t.contextTokens)).toEqual([10, 12]);
    expect(t.firstTimestamp).toBe("2023-11-16 18:00:01.5");
  });
  it("an empty file, a header alone, or a file of only bad rows is an error (a trace needs an arrival)", async () => {
    expect((await failure(write("empty.csv", ""))).message).toMatch(/empty file: no header/);
    expect((await failure(write("blank.csv", "\r\n\r\n"))).message).toMatch(/empty file/);
    expect((await failure(write("header.csv", HEADER + "\r\n"))).message).toMatch(/no data rows \(only a header\)/);
    expect((await failure(write("allbad.csv", `${HEADER}\nx,1,1\n`), { skipBadRows: true })).message).toMatch(/no data rows \(all 1 rows were bad/);
  });
  it("needs the three named columns in the header (any order, extra columns allowed, BOM tolerated)", async () => {
    const e = await failure(write("noheader.csv", "2023-11-16 18:15:46.6805900,374,44\n"));
    expect(e.message).toMatch(/line 1: the header must name the columns/);
    const t = await loadBoth(write("order.csv", "\ufeffGeneratedTokens, region ,TIMESTAMP,contexttokens\n7,eu,2023-11-16 18:00:00,100\n8,us,2023-11-16 18:00:01,200\n"));
    expect(Array.from(t.generatedTokens)).toEqual([7, 8]);
    expect(Array.from(t.contextTokens)).toEqual([100, 200]);
    expect(Array.from(t.arrivalSeconds)).toEqual([0, 1]);
  });
  it("streams files larger than one chunk: rows across chunk borders, line numbers counted through", async () => {
    const rows = [HEADER];
    for (let i = 0; i < 6000; i++) {
      const s = 1000 + i * 3; // one row every 0.3 s
      const sec = Math.floor(s / 10);
      rows.push(`2023-11-16 18:${String(Math.floor(sec / 60) % 60).padStart(2, "0")}:${String(sec % 60).padStart(2, "0")}.${s % 10}000000,${i},${i % 7}`);
    }
    rows[4321] = "2023-11-16 18:00:00.0000000,oops,1";
    const file = write("big.csv", rows.join("\r\n"));
    expect(fs.statSync(file).size).toBeGreaterThan(3 * 64 * 1024);
    const e = await failure(file);
    expect(e.badRows.map((b) => b.line)).toEqual([4322]);
    const t = await loadBoth(file, { skipBadRows: true });
    expect(t.arrivalTicks.length).toBe(5999);
    const gaps = traceGapsSeconds(t);
    expect(gaps.filter((g) => g === 0.3).length).toBe(5997);
    expect(gaps.filter((g) => g === 0.6).length).toBe(1); // around the skipped row
  });
});

describe("Azure traces: location, summary, table, arrivals", () => {
  const where = locateAzureTraces();
  const fakeDir = path.join(tmp, "fake-azure");
  fs.mkdirSync(fakeDir);
  fs.writeFileSync(path.join(fakeDir, AZURE_TRACE_FILES.conv), GOOD);
  fs.writeFileSync(path.join(fakeDir, AZURE_TRACE_FILES.code), GOOD.replace(/\r\n2023-11-16 18:16:00.0000000,91,16$/, ""));

  it("finds the CSVs from the dir option, then AZURE_TRACE_DIR, then the project's data/ copy; reports absence without throwing", () => {
    const missing = locateAzureTraces({ dir: path.join(tmp, "nowhere") });
    expect(missing.available).toBe(false);
    expect(missing.origin).toBe("option");
    expect(missing.message).toMatch(/not found.*AzureLLMInferenceTrace_conv\.csv\.gz \(or AzureLLMInferenceTrace_conv\.csv\), AzureLLMInferenceTrace_code\.csv\.gz/);
    expect(locateAzureTraces({ dir: fakeDir })).toMatchObject({ available: true, origin: "option", dir: fakeDir });
    const saved = process.env.AZURE_TRACE_DIR;
    try {
      process.env.AZURE_TRACE_DIR = fakeDir;
      expect(locateAzureTraces()).toMatchObject({ available: true, origin: "environment", dir: fakeDir });
      delete process.env.AZURE_TRACE_DIR;
      // a fresh clone: the shipped copy under data/, gzip-compressed, nothing from ../shared
      const shipped = locateAzureTraces();
      expect(shipped).toMatchObject({ available: true, origin: "default", dir: path.resolve(__dirname, "..", "data", "azure-llm-2023") });
      expect(shipped.files.code).toMatch(/data[\\/]azure-llm-2023[\\/]AzureLLMInferenceTrace_code\.csv\.gz$/);
    } finally {
      if (saved === undefined) delete process.env.AZURE_TRACE_DIR;
      else process.env.AZURE_TRACE_DIR = saved;
    }
  });

  it("the shipped .gz files inflate to the published CSVs (sha256 as in data/README.md), the licence beside them", () => {
    const dir = path.resolve(__dirname, "..", "data", "azure-llm-2023");
    const sha = (f: string) => crypto.createHash("sha256").update(zlib.gunzipSync(fs.readFileSync(path.join(dir, f)))).digest("hex");
    expect(sha("AzureLLMInferenceTrace_conv.csv.gz")).toBe("2f1e5b666d4e3055fdbba98598ce2ec307767b9064e03e2fa46676dbcc7d0bf8");
    expect(sha("AzureLLMInferenceTrace_code.csv.gz")).toBe("54e9a6d2a4bd06ba1e060304b900abbc74cbea53de96506e60fe5bb4f2277fb6");
    expect(fs.readFileSync(path.join(dir, "LICENSE-CC-BY-4.0.txt"), "utf8")).toMatch(/Attribution 4\.0 International/);
    const readme = fs.readFileSync(path.resolve(__dirname, "..", "data", "README.md"), "utf8");
    for (const f of ["conv", "code"]) {
      const gz = fs.readFileSync(path.join(dir, `AzureLLMInferenceTrace_${f}.csv.gz`));
      expect(readme).toContain(crypto.createHash("sha256").update(gz).digest("hex"));
    }
  });

  it("the summary recomputed from the shipped (gzip) CSVs equals data/azure-2023-summary.json", () => {
    expect(where.available).toBe(true);
    expect(JSON.parse(JSON.stringify(computeAzureSummary({ dir: where.dir })))).toEqual(azureSummary());
  });

  it("the committed summary is self-consistent and carries the attribution", () => {
    const s = azureSummary();
    expect(s.attribution.license).toMatch(/CC BY 4\.0/);
    expect(s.attribution.cite).toMatch(/Splitwise.*ISCA 2024/);
    expect(s.note).toMatch(/2 µs to 217 s/);
    for (const kind of ["conv", "code"] as const) {
      const t = s.traces[kind];
      expect(t.meanRate).toBeCloseTo((t.rows - 1) / t.spanSeconds, 4);
      expect(t.gapSeconds.mean * t.meanRate).toBeCloseTo(1, 4);
      const g = t.gapSeconds;
      expect(g.min <= g.median && g.median <= g.p99 && g.p99 <= g.max).toBe(true);
      for (const tokens of [t.contextTokens, t.generatedTokens]) {
        expect(tokens.min <= tokens.p10 && tokens.p10 <= tokens.p50 && tokens.p50 <= tokens.p90 && tokens.p90 <= tokens.p99 && tokens.p99 <= tokens.max).toBe(true);
      }
      expect(t.promptOutputRatio).toBeCloseTo(t.contextTokens.mean / t.generatedTokens.mean, 2);
      // the stored fit's parameters reproduce the figures it was fitted to
      const b = t.bursty;
      const stats = mmppStatistics({ rates: [b.rates.burst, b.rates.quiet], switchRates: [b.switchRates.burstToQuiet, b.switchRates.quietToBurst] });
      expect(stats.meanRate / t.meanRate).toBeCloseTo(1, 4);
      expect(stats.gapCv / t.gapSeconds.cv).toBeCloseTo(1, 3);
      expect(stats.gapQuantile(0.5) / t.gapSeconds.median).toBeCloseTo(1, 3);
      expect(b.exact).toBe(true);
    }
    // the coding trace is the bursty one
    expect(s.traces.code.gapSeconds.cv).toBeGreaterThan(5 * s.traces.conv.gapSeconds.cv);
  });

  it("the §2.1 table (demo 02.7) has one row per trace, units on the measured columns, values from the summary", () => {
    const table = runDemo("02.7");
    expect(table.rows.map((r) => r.trace)).toEqual(["conv", "code"]);
    for (const c of table.columns) expect(c.key in table.rows[0]).toBe(true);
    for (const key of ["spanMinutes", "meanRate", "gapMinMicroseconds", "gapMedian", "gapMax", "generatedMean"]) {
      expect(table.columns.find((c) => c.key === key)?.unit).toBeTruthy();
    }
    const s = azureSummary();
    expect(table.rows[1].requests).toBe(s.traces.code.rows);
    expect(table.rows[0].gapMinMicroseconds).toBeCloseTo(s.traces.conv.gapSeconds.min * 1e6, 9);
    expect(table.notes?.join(" ")).toMatch(/CC BY 4\.0.*Splitwise/);
  });

  it("azureArrivals replays the real trace by default, uses the fitted process only when asked, and scales time", () => {
    const replay = azureArrivals("conv", { dir: fakeDir, timeScale: 0.7 });
    expect(replay.source).toBe("trace");
    const t = replay.times(rng(1), 4);
    expect(t[3]).toBeCloseTo(13.31941 * 0.7, 12);
    expect(replay.meanRate).toBeCloseTo(3 / 13.31941 / 0.7, 12);
    // the shipped copy
    const shipped = azureArrivals("code");
    expect(shipped.source).toBe("trace");
    expect(shipped.description).toMatch(/AzureLLMInferenceTrace_code\.csv\.gz/);
    expect(shipped.meanRate).toBeCloseTo(azureSummary().traces.code.meanRate, 4);
    // no silent fallback: a missing file is an error naming the file
    expect(() => azureArrivals("code", { dir: path.join(tmp, "nowhere") })).toThrow(/nowhere[\\/]AzureLLMInferenceTrace_code\.csv\.gz not found/);
    expect(() => azureArrivals("code", { source: "auto" as never })).toThrow(/source/);
    const synthetic = azureArrivals("code", { source: "synthetic" });
    expect(synthetic.source).toBe("synthetic");
    expect(synthetic.description).toMatch(/asked for/);
    expect(synthetic.meanRate).toBeCloseTo(azureSummary().traces.code.meanRate, 4);
    const scaled = azureArrivals("code", { source: "synthetic", timeScale: 0.5 });
    expect(scaled.meanRate).toBeCloseTo(2 * synthetic.meanRate, 9);
    const a = synthetic.times(rng(4), 100);
    const b = scaled.times(rng(4), 100);
    for (let i = 0; i < 100; i++) expect(b[i]).toBeCloseTo(a[i] * 0.5, 9);
    expect(() => azureArrivals("code", { timeScale: -1 })).toThrow(/timeScale/);
    expect(() => azureArrivals("chat" as never)).toThrow(/kind/);
  });

  it("reads a gzip-compressed CSV like the plain one (both loaders), and names a corrupt one", async () => {
    const plain = write("g.csv", GOOD);
    const gz = path.join(tmp, "g.csv.gz");
    fs.writeFileSync(gz, zlib.gzipSync(GOOD));
    const a = await loadBoth(plain);
    const b = await loadBoth(gz);
    expect({ ...b, source: a.source }).toEqual(a);
    expect(b.name).toBe("g");
    const bad = path.join(tmp, "bad.csv.gz");
    fs.writeFileSync(bad, zlib.gzipSync(GOOD).subarray(0, 30));
    expect(() => loadTraceSync(bad)).toThrow(/bad\.csv\.gz: not a readable gzip file/);
    await expect(loadTrace(bad)).rejects.toThrow(/bad\.csv\.gz: not a readable gzip file/);
  });
});
