// Loader for request traces in the Azure LLM inference CSV format (TIMESTAMP, ContextTokens, GeneratedTokens),
// read in chunks (a stream, or fixed-size synchronous reads; plain or gzip), with every bad row reported by its
// line number.
//
// The format, as in AzureLLMInferenceTrace_{conv,code}.csv: a header line, then rows like
//   2023-11-16 18:15:46.6805900,374,44
// CRLF or LF line ends, no quoting. The timestamp has no time zone: it is read as a wall-clock reading on one
// clock, and only differences between rows are used (parsed with integer arithmetic, never through the local time
// zone, so no daylight-saving shift can creep in; a trace recorded across a DST switch in local time would carry
// the switch in its own timestamps). Fractional seconds have up to 7 digits (100-ns ticks, .NET style); times
// are kept as exact integer tick counts relative to the first row, so gaps are exact to the tick.
import * as path from "path";
import { forEachLine, forEachLineSync, LineSplitter } from "./read-text";

/** The timestamps' resolution: 10⁷ ticks per second (7 fractional digits). */
export const TICKS_PER_SECOND = 10_000_000;
const TICKS_PER_DAY = 86_400 * TICKS_PER_SECOND;

export interface Trace {
  /** a label (the file name without extension unless given) */
  name: string;
  /** where it was read from ("(text)" for a string) */
  source: string;
  /** the first row's TIMESTAMP, as written */
  firstTimestamp: string;
  /** arrival of each row in ticks (10⁻⁷ s) after the first row: exact integers */
  arrivalTicks: Float64Array;
  /** arrival of each row in seconds after the first row (the first is 0) */
  arrivalSeconds: Float64Array;
  /** prompt tokens per request */
  contextTokens: Int32Array;
  /** output tokens per request */
  generatedTokens: Int32Array;
  /** rows left out because skipBadRows was set (empty otherwise) */
  skippedRows: BadRow[];
}

export interface BadRow {
  /** 1-based line number in the file (the header is line 1) */
  line: number;
  /** the line as read */
  text: string;
  reason: string;
}

export interface TraceLoadOptions {
  /**
   * false (default): any bad row — wrong field count, unreadable timestamp or token count, a timestamp earlier
   * than the previous row's — makes the load fail with a TraceFormatError listing the bad rows by line number.
   * true: bad rows are left out and listed in `trace.skippedRows`.
   */
  skipBadRows?: boolean;
  /** label for the trace (default: file name without extension) */
  name?: string;
}

/**
 * A file that cannot be read as a trace. Thrown for bad rows (unless skipped), for a missing or incomplete header,
 * and for a file with no data rows (an empty file included): a trace needs at least one arrival.
 */
export class TraceFormatError extends Error {
  constructor(readonly source: string, readonly badRows: BadRow[], message: string) {
    super(`${source}: ${message}`);
    this.name = "TraceFormatError";
  }
}

const COLUMNS = ["TIMESTAMP", "ContextTokens", "GeneratedTokens"] as const;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,7}))?$/;
const INTEGER = /^\d+$/;

/** A parsed timestamp: whole days since 1970-01-01 and ticks since that day's midnight (both exact integers). */
export interface TraceInstant {
  day: number;
  tick: number;
}

/** Parses "YYYY-MM-DD HH:MM:SS[.fffffff]" (or with "T"); undefined if malformed or not a real calendar time. */
export function parseTraceTimestamp(text: string): TraceInstant | undefined {
  const m = TIMESTAMP.exec(text);
  if (!m) return undefined;
  const [year, month, dayOfMonth, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || dayOfMonth < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const ms = Date.UTC(year, month - 1, dayOfMonth);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== dayOfMonth) return undefined;
  const fraction = Number((m[7] ?? "").padEnd(7, "0"));
  return { day: ms / 86_400_000, tick: ((hour * 60 + minute) * 60 + second) * TICKS_PER_SECOND + fraction };
}

/** Ticks from `a` to `b` (exact while the two are less than ~28,000 years apart). */
export function ticksBetween(a: TraceInstant, b: TraceInstant): number {
  return (b.day - a.day) * TICKS_PER_DAY + (b.tick - a.tick);
}

/** Consumes a trace line by line (1-based line numbers) and builds the Trace. */
class TraceParser {
  private lineNumber = 0;
  private columns: number[] | undefined;
  private fieldCount = 0;
  private first: TraceInstant | undefined;
  private firstText = "";
  private previous: { instant: TraceInstant; line: number } | undefined;
  private readonly ticks: number[] = [];
  private readonly context: number[] = [];
  private readonly generated: number[] = [];
  private readonly bad: BadRow[] = [];

  constructor(private readonly source: string, private readonly name: string, private readonly skipBadRows: boolean) {}

