// Reference answers to exercises 5–9 (priority groups, LLMSelector's budget, cost, the approximate tree,
// disaggregation), each computed with the library; the parts answered in words carry a rubric.
import { rowsWhere } from "../core/table";
import { allocationCost, allocationCount, minimumEvaluations } from "../selector/budget";
import { caseStudyPrices } from "../selector/world";
import { runDemo } from "../demos/index";
import { registerExercise } from "./registry";

// Exercise 5: Preble's priority groups (P = 10)
const PRIORITY_GROUPS = 10;
const group = (cached: number, total: number) => Math.floor((cached / total) * PRIORITY_GROUPS);

registerExercise({
  id: "5a",
  question: "P = 10，一个请求 100 个 token 里 63 个已缓存，进第几组？（0 = 完全没命中的组）",
  points: 1,
  reference: () => group(63, 100),
  slots: [
    {
      label: "组号",
      relTolerance: 0,
      mistakes: [
        { value: group(63, 100) + 1, relTolerance: 0, message: "组号是 ⌊已缓存比例 × P⌋，向下取整" },
        { value: 0.63, relTolerance: 0, message: "0.63 是已缓存比例；组号是它乘 P 再向下取整" },
        { value: 63, relTolerance: 0, message: "组号在 0 到 9 之间：已缓存比例 × P，向下取整" },
      ],
    },
  ],
  precision: "给整数组号（0–9）",
  hint: "组号 = ⌊已缓存比例 × P⌋（Preble 的代码对非零比例写作 ⌈10·ratio⌉ − 1，两者在这里一样）。",
  explanation: () => `⌊0.63 × ${PRIORITY_GROUPS}⌋ = **${group(63, 100)}**：进第 ${group(63, 100)} 组（组号越大，已缓存的比例越高）。`,
});

registerExercise({
  id: "5b",
  question: "为什么取 55 个请求时按 10、9、…、1 从各组取？什么情况下命中少的请求仍会等很久？（文字题）",
  points: 3,
  hint: "把 10 + 9 + … + 1 加起来；再想想低优先级组排了很多请求、或显存放不下大请求时会怎样。",
  rubric: [
    { points: 1, text: "算出 10 + 9 + … + 1 = 55，说明每组每轮的名额与组号（命中比例）成正比。" },
    { points: 1, text: "说明为什么这样分：命中高的请求 prefill 少、完成快，多给名额提高吞吐；命中低的组名额少但不为零，不会被饿死。" },
    { points: 1, text: "举出命中少的请求仍会等很久的情形（一种即可）：低组积压很多请求而每轮只放行一两个；或它要新分配的 KV 多，轮到时显存放不下。" },
  ],
  explanation: () => {
    const shares = Array.from({ length: PRIORITY_GROUPS }, (_, i) => PRIORITY_GROUPS - i);
    const total = shares.reduce((a, b) => a + b, 0);
    return (
      `${shares.join(" + ")} = **${total}**：每组每轮拿到的名额和它的组号成正比。命中比例高的请求要算的 prefill 少、跑得快，让它们多占名额能提高吞吐；命中比例低的组名额少但不为零，所以不会被彻底饿死。` +
      `但它们仍可能等很久：最低几组如果积压了很多请求，每轮只放行一两个，排在后面的要等很多轮；另外，命中少的请求要新分配的 KV 多，轮到它时显存可能不够，只好继续留在队里。`
    );
  },
});

