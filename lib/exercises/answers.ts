// Reference answers to the lecture's exercises, each computed with the library.
import { Zipf } from "../core/rng";
import { rowsWhere } from "../core/table";
import { dispatchAcrossSeeds } from "../dispatch/servers";
import { choiceMaxLoadFormula, randomMaxLoadFormula } from "../dispatch/balls-into-bins";
import { A6000, MISTRAL_7B } from "../hardware/specs";
import { kvCapacityTokens, StepModel } from "../hardware/step-model";
import { allocationCost, allocationCount, minimumEvaluations } from "../selector/budget";
import { caseStudyPrices } from "../selector/world";
import { runDemo } from "../demos/index";
import { registerExercise } from "./registry";

const f2 = (x: number) => x.toFixed(2);
const f3 = (x: number) => x.toFixed(3);

// Exercise 1: balls into bins
const twoChoiceMaxLoadFormula = (n: number) => choiceMaxLoadFormula(n, 2);

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

registerExercise({
  id: "1b",
  question: "n = 10^5 时两个渐近公式各给出多少？（随后想一想：为什么随机的实测值比公式大得多？）",
  reference: () => [randomMaxLoadFormula(1e5), twoChoiceMaxLoadFormula(1e5)],
  absTolerance: 0.02,
  hint: "把 n = 100,000 代入 ln n / ln ln n 与 ln ln n / ln 2。",
  explanation: () => {
    const t = runDemo("01.1", { ns: [1000, 100000] });
    const at = (n: number, key: string) => Number(rowsWhere(t, { n })[0][key]);
    return (
      `公式：随机 ${f2(randomMaxLoadFormula(1e5))}，二选一 ${f2(twoChoiceMaxLoadFormula(1e5))}。代码 01 演示 1 实测（n = 100,000）：随机 ${at(100000, "random").toFixed(1)}，二选一 ${at(100000, "twoChoice").toFixed(1)}。\n\n` +
      `渐近公式只刻画增长的阶：随机时真实值是 $\\frac{\\ln n}{\\ln\\ln n}(1+o(1))$，那个 $o(1)$ 收敛得极慢，在 $n=10^5$ 时仍然很大；二选一是 $\\ln\\ln n/\\ln 2 + O(1)$，常数项小，所以贴得更近。` +
      `该比较的是增长速度：从 1,000 到 100,000，随机从 ${at(1000, "random").toFixed(1)} 涨到 ${at(100000, "random").toFixed(1)}，二选一只从 ${at(1000, "twoChoice").toFixed(1)} 涨到 ${at(100000, "twoChoice").toFixed(1)}。`
    );
  },
});

registerExercise({
  id: "2b",
  question: "模拟给出的平均响应时间和理论值 10 有差距，为什么？（文字题：调用 reveal(\"2b\") 看参考答案）",
  hint: "想想高利用率队列的\"记忆\"有多长、每台服务器分到多少个请求。",
  explanation: () => {
    const seeds = 8;
    const s = dispatchAcrossSeeds({ servers: 16, utilization: 0.9, jobs: 50000, policy: "random", sizes: "exponential" }, 1, seeds);
    const perSeed = s.perSeed.map((x) => x.mean);
    return (
      `有限长度的模拟有统计误差。ρ = 0.9 的 M/M/1 队列一旦排起长队要很久才消散，相邻请求的响应时间高度相关，有效样本远少于请求数；5 万个请求分到 16 台，每台只有约 ${Math.round(50000 / 16).toLocaleString("en-US")} 个。` +
      `用 ${seeds} 个种子重跑随机派发：平均 ${s.mean.toFixed(2)}，各种子之间的标准差 ${s.meanSd.toFixed(2)}（单个种子从 ${Math.min(...perSeed).toFixed(2)} 到 ${Math.max(...perSeed).toFixed(2)}）。高利用率下要么跑得很长，要么多个种子取平均。`
    );
  },
});

