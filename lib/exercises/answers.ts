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
    `cached = ${EX3.system} + ${EX3.document.toLocaleString("en-US")} = **${ex3Cached.toLocaleString("en-US")}**，missed = **${ex3Missed.toLocaleString("en-US")}**；cached > missed，所以**利用**；最长匹配只在**副本 2** 上，候选就只有它。（之后如果副本 2 的负载已超过最轻副本的 $Th_{bal}$ 倍，再平衡还会把这个请求转给最轻的副本。）`,
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
    `一个副本：⌊${kvCapacityTokens(MISTRAL_7B, A6000).toLocaleString("en-US")} / ${LONG_DOC_TOKENS.toLocaleString("en-US")}⌋ = **${docsPerReplica()}** 份——这是上限，正在运行的请求也要占 KV。轮转下四个副本看到的是同一股请求流，留下的都是当下最热的那十来份，彼此重复，整个集群也就存着十来份不同的文档；理想分区时 ${REPLICAS} 个副本各存各的，约 **${docsPerReplica() * REPLICAS}** 份。`,
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
    return `${p.join(" + ")} ≈ **${(z.topShare(3) * 100).toFixed(0)}%**。最热的几份只占三分之一多一点，只缓存它们，命中率就被封顶；能多存几十份时，多出来的命中来自热度中等的那一大段长尾。`;
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
  explanation: () => `⌊0.63 × ${PRIORITY_GROUPS}⌋ = **${Math.floor(0.63 * PRIORITY_GROUPS)}**：进第 ${Math.floor(0.63 * PRIORITY_GROUPS)} 组（组号越大，已缓存的比例越高）。`,
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
      `这两个式子说的是 n 趋于无穷时的量级，不是某个具体 n 下的数值。随机那一式完整写是 $\\frac{\\ln n}{\\ln\\ln n}(1+o(1))$，修正项 $o(1)$ 要到极大的 n 才变小，$n=10^5$ 时它还把实测值往上推了一大截；二选一的式子是 $\\ln\\ln n/\\ln 2 + O(1)$，多出来的只是一个不大的常数，所以实测贴着公式。` +
      `真正能和公式对照的是"随 n 怎么涨"：n 从 1,000 到 100,000，随机的最大负载从 ${at(1000, "random").toFixed(1)} 到 ${at(100000, "random").toFixed(1)}，二选一从 ${at(1000, "twoChoice").toFixed(1)} 到 ${at(100000, "twoChoice").toFixed(1)}。`
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
      `理论值是无限长运行的期望，一次有限的模拟只是它的一个带噪声的估计。ρ = 0.9 时队列一旦变长，要过很久才会回落，前后请求的响应时间强相关，真正独立的样本比请求数少得多；何况 5 万个请求摊到 16 台，每台只分到约 ${Math.round(50000 / 16).toLocaleString("en-US")} 个。` +
      `换 ${seeds} 个种子各跑一次随机派发：${seeds} 次的平均是 ${s.mean.toFixed(2)}，种子之间的标准差 ${s.meanSd.toFixed(2)}，单次最低 ${Math.min(...perSeed).toFixed(2)}、最高 ${Math.max(...perSeed).toFixed(2)}。想在高利用率下得到可信的均值，就得把模拟拉长，或者对多个种子取平均。`
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
      `${shares.join(" + ")} = ${total}：每组每轮拿到的名额和它的组号成正比。命中比例高的请求要算的 prefill 少、跑得快，让它们多占名额能提高吞吐；命中比例低的组名额少但不为零，所以不会被彻底饿死。` +
      `但它们仍可能等很久：最低几组如果积压了很多请求，每轮只放行一两个，排在后面的要等很多轮；另外，命中少的请求要新分配的 KV 多，轮到它时显存可能不够，只好继续留在队里。`
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
    `穷举 $K^L = 10^6$ = **${allocationCount(10, 6).toLocaleString("en-US")}**。LLMSelector 每轮给一个模块试遍 K = 10 个模型，即评估 10 个分配；它要等最近 L + 1 = 7 个分配（初始分配也算一个）完全相同才停，所以哪怕起点就是最优，也得跑满 L = 6 轮：6 × 10 = **${minimumEvaluations(10, 6)}** 个。`,
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
  hint: "看演示 04.1 表格下的注释：LLMSelector 从 C+C 出发走了几轮；每轮评估 K = 5 个分配（5 个模型）。",
  explanation: () => {
    const t = caseStudy();
    const note = (t.notes ?? []).find((n) => n.startsWith("LLMSelector path from C+C:")) ?? "";
    const m = /from C\+C: (.*) \((\d+) rounds × (\d+) = (\d+) allocations\)/.exec(note);
    const evaluated = caseRow("llmSelector", "C+C").evaluated;
    const path = m ? `路径 ${m[1]}，共 ${m[2]} 轮 × ${m[3]} = ` : "";
    return `${path}**${evaluated}** 个分配。我们用的是开源实现的停止规则：找到最优分配之后，还要再跑几轮、确认分配不再变化才停，这几轮也计入预算。论文在 TableArithmetic 上报告的 10 个，看起来只数到第一次到达最优为止（2 轮 × 5），没算确认收敛的轮次。比较不同论文的"预算"时，先弄清这一部分算没算。`;
  },
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
  explanation: () => {
    const price = caseStudyPrices();
    return `A+B：${price.A} + ${price.B} = **${abCost()}**；C+C：${price.C} + ${price.C} = **${ccCost()}**；前者是后者的 ${(abCost() / ccCost()).toFixed(0)} 倍。`;
  },
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
    return `A+B 的测试准确率比 C+C 高 ${c.points.toFixed(1)} 个百分点，每道题多花 ${c.extraCost}，折合每个百分点 ${c.extraCost} ÷ ${c.points.toFixed(1)} = ${c.costPerPoint.toFixed(3)}，${c.costPerPoint > 0.1 ? "超过" : "没有超过"} 0.1 的上限，按这条规则选 **${c.choice}**${c.choice === "C+C" ? "；更好的做法是在两者之间找更便宜的组合（代码 04 演示 5 画出了成本—准确率前沿）" : ""}。可见一旦把价格算进来，"最优分配"就可能换人。`;
  },
});

