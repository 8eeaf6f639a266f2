// Reference answers to the lecture's exercises, each computed with the library.
import { Zipf } from "../core/rng";
import { A6000, MISTRAL_7B } from "../hardware/specs";
import { kvCapacityTokens, StepModel } from "../hardware/step-model";
import { registerExercise } from "./registry";

const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);

// Exercise 1: balls into bins
const randomMaxLoadFormula = (n: number) => Math.log(n) / Math.log(Math.log(n));
const twoChoiceMaxLoadFormula = (n: number) => Math.log(Math.log(n)) / Math.log(2);

registerExercise({
  id: "1a",
  question: "n = 10^6：按渐近公式，纯随机与二选一时最满的盒子各约有几个球？",
  reference: () => [randomMaxLoadFormula(1e6), twoChoiceMaxLoadFormula(1e6)],
  absTolerance: 0.02,
  hint: "随机用 ln n / ln ln n，二选一用 ln ln n / ln 2；两个数按这个顺序给出。",
  explanation: () =>
    `ln n = ${f2(Math.log(1e6))}，ln ln n = ${f2(Math.log(Math.log(1e6)))}。随机：${f2(Math.log(1e6))} / ${f2(Math.log(Math.log(1e6)))} ≈ **${f2(randomMaxLoadFormula(1e6))}**；二选一：${f2(Math.log(Math.log(1e6)))} / ${f3(Math.log(2))} ≈ **${f2(twoChoiceMaxLoadFormula(1e6))}**。`,
});

// Exercise 2: random dispatch is M/M/1 per server
registerExercise({
  id: "2a",
  question: "ρ = 0.9 时，随机派发下每台服务器的平均响应时间理论值（单位：平均服务时间）？",
  reference: () => 1 / (1 - 0.9),
  relTolerance: 0.01,
  hint: "泊松流随机拆分后仍是泊松流：每台都是 M/M/1，平均响应时间 1/(1−ρ)。",
  explanation: () => `每台服务器是独立的 M/M/1 队列，平均响应时间 $1/(1-\\rho)$ = 1/(1 − 0.9) = **${(1 / (1 - 0.9)).toFixed(0)}** 个服务时间。`,
});

// Exercise 3: E2 on a long-document request
const EX3 = { system: 13, document: 21000, question: 1987 };
const ex3Prompt = EX3.system + EX3.document + EX3.question;
const ex3Cached = EX3.system + EX3.document;
const ex3Missed = ex3Prompt - ex3Cached;
const mistralA6000 = () => new StepModel(MISTRAL_7B, A6000);

registerExercise({
  id: "3a",
  question: "cached 与 missed 各是多少？E2 利用还是探索（\"exploit\" / \"explore\"）？候选副本是哪个？",
  reference: () => [ex3Cached, ex3Missed, ex3Cached > ex3Missed ? "exploit" : "explore", 2],
  relTolerance: 0,
  absTolerance: 0,
  hint: "cached = 最长匹配（系统提示 + 文档），missed = 提示 − cached；cached > missed 时利用，候选只在持有最长匹配的副本中。答案顺序：[cached, missed, 决定, 副本号]。",
  explanation: () =>
    `cached = ${EX3.system} + ${EX3.document.toLocaleString("en-US")} = **${ex3Cached.toLocaleString("en-US")}**，missed = **${ex3Missed.toLocaleString("en-US")}**；cached > missed，所以**利用**，候选只有持有这份文档的**副本 2**。若副本 2 的负载超过最轻副本的 $Th_{bal}$ 倍，再平衡会把请求改派到最轻的副本。`,
});

registerExercise({
  id: "3b",
  question: "派给副本 2 与副本 0 时各要 prefill 多少秒？（StepModel(MISTRAL_7B, A6000).prefill(n)，忽略已缓存部分的注意力开销）",
  reference: () => {
    const s = mistralA6000();
    return [s.prefill(ex3Missed), s.prefill(ex3Prompt - EX3.system)];
  },
  relTolerance: 0.05,
  hint: "副本 2 只需算问题部分（missed 个 token）；副本 0 只缓存了 13 个 token 的系统提示，其余都要算。",
  explanation: () => {
    const s = mistralA6000();
    const a = s.prefill(ex3Missed);
    const b = s.prefill(ex3Prompt - EX3.system);
    return `副本 2：prefill(${ex3Missed.toLocaleString("en-US")}) ≈ **${f3(a)} 秒**；副本 0：prefill(${(ex3Prompt - EX3.system).toLocaleString("en-US")}) ≈ **${f2(b)} 秒**，约为前者的 ${(b / a).toFixed(0)} 倍（注意力随长度平方增长，所以超过 token 数之比 ${((ex3Prompt - EX3.system) / ex3Missed).toFixed(1)}）。`;
  },
});

