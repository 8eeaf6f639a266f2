// 演示 06.4 (§2.1, §6; issue 18): real traffic with real prefix sharing. The Mooncake (Kimi) conversation trace is
// replayed on N replicas of the lecture's paper GPU through every registered router, time-scaled to a target load,
// and each router's hit rate is set against what an infinite cache would hit on the same requests.
import { checkInteger, checkNonEmpty, checkNumber, checkOneOf, ParameterError } from "../../core/errors";
import type { Column, Row } from "../../core/table";
import "../../cluster/routers-production/index";
import { aloneLatency } from "../../cluster/simulate";
import { GPU_IDS, resolveGpu, resolveModel } from "../../hardware/specs";
import { kvCapacityTokens, StepModel } from "../../hardware/step-model";
import { blockReuse, infiniteCacheHitRate, lruTokenHitRate } from "../../traces/block-stats";
import { BlockTrace } from "../../traces/mooncake";
import { loadMooncakeConversation, mooncakeSummary, traceWindow, TraceWindow } from "../../traces/mooncake-conversation";
import { defineDemo, DemoContext } from "../registry";
import { policyOptions, replayPolicies, replayRuns } from "./replay-runs";
import { TRACE_REPLAY_CLAIMS } from "./trace-replay-claims";

export { replayPolicies } from "./replay-runs";

/** The lecture's paper GPU: every replica is one A6000 running Mistral-7B (Preble's set-up). */
export const REPLAY_MODEL = "MISTRAL_7B";

/** Routers that look only at load (everything else in the table uses the prefix cache in some way). */
export const REPLAY_LOAD_ONLY = ["random", "roundRobin", "leastLoad", "powerOfTwo", "baseline"];

const WARMUP = 0.2;

/** What the window asks of one replica: mean prefill seconds of a prompt from scratch, and its arrival rate. */
export function windowDemand(trace: BlockTrace, w: TraceWindow, step: StepModel, chunk: number): { prefillSeconds: number; rate: number } {
  let sum = 0;
  for (let i = w.first; i < w.first + w.count; i++) sum += aloneLatency(step, trace.inputTokens[i], 0, 1, chunk);
  return { prefillSeconds: sum / w.count, rate: (w.count - 1) / (w.toSeconds - w.fromSeconds) };
}

const DEFAULTS = {
  fromMinute: 0,
  minutes: 8,
  loads: [0.3, 0.5, 0.7],
  replicas: 8,
  gpu: "A6000",
  policies: replayPolicies(),
  seed: 1,
};

/** What the routers are measured against on the window: the infinite-cache bound (same warm-up, the simulator's
 * way of counting), one LRU cache as large as the cluster's KV memory, and the share opening with the same block. */
function windowReference(trace: BlockTrace, w: TraceWindow, replicas: number, capacity: number): { bound: number; pooledLru: number; sharedFirst: number } {
  const warmupCount = Math.min(w.count - 1, Math.floor(w.count * WARMUP));
  const bound = infiniteCacheHitRate(trace, w.first, w.count, warmupCount);
  const pooledLru = lruTokenHitRate(blockReuse(trace, w.first, w.count), Math.floor((replicas * capacity) / trace.blockTokens));
  let same = 0;
  const firstBlock = trace.blockIds[trace.blockStart[w.first]];
  for (let i = w.first; i < w.first + w.count; i++) if (trace.blockIds[trace.blockStart[i]] === firstBlock) same++;
  return { bound, pooledLru, sharedFirst: same / w.count };
}

const COLUMNS: Column[] = [
  { key: "load", label: "目标利用率 ρ", format: "fixed2" },
  { key: "rate", label: "到达率", unit: "请求/秒", format: "fixed2" },
  { key: "policy", label: "路由器", format: "name" },
  { key: "hitRate", label: "命中率", format: "percent1" },
  { key: "boundShare", label: "达到上界的比例", format: "percent0" },
  { key: "meanLatency", label: "平均延迟", unit: "秒", format: "fixed1" },
  { key: "p99Latency", label: "P99 延迟", unit: "秒", format: "fixed1" },
  { key: "meanTTFT", label: "平均 TTFT", unit: "秒", format: "fixed2" },
  { key: "p99TTFT", label: "P99 TTFT", unit: "秒", format: "fixed1" },
  { key: "maxShare", label: "最忙副本的份额", format: "percent0" },
  { key: "overloaded", label: "过载" },
];