registerExercise({
  id: "7c",
  question: "设计一个把成本纳入 LLMSelector 的办法。（文字题）",
  hint: "可以改模块得分，也可以在收敛之后再做一轮\"降级\"搜索。",
  explanation: () =>
    `一种做法是在打分里直接扣钱：模块得分 = 诊断器得分 − λ × （模型价格 ÷ 最贵模型的价格）。λ 取一串值各跑一次，每个 λ 得到一个分配，连起来就是成本—准确率曲线，再按预算挑点（库里的 \`costAware\` / \`costFrontier\` 即如此，见代码 04 演示 5）。另一种做法是先照常跑完 LLMSelector，再做一轮"降级"：每次试着把一个模块换成更便宜的模型，端到端准确率掉得不超过事先定的容忍度就保留这次替换。`,
});

registerExercise({
  id: "8",
  question: "近似树何时与真实缓存不一致？后果是什么？Preble 与 Dynamo 各怎样减少不一致？（文字题）",
  hint: "想想显存压力下的淘汰、被拒绝或超时的请求、进程重启。",
  explanation: () =>
    `(a) 三种典型情形：工作进程缺显存时自己淘汰了一段前缀，而路由器的树按自己的节奏淘汰、还留着这段；请求在工作进程上被拒绝、超时或失败，那段前缀压根没有算完；工作进程重启，缓存整个没了。` +
    `(b) 路由器以为某个进程有缓存，把请求送过去，到了那里却要从头 prefill；被选中的又常常是已经接了一大批同类请求的那个进程，于是慢上加慢。而且树不纠正，同样的误派会一次次重复，直到树自己把那段前缀淘汰掉。` +
    `(c) Preble 的本地调度器每淘汰一段前缀，就异步告诉全局调度器，全局树把这块 GPU 从对应节点上去掉——只差一点通知延迟。Dynamo 让每个工作进程把 KV 块的写入和删除作为事件发给路由器，索引跟着真实缓存走，代价是要维护这条事件流。` +
    `两者都是用更新鲜的信息换更准的路由。[笔记本 06](06-since-then.ipynb) 的 6.3 节模拟了副本重启时这两类做法的差别。`,
});

registerExercise({
  id: "9",
  question: "在 prefill / decode 解耦（xPyD）的部署上做前缀感知路由，哪些决定要变？Preble 的搭配规则还有意义吗？（文字题）",
  hint: "前缀缓存服务的是 prefill；搭配规则是为了在同一个实例里混合两种工作。",
  explanation: () =>
    `前缀命中省下的是 prefill，所以"亲和"要落在 prefill 实例上：路由分两步，先看前缀命中和负载挑 prefill 实例，再看显存和负载挑 decode 实例（也可以两步合起来考虑，把 KV 从 prefill 搬到 decode 的距离算进代价）。多轮对话还多了一件事：这一轮生成的内容在 decode 实例上，要写回 prefill 一侧的缓存（或放进共享 KV 池），下一轮才能命中。` +
    `Preble 的搭配规则解决的是"同一个实例上 prefill 和 decode 抢资源"，解耦之后两者本来就不在一起，这条规则也就用不上了。不过它背后的观察还成立：命中率很高的请求几乎不剩 prefill 工作，甚至可以不经 prefill 实例，直接在 decode 实例上把缺的那一小段算掉。`,
});
