// 代码 02, §2.1: the workload study — the five synthetic workloads shaped like Preble's Table 1 (02.6) and the
// Azure 2023 traces' arrival statistics (02.7, from data/azure-2023-summary.json).
import { checkEachOneOf, checkInteger } from "../../core/errors";
import { Zipf } from "../../core/rng";
import type { Row } from "../../core/table";
import { kvCapacityTokens } from "../../hardware/step-model";
import { describeWorkload, generateWorkload, WORKLOAD_NAMES, workloadDefinition } from "../../cluster/workloads";
import { AZURE_TRACE_KINDS } from "../../traces/azure";
import { azureSummary } from "../../traces/azure-summary";
import { defineDemo } from "../registry";
import { CLUSTER_COLUMNS } from "../columns";
import { Claim, f, need, needParam, needRow, pct } from "../claims";
import { SECTION2_GPU, SECTION2_MODEL, SEED_DOCS } from "./section2";

/** What a workload's key portion is, in Chinese (data/workloads.json names it in English). */
const KEY_PORTION: Record<string, string> = {
  document: "文档",
  video: "视频",
  "tool instructions": "工具说明",
  "instruction prefix": "指令前缀",
  "task-type examples": "任务类型的示例",
};

/** "Long-document QA (LooGLE-like)" → "LooGLE": the public dataset a workload is shaped like. */
function datasetOf(label: string): string {
  const m = /\(([^)]*?)-like/.exec(label);
  return m ? m[1] : label;
}

type P026 = { workloads: string[]; requestCount: number; seed: number };

const BASE_WORKLOADS = (t: Parameters<Claim["judge"]>[0]) => t.rows.map((r) => String(r.workload)).filter((w) => w !== "toolCallingHotSpot");

const CLAIMS_026: Claim<P026>[] = [
  {
    id: "prompts-dominate",
    says: "提示比输出长得多，prefill 是大头：长文档问答和视频问答的提示是输出的几百到上千倍",
    lecture: "视频问答 2,494 倍（论文报告）",
    judge: (t) => {
      const ld = need(t, { workload: "longDocQA" }, "promptToOutput");
      const vq = need(t, { workload: "videoQA" }, "promptToOutput");
      const all = BASE_WORKLOADS(t).map((w) => need(t, { workload: w }, "promptToOutput"));
      return { holds: Math.min(...all) > 1 && ld > 100 && vq > 100, ours: `长文档问答 ${f(ld, 0)} 倍，视频问答 ${f(vq, 0)} 倍；最小的是 ${f(Math.min(...all), 1)} 倍` };
    },
  },
  {
    id: "sharing-common",
    says: "共享很普遍，比例很高：多数提示 token 属于不止一个请求用到的段",
    judge: (t) => {
      const ws = BASE_WORKLOADS(t);
      needParam(ws.length > 0, "需要至少一种负载");
      const shares = ws.map((w) => need(t, { workload: w }, "sharedFraction"));
      return { holds: Math.min(...shares) > 0.5, ours: `${ws.length} 种负载的共享比例 ${pct(Math.min(...shares))}–${pct(Math.max(...shares))}` };
    },
  },
  {
    id: "key-portion-large",
    says: "关键部分（文档、视频）占了提示的大头，它决定一个请求该和谁放在一起",
    judge: (t) => {
      const ld = need(t, { workload: "longDocQA" }, "keyFraction");
      const vq = need(t, { workload: "videoQA" }, "keyFraction");
      return { holds: ld > 0.5 && vq > 0.5, ours: `长文档问答里文档占 ${pct(ld)}，视频问答里视频占 ${pct(vq)}` };
    },
  },
  {
    id: "programming-decodes-most",
    says: "编程负载的输出最长，decode 在它那里占比最大",
    judge: (t) => {
      const prog = need(t, { workload: "programming" }, "meanOutputTokens");
      const others = BASE_WORKLOADS(t).filter((w) => w !== "programming").map((w) => need(t, { workload: w }, "meanOutputTokens"));
      needParam(others.length > 0, "需要另一种负载来比较");
      return { holds: prog > Math.max(...others), ours: `编程平均输出 ${f(prog, 0)} token，其余最多 ${f(Math.max(...others), 0)} token` };
    },
  },
  {
    id: "one-replica-few-documents",
    says: "一个副本的缓存只放得下十来份平均长度的文档，而文档有几百份",
    lecture: "约 10 份（练习 4(a)）",
    judge: (t) => {
      const row = needRow(t, { workload: "longDocQA" });
      const def = workloadDefinition("longDocQA").params;
      const perReplica = kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU) / def.itemTokensMean.value;
      return { holds: perReplica > 8 && perReplica < 12, ours: `${kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU).toLocaleString("en-US")} token ÷ ${def.itemTokensMean.value.toLocaleString("en-US")} token = ${f(perReplica, 1)} 份；文档共 ${def.items.value} 份（这次的请求里出现过 ${row.keys} 份）` };
    },
  },
  {
    id: "zipf-top-three",
    says: "热度服从 Zipf 1.1（第 k 热的文档被请求的概率与 1/k^1.1 成正比）时，最热的 3 份文档吸走约三分之一的请求",
    lecture: "约 36%（练习 4(c)）",
    judge: (t) => {
      needRow(t, { workload: "longDocQA" });
      const def = workloadDefinition("longDocQA").params;
      const z = new Zipf(def.items.value, def.popularityZipf.value);
      const observed = need(t, { workload: "longDocQA" }, "topThreeShare");
      return { holds: Math.abs(z.topShare(3) - 0.36) < 0.02, ours: `${pct(z.topShare(3), 1)}（这次生成的请求里 ${pct(observed, 1)}）` };
    },
  },
];