// Exercise 6: LLMSelector's budget
registerExercise({
  id: "6a",
  question: "10 个模型、6 个模块：穷举要评估多少个分配？LLMSelector 至少评估多少个（从最优分配出发）？",
  points: 2,
  reference: () => [allocationCount(10, 6), minimumEvaluations(10, 6)],
  slots: [
    { label: "穷举的分配数", relTolerance: 0, mistakes: [{ value: Math.pow(6, 10), relTolerance: 0, message: "是 K^L = 10^6（每个模块 10 种选择），不是 L^K" }] },
    {
      label: "LLMSelector 最少评估数",
      relTolerance: 0,
      mistakes: [
        { value: 10 * 7, relTolerance: 0, message: "停止要求最近 L + 1 个分配相同，但初始分配也算其中一个：只需 L 轮" },
        { value: 6, relTolerance: 0, message: "6 是轮数；每轮要评估 K = 10 个分配" },
        { value: 10, relTolerance: 0, message: "一轮不够：停止要求最近 L + 1 = 7 个分配完全相同" },
      ],
    },
  ],
  precision: "给整数（大数可以写成 3e5、3 * 10 ** 5、\"3×10^5\" 或 \"30万\" 这样的形式）",
  hint: "穷举是 K^L；LLMSelector 每轮评估 K 个分配，停止条件要求连续 L + 1 次分配相同（历史从初始分配算起）。",
  explanation: () =>
    `穷举 $K^L = 10^6$ = **${allocationCount(10, 6).toLocaleString("en-US")}**。LLMSelector 每轮给一个模块试遍 K = 10 个模型，即评估 10 个分配；它要等最近 L + 1 = 7 个分配（初始分配也算一个）完全相同才停，所以哪怕起点就是最优，也得跑满 L = 6 轮：6 × 10 = **${minimumEvaluations(10, 6)}** 个。`,
});

// Demo 04.1 at its defaults is deterministic: run it once for 6(b) and 7(b) (their checks and reference answers).
let caseStudyTable: ReturnType<typeof runDemo> | undefined;
const caseStudy = () => (caseStudyTable ??= runDemo("04.1"));
const caseRow = (method: string, start: string) => {
  const rows = rowsWhere(caseStudy(), { method, start });
  if (rows.length === 0) throw new Error(`demo 04.1 has no ${method} row from ${start}`);
  return rows[0];
};

registerExercise({
  id: "6b",
  question: "代码 04 演示 1 里 LLMSelector 从 C+C 出发评估了多少个分配？",
  points: 1,
  reference: () => Number(caseRow("llmSelector", "C+C").evaluated),
  slots: [{ label: "评估的分配数", relTolerance: 0, mistakes: [{ value: 10, relTolerance: 0, message: "10 是论文在 TableArithmetic 上报告的数；数一数演示 04.1 里 LLMSelector 实际跑了几轮（含确认收敛的轮次）" }] }],
  precision: "给整数",
  hint: "看演示 04.1 的表：LLMSelector 从 C+C 出发的路径走了几轮；每轮评估 K = 5 个分配（5 个模型）。",
  why: {
    question: "论文说在 TableArithmetic 上 10 个分配就够，为什么和演示 04.1 数出来的对不上？（文字题）",
    points: 2,
    rubric: [
      { points: 1, text: "指出停止规则：找到最优分配后还要再跑几轮、确认分配不再变化才停，这几轮也计入预算（论文的 10 = 2 轮 × 5 看起来只数到第一次到达最优）" },
      { points: 1, text: "指出计数口径：每轮算 K = 5 个还是 K − 1 = 4 个（作者开源代码的计数器）；比较不同来源的预算前要先对齐口径" },
    ],
  },
  explanation: () => {
    const row = caseRow("llmSelector", "C+C");
    const steps = String(row.path ?? "").split(" → ");
    const rounds = Math.max(0, steps.length - 1);
    return `路径 ${row.path}，共 ${rounds} 轮；讲义和我们按每轮 K = 5 个计，**${row.evaluated}** 个分配（作者开源代码的计数器每轮只加 K − 1 = 4 个，同一条路径记作 ${row.evaluatedReleased} 个）。我们用的是开源实现的停止规则：找到最优分配之后，还要再跑几轮、确认分配不再变化才停，这几轮也计入预算。论文在 TableArithmetic 上报告的 10 个，看起来只数到第一次到达最优为止（2 轮 × 5），没算确认收敛的轮次。比较不同论文的"预算"时，先弄清这一部分算没算、每轮算 K 个还是 K − 1 个。`;
  },
});

// Exercise 7: adding cost
const abCost = () => allocationCost(["A", "B"], caseStudyPrices());
const ccCost = () => allocationCost(["C", "C"], caseStudyPrices());

