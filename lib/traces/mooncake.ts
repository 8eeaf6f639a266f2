// Loader for request traces in the Mooncake / aiperf format (Mooncake FAST '25 traces; what NVIDIA's aiperf and
// Dynamo's benchmarks replay): one JSON object a line,
//   {"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2, …]}
// timestamp = arrival in milliseconds, lengths in tokens, hash_ids = the prompt's blocks of `blockTokens` (512)
// tokens as remapped hash ids: two prompts that list the same ids in the same leading positions share that prefix;
// the last block may be partial (input_length − 512·(n − 1) tokens). Streaming (line by line, plain or gzip), and
// every bad line is reported with its line number and field; nothing is skipped silently (skipBadLines to opt in).
import * as path from "path";
import { BadRow, TraceFormatError } from "./csv-trace";
import { forEachLine, forEachLineSync, LineSplitter } from "./read-text";
import { grownToHold, isDirectId } from "../core/typed-arrays";

/** Tokens per hash block in the Mooncake traces. */
export const MOONCAKE_BLOCK_TOKENS = 512;

/** A trace of prompts given as hash blocks: arrays indexed by request, blocks in one flat array (CSR layout). */
export interface BlockTrace {
  name: string;
  /** the file read ("(text)" for a string) */
  source: string;
  /** tokens per full block */
  blockTokens: number;
  /** timestamps as written (ms) */
  timestampsMs: Float64Array;
  /** arrival in seconds after the first request (the first is 0) */
  arrivalSeconds: Float64Array;
  inputTokens: Int32Array;
  outputTokens: Int32Array;
  /** request i's blocks are blockIds[blockStart[i] … blockStart[i + 1]) (length requests + 1) */
  blockStart: Int32Array;
  blockIds: Float64Array;
  /** largest block id (−1 when there are none) */
  maxBlockId: number;
  /** lines left out because skipBadLines was set (empty otherwise) */
  skippedLines: BadRow[];
}

export interface BlockTraceLoadOptions {
  /** false (default): any bad line makes the load fail with a TraceFormatError listing each bad line by number and
   * field; true: bad lines are left out and listed in `skippedLines` */
  skipBadLines?: boolean;
  /** tokens per hash block (default 512) */
  blockTokens?: number;
  /** label (default: the file name without .jsonl / .gz) */
  name?: string;
}

const FIELDS = ["timestamp", "input_length", "output_length", "hash_ids"] as const;

/** Each block id's tokens (0 = not seen yet: a block holds ≥ 1 token) and the line that first gave it. Ids below
 * DIRECT_IDS index typed arrays (a trace's remapped ids are small and dense: the 12,031-request conversation trace
 * reads 288,500 of them, and two Map lookups per id were two thirds of its load time); others go through Maps. */
class BlockSizes {
  private tokens = new Int32Array(1024);
  private lines = new Int32Array(1024);
  private readonly otherTokens = new Map<number, number>();
  private readonly otherLines = new Map<number, number>();

  tokensOf(id: number): number {
    if (isDirectId(id)) return id < this.tokens.length ? this.tokens[id] : 0;
    return this.otherTokens.get(id) ?? 0;
  }

  lineOf(id: number): number {
    return isDirectId(id) ? this.lines[id] : (this.otherLines.get(id) as number);
  }

  set(id: number, tokens: number, line: number): void {
    if (isDirectId(id)) {
      this.tokens = grownToHold(this.tokens, id);
      this.lines = grownToHold(this.lines, id);
      this.tokens[id] = tokens;
      this.lines[id] = line;
    } else {
      this.otherTokens.set(id, tokens);
      this.otherLines.set(id, line);
    }
  }
}

class BlockTraceParser {
  private lineNumber = 0;
  private previous: { ms: number; line: number } | undefined;
  private readonly ms: number[] = [];
  private readonly input: number[] = [];
  private readonly output: number[] = [];
  private readonly starts: number[] = [0];
  private readonly ids: number[] = [];
  /** every block id seen: its tokens and the line that first gave it (a block has one size in the whole trace) */
  private readonly blocks = new BlockSizes();
  private maxId = -1;
  private readonly bad: BadRow[] = [];

  constructor(private readonly source: string, private readonly name: string, private readonly skip: boolean, private readonly blockTokens: number) {}

  line(raw: string): void {
    this.lineNumber++;
    let text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (this.lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.trim() === "") return;
    const reason = this.parse(text);
    if (reason !== null) this.bad.push({ line: this.lineNumber, text: text.length > 200 ? `${text.slice(0, 200)}…` : text, reason });
  }

