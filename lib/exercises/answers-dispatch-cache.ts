// Reference answers to exercises 1–4 (balls into bins, M/M/1, E2, the cluster's total cache), each computed with
// the library. Numbering as in the lecture (§9): exercise 4 asks the KV capacity in its stem ("4"), then (a)–(c).
import { Zipf } from "../core/rng";
import { rowsWhere } from "../core/table";
import { dispatchAcrossSeeds } from "../dispatch/servers";
import { choiceMaxLoadFormula, randomMaxLoadFormula } from "../dispatch/balls-into-bins";
import { A6000, kvBytesPerToken, MISTRAL_7B, weightBytes } from "../hardware/specs";
import { kvCapacityTokens, StepModel } from "../hardware/step-model";
import { runDemo } from "../demos/index";
import { registerExercise, type Slot } from "./registry";

const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);
const thousands = (x: number) => x.toLocaleString("en-US");

// Exercise 1: balls into bins
const twoChoiceMaxLoadFormula = (n: number) => choiceMaxLoadFormula(n, 2);
const log10Slip = (n: number, twoChoice: boolean) => (twoChoice ? Math.log10(Math.log10(n)) / Math.log10(2) : Math.log10(n) / Math.log10(Math.log10(n)));
const ballsSlots = (n: number, wholeNumberToo: boolean): Slot[] => [
  { label: "随机", absTolerance: 0.02, wholeNumberToo, mistakes: [{ value: log10Slip(n, false), message: "看起来用了以 10 为底的对数；公式里的 ln 是自然对数（Math.log）" }] },
  { label: "二选一", absTolerance: 0.02, wholeNumberToo, mistakes: [{ value: log10Slip(n, true), message: "看起来用了以 10 为底的对数；公式里的 ln 是自然对数（Math.log）" }] },
];

registerExercise({
  id: "1a",
  question: "n = 10^6：按渐近公式，纯随机与二选一时最满的盒子各约有几个球？",
  points: 2,
  reference: () => [randomMaxLoadFormula(1e6), twoChoiceMaxLoadFormula(1e6)],
  slots: ballsSlots(1e6, true),
  precision: "保留两位小数（误差 ±0.02 以内算对）；只给四舍五入后的整数个球也算对",
  hint: "随机用 ln n / ln ln n，二选一用 ln ln n / ln 2；两个数按 [随机, 二选一] 的顺序给出。",
  explanation: () =>
    `ln n = ${f2(Math.log(1e6))}，ln ln n = ${f2(Math.log(Math.log(1e6)))}。随机：${f2(Math.log(1e6))} / ${f2(Math.log(Math.log(1e6)))} ≈ **${f2(randomMaxLoadFormula(1e6))}**；二选一：${f2(Math.log(Math.log(1e6)))} / ${f3(Math.log(2))} ≈ **${f2(twoChoiceMaxLoadFormula(1e6))}**。`,
});

registerExercise({
  id: "1b",
  question: "n = 10^5 时两个渐近公式各给出多少？（随后想一想：为什么随机的实测值比公式大得多？）",
  points: 2,
  reference: () => [randomMaxLoadFormula(1e5), twoChoiceMaxLoadFormula(1e5)],
  slots: ballsSlots(1e5, false),
  precision: "保留两位小数（误差 ±0.02 以内算对）",
  hint: "把 n = 100,000 代入 ln n / ln ln n 与 ln ln n / ln 2。",
  why: {
    question: "为什么随机派发的实测最大负载远高于公式，而二选一几乎和公式一致？（文字题）",
    points: 2,
    rubric: [
      { points: 1, text: "指出两个式子是 n → ∞ 时的渐近量级：随机那一式的 (1 + o(1)) 修正项在 n = 10^5 时仍然很大，把实测值往上推" },
      { points: 1, text: "指出二选一的式子只差一个不大的 O(1) 常数，所以实测贴着公式；能和公式对照的是随 n 增长的趋势" },
    ],
  },
  explanation: () => {
    const t = runDemo("01.1", { ns: [1000, 100000] });
    const at = (n: number, key: string) => Number(rowsWhere(t, { n })[0][key]);
    return (
      `公式：随机 **${f2(randomMaxLoadFormula(1e5))}**，二选一 **${f2(twoChoiceMaxLoadFormula(1e5))}**。代码 01 演示 1 实测（n = 100,000）：随机 ${at(100000, "random").toFixed(1)}，二选一 ${at(100000, "twoChoice").toFixed(1)}。\n\n` +
      `这两个式子说的是 n 趋于无穷时的量级，不是某个具体 n 下的数值。随机那一式完整写是 $\\frac{\\ln n}{\\ln\\ln n}(1+o(1))$，修正项 $o(1)$ 要到极大的 n 才变小，$n=10^5$ 时它还把实测值往上推了一大截；二选一的式子是 $\\ln\\ln n/\\ln 2 + O(1)$，多出来的只是一个不大的常数，所以实测贴着公式。` +
      `真正能和公式对照的是"随 n 怎么涨"：n 从 1,000 到 100,000，随机的最大负载从 ${at(1000, "random").toFixed(1)} 到 ${at(100000, "random").toFixed(1)}，二选一从 ${at(1000, "twoChoice").toFixed(1)} 到 ${at(100000, "twoChoice").toFixed(1)}。`
    );
  },
});