registerExercise({
  id: "5b",
  question: "为什么取 55 个请求时按 10、9、…、1 从各组取？什么情况下命中少的请求仍会等很久？（文字题）",
  hint: "把 10 + 9 + … + 1 加起来；再想想低优先级组排了很多请求、或显存放不下大请求时会怎样。",
  explanation: () => {
    const shares = Array.from({ length: PRIORITY_GROUPS }, (_, i) => PRIORITY_GROUPS - i);
    const total = shares.reduce((a, b) => a + b, 0);
    return (
      `${shares.join(" + ")} = ${total}：每组的份额与它的优先级成正比。命中多的请求优先（它们只需要很少的 prefill，很快完成），但命中少的组每轮也有份额，不会饿死。` +
      `仍会等很久的情况：低优先级组里积压了大量请求而每轮只取 1 个；或者命中少的请求需要的 KV 空间大，轮到它时显存放不下，只能继续等。`
    );
  },
});

registerExercise({
  id: "6a",
  question: "10 个模型、6 个模块：穷举要评估多少个分配？LLMSelector 至少评估多少个（从最优分配出发）？",
  reference: () => [allocationCount(10, 6), minimumEvaluations(10, 6)],
  relTolerance: 0,
  hint: "穷举是 K^L；LLMSelector 每轮评估 K 个分配，停止条件要求连续 L + 1 次分配相同（历史从初始分配算起）。",
  explanation: () =>
    `穷举 $K^L = 10^6$ = **${allocationCount(10, 6).toLocaleString("en-US")}**。LLMSelector 每轮评估 K = 10 个分配；即使一开始就是最优，也要 L = 6 轮才能凑齐 7 个相同的记录：**${minimumEvaluations(10, 6)}** 个。`,
});

const caseStudy = () => runDemo("04.1");
const caseRow = (method: string, start: string) => {
  const rows = rowsWhere(caseStudy(), { method, start });
  if (rows.length === 0) throw new Error(`demo 04.1 has no ${method} row from ${start}`);
  return rows[0];
};

registerExercise({
  id: "6b",
  question: "代码 04 演示 1 里 LLMSelector 从 C+C 出发评估了多少个分配？",
  reference: () => Number(caseRow("llmSelector", "C+C").evaluated),
  relTolerance: 0,
  hint: "数轮次：C+C → A+C → A+B → A+B → A+B，每轮评估 K = 5 个分配。",
  explanation: () =>
    `我们的停止条件来自开源实现：C+C → A+C（第 1 轮）→ A+B（第 2 轮）→ A+B（第 3 轮）→ A+B（第 4 轮），4 × 5 = **${caseRow("llmSelector", "C+C").evaluated}** 个。论文报告的 10 个大概只数到找到最优分配为止（2 轮 × 5），不含确认收敛的轮次——读预算数字时要问清楚"确认收敛"算不算。`,
});

const abCost = () => allocationCost(["A", "B"], caseStudyPrices());
const ccCost = () => allocationCost(["C", "C"], caseStudyPrices());

registerExercise({
  id: "7a",
  question: "价格 A 5、B 3、C 1、D 0.5、E 0.2：A+B 与 C+C 每道题各花多少？",
  reference: () => [abCost(), ccCost()],
  relTolerance: 0,
  absTolerance: 0.001,
  hint: "一个分配的成本是各模块所用模型的价格之和。",
  explanation: () => `A+B：5 + 3 = **${abCost()}**；C+C：1 + 1 = **${ccCost()}**；贵 ${(abCost() / ccCost()).toFixed(0)} 倍。`,
});

/** Exercise 7(b)'s rule: pay at most `perPoint` price units for each point of test accuracy gained. */
function exercise7bChoice(perPoint = 0.1): { choice: string; points: number; extraCost: number; costPerPoint: number } {
  const ab = Number(caseRow("llmSelector", "C+C").testAcc);
  const cc = Number(caseRow("greedy", "C+C").testAcc);
  const points = (ab - cc) * 100;
  const extraCost = abCost() - ccCost();
  const costPerPoint = extraCost / points;
  return { choice: costPerPoint <= perPoint ? "A+B" : "C+C", points, extraCost, costPerPoint };
}