// Exercise 4: the cluster's total cache
const LONG_DOC_TOKENS = 21000;
const DOCUMENTS = 300;
const REPLICAS = 4;
const docsPerReplica = () => Math.floor(kvCapacityTokens(MISTRAL_7B, A6000) / LONG_DOC_TOKENS);

registerExercise({
  id: "4a",
  question: "Mistral-7B 在 A6000 上（显存的 90% 可用）能放多少个 token 的 KV？",
  reference: () => kvCapacityTokens(MISTRAL_7B, A6000),
  relTolerance: 0.001,
  hint: "(48 GB × 0.9 − 权重字节数) ÷ 每个 token 的 KV 字节数（2 × 层数 × KV 头数 × 头维度 × 2 字节）。",
  explanation: () =>
    `(48×10⁹ × 0.9 − 2 × 7,241,732,096) ÷ (2 × 32 × 8 × 128 × 2 = 131,072 字节) = **${kvCapacityTokens(MISTRAL_7B, A6000).toLocaleString("en-US")}** 个 token。`,
});

registerExercise({
  id: "4b",
  question: "一个副本最多缓存几份平均长度（21,000 token）的文档？4 个副本理想分区时一共几份？",
  reference: () => [docsPerReplica(), docsPerReplica() * REPLICAS],
  absTolerance: 1,
  hint: "先用 4a 的容量除以文档长度向下取整；轮转时每个副本缓存的是同一批热门文档，理想分区时 4 个副本互不重复。",
  explanation: () =>
    `一个副本：⌊${kvCapacityTokens(MISTRAL_7B, A6000).toLocaleString("en-US")} / ${LONG_DOC_TOKENS.toLocaleString("en-US")}⌋ = **${docsPerReplica()}** 份（还要给运行中的请求留空间，实际更少）。轮转时每个副本都缓存"最近最常见"的那一批，集群里不同的文档仍只有十来份；理想分区时 ${REPLICAS} 个副本互不重复，约 **${docsPerReplica() * REPLICAS}** 份。`,
});

registerExercise({
  id: "4c",
  question: "300 份文档按 Zipf 1.1 的热度，最热的 3 份占多少流量？（填小数，如 0.25）",
  reference: () => new Zipf(DOCUMENTS, 1.1).topShare(3),
  absTolerance: 0.01,
  hint: "第 k 份的份额是 k^−1.1 ÷ Σ_{j=1}^{300} j^−1.1。",
  explanation: () => {
    const z = new Zipf(DOCUMENTS, 1.1);
    const p = Array.from(z.probabilities.slice(0, 3)).map((x) => `${(x * 100).toFixed(1)}%`);
    return `${p.join(" + ")} ≈ **${(z.topShare(3) * 100).toFixed(0)}%**。命中率因此有上限：多缓存的文档覆盖的是中等热度的长尾。`;
  },
});

// Exercise 5: Preble's priority groups (P = 10)
const PRIORITY_GROUPS = 10;
registerExercise({
  id: "5a",
  question: "P = 10，一个请求 100 个 token 里 63 个已缓存，进第几组？（0 = 完全没命中的组）",
  reference: () => Math.floor((63 / 100) * PRIORITY_GROUPS),
  relTolerance: 0,
  hint: "组号 = ⌊已缓存比例 × P⌋（Preble 的代码对非零比例写作 ⌈10·ratio⌉ − 1，两者在这里一样）。",
  explanation: () => `⌊0.63 × ${PRIORITY_GROUPS}⌋ = **${Math.floor(0.63 * PRIORITY_GROUPS)}**：第 6 组。`,
});