export const workloadStudy = defineDemo({
  id: "02.6",
  section: "§2.1",
  title: "五种负载：提示又长又共享",
  // Size: 3,000 requests per workload: enough for the prompt/output ratios, sharing shares and Zipf top-3 share to settle to two digits.
  defaults: { workloads: [...WORKLOAD_NAMES], requestCount: 3000, seed: 1 },
  describe: {
    workloads: { meaning: "要描述的负载（data/workloads.json 里的名字）", range: `非空数组，每项为 ${WORKLOAD_NAMES.join("、")} 之一` },
    requestCount: { meaning: "每种负载生成的请求数（统计长度与共享比例用）", range: "10–100000 的整数" },
    seed: SEED_DOCS.seed,
  },
  run(p) {
    const workloads = checkEachOneOf("workloads", p.workloads, WORKLOAD_NAMES as string[]);
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 10, max: 100000 });
    const seed = checkInteger("seed", p.seed, { min: 0 });
    const rows: Row[] = workloads.map((name) => {
      const w = generateWorkload(name, { rate: 1, seed, requestCount });
      const d = describeWorkload(w);
      const def = workloadDefinition(name);
      const params = Object.values(def.params);
      const fromPaper = params.filter((q) => q.source.startsWith("paper")).length;
      const top3 = w.requests.filter((r) => r.key < 3).length / w.requests.length;
      return {
        workload: name,
        dataset: datasetOf(w.label),
        keyPortion: KEY_PORTION[w.keyPortion] ?? w.keyPortion,
        meanPromptTokens: d.meanPromptTokens,
        meanOutputTokens: d.meanOutputTokens,
        promptToOutput: d.promptToOutput,
        sharedFraction: d.sharedFraction,
        keyFraction: d.keyFraction,
        keys: d.distinctKeys,
        topThreeShare: top3,
        sources: `${fromPaper} / ${params.length}`,
      };
    });
    return {
      title: `五种负载（合成，形状仿 Preble 表 1）：每种 ${requestCount.toLocaleString("en-US")} 个请求，种子 ${seed}`,
      columns: [
        CLUSTER_COLUMNS.workload,
        { key: "dataset", label: "仿照的数据集", format: "text" },
        { key: "keyPortion", label: "关键部分", format: "text" },
        { key: "meanPromptTokens", label: "平均提示", unit: "token", format: "int" },
        { key: "meanOutputTokens", label: "平均输出", unit: "token", format: "fixed1" },
        { key: "promptToOutput", label: "提示 ÷ 输出", unit: "×", format: "fixed0" },
        { key: "sharedFraction", label: "共享比例", format: "percent0" },
        { key: "keyFraction", label: "关键部分占提示", format: "percent0" },
        { key: "keys", label: "出现过的关键部分", unit: "个", format: "int" },
        { key: "sources", label: "来自论文 / 讲义的参数", format: "text" },
      ],
      rows,
      notes: [
        "共享比例：提示里那些被不止一个请求用到的段所占的 token 比例。关键部分：前缀树上比它之前的全部内容加起来还长的那一段（文档本身、视频、工具说明）。",
        "参数来源见 data/workloads.json：每个参数注明 \"paper\"（论文或讲义）或 \"assumed\"（我们的假设，例如文档个数、热度分布、长度波动）。toolCallingHotSpot 与 toolCalling 相同，只是最热的工具占 40% 的流量（§2.5 用）。",
      ],
    };
  },
  claims: CLAIMS_026,
});

// ---- 02.7: the Azure traces ----


