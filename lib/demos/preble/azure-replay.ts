// 代码 03 演示 6 (§3.6; issues 9, 13, 18): Preble's "Azure arrivals, tool calling + video QA" experiment. The same
// mixed workload arrives either as Poisson or at the real Azure 2023 trace's arrival times (shipped in data/), both
// scaled so that the rate REALISED over the run is the same: only the burst pattern differs. Bursts hurt more, and
// the configurations differ in how much. The fitted two-state process is used only when asked for.
import * as path from "path";
import { ArrivalProcess, poissonProcess } from "../../core/arrivals";
import { dataDir } from "../../core/data";
import { checkInteger, checkNonEmpty, checkNumber, checkOneOf, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Column, Row } from "../../core/table";
import { configurationOptions, CONFIGURATION_NAMES } from "../../cluster/preble/configs";
import { MixPart, mixedWorkload } from "../../cluster/mix";
import { simulateCluster } from "../../cluster/simulate";
import { AZURE_TRACE_KINDS, AzureTraceKind } from "../../traces/azure";
import { azureArrivals } from "../../traces/azure-arrivals";
import { azureSummary } from "../../traces/azure-summary";
import { defineDemo, DemoContext } from "../registry";
import { AZURE_REPLAY_CLAIMS, perSeedKey } from "./azure-replay-claims";

/** Arrival identifiers of the table's rows (glossary names: 泊松到达, Azure … 的到达时刻). */
export const POISSON_ARRIVALS = "poissonArrivals";
export const azureArrivalsId = (kind: AzureTraceKind): string => (kind === "code" ? "azureCodeArrivals" : "azureConvArrivals");

/**
 * The process's first `count` arrivals, shifted to start at 0 and stretched so that the realised rate over them,
 * (count − 1) / (last − first), is exactly `rate`: two processes compared this way carry the same load over the run,
 * not just in the long run.
 */
export function atRealisedRate(process: ArrivalProcess, rate: number): ArrivalProcess {
  checkNumber("rate", rate, { above: 0 });
  return {
    name: `${process.name}, realised ${rate} req/s`,
    meanRate: rate,
    times(r, count) {
      const t = process.times(r, count);
      if (count < 2) return t.fill(0);
      const t0 = t[0];
      const span = t[count - 1] - t0;
      if (!(span > 0)) throw new ParameterError("requestCount", `前 ${count} 个到达同时发生，无法换算请求率`);
      const factor = (count - 1) / (rate * span);
      for (let i = 0; i < count; i++) t[i] = (t[i] - t0) * factor;
      return t;
    },
  };
}

/** A file as the reader should see it: relative to the project when it is inside (no machine-specific prefix). */
function projectPath(file: string): string {
  const root = path.dirname(dataDir());
  const rel = path.relative(root, file);
  return rel.startsWith("..") || path.isAbsolute(rel) ? file : rel.split(path.sep).join("/");
}

/** (n − 1) / (last − first) of a run's arrivals. */
export function realisedRate(arrivals: ArrayLike<number>): number {
  const n = arrivals.length;
  return n < 2 ? NaN : (n - 1) / (arrivals[n - 1] - arrivals[0]);
}

const DEFAULTS = {
  trace: "code",
  source: "trace",
  rate: 6,
  requestCount: 3000,
  toolShare: 0.5,
  configurations: ["baseline", "cacheAwareGuarded", "preble", "prebleReleased"],
  replicas: 4,
  seeds: 3,
  seed: 1,
};

const METRICS = ["meanLatency", "p99Latency", "meanTTFT", "meanTPOT", "hitRate"] as const;

const COLUMNS: Column[] = [
  { key: "arrivals", label: "到达方式", format: "name" },
  { key: "policy", label: "配置", format: "name" },
  { key: "realisedRate", label: "实现的请求率", unit: "请求/秒", format: "fixed2" },
  { key: "meanLatency", label: "平均延迟", unit: "秒", format: "fixed2" },
  { key: "p99Latency", label: "P99 延迟", unit: "秒", format: "fixed2" },
  { key: "meanTTFT", label: "平均 TTFT", unit: "秒", format: "fixed2" },
  { key: "meanTPOT", label: "平均 TPOT", unit: "秒", format: "fixed3" },
  { key: "hitRate", label: "命中率", format: "percent1" },
  { key: "overloaded", label: "过载" },
];

