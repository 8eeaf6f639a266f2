// The Mooncake (Kimi) conversation trace, FAST '25: 12,031 requests over 59 minutes with real prefix sharing,
// shipped gzip-compressed in data/mooncake-fast25/ (Apache-2.0); its statistics committed in
// data/mooncake-conversation-summary.json (scripts/mooncake-summary.ts regenerates them); and the trace as requests
// for the cluster simulator: each 512-token block a prompt segment, a window of the trace, time-scaled.
import * as fs from "fs";
import * as path from "path";
import { dataDir, readDataJson } from "../core/data";
import { checkInteger, checkNumber, ParameterError } from "../core/errors";
import type { Row, Table } from "../core/table";
import { resolveGpu, resolveModel } from "../hardware/specs";
import { kvCapacityTokens } from "../hardware/step-model";
import { BlockTraceSummary, summarizeBlockTrace } from "./block-stats";
import { TraceFileMissingError } from "./read-text";
import { BlockTrace, blockTokensOf, loadMooncakeTraceSync } from "./mooncake";

export const MOONCAKE_CONVERSATION_FILE = "conversation_trace.jsonl";

export const MOONCAKE_ATTRIBUTION = {
  dataset: "Mooncake conversation trace (Moonshot AI's Kimi service), FAST25-release/traces/conversation_trace.jsonl in https://github.com/kvcache-ai/Mooncake",
  license: "Apache License 2.0 (data/mooncake-fast25/LICENSE-APACHE-2.0.txt)",
  cite: "Ruoyu Qin, Zheming Li, Weiran He, Jialei Cui, Feng Ren, Mingxing Zhang, Yongwei Wu, Weimin Zheng, Xinran Xu. Mooncake: Trading More Storage for Less Computation — A KVCache-centric Architecture for Serving LLM Chatbot. USENIX FAST 2025.",
  sha256: "b8cbb061a85206d729d91cdc2981f43c9e0d99209dce588d3af5f7934408b9df",
};

/** data/mooncake-fast25/conversation_trace.jsonl.gz (the project's copy). */
export function mooncakeConversationFile(): string {
  return path.join(dataDir(), "mooncake-fast25", `${MOONCAKE_CONVERSATION_FILE}.gz`);
}

let cached: { file: string; mtimeMs: number; trace: BlockTrace } | undefined;

/** The conversation trace from data/ (or `file`), loaded once per process; a missing file is an error naming it. */
export function loadMooncakeConversation(file: string = mooncakeConversationFile()): BlockTrace {
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
  } catch {
    throw new TraceFileMissingError(file, `Mooncake trace file ${file} not found: the project ships it in data/mooncake-fast25/ (see data/README.md).`);
  }
  if (cached && cached.file === file && cached.mtimeMs === mtimeMs) return cached.trace;
  const trace = loadMooncakeTraceSync(file, { name: "Mooncake conversation" });
  cached = { file, mtimeMs, trace };
  return trace;
}

export interface MooncakeSummary extends BlockTraceSummary {
  title: string;
  file: string;
  attribution: typeof MOONCAKE_ATTRIBUTION;
  generatedBy: string;
  definitions: Record<string, string>;
}

/** Recomputes the summary from the trace (what scripts/mooncake-summary.ts writes). */
export function computeMooncakeSummary(trace: BlockTrace = loadMooncakeConversation()): MooncakeSummary {
  return {
    title: "Mooncake conversation trace (Kimi, FAST '25): derived figures",
    file: `data/mooncake-fast25/${MOONCAKE_CONVERSATION_FILE}.gz`,
    attribution: MOONCAKE_ATTRIBUTION,
    generatedBy: "npx tsx scripts/mooncake-summary.ts (lib/traces/block-stats.ts summarizeBlockTrace)",
    definitions: {
      durationSeconds: "last timestamp − first, seconds",
      meanRate: "(requests − 1) / duration, requests per second",
      blockHitRate: "an infinite cache from empty: block accesses whose id an earlier request used / all block accesses",
      tokenHitRate: "the same weighted by tokens (the last block of a prompt may be partial)",
      simulatorHitRate: "as the cluster simulator counts hits: cached prompt tokens / prompt tokens, a prompt's cached part capped at prompt − 1",
      reuseDistanceBlocks: "over reused block accesses: LRU stack distance = distinct other blocks used since the block's last use (an LRU cache of more blocks than this keeps it)",
      reuseSeconds: "over reused block accesses: seconds since the block's last use",
      lruTokenHitRate: "token hit rate of ONE LRU cache of that many 512-token blocks, from empty, over the whole trace (one A6000 with Mistral-7B holds ≈ 428 blocks of KV)",
      quantiles: "lib/core/stats quantile",
    },
    ...summarizeBlockTrace(trace),
  };
}

