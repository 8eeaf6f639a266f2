// Our coding exercises 10–12 (after the lecture's nine; notebook 08): the student writes power of d choices as a §1
// dispatch policy, the cache-aware + load-guard router of §2.5, and E2's exploit / explore decision of §3.2. The
// test cells (runTests, lib/exercises/tests.ts) hold the tests; here are their points (the rubric: one item per
// test, in the cell's order, hidden ones marked — test/exercises-coding.test.ts keeps the two the same) and the
// worked explanation the instructor copy reveals. The reference implementations are the answer cells' solution
// regions (`### BEGIN SOLUTION`), which the student release replaces by a stub.
import { registerCodingExercise, type RubricItem } from "./registry";

/** "〔隐藏〕": a rubric item of a hidden test (between `### BEGIN HIDDEN TESTS` and `### END HIDDEN TESTS`). */
export const HIDDEN_MARK = "〔隐藏〕";
const hidden = (points: number, text: string): RubricItem => ({ points, text: `${HIDDEN_MARK}${text}` });

registerCodingExercise({
  id: "10",
  coding: true,
  question: "写 powerOfD(servers, rng, d)：不放回地随机抽 d 台，派给其中请求数最少的一台（并列随机挑）",
  points: 9,
  hint: "抽的 d 台要互不相同；比的是 servers.queueLength(s)，选小的；并列时用 rng 在并列的几台里挑。",
  rubric: [
    { points: 1, text: "4 台、d = 4、队长 [3, 1, 2, 5]：4 台都抽到，应选队最短的 1 号" },
    { points: 1, text: "2 台、d = 2、队长 [4, 2]：应选队短的 1 号" },
    { points: 2, text: "4 台、d = 2、队长 [0, 1, 2, 3]，选 6,000 次：不放回地抽 2 台取短的，各台被选中的比例 ≈ [1/2, 1/3, 1/6, 0]" },
    hidden(1, "8 台、d = 2、队长 [5, 3, 8, 1, 7, 2, 6, 4]：只读 2 台的队长，选其中短的"),
    hidden(1, "4 台队长都是 2、d = 2，选 4,000 次：并列时随机挑，每台约 1/4"),
    hidden(1, "d = 1 退化为随机派发：4 台、队长 [0, 1, 2, 3]，选 4,000 次，每台约 1/4"),
    hidden(2, "01.2 的设定（16 台、ρ = 0.9、2 万个请求、种子 1）下当作派发策略跑：平均响应时间与库的 powerOfTwo 相差不超过 15%"),
  ],
  explanation: () =>
    "参考实现就是笔记本 01 的 powerOfTwo：先**不放回地抽 d 台**（在还没抽中的 N − k 台里均匀抽一台），再在抽中的几台里**选 queueLength 最小的**，并列时用 rng 在并列的几台里随机挑。\n\n" +
    "常见错误：放回抽样（同一台可能抽两次，d = N 时也可能漏掉最短的那台）；比较写反，选了较长的队（01.2 的设定下平均响应时间会比随机派发还差得多）；读了全部 N 台的队长（那是 JSQ，不是 d 选一）；并列时总取编号小的（小编号的服务器被偏爱）。",
});