// Exercise 2: random dispatch is M/M/1 per server
registerExercise({
  id: "2a",
  question: "ρ = 0.9 时，随机派发下每台服务器的平均响应时间理论值（单位：平均服务时间）？",
  points: 1,
  reference: () => 1 / (1 - 0.9),
  slots: [
    {
      label: "平均响应时间",
      relTolerance: 0.01,
      mistakes: [
        { value: 0.9 / (1 - 0.9), message: "这是平均等待时间（不含服务本身）；响应时间 = 等待 + 服务" },
        { value: 0.9 * 0.9 / (1 - 0.9), message: "这是平均队长（排队的请求数），题目问的是时间" },
      ],
    },
  ],
  precision: "给一个数，单位是平均服务时间（误差 1% 以内算对）",
  hint: "泊松流随机拆分后仍是泊松流：每台都是 M/M/1，平均响应时间 1/(1−ρ)。",
  explanation: () => `每台服务器是独立的 M/M/1 队列，平均响应时间 $1/(1-\\rho)$ = 1/(1 − 0.9) = **${(1 / (1 - 0.9)).toFixed(0)}** 个服务时间。`,
});

registerExercise({
  id: "2b",
  question: "模拟给出的平均响应时间和理论值 10 有差距，为什么？（文字题）",
  points: 2,
  hint: "想想高利用率队列的\"记忆\"有多长、每台服务器分到多少个请求。",
  rubric: [
    { points: 1, text: "指出理论值是无限长运行的期望，一次有限的模拟只是带噪声的估计；高利用率下前后请求的响应时间强相关（队列的\"记忆\"长），独立样本远少于请求数。" },
    { points: 1, text: "给出办法：把模拟拉长，或对多个种子取平均（并看种子之间的波动）。" },
  ],
  explanation: () => {
    const seeds = 8;
    const s = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 50000, policy: "random", sizes: "exponential" }, 1, seeds);
    const perSeed = s.perSeed.map((x) => x.mean);
    return (
      `理论值是无限长运行的期望，一次有限的模拟只是它的一个带噪声的估计。ρ = 0.9 时队列一旦变长，要过很久才会回落，前后请求的响应时间强相关，真正独立的样本比请求数少得多；何况 5 万个请求摊到 16 台，每台只分到约 ${thousands(Math.round(50000 / 16))} 个。` +
      `换 ${seeds} 个种子各跑一次随机派发：${seeds} 次的平均是 ${s.mean.toFixed(2)}，种子之间的标准差 ${s.meanSd.toFixed(2)}，单次最低 ${Math.min(...perSeed).toFixed(2)}、最高 ${Math.max(...perSeed).toFixed(2)}。想在高利用率下得到可信的均值，就得把模拟拉长，或者对多个种子取平均。`
    );
  },
});

// Exercise 3: E2 on a long-document request
const EX3 = { system: 13, document: 21000, question: 1987 };
const ex3Prompt = EX3.system + EX3.document + EX3.question;
const ex3Cached = EX3.system + EX3.document;
const ex3Missed = ex3Prompt - ex3Cached;
const ex3OnOther = ex3Prompt - EX3.system; // replica 0 holds only the system prompt
const mistralA6000 = () => new StepModel(MISTRAL_7B, A6000);
const exploitChoices = [
  ["exploit", "利用", "exploitation"],
  ["explore", "探索", "exploration"],
];