const CLAIMS_027: Claim<Record<string, never>>[] = [
  {
    id: "prompt-several-times-output",
    says: "真实聊天流量里提示也比输出长好几倍",
    lecture: "Azure 的聊天 trace 平均 4 倍",
    judge: (t) => {
      const means = need(t, { trace: "conv" }, "promptOutputRatio");
      const median = need(t, { trace: "conv" }, "perRequestRatioMedian");
      return { holds: means > 3 && means < 7 && median > 3 && median < 7, ours: `平均提示 ÷ 平均输出 = ${f(means, 2)}，逐请求比值的中位数 ${f(median, 2)}${Math.min(means, median) <= 4 && 4 <= Math.max(means, median) ? "（讲义的 4 倍落在这两种算法之间：比值取决于怎么平均）" : ""}` };
    },
  },
  {
    id: "gaps-span-orders",
    says: "流量强度变化很大：相邻请求的间隔从几微秒到几百秒",
    lecture: "2 微秒到 217 秒",
    judge: (t) => {
      const min = Math.min(...t.rows.map((r) => r.gapMinMicroseconds as number));
      const max = Math.max(...t.rows.map((r) => r.gapMax as number));
      return { holds: min <= 10 && max >= 100, ours: `${f(min, 0)} 微秒到 ${f(max, 0)} 秒` };
    },
  },
  {
    id: "code-is-bursty",
    says: "聊天流量在短时间尺度上接近泊松，但每分钟的请求率在漂移；编程补全是一阵一阵的",
    judge: (t) => {
      const conv = needRow(t, { trace: "conv" });
      const code = needRow(t, { trace: "code" });
      return {
        holds: (conv.gapCv as number) < 1.5 && (code.gapCv as number) > 3 && (conv.minuteRateMax as number) > 1.5 * (conv.minuteRateMin as number),
        ours: `间隔的变异系数：聊天 ${f(conv.gapCv as number, 2)}（泊松是 1），编程补全 ${f(code.gapCv as number, 1)}；聊天每分钟的请求率 ${f(conv.minuteRateMin as number, 2)}–${f(conv.minuteRateMax as number, 2)} 请求/秒，编程补全 ${f(code.minuteRateMin as number, 2)}–${f(code.minuteRateMax as number, 1)}`,
      };
    },
  },
];

export const azureStudy = defineDemo({
  id: "02.7",
  section: "§2.1",
  title: "真实流量：Azure 2023 推理 trace 的长度与到达",
  // Size: no simulation: statistics of the shipped trace excerpts (data/).
  defaults: {},
  describe: {},
  run() {
    const s = azureSummary();
    const rows: Row[] = AZURE_TRACE_KINDS.map((kind) => {
      const x = s.traces[kind];
      return {
        trace: kind,
        requests: x.rows,
        spanMinutes: x.spanSeconds / 60,
        meanRate: x.meanRate,
        minuteRateMin: x.perMinuteRate.min,
        minuteRateMax: x.perMinuteRate.max,
        gapMinMicroseconds: x.gapSeconds.min * 1e6,
        gapMedian: x.gapSeconds.median,
        gapMax: x.gapSeconds.max,
        gapCv: x.gapSeconds.cv,
        contextMean: x.contextTokens.mean,
        generatedMean: x.generatedTokens.mean,
        promptOutputRatio: x.promptOutputRatio,
        perRequestRatioMedian: x.perRequestRatioMedian,
      };
    });
    return {
      title: "Azure LLM 推理 trace（2023 年，各约一小时）",
      columns: [
        { key: "trace", label: "trace", format: "name" },
        { key: "requests", label: "请求数", format: "int" },
        { key: "spanMinutes", label: "时长", unit: "分钟", format: "fixed1" },
        { key: "meanRate", label: "平均请求率", unit: "请求/秒", format: "fixed2" },
        { key: "minuteRateMin", label: "最闲的一分钟", unit: "请求/秒", format: "fixed2" },
        { key: "minuteRateMax", label: "最忙的一分钟", unit: "请求/秒", format: "fixed2" },
        { key: "gapMinMicroseconds", label: "最短间隔", unit: "微秒", format: "fixed0" },
        { key: "gapMedian", label: "间隔中位数", unit: "秒", format: "fixed3" },
        { key: "gapMax", label: "最长间隔", unit: "秒", format: "fixed1" },
        { key: "gapCv", label: "间隔的变异系数", format: "fixed2" },
        { key: "contextMean", label: "平均提示", unit: "token", format: "int" },
        { key: "generatedMean", label: "平均输出", unit: "token", format: "int" },
        { key: "promptOutputRatio", label: "平均提示 ÷ 平均输出", unit: "×", format: "fixed2" },
        { key: "perRequestRatioMedian", label: "逐请求比值的中位数", unit: "×", format: "fixed2" },
      ],
      rows,
      notes: [
        "数据：Azure Public Dataset 的 AzureLLMInferenceTrace_conv.csv 与 _code.csv（CC BY 4.0；Patel 等，Splitwise，ISCA 2024）。表中的数字来自 data/azure-2023-summary.json——我们的脚本从两份 CSV 算出的摘要（npx tsx scripts/azure-summary.ts --check 可以对照原始数据重算）。",
        "变异系数 = 间隔的标准差 ÷ 均值；泊松到达是 1，越大越\"一阵一阵\"。",
      ],
    };
  },
  claims: CLAIMS_027,
});