registerCodingExercise({
  id: "11",
  coding: true,
  question: "写 makeGuardedRouter(θ, balanceAbs, balanceRel)：§2.5 的缓存感知 + 负载保护路由器 { name, route(request, view) }",
  points: 9,
  hint: "先看保护条件（在途请求 最多 − 最少 > balanceAbs 且 最多 > balanceRel × 最少），成立就派给在途请求最少的副本；否则按阈值亲和，最长匹配一样长时取负载轻的。",
  rubric: [
    { points: 1, text: "在途请求 [3, 2, 2, 3]，副本 2 匹配 70 / 100 token ≥ θ：应派给副本 2" },
    { points: 1, text: "最长匹配 30 / 100 < θ：按负载，应派给在途 token 最少的副本 3（在途 token [500, 300, 400, 200]）" },
    { points: 1, text: "在途请求 [10, 1, 1, 1]：10 − 1 > 8 且 10 > 1.5 × 1，负载保护应派给在途请求最少的副本 1（副本 0 匹配 100 / 100 也不去）" },
    hidden(1, "在途请求 [9, 1, 1, 1]：9 − 1 = 8 不 > 8，保护不动作，应按亲和派给匹配 100 / 100 的副本 0"),
    hidden(1, "在途请求 [30, 20, 20, 20]：差 10 > 8，但 30 不 > 1.5 × 20，应按亲和派给副本 0"),
    hidden(1, "副本 0 和 2 都匹配 80 / 100：平局应给在途 token 少的副本 2（在途 token [900, 100, 300, 100]）"),
    hidden(1, "§2.2 长文档 + 共享的 13 token 系统提示（4 个副本、1 请求/秒、1,200 个请求）：不应崩溃——最忙副本 < 50%、不过载、平均延迟 ≤ 库的 cacheAwareGuarded 的 1.5 倍"),
    hidden(2, "02.4 的热点（8 个副本、70 请求/秒、2,000 个请求）：每个决定都应和库的 cacheAwareGuarded 相同"),
  ],
  explanation: () =>
    "参考实现就是笔记本 02 的 makeCacheAwareGuarded：**先看负载保护**——在途请求数 最多 − 最少 > balanceAbs 且 最多 > balanceRel × 最少，就派给在途请求最少的副本；否则**阈值亲和**：最长匹配 > 0 且 ≥ θ × 提示长度就派去匹配最长的副本（一样长取在途 token 少的），否则派给在途 token 最少的副本。\n\n" +
    "常见错误：没有负载保护（热点上一个副本被压垮，与库的决定从保护第一次动作处分开）；没有阈值，只要有匹配就去（共享的系统提示让每个请求都匹配到第一个副本：§2.2 的崩溃）；两个保护条件只判断了一个，或把 > 写成 ≥；匹配一样长时取编号小的（不摊开热点的副本）。",
});

registerCodingExercise({
  id: "12",
  coding: true,
  question: "写 decideE2(request, s)：E2 按全局树的匹配决定利用（cached > missed，在持有者里挑 L + M + P 最低的，再问再平衡）还是探索（在所有 GPU 里挑）",
  points: 9,
  hint: "只有 cached > missed（严格大于）才利用；利用只在 s.match.holders 里挑，探索在 s.gpus 里挑；比的是 s.loadCost(g).total，一样低取编号小的；利用选好后问 s.redirect(gpu)。",
  rubric: [
    { points: 1, text: "cached = missed = 1,000（不满足 cached > missed），持有者 GPU 2，L + M + P = [0.5, 0.2, 0.9, 0.4] 秒：应探索，选最便宜的 GPU 1" },
    { points: 1, text: "cached 3,000 > missed 1,000，持有者 GPU 1 和 3，L + M + P = [0.1, 0.5, 0.2, 0.3] 秒：应利用，只在持有者里挑最便宜的 GPU 3" },
    { points: 1, text: "没有匹配（cached 0、missed 500），L + M + P = [0.4, 0.2, 0.2, 0.3] 秒：应探索，一样便宜时取编号小的 GPU 1" },
    hidden(2, "练习 3 的情景（4 块 GPU；GPU 2 有系统提示 + 21,000 token 的文档，其余只有系统提示；问题 1,987 token）：cached 21,013 > missed 1,987，应利用 GPU 2"),
    hidden(1, "cached 3,000 > missed 1,000，持有者 GPU 2，事后再平衡要把它改派到 GPU 0：应为再平衡改派 GPU 0"),
    hidden(1, "练习 3 的情景、问题换成 22,000 token：cached 21,013 < missed 22,000，应探索，GPU 与库的 E2 相同"),
    hidden(1, "§3 的工具调用热点（8 块 GPU、E2 + 再平衡、800 个请求）：每个决定都应和库的 E2 相同"),
    hidden(1, "§3 的长文档问答（4 块 GPU、只有 E2、800 个请求）：每个决定都应和库的 E2 相同"),
  ],
  explanation: () =>
    "参考实现就是笔记本 03 的 e2（去掉搭配）：**cached > missed 时利用**——在持有最长匹配的 GPU 里挑 L + M + P 最低的，再问 `s.redirect`，要改派就是再平衡；**否则探索**——在所有 GPU 里挑 L + M + P 最低的；一样低都取编号小的。练习 3 的请求 cached 远大于 missed，所以利用，候选只有 GPU 2。\n\n" +
    "常见错误：写成 cached ≥ missed（边界上该探索却利用了）；利用时在所有 GPU 里挑（那就不是利用了）；探索时只在持有者里挑；比较的是 L 而不是 L + M + P；忘了问再平衡。",
});