registerExercise({
  id: "3a",
  question: "cached 与 missed 各是多少？E2 利用还是探索？候选副本是哪个？",
  points: 2,
  reference: () => [ex3Cached, ex3Missed, ex3Cached > ex3Missed ? "exploit" : "explore", 2],
  slots: [
    {
      label: "cached",
      relTolerance: 0,
      mistakes: [
        { value: EX3.document, relTolerance: 0, message: "cached 还包括 13 个 token 的系统提示：最长匹配是系统提示 + 文档" },
        { value: ex3Prompt, relTolerance: 0, message: "问题部分没有缓存：cached 只算最长匹配的前缀" },
      ],
    },
    { label: "missed", relTolerance: 0, mistakes: [{ value: EX3.question + EX3.system, relTolerance: 0, message: "系统提示在副本 2 上已缓存，不算 missed" }] },
    { label: "决定", choices: exploitChoices },
    { label: "副本号", relTolerance: 0 },
  ],
  precision: "token 数给整数（要精确）；决定写 \"exploit\" / \"利用\" 或 \"explore\" / \"探索\"；副本给编号（整数）",
  hint: "cached = 最长匹配（系统提示 + 文档），missed = 提示 − cached；cached > missed 时利用，候选只在持有最长匹配的副本中。答案顺序：[cached, missed, 决定, 副本号]。",
  explanation: () =>
    `cached = ${EX3.system} + ${thousands(EX3.document)} = **${thousands(ex3Cached)}**，missed = **${thousands(ex3Missed)}**；cached > missed，所以**利用**（exploit）；最长匹配只在**副本 2** 上，候选就只有它。（之后如果副本 2 的负载已超过最轻副本的 $Th_{bal}$ 倍，再平衡还会把这个请求转给最轻的副本。）`,
});

registerExercise({
  id: "3b",
  question: "派给副本 2 与副本 0 时各要 prefill 多少 token、多少秒？（StepModel(MISTRAL_7B, A6000).prefill(n)，忽略已缓存部分的注意力开销）",
  points: 2,
  reference: () => {
    const s = mistralA6000();
    return [ex3Missed, s.prefill(ex3Missed), ex3OnOther, s.prefill(ex3OnOther)];
  },
  slots: [
    { label: "副本 2 的 token 数", relTolerance: 0.01 },
    {
      label: "副本 2 的秒数",
      relTolerance: 0.05,
      mistakes: [{ value: mistralA6000().prefill(ex3Missed, ex3Cached), message: "这里把已缓存部分的注意力开销也算进去了；题目说忽略它：只传新 token 数 prefill(n)" }],
    },
    { label: "副本 0 的 token 数", relTolerance: 0.01, mistakes: [{ value: EX3.document, message: "副本 0 除了文档还要算问题部分" }] },
    { label: "副本 0 的秒数", relTolerance: 0.05, mistakes: [{ value: mistralA6000().prefill(EX3.document), message: "这是只算文档的时间；副本 0 还要算问题部分" }] },
  ],
  precision: "token 数误差 1% 以内、秒数误差 5% 以内算对",
  hint: "副本 2 只需算问题部分（missed 个 token）；副本 0 只缓存了 13 个 token 的系统提示，其余都要算。答案顺序：[副本 2 的 token 数, 秒数, 副本 0 的 token 数, 秒数]。",
  explanation: () => {
    const s = mistralA6000();
    const a = s.prefill(ex3Missed);
    const b = s.prefill(ex3OnOther);
    return `副本 2：**${thousands(ex3Missed)}** 个 token，prefill(${thousands(ex3Missed)}) ≈ **${f3(a)} 秒**；副本 0：**${thousands(ex3OnOther)}** 个 token，prefill(${thousands(ex3OnOther)}) ≈ **${f2(b)} 秒**，约为前者的 ${(b / a).toFixed(0)} 倍（注意力随长度平方增长，所以超过 token 数之比 ${(ex3OnOther / ex3Missed).toFixed(1)}）。`;
  },
});

// Exercise 4: the cluster's total cache
const LONG_DOC_TOKENS = 21000;
const REPLICAS = 4;
const capacity = () => kvCapacityTokens(MISTRAL_7B, A6000);
const docsPerReplica = () => Math.floor(capacity() / LONG_DOC_TOKENS);
// The GiB reading (48 × 2^30 bytes) and the one without the 90 % are the usual slips.
const capacityGiB = () => Math.floor((48 * 2 ** 30 * 0.9 - weightBytes(MISTRAL_7B)) / kvBytesPerToken(MISTRAL_7B));
const capacityAllMemory = () => Math.floor((A6000.memoryBytes - weightBytes(MISTRAL_7B)) / kvBytesPerToken(MISTRAL_7B));

registerExercise({
  id: "4",
  question: "Mistral-7B 在 A6000 上（显存的 90% 可用；1 GB 按 10⁹ 字节算）能放多少个 token 的 KV？",
  points: 2,
  reference: () => capacity(),
  slots: [
    {
      label: "KV 容量",
      relTolerance: 0.001,
      mistakes: [
        { value: capacityGiB(), relTolerance: 0.002, message: "看起来把 1 GB 当成了 2³⁰ 字节（GiB）；本题按 1 GB = 10⁹ 字节算" },
        { value: capacityAllMemory(), relTolerance: 0.002, message: "只有 90% 的显存可用：先乘 0.9 再减权重" },
      ],
    },
  ],
  precision: "给整数个 token（误差 0.1% 以内算对）",
  hint: "(48 GB × 0.9 − 权重字节数) ÷ 每个 token 的 KV 字节数（2 × 层数 × KV 头数 × 头维度 × 2 字节）；1 GB = 10⁹ 字节。",
  explanation: () => `(48×10⁹ × 0.9 − 2 × 7,241,732,096) ÷ (2 × 32 × 8 × 128 × 2 = 131,072 字节) = **${thousands(capacity())}** 个 token。`,
});