registerExercise({
  id: "7b",
  question: "若每提高 1 个百分点的测试准确率最多愿多花 0.1，应在 A+B 与 C+C 中选哪个？（填 \"A+B\" 或 \"C+C\"）",
  reference: () => exercise7bChoice().choice,
  hint: "用代码 04 演示 1 的测试准确率：多花的钱 ÷ 多得的百分点，和 0.1 比。",
  explanation: () => {
    const c = exercise7bChoice();
    return `A+B 比 C+C 的测试准确率高 ${c.points.toFixed(0)} 个百分点，多花 ${c.extraCost}，每个百分点 ${c.costPerPoint.toFixed(3)}，${c.costPerPoint > 0.1 ? "高于" : "不高于"} 0.1 的门槛——严格按这个标准应选 **${c.choice}**${c.choice === "C+C" ? "，或者去找更便宜的组合（代码 04 演示 5 的成本—准确率前沿）" : ""}。成本约束会改变"最优分配"。`;
  },
});

registerExercise({
  id: "7c",
  question: "设计一个把成本纳入 LLMSelector 的办法。（文字题）",
  hint: "可以改模块得分，也可以在收敛之后再做一轮\"降级\"搜索。",
  explanation: () =>
    `办法一：把模块得分改成"诊断器得分 − λ × 模型价格 / 最高价格"，对不同的 λ 各跑一遍，得到一条成本—准确率曲线，再按预算取点（库里的 \`costAware\` / \`costFrontier\` 就是这样做的，见代码 04 演示 5）。办法二：LLMSelector 收敛后，逐个模块尝试换成更便宜的模型，只要端到端准确率的下降不超过阈值就接受。`,
});

registerExercise({
  id: "8",
  question: "近似树何时与真实缓存不一致？后果是什么？Preble 与 Dynamo 各怎样减少不一致？（文字题）",
  hint: "想想显存压力下的淘汰、被拒绝或超时的请求、进程重启。",
  explanation: () =>
    `(a) 工作进程因显存压力淘汰了某个前缀，近似树却还记着（两边的淘汰节奏不同）；请求被拒绝或超时，前缀根本没算出来；进程重启后缓存清空。` +
    `(b) 路由器把请求派给"以为有缓存"的进程，结果要从头 prefill，而且往往是一个本来就承接了很多同类请求的忙碌进程；误派会反复发生，直到近似树把这个前缀淘汰。` +
    `(c) Preble：本地调度器淘汰时异步通知全局调度器，全局树删除对应 GPU 的记录（仍有通知延迟）；Dynamo：工作进程上报 KV 块的存储 / 删除事件，路由器的索引直接反映真实状态，代价是事件流的开销。` +
    `这又是"信息新鲜度"的例子。笔记本 06 用模拟演示了副本重启后两种做法的差别。`,
});

registerExercise({
  id: "9",
  question: "在 prefill / decode 解耦（xPyD）的部署上做前缀感知路由，哪些决定要变？Preble 的搭配规则还有意义吗？（文字题）",
  hint: "前缀缓存服务的是 prefill；搭配规则是为了在同一个实例里混合两种工作。",
  explanation: () =>
    `前缀缓存主要服务 prefill，亲和的对象变成 prefill 实例：先按前缀命中和负载选 prefill 实例，再按显存和负载选 decode 实例（两步路由，或把 KV 传输距离一起优化）。多轮对话的输出也要回写到 prefill 侧的缓存（或放进共享的 KV 池），否则下一轮命中不了。` +
    `Preble 的搭配规则是为了在同一个实例里混合 prefill 和 decode；解耦后两者已分开，这条规则失去意义。但"命中多的请求几乎只剩 decode"这一观察仍有用：这类请求的 prefill 很小，甚至可以直接在 decode 实例上补算那一小段。`,
});