interface ProcessRun {
  arrivals: string;
  process: ArrivalProcess;
  parts: MixPart[];
  requestCount: number;
  configurations: string[];
  replicas: number;
  seeds: number;
  seed0: number;
}

/** One arrival process: every configuration on seeds seed0 … seed0 + seeds − 1; a row per configuration with the
 * mean over seeds and, for the claims, each seed's value (perSeedKey). */
function runProcess(o: ProcessRun, context: DemoContext): { rows: Row[]; spans: number[] } {
  const perSeed = o.configurations.map(() => [] as Array<Record<string, number>>);
  const realised: number[] = [];
  const spans: number[] = [];
  for (let k = 0; k < o.seeds; k++) {
    const seed = o.seed0 + k;
    const workload = mixedWorkload({ parts: o.parts, requestCount: o.requestCount, arrivals: o.process, seed });
    const times = workload.requests.map((r) => r.arrival);
    realised.push(realisedRate(times));
    spans.push(times[times.length - 1]);
    o.configurations.forEach((configuration, j) => {
      context.progress?.(`03.6：${displayName(o.arrivals)}，${displayName(configuration)}，种子 ${seed}`);
      const m = simulateCluster({ requests: workload.requests, replicas: o.replicas, seed, replicationSamples: 0, ...configurationOptions(configuration) }).metrics;
      perSeed[j].push({ meanLatency: m.meanLatency, p99Latency: m.p99Latency, meanTTFT: m.meanTTFT, meanTPOT: m.meanTPOT, hitRate: m.hitRate, overloaded: m.overloaded ? 1 : 0 });
    });
  }
  const rows = o.configurations.map((policy, j) => {
    const row: Row = { arrivals: o.arrivals, policy, realisedRate: realised.reduce((a, b) => a + b, 0) / o.seeds };
    for (const key of METRICS) {
      const values = perSeed[j].map((s) => s[key]);
      row[key] = values.reduce((a, b) => a + b, 0) / o.seeds;
      // per-seed values for the claims (not shown as columns)
      values.forEach((v, k) => (row[perSeedKey(key, k)] = v));
    }
    const over = perSeed[j].filter((s) => s.overloaded).length;
    row.overloaded = over > 0;
    row.overloadedSeeds = over;
    row.seeds = o.seeds;
    return row;
  });
  return { rows, spans };
}