registerExercise({
  id: "4a",
  question: "一个副本最多能缓存几份平均长度（21,000 token）的文档？",
  points: 1,
  reference: () => docsPerReplica(),
  slots: [
    {
      label: "份数",
      relTolerance: 0,
      mistakes: [
        { value: (x) => !Number.isInteger(x) && Math.floor(x) === docsPerReplica(), message: "份数要向下取整：放不下的那一份不算" },
        { value: docsPerReplica() + 1, relTolerance: 0, message: "份数要向下取整：放不下的那一份不算" },
        { value: capacity(), message: "这是练习 4 题干（KV 容量）的答案；4(a) 问的是一个副本能放几份文档" },
      ],
    },
  ],
  precision: "给整数（份数向下取整）",
  hint: "用练习 4 题干算出的容量除以文档长度，向下取整。",
  explanation: () =>
    `⌊${thousands(capacity())} / ${thousands(LONG_DOC_TOKENS)}⌋ = **${docsPerReplica()}** 份——这是上限，正在运行的请求也要占 KV。`,
});

/** What demo 02.2 measures on 4 replicas (round robin vs threshold affinity), in words, for 4(b)'s explanation. */
function totalCacheMeasured(): string {
  const t = runDemo("02.2", { replicas: [REPLICAS] });
  const rr = rowsWhere(t, { replicas: REPLICAS, policy: "roundRobin" })[0];
  const aff = rowsWhere(t, { replicas: REPLICAS, policy: "thresholdAffinity" })[0];
  if (!rr || !aff) return "";
  const n = (x: unknown, d: number) => Number(x).toFixed(d);
  return `讲义说轮转下整个集群只存着十来份不同的文档；我们的模拟（代码 02 演示 2，${REPLICAS} 个副本）量到的没有这么极端：轮转的复制倍数 ${n(rr.replication, 2)}，去重后的缓存内容约合 ${n(rr.distinctDocs, 0)} 份文档，阈值亲和约 ${n(aff.distinctDocs, 0)} 份。轮转真正吃亏的地方是：一个请求只能命中它**落到的**那个副本的缓存——派发时集群里某处缓存着它的前缀的比例是 ${n(rr.oracleHitRate, 2)}，实际命中只有 ${n(rr.hitRate, 2)}。`;
}

registerExercise({
  id: "4b",
  question: "4 个副本理想分区（互不重复）时，集群一共能缓存几份不同的文档？（轮转时呢？先想，参考答案里讨论）",
  points: 1,
  reference: () => docsPerReplica() * REPLICAS,
  slots: [
    {
      label: "份数",
      relTolerance: 0,
      mistakes: [{ value: docsPerReplica(), relTolerance: 0, message: "这是一个副本的份数；理想分区时 4 个副本各存各的、互不重复" }],
    },
  ],
  precision: "给整数",
  hint: "理想分区时 4 个副本互不重复：一个副本的份数 × 4。",
  explanation: () =>
    `理想分区时 ${REPLICAS} 个副本各存各的，约 **${docsPerReplica() * REPLICAS}** 份。${totalCacheMeasured()}`,
});

registerExercise({
  id: "4c",
  question: "300 份文档按 Zipf 1.1 的热度，最热的 3 份占多少流量？（填小数，如 0.25）",
  points: 1,
  reference: () => new Zipf(300, 1.1).topShare(3),
  slots: [
    {
      label: "份额",
      absTolerance: 0.01,
      share: true,
      mistakes: [{ value: new Zipf(300, 1.1).probabilities[0], relTolerance: 0.03, message: "这只是第 1 名的份额；题目问前三名合起来" }],
    },
  ],
  precision: "填小数（如 0.25），保留两位（误差 ±0.01 以内算对）；写成百分数也认",
  hint: "第 k 份的份额是 k^−1.1 ÷ Σ_{j=1}^{300} j^−1.1；把前三名加起来。",
  explanation: () => {
    const z = new Zipf(300, 1.1);
    const p = Array.from(z.probabilities.slice(0, 3)).map((x) => `${(x * 100).toFixed(1)}%`);
    return `${p.join(" + ")} ≈ **${(z.topShare(3) * 100).toFixed(0)}%**（即 **${z.topShare(3).toFixed(2)}**）。最热的几份只占三分之一多一点，只缓存它们，命中率就被封顶；能多存几十份时，多出来的命中来自热度中等的那一大段长尾。`;
  },
});