export const traceReplay = defineDemo<typeof DEFAULTS>({
  id: "06.4",
  section: "§2.1 · §6",
  title: "真实流量上的路由：重放 Mooncake（Kimi）对话 trace",
  // Size: 8 minutes of the Mooncake trace at three loads: long enough for the 8 replicas' caches to fill; one seed (the trace itself is fixed).
  defaults: DEFAULTS,
  describe: {
    fromMinute: { meaning: "从 trace 的第几分钟开始取请求", range: "≥ 0 且小于 trace 的时长（约 59 分钟）的数" },
    minutes: { meaning: "取多长一段 trace（分钟）；取 59 即整份 trace（12,031 个请求）", range: "> 0 的数，窗口里至少要有 10 个请求" },
    loads: { meaning: "目标利用率 ρ：到达率 × 无缓存时一个提示的平均 prefill 时间 ÷ 副本数；按它整体缩放 trace 的到达时刻", range: "非空数组，每项为 > 0 且 ≤ 3 的数" },
    replicas: { meaning: "副本数（每个副本一块 GPU 跑 Mistral-7B）", range: "1–64 的整数" },
    gpu: { meaning: "每个副本的 GPU（决定 KV 显存有多大）", range: `${GPU_IDS.join("、")} 之一` },
    policies: { meaning: "要比较的路由器（默认：注册表里的全部，Preble 取只有 E2 的配置 e2）", range: "非空数组，每项为注册的路由器名或命名配置（baseline、e2、e2+rebalance、preble）" },
    seed: { meaning: "随机种子（只影响带随机性的路由器：随机、二选一等）", range: "整数" },
  },
  run(p, context: DemoContext) {
    const trace = loadMooncakeConversation();
    const window = traceWindow(trace, p.fromMinute, p.minutes);
    const loads = checkNonEmpty("loads", p.loads).map((x, i) => checkNumber(`loads[${i}]`, x, { above: 0, max: 3 }));
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 64 });
    const gpuId = checkOneOf("gpu", p.gpu, GPU_IDS);
    checkInteger("seed", p.seed);
    const policies = checkNonEmpty("policies", p.policies).map((x, i) => {
      if (typeof x !== "string") throw new ParameterError(`policies[${i}]`, `应为路由器名（字符串），实际是 ${JSON.stringify(x)}`);
      policyOptions(x);
      return x;
    });
    const model = resolveModel(REPLAY_MODEL);
    const gpu = resolveGpu(gpuId);
    const step = new StepModel(model, gpu);
    const capacity = kvCapacityTokens(model, gpu, 0.9);
    let largest = 0;
    for (let i = window.first; i < window.first + window.count; i++) largest = Math.max(largest, trace.inputTokens[i] + trace.outputTokens[i]);
    if (largest > capacity) throw new ParameterError("gpu", `${gpuId} 上一个副本的 KV 只放得下 ${capacity.toLocaleString("en-US")} 个 token，窗口里最长的请求要 ${largest.toLocaleString("en-US")} 个；请换显存更大的 GPU 或换一段窗口`);

    const demand = windowDemand(trace, window, step, 512);
    const { bound, pooledLru, sharedFirst } = windowReference(trace, window, replicas, capacity);

    const rows: Row[] = [];
    const scales: string[] = [];
    const rates = loads.map((load) => (load * replicas) / demand.prefillSeconds);
    // Every (load, router) replay at once over the worker threads (replay-runs.ts), then rows in the same order.
    const jobs = loads.flatMap((_load, k) => policies.map((policy) => ({ fromMinute: p.fromMinute, minutes: p.minutes, timeScale: demand.rate / rates[k], replicas, seed: p.seed, model: REPLAY_MODEL, gpu: gpuId, warmup: WARMUP, policy })));
    const results = replayRuns(jobs, context.progress);
    let next = 0;
    for (const [k, load] of loads.entries()) {
      const rate = rates[k];
      const timeScale = demand.rate / rate;
      scales.push(`ρ = ${load}：${rate.toFixed(2)} 请求/秒，到达时刻 ×${timeScale.toFixed(2)}`);
      for (const policy of policies) {
        const m = results[next++];
        rows.push({
          load,
          rate,
          policy,
          hitRate: m.hitRate,
          boundShare: bound > 0 ? m.hitRate / bound : NaN,
          meanLatency: m.meanLatency,
          p99Latency: m.p99Latency,
          meanTTFT: m.meanTTFT,
          p99TTFT: m.p99TTFT,
          maxShare: m.maxShare,
          overloaded: m.overloaded,
          // the same in every row, kept out of the columns (the notes state them) for the claims to read
          bound,
          pooledLru,
          sharedFirstBlock: sharedFirst,
        });
      }
    }
    const minutesShown = ((window.toSeconds - window.fromSeconds) / 60).toFixed(1);
    const whole = window.count === trace.inputTokens.length;
    const toMinute = Number(Math.min(p.fromMinute + p.minutes, trace.arrivalSeconds[trace.arrivalSeconds.length - 1] / 60).toFixed(1));
    const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
    return {
      title: `重放 Mooncake 对话 trace：${whole ? "整份 trace" : `第 ${p.fromMinute}–${toMinute} 分钟`}（${window.count.toLocaleString("en-US")} 个请求），${replicas} 个副本（${model.name} / ${gpu.name}）`,
      columns: COLUMNS,
      rows,
      notes: [
        `数据：Mooncake 对话 trace（Kimi 的线上服务，FAST '25，Apache-2.0；data/mooncake-fast25/）。窗口内 ${window.count} 个请求、${minutesShown} 分钟，原始到达率 ${demand.rate.toFixed(2)} 请求/秒；每个提示按 512 token 一块给出哈希编号，相同的前几块 = 相同的前缀，这里每块成为一个提示段（最后一块可能不满）。`,
        `无限缓存的命中上界（同一批请求、同样先用前 ${Math.round(WARMUP * 100)}% 预热，按模拟器的算法：每个提示的最后一个 token 总要算）：${pct(bound)}；整份 trace 按块算是 ${pct(mooncakeSummary().infiniteCache.blockHitRate)}。窗口里 ${pct(sharedFirst)} 的请求以同一个块开头。把 ${replicas} 个副本的 KV 显存（每个 ${capacity.toLocaleString("en-US")} token）合成一个 LRU 缓存（参考值：LRU 不是最优的淘汰，路由器可以超过它），命中率为 ${pct(pooledLru)}。`,
        `trace 来自 Kimi——一个比 Mistral-7B 大得多的模型、跑在大得多的集群上（还有 Mooncake 的分布式 KV 池）。这里只借用它的到达时刻、长度和前缀共享，换到讲义的纸上 GPU 上重放：延迟的绝对值不代表 Kimi 的服务。`,
        `缩放：ρ = 到达率 × 无缓存时一个提示的平均 prefill 时间（这里 ${demand.prefillSeconds.toFixed(2)} 秒）÷ 副本数；为达到目标 ρ，把窗口内的到达时刻整体乘以一个系数——请求的先后、突发的形状、提示与共享关系都不变，只有快慢变了。${scales.join("；")}。decode 不计入 ρ，所以 ρ 到 1 之前集群就可能过载。`,
        `预热：缓存从空开始，窗口内前 ${Math.round(WARMUP * 100)}% 的请求不计入指标。"过载"指队列在运行结束时仍在增长，这时的数字取决于运行多长。`,
      ],
    };
  },
  claims: TRACE_REPLAY_CLAIMS,
});
