// Reading a trace file as text in chunks, plain or gzip-compressed (the project ships its traces as .gz under
// data/): a synchronous reader for demos and an async stream for scripts, and the line splitter both loaders use.
// Compression is recognised by the file's first two bytes (1f 8b), not by its name.
import * as fs from "fs";
import { StringDecoder } from "string_decoder";
import * as zlib from "zlib";

const CHUNK = 64 * 1024;

/** Whether the file starts with the gzip magic bytes. */
export function isGzipFile(file: string): boolean {
  const fd = fs.openSync(file, "r");
  try {
    const head = Buffer.alloc(2);
    const read = fs.readSync(fd, head, 0, 2, 0);
    return read === 2 && head[0] === 0x1f && head[1] === 0x8b;
  } finally {
    fs.closeSync(fd);
  }
}

function gzipError(file: string, e: unknown): Error {
  return new Error(`${file}: not a readable gzip file (${e instanceof Error ? e.message : String(e)})`);
}

/**
 * Calls `onChunk` with the file's text in order (UTF-8, chunks of ≈ 64 KiB). A gzip file is inflated in one call
 * (node's zlib has no synchronous stream; our traces inflate to a few MB), then handed on in chunks like a plain one.
 */
export function readTextSync(file: string, onChunk: (text: string) => void): void {
  const decoder = new StringDecoder("utf8");
  if (isGzipFile(file)) {
    let data: Buffer;
    try {
      data = zlib.gunzipSync(fs.readFileSync(file));
    } catch (e) {
      throw gzipError(file, e);
    }
    for (let at = 0; at < data.length; at += CHUNK) onChunk(decoder.write(data.subarray(at, Math.min(data.length, at + CHUNK))));
    onChunk(decoder.end());
    return;
  }
  const buffer = Buffer.alloc(CHUNK);
  const fd = fs.openSync(file, "r");
  try {
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, buffer.length, null);
      if (read === 0) break;
      onChunk(decoder.write(buffer.subarray(0, read)));
    }
    onChunk(decoder.end());
  } finally {
    fs.closeSync(fd);
  }
}

/** The file's text as an async stream of chunks (gzip inflated on the fly). */
export async function* textChunks(file: string): AsyncGenerator<string> {
  const gzip = isGzipFile(file);
  const raw = fs.createReadStream(file, { highWaterMark: CHUNK });
  const source: NodeJS.ReadableStream = gzip ? raw.pipe(zlib.createGunzip()) : raw;
  if (gzip) raw.on("error", (e) => (source as zlib.Gunzip).destroy(e));
  const decoder = new StringDecoder("utf8");
  try {
    for await (const chunk of source) yield decoder.write(chunk as Buffer);
  } catch (e) {
    throw gzip ? gzipError(file, e) : e;
  }
  yield decoder.end();
}

/** Splits text arriving in chunks into lines at "\n" (a "\r" before it is left for the parser to remove). */
export class LineSplitter {
  private rest = "";
  constructor(private readonly onLine: (line: string) => void) {}
  push(chunk: string): void {
    if (chunk === "") return;
    const text = this.rest + chunk;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      this.onLine(text.slice(start, nl));
      start = nl + 1;
    }
    this.rest = text.slice(start);
  }
  end(): void {
    if (this.rest !== "") this.onLine(this.rest);
    this.rest = "";
  }
}

/** Feeds a file's lines to `onLine` (synchronously). */
export function forEachLineSync(file: string, onLine: (line: string) => void): void {
  const splitter = new LineSplitter(onLine);
  readTextSync(file, (t) => splitter.push(t));
  splitter.end();
}

/** Feeds a file's lines to `onLine` as the stream arrives. */
export async function forEachLine(file: string, onLine: (line: string) => void): Promise<void> {
  const splitter = new LineSplitter(onLine);
  for await (const t of textChunks(file)) splitter.push(t);
  splitter.end();
}

/** A trace file that is not there: the message names the file, the folder and how it was chosen. */
export class TraceFileMissingError extends Error {
  constructor(readonly file: string, message: string) {
    super(message);
    this.name = "TraceFileMissingError";
  }
}