let committed: MooncakeSummary | undefined;

/** The committed data/mooncake-conversation-summary.json (no trace needed). */
export function mooncakeSummary(): MooncakeSummary {
  if (!committed) committed = readDataJson<MooncakeSummary>("mooncake-conversation-summary.json");
  return committed;
}

// ---------------------------------------------------------------------------------------------------------------
// The trace as simulator requests. The shapes below match lib/cluster's ClusterRequest structurally (traces do
// not import the cluster layer).

export interface TraceSegment {
  readonly id: number;
  readonly tokens: number;
}

export interface TraceRequest {
  readonly id: number;
  readonly arrival: number;
  readonly segments: readonly TraceSegment[];
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** the output as a segment of its own id (it enters the cache when the request finishes; no later prompt in
   * the trace names it: a next turn's prompt carries its own block ids) */
  readonly outputSegment: TraceSegment;
  readonly key: number;
  readonly keySegment: number;
  readonly tags: Readonly<Record<string, number>>;
}

export interface TraceWindow {
  /** index of the first request */
  first: number;
  /** requests in the window */
  count: number;
  /** trace seconds of the first and last arrival in the window */
  fromSeconds: number;
  toSeconds: number;
}

/** The requests arriving in [fromMinute, fromMinute + minutes) of the trace (minutes clipped to the trace's end). */
export function traceWindow(trace: BlockTrace, fromMinute: number, minutes: number): TraceWindow {
  const t = trace.arrivalSeconds;
  const n = t.length;
  const durationMinutes = t[n - 1] / 60;
  checkNumber("fromMinute", fromMinute, { min: 0, below: durationMinutes });
  checkNumber("minutes", minutes, { above: 0 });
  const from = fromMinute * 60;
  const to = from + minutes * 60;
  let first = 0;
  while (first < n && t[first] < from) first++;
  let end = first;
  while (end < n && t[end] < to) end++;
  const count = end - first;
  if (count < 10) throw new ParameterError("minutes", `从第 ${fromMinute} 分钟起 ${minutes} 分钟内只有 ${count} 个请求，至少要 10 个；请加长窗口`);
  return { first, count, fromSeconds: t[first], toSeconds: t[end - 1] };
}

/**
 * Requests first … first + count − 1 of the trace for the cluster simulator: arrival = (trace time − the window's
 * first arrival) × timeScale; each hash block a segment of its id and tokens (512, the last block partial); the
 * output a segment with an id above every block id. Segments of the same block are one shared object.
 */
export function blockTraceRequests(trace: BlockTrace, window: Pick<TraceWindow, "first" | "count">, timeScale = 1): TraceRequest[] {
  const n = trace.inputTokens.length;
  const first = checkInteger("first", window.first, { min: 0, max: n - 1 });
  const count = checkInteger("count", window.count, { min: 1, max: n - first });
  checkNumber("timeScale", timeScale, { above: 0 });
  const full = new Map<number, TraceSegment>();
  const origin = trace.arrivalSeconds[first];
  const outputBase = trace.maxBlockId + 1;
  const out: TraceRequest[] = new Array(count);
  for (let j = 0; j < count; j++) {
    const i = first + j;
    const s = trace.blockStart[i];
    const e = trace.blockStart[i + 1];
    const segments: TraceSegment[] = new Array(e - s);
    for (let k = s; k < e; k++) {
      const id = trace.blockIds[k];
      const tokens = blockTokensOf(trace, i, k - s);
      let seg = tokens === trace.blockTokens ? full.get(id) : undefined;
      if (seg === undefined) {
        seg = { id, tokens };
        if (tokens === trace.blockTokens) full.set(id, seg);
      }
      segments[k - s] = seg;
    }
    out[j] = {
      id: j,
      arrival: (trace.arrivalSeconds[i] - origin) * timeScale,
      segments,
      promptTokens: trace.inputTokens[i],
      outputTokens: trace.outputTokens[i],
      outputSegment: { id: outputBase + i, tokens: trace.outputTokens[i] },
      key: 0,
      keySegment: segments[0].id,
      tags: { traceIndex: i },
    };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The §2.1 table of the trace's own statistics (from the committed summary; no trace needed).

const int = (x: number) => Math.round(x).toLocaleString("en-US");
const pct1 = (x: number) => `${(x * 100).toFixed(1)}%`;

/** The trace's statistics as a reader's table: one row per figure, values written out with their units. */
export function mooncakeSummaryTable(summary: MooncakeSummary = mooncakeSummary()): Table {
  const s = summary;
  const blockTokens = s.blockTokens;
  const lru = Object.entries(s.lruTokenHitRate).map(([blocks, hit]) => `${int(Number(blocks))} 块 ${pct1(hit)}`);
  const rows: Row[] = [
    { figure: "请求数", value: `${int(s.requests)} 个` },
    { figure: "时长", value: `${s.durationMinutes.toFixed(1)} 分钟` },
    { figure: "平均到达率", value: `${s.meanRate.toFixed(2)} 请求/秒（按分钟算 ${s.perMinuteRate.min.toFixed(2)}–${s.perMinuteRate.max.toFixed(2)}）` },
    { figure: "提示长度", value: `平均 ${int(s.inputTokens.mean)}，中位数 ${int(s.inputTokens.p50)}，P99 ${int(s.inputTokens.p99)}，最长 ${int(s.inputTokens.max)} token` },
    { figure: "输出长度", value: `平均 ${int(s.outputTokens.mean)}，中位数 ${int(s.outputTokens.p50)}，最长 ${int(s.outputTokens.max)} token（提示是输出的 ${s.inputOutputRatio.toFixed(0)} 倍）` },
    { figure: "每个请求的块数", value: `平均 ${s.blocksPerRequest.mean.toFixed(1)}，中位数 ${int(s.blocksPerRequest.p50)}，最多 ${int(s.blocksPerRequest.max)}（每块 ${blockTokens} token）` },
    { figure: "不同的块", value: `${int(s.distinctBlocks)} 个，共被用到 ${int(s.totalBlocks)} 次` },
    { figure: "以同一个块开头的请求", value: `${pct1(s.sharedFirstBlock.share)}（块 ${s.sharedFirstBlock.id}）` },
    { figure: "无限缓存的命中上界", value: `按块 ${pct1(s.infiniteCache.blockHitRate)}，按 token ${pct1(s.infiniteCache.tokenHitRate)}` },
    { figure: "复用距离（LRU 栈距离：一个块再次被用到之前，中间用到过多少个不同的块；LRU 即淘汰最久没用的缓存）", value: `中位数 ${int(s.reuseDistanceBlocks.p50)} 块（约 ${int((s.reuseDistanceBlocks.p50 * blockTokens) / 10000)} 万 token），P90 ${int(s.reuseDistanceBlocks.p90)} 块` },
    { figure: "距上次使用的时间", value: `中位数 ${int(s.reuseSeconds.p50)} 秒，P90 ${int(s.reuseSeconds.p90)} 秒` },
    { figure: "一个 LRU 缓存的命中率（按 token）", value: lru.join("；") },
  ];
  return {
    id: "mooncake-summary",
    title: "Mooncake 对话 trace（Kimi，FAST '25）的统计",
    columns: [
      { key: "figure", label: "指标", format: "text" },
      { key: "value", label: "数值", format: "text" },
    ],
    rows,
    notes: [
      `数据：${s.attribution.dataset}；${s.attribution.license}。引用：${s.attribution.cite}`,
      `命中上界：假设缓存无限大、从空开始，一个块只要之前有请求用过就算命中。复用距离：一个块两次使用之间用到的其他不同块的个数；LRU 缓存装得下比它多的块，这次复用才能命中。一块 A6000 跑 Mistral-7B 时约能放 ${(kvCapacityTokens(resolveModel("MISTRAL_7B"), resolveGpu("A6000")) / blockTokens).toFixed(0)} 块的 KV。`,
      `由 ${s.generatedBy} 算出，存在 data/mooncake-conversation-summary.json。`,
    ],
  };
}