  line(raw: string): void {
    this.lineNumber++;
    let text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (this.lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === "") return; // blank lines (e.g. a trailing newline) carry no row
    if (!this.columns) return this.header(text);
    const fields = text.split(",").map((f) => f.trim());
    if (fields.length !== this.fieldCount) return this.reject(text, `expected ${this.fieldCount} fields, got ${fields.length}`);
    const [ti, ci, gi] = this.columns;
    const instant = parseTraceTimestamp(fields[ti]);
    if (!instant) return this.reject(text, `TIMESTAMP ${JSON.stringify(fields[ti])} is not a valid "YYYY-MM-DD HH:MM:SS.fffffff"`);
    const tokens: number[] = [];
    for (const [index, label] of [[ci, "ContextTokens"], [gi, "GeneratedTokens"]] as const) {
      const v = fields[index];
      if (!INTEGER.test(v) || Number(v) > 2_147_483_647) return this.reject(text, `${label} ${JSON.stringify(v)} is not a whole number of tokens (0 … 2³¹−1)`);
      tokens.push(Number(v));
    }
    if (this.previous && ticksBetween(this.previous.instant, instant) < 0) {
      return this.reject(text, `TIMESTAMP is earlier than the previous row's (line ${this.previous.line}); rows must be in time order`);
    }
    if (!this.first) {
      this.first = instant;
      this.firstText = fields[ti];
    }
    const rel = ticksBetween(this.first, instant);
    if (!Number.isSafeInteger(rel)) return this.reject(text, "TIMESTAMP too far from the first row's to count in ticks");
    this.previous = { instant, line: this.lineNumber };
    this.ticks.push(rel);
    this.context.push(tokens[0]);
    this.generated.push(tokens[1]);
  }

  private header(text: string): void {
    const names = text.split(",").map((f) => f.trim().toLowerCase());
    const columns = COLUMNS.map((c) => names.indexOf(c.toLowerCase()));
    const missing = COLUMNS.filter((_, i) => columns[i] < 0);
    if (missing.length > 0) {
      throw new TraceFormatError(this.source, [{ line: this.lineNumber, text, reason: `header lacks ${missing.join(", ")}` }],
        `line ${this.lineNumber}: the header must name the columns ${COLUMNS.join(", ")}; missing ${missing.join(", ")} in ${JSON.stringify(text)}`);
    }
    this.columns = columns;
    this.fieldCount = names.length;
  }

  private reject(text: string, reason: string): void {
    this.bad.push({ line: this.lineNumber, text, reason });
  }

  finish(): Trace {
    if (!this.columns) throw new TraceFormatError(this.source, [], `empty file: no header line (expected ${COLUMNS.join(",")})`);
    if (this.bad.length > 0 && !this.skipBadRows) {
      const shown = this.bad.slice(0, 10).map((b) => `line ${b.line}: ${b.reason}`);
      const more = this.bad.length > shown.length ? `; … and ${this.bad.length - shown.length} more` : "";
      throw new TraceFormatError(this.source, this.bad, `${this.bad.length} bad row${this.bad.length > 1 ? "s" : ""} (${shown.join("; ")}${more}); pass skipBadRows: true to leave them out`);
    }
    if (this.ticks.length === 0) {
      const why = this.bad.length > 0 ? `all ${this.bad.length} rows were bad and skipped` : "only a header";
      throw new TraceFormatError(this.source, this.bad, `no data rows (${why}); a trace needs at least one arrival`);
    }
    const arrivalTicks = Float64Array.from(this.ticks);
    const arrivalSeconds = new Float64Array(arrivalTicks.length);
    for (let i = 0; i < arrivalTicks.length; i++) arrivalSeconds[i] = arrivalTicks[i] / TICKS_PER_SECOND;
    return {
      name: this.name,
      source: this.source,
      firstTimestamp: this.firstText,
      arrivalTicks,
      arrivalSeconds,
      contextTokens: Int32Array.from(this.context),
      generatedTokens: Int32Array.from(this.generated),
      skippedRows: this.bad,
    };
  }
}

function labelOf(file: string, options: TraceLoadOptions): string {
  return options.name ?? path.basename(file).replace(/\.gz$/, "").replace(/\.[^.]*$/, "");
}

/** Parses a whole trace held in a string (tests, small inline examples). */
export function parseTraceText(text: string, options: TraceLoadOptions = {}): Trace {
  const parser = new TraceParser("(text)", options.name ?? "trace", options.skipBadRows ?? false);
  const splitter = new LineSplitter((l) => parser.line(l));
  splitter.push(text);
  splitter.end();
  return parser.finish();
}

/** Reads a trace file as a stream (64 KiB chunks; a gzip file is inflated on the fly). */
export async function loadTrace(file: string, options: TraceLoadOptions = {}): Promise<Trace> {
  const parser = new TraceParser(file, labelOf(file, options), options.skipBadRows ?? false);
  await forEachLine(file, (l) => parser.line(l));
  return parser.finish();
}

/** Reads a trace file synchronously in 64 KiB chunks, plain or gzip (for synchronous callers such as demos). */
export function loadTraceSync(file: string, options: TraceLoadOptions = {}): Trace {
  const parser = new TraceParser(file, labelOf(file, options), options.skipBadRows ?? false);
  forEachLineSync(file, (l) => parser.line(l));
  return parser.finish();
}

/** Gaps between consecutive arrivals in seconds, computed from the exact tick counts (length rows − 1). */
export function traceGapsSeconds(trace: Pick<Trace, "arrivalTicks">): Float64Array {
  const t = trace.arrivalTicks;
  const gaps = new Float64Array(Math.max(0, t.length - 1));
  for (let i = 1; i < t.length; i++) gaps[i - 1] = (t[i] - t[i - 1]) / TICKS_PER_SECOND;
  return gaps;
}