export const azureReplay = defineDemo<typeof DEFAULTS>({
  id: "03.6",
  section: "§3.6",
  title: "真实的到达模式：Azure trace 的到达时刻对泊松到达（同样的实现请求率）",
  // Size: 3,000 trace requests × 3 seeds: the bursts-hurt and Preble claims are judged on seed means.
  defaults: DEFAULTS,
  describe: {
    trace: { meaning: "回放哪份 Azure trace 的到达时刻：code（编程，突发强，间隔 CV ≈ 13）或 conv（对话，CV ≈ 1.1）", range: "code、conv 之一" },
    source: { meaning: 'trace = 随项目发布的真实到达时刻（data/azure-llm-2023/）；synthetic = 拟合出来的两状态突发过程，只在明确要求时使用', range: "trace、synthetic 之一" },
    rate: { meaning: "两种到达方式在本次运行中实现的平均请求率（请求/秒），两者相同", range: "> 0 的数" },
    requestCount: { meaning: "每次运行的请求数（取 trace 开头的这么多个到达）", range: "≥ 100 的整数；回放 trace 时不超过它的行数" },
    toolShare: { meaning: "工具调用请求所占的比例（其余是视频问答）", range: "> 0 且 < 1 的数" },
    configurations: { meaning: "要比较的命名配置（路由器 + 副本内排队）", range: `非空数组，每项为 ${CONFIGURATION_NAMES.join("、")} 之一` },
    replicas: { meaning: "副本数（每个副本一块 A6000 跑 Mistral-7B）", range: "1–64 的整数" },
    seeds: { meaning: "平均多少个种子（seed、seed+1、…；影响请求内容与泊松到达，trace 的到达时刻不变）", range: "1–10 的整数" },
    seed: { meaning: "第一个随机种子", range: "整数" },
  },
  run(p, context) {
    const kind = checkOneOf("trace", p.trace, AZURE_TRACE_KINDS) as AzureTraceKind;
    const source = checkOneOf("source", p.source, ["trace", "synthetic"] as const);
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 100 });
    const toolShare = checkNumber("toolShare", p.toolShare, { above: 0, below: 1 });
    const configurations = checkNonEmpty("configurations", p.configurations).map((c, i) => checkOneOf(`configurations[${i}]`, c, CONFIGURATION_NAMES as string[]));
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 64 });
    const seeds = checkInteger("seeds", p.seeds, { min: 1, max: 10 });
    const seed0 = checkInteger("seed", p.seed);
    const rows0 = azureSummary().traces[kind].rows;
    if (source === "trace" && requestCount > rows0) throw new ParameterError("requestCount", `Azure ${kind} trace 只有 ${rows0} 个到达，实际要 ${requestCount} 个`);
    const azure = azureArrivals(kind, { source });
    const azureId = azureArrivalsId(kind);
    const processes: Array<[string, ArrivalProcess]> = [
      [POISSON_ARRIVALS, atRealisedRate(poissonProcess(rate), rate)],
      [azureId, atRealisedRate(azure, rate)],
    ];
    const parts: MixPart[] = [
      { workload: "toolCalling", share: toolShare },
      { workload: "videoQA", share: 1 - toolShare },
    ];
    const rows: Row[] = [];
    const spans: Record<string, number[]> = {};
    for (const [arrivals, process] of processes) {
      const run = runProcess({ arrivals, process, parts, requestCount, configurations, replicas, seeds, seed0 }, context);
      rows.push(...run.rows);
      spans[arrivals] = run.spans;
    }
    const seedText = seeds === 1 ? `种子 ${seed0}` : `${seeds} 个种子（${seed0}–${seed0 + seeds - 1}）的平均`;
    const traceText =
      source === "trace"
        ? `真实到达时刻：回放 ${projectPath(azure.file ?? "")}`
        : `拟合的两状态突发过程（按要求使用，不是真实 trace；参数来自 data/azure-2023-summary.json）`;
    return {
      title: `同样的实现请求率 ${rate} 请求/秒：泊松到达对 Azure ${kind === "code" ? "编程" : "对话"} trace ${source === "trace" ? "的到达时刻" : "的拟合过程"}（${replicas} 个副本，${requestCount} 个请求，${seedText}）`,
      columns: COLUMNS,
      rows,
      notes: [
        `${traceText}。两种到达方式都取前 ${requestCount} 个到达，平移到从 0 开始，再整体缩放，使这次运行实现的请求率 (请求数 − 1) ÷ (最后一个到达 − 第一个) 恰好是 ${rate} 请求/秒：负载一样重，差别只在突发。运行时长：泊松 ${spans[POISSON_ARRIVALS].map((s) => s.toFixed(0)).join("、")} 秒，Azure ${spans[azureId].map((s) => s.toFixed(0)).join("、")} 秒。`,
        `负载：${Math.round(toolShare * 100)}% 工具调用 + ${Math.round((1 - toolShare) * 100)}% 视频问答，按种子随机交错；${replicas} 个副本，每个是一块 A6000 上的 Mistral-7B；前 20% 的请求是预热，不计入指标。表中数字：${seedText}。`,
        "Preble 把 trace 的到达时刻乘以 0.7 回放；我们改为缩放到选定的实现请求率，这样泊松与 trace 两次运行的负载相同。",
        '"过载"指至少一个种子的队列在运行结束时仍在增长，这时的数字取决于运行多长。',
      ],
    };
  },
  claims: AZURE_REPLAY_CLAIMS,
});