registerExercise({
  id: "7a",
  question: "价格 A 5、B 3、C 1、D 0.5、E 0.2：A+B 与 C+C 每道题各花多少？A+B 是 C+C 的几倍？",
  points: 2,
  reference: () => [abCost(), ccCost(), abCost() / ccCost()],
  slots: [
    { label: "A+B 的成本", absTolerance: 0.001, relTolerance: 0 },
    { label: "C+C 的成本", absTolerance: 0.001, relTolerance: 0 },
    {
      label: "倍数",
      absTolerance: 0.001,
      relTolerance: 0,
      mistakes: [
        { value: (abCost() - ccCost()) / ccCost(), relTolerance: 0.001, message: "问的是 A+B 是 C+C 的几倍（两者相除），不是多出几倍" },
        { value: abCost() - ccCost(), relTolerance: 0.001, message: "这是差价；问的是倍数（两者相除）" },
      ],
    },
  ],
  precision: "三个数都给精确值",
  hint: "一个分配的成本是各模块所用模型的价格之和；倍数 = A+B 的成本 ÷ C+C 的成本。",
  explanation: () => {
    const price = caseStudyPrices();
    return `A+B：${price.A} + ${price.B} = **${abCost()}**；C+C：${price.C} + ${price.C} = **${ccCost()}**；前者是后者的 **${(abCost() / ccCost()).toFixed(0)}** 倍。`;
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
  question: "若每提高 1 个百分点的测试准确率最多愿多花 0.1，应在 A+B 与 C+C 中选哪个？",
  points: 1,
  reference: () => exercise7bChoice().choice,
  slots: [{ label: "选择", choices: [["A+B"], ["C+C"]] }],
  precision: "填 \"A+B\" 或 \"C+C\"",
  hint: "用代码 04 演示 1 的测试准确率：多花的钱 ÷ 多得的百分点，和 0.1 比。",
  explanation: () => {
    const c = exercise7bChoice();
    return `A+B 的测试准确率比 C+C 高 ${c.points.toFixed(1)} 个百分点，每道题多花 ${c.extraCost}，折合每个百分点 ${c.extraCost} ÷ ${c.points.toFixed(1)} = ${c.costPerPoint.toFixed(3)}，${c.costPerPoint > 0.1 ? "超过" : "没有超过"} 0.1 的上限，按这条规则选 **${c.choice}**${c.choice === "C+C" ? "；更好的做法是在两者之间找更便宜的组合（代码 04 演示 5 画出了成本—准确率前沿）" : ""}。可见一旦把价格算进来，"最优分配"就可能换人。`;
  },
});

registerExercise({
  id: "7c",
  question: "设计一个把成本纳入 LLMSelector 的办法。（文字题）",
  points: 3,
  hint: "可以改模块得分，也可以在收敛之后再做一轮\"降级\"搜索。",
  rubric: [
    { points: 1, text: "把成本放进目标或打分：例如 模块得分 − λ × 价格 ÷ 最高价，或在预算约束下最大化准确率。" },
    { points: 1, text: "说明怎样得到并挑选权衡点：扫一串 λ 得到成本—准确率曲线、按预算挑点；或收敛后逐个模块换更便宜的模型，准确率下降不超过容忍度才接受。" },
    { points: 1, text: "说清它和 LLMSelector 原有做法的关系（仍是每轮改一个模块、仍用诊断器给模块打分）或它的代价（要多跑几遍、多评估几轮）。" },
  ],
  explanation: () =>
    `一种做法是在打分里直接扣钱：模块得分 = 诊断器得分 − λ × （模型价格 ÷ 最贵模型的价格）。λ 取一串值各跑一次，每个 λ 得到一个分配，连起来就是成本—准确率曲线，再按预算挑点（库里的 \`costAware\` / \`costFrontier\` 即如此，见代码 04 演示 5）。另一种做法是先照常跑完 LLMSelector，再做一轮"降级"：每次试着把一个模块换成更便宜的模型，端到端准确率掉得不超过事先定的容忍度就保留这次替换。`,
});

registerExercise({
  id: "8",
  question: "近似树何时与真实缓存不一致？后果是什么？Preble 与 Dynamo 各怎样减少不一致？（文字题）",
  points: 6,
  hint: "想想显存压力下的淘汰、被拒绝或超时的请求、进程重启。",
  rubric: [
    { points: 2, text: "(a) 举出至少两种不一致：工作进程因显存压力自己淘汰了前缀而树还记着；请求被拒绝、超时或失败，前缀没算完；进程重启、缓存清空。每种 1 分，最多 2 分。" },
    { points: 2, text: "(b) 后果：请求被派到\"以为有缓存\"的进程，要从头 prefill，且那里常是已接了一批同类请求的忙进程（1 分）；误派会反复发生，直到树自己淘汰这段前缀（1 分）。" },
    { points: 2, text: "(c) Preble：本地调度器淘汰时异步通知全局调度器，全局树删掉对应记录，只差通知延迟（1 分）；Dynamo：工作进程把 KV 块的写入 / 删除作为事件发给路由器，索引跟着真实缓存走，代价是维护事件流（1 分）。" },
  ],
  explanation: () =>
    `(a) 三种典型情形：工作进程缺显存时自己淘汰了一段前缀，而路由器的树按自己的节奏淘汰、还留着这段；请求在工作进程上被拒绝、超时或失败，那段前缀压根没有算完；工作进程重启，缓存整个没了。` +
    `(b) 路由器以为某个进程有缓存，把请求送过去，到了那里却要从头 prefill；被选中的又常常是已经接了一大批同类请求的那个进程，于是慢上加慢。而且树不纠正，同样的误派会一次次重复，直到树自己把那段前缀淘汰掉。` +
    `(c) Preble 的本地调度器每淘汰一段前缀，就异步告诉全局调度器，全局树把这块 GPU 从对应节点上去掉——只差一点通知延迟。Dynamo 让每个工作进程把 KV 块的写入和删除作为事件发给路由器，索引跟着真实缓存走，代价是要维护这条事件流。` +
    `两者都是用更新鲜的信息换更准的路由。[笔记本 06](06-since-then.ipynb) 的 6.3 节模拟了副本重启时这两类做法的差别。`,
});

registerExercise({
  id: "9",
  question: "在 prefill / decode 解耦（xPyD）的部署上做前缀感知路由，哪些决定要变？Preble 的搭配规则还有意义吗？（文字题）",
  points: 4,
  hint: "前缀缓存服务的是 prefill；搭配规则是为了在同一个实例里混合两种工作。",
  rubric: [
    { points: 1, text: "指出前缀命中省的是 prefill，所以亲和要落在 prefill 实例上。" },
    { points: 1, text: "路由分两步：先按前缀命中和负载挑 prefill 实例，再按显存和负载挑 decode 实例（或把 KV 从 prefill 搬到 decode 的代价一起考虑）。" },
    { points: 1, text: "多轮对话：decode 一侧生成的内容要写回 prefill 一侧的缓存或共享 KV 池，下一轮才能命中。" },
    { points: 1, text: "搭配规则是为同一实例里混合 prefill 与 decode 而设，解耦后用不上；但\"命中很高的请求几乎只剩 decode\"的观察仍有用（例如直接在 decode 实例上补算那一小段）。" },
  ],
  explanation: () =>
    `前缀命中省下的是 prefill，所以"亲和"要落在 prefill 实例上：路由分两步，先看前缀命中和负载挑 prefill 实例，再看显存和负载挑 decode 实例（也可以两步合起来考虑，把 KV 从 prefill 搬到 decode 的距离算进代价）。多轮对话还多了一件事：这一轮生成的内容在 decode 实例上，要写回 prefill 一侧的缓存（或放进共享 KV 池），下一轮才能命中。` +
    `Preble 的搭配规则解决的是"同一个实例上 prefill 和 decode 抢资源"，解耦之后两者本来就不在一起，这条规则也就用不上了。不过它背后的观察还成立：命中率很高的请求几乎不剩 prefill 工作，甚至可以不经 prefill 实例，直接在 decode 实例上把缺的那一小段算掉。`,
});