  /** Records the line's request, or returns why it is bad (nothing recorded then). */
  private parse(text: string): string | null {
    let o: unknown;
    try {
      o = JSON.parse(text);
    } catch {
      return "not valid JSON";
    }
    if (typeof o !== "object" || o === null || Array.isArray(o)) return "not a JSON object";
    const rec = o as Record<string, unknown>;
    const missing = FIELDS.filter((f) => !(f in rec));
    if (missing.length > 0) return `missing field${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`;
    const ms = rec.timestamp;
    if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return `field timestamp: ${JSON.stringify(ms)} is not a finite number of milliseconds ≥ 0`;
    const lengths: number[] = [];
    for (const [field, min] of [["input_length", 1], ["output_length", 1]] as const) {
      const v = rec[field];
      if (typeof v !== "number" || !Number.isInteger(v)) return `field ${field}: ${JSON.stringify(v)} is not a whole number of tokens`;
      if (v < 0) return `field ${field}: ${v} is negative`;
      if (v < min || v > 2_147_483_647) return `field ${field}: ${v} is outside ${min} … 2³¹−1 tokens`;
      lengths.push(v);
    }
    const [inputLength] = lengths;
    const ids = rec.hash_ids;
    if (!Array.isArray(ids)) return `field hash_ids: not an array`;
    const B = this.blockTokens;
    const blocks = Math.ceil(inputLength / B);
    if (ids.length !== blocks) return `field hash_ids: ${ids.length} block id${ids.length === 1 ? "" : "s"}, but input_length ${inputLength} needs ⌈${inputLength} / ${B}⌉ = ${blocks}`;
    const last = inputLength - B * (blocks - 1);
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k];
      if (typeof id !== "number" || !Number.isSafeInteger(id) || id < 0) return `field hash_ids[${k}]: ${JSON.stringify(id)} is not a whole number ≥ 0`;
      const tokens = k < blocks - 1 ? B : last;
      const known = this.blocks.tokensOf(id);
      if (known !== 0 && known !== tokens) {
        return `field hash_ids[${k}]: block ${id} holds ${tokens} tokens here but ${known} on line ${this.blocks.lineOf(id)} (a block id names one content, so one size)`;
      }
      // the partial last block repeating an id used as a full block earlier in the same line
      if (k === blocks - 1 && last !== B && known === 0 && ids.indexOf(id) < k) {
        return `field hash_ids[${k}]: block ${id} holds ${last} tokens here but ${B} at hash_ids[${ids.indexOf(id)}] (a block id names one content, so one size)`;
      }
    }
    if (this.previous && ms < this.previous.ms) return `field timestamp: ${ms} ms is earlier than line ${this.previous.line}'s ${this.previous.ms} ms; lines must be in time order`;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k] as number;
      if (this.blocks.tokensOf(id) === 0) this.blocks.set(id, k < blocks - 1 ? B : last, this.lineNumber);
      if (id > this.maxId) this.maxId = id;
      this.ids.push(id);
    }
    this.previous = { ms, line: this.lineNumber };
    this.ms.push(ms);
    this.input.push(inputLength);
    this.output.push(lengths[1]);
    this.starts.push(this.ids.length);
    return null;
  }

  finish(): BlockTrace {
    if (this.bad.length > 0 && !this.skip) {
      const shown = this.bad.slice(0, 10).map((b) => `line ${b.line}: ${b.reason}`);
      const more = this.bad.length > shown.length ? `; … and ${this.bad.length - shown.length} more` : "";
      throw new TraceFormatError(this.source, this.bad, `${this.bad.length} bad line${this.bad.length > 1 ? "s" : ""} (${shown.join("; ")}${more}); pass skipBadLines: true to leave them out`);
    }
    if (this.ms.length === 0) {
      const why = this.bad.length > 0 ? `all ${this.bad.length} lines were bad and skipped` : "the file has no lines";
      throw new TraceFormatError(this.source, this.bad, `no requests (${why}); a trace needs at least one`);
    }
    const timestampsMs = Float64Array.from(this.ms);
    const arrivalSeconds = new Float64Array(timestampsMs.length);
    for (let i = 0; i < timestampsMs.length; i++) arrivalSeconds[i] = (timestampsMs[i] - timestampsMs[0]) / 1000;
    return {
      name: this.name,
      source: this.source,
      blockTokens: this.blockTokens,
      timestampsMs,
      arrivalSeconds,
      inputTokens: Int32Array.from(this.input),
      outputTokens: Int32Array.from(this.output),
      blockStart: Int32Array.from(this.starts),
      blockIds: Float64Array.from(this.ids),
      maxBlockId: this.maxId,
      skippedLines: this.bad,
    };
  }
}

function parserFor(source: string, options: BlockTraceLoadOptions): BlockTraceParser {
  const blockTokens = options.blockTokens ?? MOONCAKE_BLOCK_TOKENS;
  if (!Number.isInteger(blockTokens) || blockTokens < 1) throw new RangeError(`blockTokens must be a whole number ≥ 1, got ${blockTokens}`);
  const name = options.name ?? (source === "(text)" ? "trace" : path.basename(source).replace(/\.gz$/, "").replace(/\.jsonl?$/, ""));
  return new BlockTraceParser(source, name, options.skipBadLines ?? false, blockTokens);
}

/** Parses a whole trace held in a string (tests, small inline examples). */
export function parseMooncakeText(text: string, options: BlockTraceLoadOptions = {}): BlockTrace {
  const parser = parserFor("(text)", options);
  const splitter = new LineSplitter((l) => parser.line(l));
  splitter.push(text);
  splitter.end();
  return parser.finish();
}

/** Reads a Mooncake / aiperf trace file as a stream (plain or gzip). */
export async function loadMooncakeTrace(file: string, options: BlockTraceLoadOptions = {}): Promise<BlockTrace> {
  const parser = parserFor(file, options);
  await forEachLine(file, (l) => parser.line(l));
  return parser.finish();
}

/** Reads a Mooncake / aiperf trace file synchronously, line by line (plain or gzip; for demos). */
export function loadMooncakeTraceSync(file: string, options: BlockTraceLoadOptions = {}): BlockTrace {
  const parser = parserFor(file, options);
  forEachLineSync(file, (l) => parser.line(l));
  return parser.finish();
}

/** Requests in the trace. */
export function blockTraceSize(trace: BlockTrace): number {
  return trace.inputTokens.length;
}

/** Tokens of request i's block k (the last block may be partial). */
export function blockTokensOf(trace: BlockTrace, i: number, k: number): number {
  const n = trace.blockStart[i + 1] - trace.blockStart[i];
  return k < n - 1 ? trace.blockTokens : trace.inputTokens[i] - trace.blockTokens * (n - 1);
}
