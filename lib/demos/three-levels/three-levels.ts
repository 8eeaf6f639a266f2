// §5 the three levels of routing and their shared lessons, each judged on several demos at once: herding and its
// cure at each level (05.3), simple rules take most of the gain (05.4), information and its freshness (05.5). Each
// runs the demos it draws on at their own defaults (runDemo), the runs notebooks 01–04 show — so the numbers here are
// the ones the reader saw there, and in the notebooks they come from the result cache — and collects them into one table.
// Where that run is not in the cache (05 opened alone), runDemoSmaller runs only the rows read here (the policies,
// workloads, rates they are in): the same numbers, each run being a pure function of its own row's settings and seed
// (test/narrow-runs.test.ts compares the two ways).
import { checkInteger, checkNumber } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { f, need, needParam, needRow, needRows, pct } from "../claims";
import { formatSignificant as sig } from "../../core/format";
import { OVERLOAD_NOTE } from "../cache-balance/section2";
import { seedView } from "../preble/figure3-seeds";
import { getSystem } from "../../selector/systems";
import { defineDemo, getDemo, runDemo, runDemoSmaller } from "../registry";

const LEVEL_COLUMN = { key: "level", label: "层次", format: "name" as const };

/** Whether the row matching `match` of a cluster demo's table ran overloaded (its "overloaded" column). */
function overloadedIn(t: Table, match: Record<string, string | number | boolean | null>): boolean {
  return needRow(t, match).overloaded === true;
}

/** An outcome as the table writes it (three significant digits), marked "（过载）" where that run was overloaded. */
function outcomeText(r: Row): string {
  return `${sig(Number(r.outcome))}${r.overloaded === true ? "（过载）" : ""}`;
}

/** The number in `key` of the row matching `match` of a sub-demo's table (the claim says which row was missing). */
function cellOf(t: Table, match: Record<string, string | number | boolean | null>, key: string): number {
  return need(t, match, key);
}

// ---------------------------------------------------------------------------------------------------------------

export const herdingAtEachLevel = defineDemo({
  id: "05.3",
  section: "§5",
  title: "教训：所有决定追逐同一个最优就会扎堆——每个层次上的扎堆与解药",
  // Size: no size of its own: 01.4, 02.1, 03.3 at their defaults (or only the rows read, runDemoSmaller) and 04.4 with `pools` pools.
  defaults: { seed: 1, pools: 10 },
  describe: {
    seed: { meaning: "派发模拟与集群模拟的种子（传给演示 01.4、02.1、03.3）", range: "整数" },
    pools: { meaning: "辩论那一行用的随机模型池个数（传给演示 04.4）", range: "1–100 的整数" },
  },
  run(p, { progress }) {
    const seed = checkInteger("seed", p.seed);
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    progress?.("05.3：01.4 过时的最短队列");
    const t14 = runDemoSmaller("01.4", { seed }, { policies: ["jsq", "powerOfTwo"] });
    progress?.("05.3：02.1 前缀亲和");
    const t21 = runDemoSmaller("02.1", { seed }, { workloads: ["longDocQA"], policies: ["prefixAffinity", "thresholdAffinity"] });
    progress?.("05.3：03.3 热点");
    const t33 = runDemoSmaller("03.3", { seed }, { readings: ["lecture"], thBals: [1.5] });
    progress?.("05.3：04.4 辩论");
    const t44 = runDemo("04.4", { pools });
    const servers = Number(t14.params?.servers ?? 16);
    const replicas21 = Number(t21.params?.replicas ?? 4);
    const replicas33 = Number(t33.params?.replicas ?? 8);
    const rows: Row[] = [];
    const add = (r: Row) => rows.push(r);
    const jsqMean = cellOf(t14, { policy: "jsq" }, "mean");
    add({ level: "requestToReplica", case: `过时的负载快照（T = ${t14.params?.refresh}）`, demo: "01.4", role: "herding", rule: "jsq", share: cellOf(t14, { policy: "jsq" }, "topServerShare"), fair: 1 / servers, outcome: jsqMean, unit: "平均响应（个服务时间）" });
    add({ level: "requestToReplica", case: `过时的负载快照（T = ${t14.params?.refresh}）`, demo: "01.4", role: "cure", rule: "powerOfTwo", share: cellOf(t14, { policy: "powerOfTwo" }, "topServerShare"), fair: 1 / servers, outcome: cellOf(t14, { policy: "powerOfTwo" }, "mean"), unit: "平均响应（个服务时间）" });
    add({ level: "requestToReplica", case: "长文档：共享的系统提示", demo: "02.1", role: "herding", rule: "prefixAffinity", share: cellOf(t21, { workload: "longDocQA", policy: "prefixAffinity" }, "maxShare"), fair: 1 / replicas21, outcome: cellOf(t21, { workload: "longDocQA", policy: "prefixAffinity" }, "meanLatency"), unit: "平均延迟（秒）", overloaded: overloadedIn(t21, { workload: "longDocQA", policy: "prefixAffinity" }) });
    add({ level: "requestToReplica", case: "长文档：共享的系统提示", demo: "02.1", role: "cure", rule: "thresholdAffinity", share: cellOf(t21, { workload: "longDocQA", policy: "thresholdAffinity" }, "maxShare"), fair: 1 / replicas21, outcome: cellOf(t21, { workload: "longDocQA", policy: "thresholdAffinity" }, "meanLatency"), unit: "平均延迟（秒）", overloaded: overloadedIn(t21, { workload: "longDocQA", policy: "thresholdAffinity" }) });
    add({ level: "requestToReplica", case: "工具调用：一个超热的工具", demo: "03.3", role: "herding", rule: "e2", share: cellOf(t33, { policy: "e2" }, "maxShare"), fair: 1 / replicas33, outcome: cellOf(t33, { policy: "e2" }, "meanLatency"), unit: "平均延迟（秒）", overloaded: overloadedIn(t33, { policy: "e2" }) });
    add({ level: "requestToReplica", case: "工具调用：一个超热的工具", demo: "03.3", role: "cure", rule: "e2+rebalance", share: cellOf(t33, { policy: "e2+rebalance", thBal: 1.5 }, "maxShare"), fair: 1 / replicas33, outcome: cellOf(t33, { policy: "e2+rebalance", thBal: 1.5 }, "meanLatency"), unit: "平均延迟（秒）", overloaded: overloadedIn(t33, { policy: "e2+rebalance", thBal: 1.5 }) });
    // module → model: the share of the three generator slots held by the most-used model; outcome = test points
    // below the pool's optimum (mean over pools)
    const debateRows = needRows(t44, { experiment: "debateDiversity" });
    const topShare = (label: string) => {
      const gens = label.split(" / ")[0].split("+");
      const counts = new Map<string, number>();
      for (const g of gens) counts.set(g, (counts.get(g) ?? 0) + 1);
      return Math.max(...counts.values()) / gens.length;
    };
    const meanOf = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    add({ level: "moduleToModel", case: `辩论的三个生成者（${debateRows.length} 个池）`, demo: "04.4", role: "herding", rule: "sameGenerators", share: meanOf(debateRows.map((r) => topShare(String(r.comparator)))), fair: 1 / 3, outcome: meanOf(debateRows.map((r) => Number(r.gain))), unit: "比最优低（测试，百分点）" });
    add({ level: "moduleToModel", case: `辩论的三个生成者（${debateRows.length} 个池）`, demo: "04.4", role: "cure", rule: "mixedGenerators", share: meanOf(debateRows.map((r) => topShare(String(r.optimum)))), fair: 1 / 3, outcome: 0, unit: "比最优低（测试，百分点）" });
    return {
      title: "扎堆与解药：每个层次上最集中的目标拿到多少（流量或生成者）",
      columns: [
        LEVEL_COLUMN,
        { key: "case", label: "情形", format: "text" },
        { key: "demo", label: "演示", format: "text" },
        { key: "role", label: "规则的类别", format: "name" },
        { key: "rule", label: "规则", format: "name" },
        { key: "share", label: "最集中的目标的份额", format: "percent0" },
        { key: "fair", label: "平均份额", format: "percent0" },
        { key: "outcome", label: "结果", format: "sig3" },
        { key: "unit", label: "结果的含义", format: "text" },
        { key: "overloaded", label: "过载" },
      ],
      rows,
      notes: [
        `最集中的目标的份额 = 拿得最多的那个目标拿到的 ÷ 全部：01.4 是一个刷新周期里收到请求最多的那台服务器收到的请求数 ÷ 这个周期到达的请求数（${servers} 台服务器，按周期、再按种子平均）；02.1、03.3 是最忙的副本处理的请求数 ÷ 计入统计的全部请求数（预热之后；${replicas21} 个、${replicas33} 个副本）；04.4 是三个生成者位置里用得最多的那个模型占的位置数 ÷ 3（按池平均；100% = 三个一样）。`,
        `平均份额 = 1 ÷ 目标个数（1/${servers}、1/${replicas21}、1/${replicas33}、1/3）：完全均分时每个目标拿到的份额；最集中的目标的份额不会低于它。`,
        `01.4、02.1、03.3 取各自演示的默认参数（种子 ${seed}），04.4 用 ${pools} 个池；参数与前面笔记本里相同时就是同一次运行。`,
        `${OVERLOAD_NOTE}只有 02.1、03.3 的行是集群模拟，01.4、04.4 的行这一列是"—"。`,
        "04.4 解药那一行就是每个池的最优分配本身（穷举选出），它的“比最优低”按定义是 0：这一行要看的是最优分配里生成者的份额（是否混用模型），不是结果。",
        "解药：二选一代替最短队列（随机性）；命中过半才亲和（阈值 0.5，一种负载保护）；派发后再平衡（Th_bal = 1.5，显式的负载保护）；辩论里允许混用模型（多样性）。",
      ],
    };
  },
  claims: [
    {
      id: "herding-everywhere",
      says: "每个层次上，追逐同一个最优的规则都把流量（或生成者）堆到一个目标上，远超平均份额",
      lecture: "最短队列的扎堆、前缀亲和的崩溃、三个生成者都用最强的模型，是同一种现象",
      judge: (t) => {
        const rs = needRows(t, { role: "herding" });
        return {
          holds: rs.every((r) => Number(r.share) >= 2 * Number(r.fair)),
          ours: rs.map((r) => `${displayName(r.rule)} ${pct(Number(r.share))}（平均 ${pct(Number(r.fair))}）`).join("；"),
        };
      },
    },
    {
      id: "cures-work",
      says: "随机性（二选一）、显式的负载保护（再平衡）、显式的多样性，都是解药：最集中的目标的份额降下来，结果也更好",
      lecture: "随机性（二选一）、显式的负载保护（再平衡）、显式的多样性，都是解药",
      judge: (t) => {
        const cases = [...new Set(t.rows.map((r) => String(r.case)))];
        needParam(cases.length > 0, "没有行");
        const parts = cases.map((c) => {
          const h = needRow(t, { case: c, role: "herding" });
          const k = needRow(t, { case: c, role: "cure" });
          return { h, k, ok: Number(k.share) < Number(h.share) && Number(k.outcome) < Number(h.outcome) };
        });
        return {
          holds: parts.every((x) => x.ok),
          ours: parts.map(({ h, k }) => `${displayName(h.rule)} → ${displayName(k.rule)}：${pct(Number(h.share))} → ${pct(Number(k.share))}，${h.unit} ${outcomeText(h)} → ${outcomeText(k)}`).join("；"),
        };
      },
    },
  ],
});

// ---------------------------------------------------------------------------------------------------------------

/** Share of the elaborate rule's gain over the baseline that the simple rule takes (lower-is-better metrics when
 * `lowerBetter`). */
/** "（慢 x%）" / "（快 x%）" of the simple rule against Preble (seconds, lower is better). */
function gapWords(simple: number, elaborate: number): string {
  const d = simple / elaborate - 1;
  if (Math.abs(d) < 0.005) return "（相同）";
  return d > 0 ? `（简单规则慢 ${f(d * 100, 0)}%）` : `（简单规则快 ${f(-d * 100, 0)}%）`;
}

function captured(baseline: number, simple: number, elaborate: number, lowerBetter: boolean): number {
  const gain = lowerBetter ? baseline - elaborate : elaborate - baseline;
  const got = lowerBetter ? baseline - simple : simple - baseline;
  return gain === 0 ? NaN : got / gain;
}

export const simpleRulesTakeMost = defineDemo({
  id: "05.4",
  section: "§5",
  title: "教训：简单规则拿走大部分收益——每个层次上简单规则与精巧设计的对比",
  // Size: no size of its own: 01.2, 03.1, 04.1, 05.2 at their defaults (or only the rows read) and 04.2 with 3 seeds × `pools` pools.
  defaults: { seed: 1, pools: 10, runsPerPool: 3 },
  describe: {
    seed: { meaning: "派发模拟与集群模拟的种子（传给演示 01.2、03.1）", range: "整数" },
    pools: { meaning: "每个种子下的随机模型池个数（传给演示 04.2，3 个种子）", range: "1–100 的整数" },
    runsPerPool: { meaning: "每池贪心与 LLMSelector 各跑几次（传给演示 04.2）", range: "1–100 的整数" },
  },
  run(p, { progress }) {
    const seed = checkInteger("seed", p.seed);
    const pools = checkInteger("pools", p.pools, { min: 1, max: 100 });
    const runs = checkInteger("runsPerPool", p.runsPerPool, { min: 1, max: 100 });
    progress?.("05.4：01.2 二选一");
    const t12 = runDemoSmaller("01.2", { seed }, { policies: ["random", "jsq", "powerOfTwo"] });
    progress?.("05.4：03.1 缓存感知 + 负载保护 vs Preble");
    // seed 1's view: the simple rule ran one seed, so the baseline and Preble are read at the same seed
    const t31 = seedView(runDemoSmaller("03.1", { seed }, { readings: ["lecture"], workloads: ["longDocQA", "videoQA"], rates: { longDocQA: [1], videoQA: [4, 8] }, configurations: ["baseline", "cacheAwareGuarded", "preble"], ratioSeeds: 1 }), 0);
    progress?.("05.4：04.2 贪心 vs LLMSelector");
    const t42 = runDemo("04.2", { pools, runsPerPool: runs });
    progress?.("05.4：04.1 局部最优");
    const t41 = runDemo("04.1");
    progress?.("05.4：05.2 单阈值路由器");
    const t52 = runDemo("05.2");
    const rows: Row[] = [];
    for (const sizes of ["exponential", "boundedPareto"]) {
      const m = (policy: string) => cellOf(t12, { sizes, policy }, "mean");
      rows.push({ level: "requestToReplica", case: `16 台服务器，${displayName(sizes)}`, demo: "01.2", baselineRule: "random", simpleRule: "powerOfTwo", elaborateRule: "jsq", baseline: m("random"), simple: m("powerOfTwo"), elaborate: m("jsq"), unit: "平均响应（个服务时间）", lowerBetter: true });
    }
    for (const [workload, rate] of [["longDocQA", 1], ["videoQA", 4], ["videoQA", 8]] as const) {
      const m = (policy: string) => cellOf(t31, { workload, rate, policy }, "meanLatency");
      rows.push({ level: "requestToReplica", case: `${displayName(workload)} ${rate} 请求/秒`, demo: "03.1", baselineRule: "baseline", simpleRule: "cacheAwareGuarded", elaborateRule: "preble", baseline: m("baseline"), simple: m("cacheAwareGuarded"), elaborate: m("preble"), unit: "平均延迟（秒）", lowerBetter: true, overloaded: needRow(t31, { workload, rate, policy: "cacheAwareGuarded" }).overloaded === true });
    }
    const exact = needRow(t52, { method: "router", signalNoise: 0 });
    const strongest = Number(exact.costPerQuestion) / Number(exact.costShare);
    rows.push({ level: "requestToModel", case: "追上最强模型（信号准确）", demo: "05.2", baselineRule: "single", simpleRule: "router", elaborateRule: "cascade", baseline: 1, simple: cellOf(t52, { method: "router", signalNoise: 0 }, "costShare"), elaborate: cellOf(t52, { method: "cascade", signalNoise: 0 }, "costShare"), unit: `每题价格 ÷ 最强模型的（${f(strongest, 0)}）`, lowerBetter: true, testGapPoints: Number(exact.accuracyGapPoints), tolerancePoints: Number(getDemo("05.2").defaults.tolerancePoints) });
    for (const system of [...new Set(t42.rows.map((r) => String(r.system)))]) {
      const g = (method: string) => cellOf(t42, { system, method }, "testAcc");
      const llm = needRow(t42, { system, method: "llmSelector" });
      const runsTotal = Number(llm.winsOverGreedy) + Number(llm.tiesWithGreedy) + Number(llm.lossesToGreedy);
      const poolsTotal = Number(t42.params?.pools) * Number(t42.params?.seeds);
      const train = (method: string) => Number(needRow(t42, { system, method }).trainAcc);
      rows.push({ level: "moduleToModel", case: `随机模型池：${displayName(system)}`, demo: "04.2", baselineRule: "bestSingle", simpleRule: "greedy", elaborateRule: "llmSelector", baseline: g("bestSingle"), simple: g("greedy"), elaborate: g("llmSelector"), unit: "测试准确率", lowerBetter: false, notWorse: (runsTotal - Number(llm.winsOverGreedy)) / runsTotal, notWorsePools: Number(llm.poolsGreedyNotWorse) / poolsTotal, modules: getSystem(system).modules.length, greedyTrainShort: 100 * (train("exhaustive") - train("greedy")), llmTrainShort: 100 * (train("exhaustive") - train("llmSelector")) });
    }
    const cc = (method: string) => needRows(t41, { method, start: "C+C", scope: "single" })[0];
    rows.push({ level: "moduleToModel", case: "定位-求解案例，从 C+C 出发", demo: "04.1", baselineRule: "bestSingle", simpleRule: "greedy", elaborateRule: "llmSelector", baseline: Number(needRow(t41, { method: "bestSingle" }).testAcc), simple: Number(cc("greedy").testAcc), elaborate: Number(cc("llmSelector").testAcc), unit: "测试准确率", lowerBetter: false, edge: true });
    for (const r of rows) r.captured = captured(Number(r.baseline), Number(r.simple), Number(r.elaborate), r.lowerBetter === true);
    return {
      title: "简单规则拿走大部分收益：简单规则拿到了精巧设计相对基线收益的多少",
      columns: [
        LEVEL_COLUMN,
        { key: "case", label: "情形", format: "text" },
        { key: "demo", label: "演示", format: "text" },
        { key: "baselineRule", label: "基线", format: "name" },
        { key: "simpleRule", label: "简单规则", format: "name" },
        { key: "elaborateRule", label: "精巧设计", format: "name" },
        { key: "baseline", label: "基线的结果", format: "sig3" },
        { key: "simple", label: "简单规则的结果", format: "sig3" },
        { key: "elaborate", label: "精巧设计的结果", format: "sig3" },
        { key: "unit", label: "结果的含义", format: "text" },
        { key: "captured", label: "简单规则拿到的收益", format: "percent0" },
      ],
      rows,
      notes: [
        "拿到的收益 = (基线 − 简单规则) ÷ (基线 − 精巧设计)，越大越好的指标反过来算；超过 100% 表示简单规则比精巧设计还好，小于 0 表示简单规则连基线都不如。",
        `01.2、03.1、04.1、05.2 取各自演示的默认参数（01.2、03.1 用种子 ${seed}），04.2 用它默认的 ${f(Number(getDemo("04.2").defaults.seeds), 0)} 个种子 × ${pools} 个池、每池 ${runs} 次；参数与前面笔记本里相同时就是同一次运行。05.2 只取最准的信号。`,
      ],
    };
  },
  claims: [
    {
      id: "two-choice",
      says: "二选一只看两台，就拿走了最短队列相对随机派发的大部分收益",
      lecture: "二选一只看两台就拿到大部分好处",
      judge: (t) => {
        const rs = needRows(t, { demo: "01.2" });
        return { holds: rs.every((r) => Number(r.captured) >= 0.5), ours: rs.map((r) => `${r.case}：${pct(Number(r.captured))}`).join("；") };
      },
    },
    {
      id: "guarded-vs-preble",
      says: "“命中过半才亲和 + 负载保护”在中低负载下不输 Preble（平均延迟慢不到 10% 也算不输）",
      lecture: "长文档 1/s 时甚至更好（3.88 vs 5.35 秒）",
      judge: (t) => {
        const rs = needRows(t, { demo: "03.1" }).filter((r) => r.overloaded !== true);
        needParam(rs.length > 0, "没有未过载的负载");
        return {
          holds: rs.every((r) => Number(r.simple) <= 1.1 * Number(r.elaborate)),
          ours: `${rs.map((r) => `${r.case}：${sig(Number(r.simple))} 对 Preble ${sig(Number(r.elaborate))} 秒${gapWords(Number(r.simple), Number(r.elaborate))}`).join("；")}。秒数与讲义的不同（讲义的数来自它自己的模拟——代码 03，与这里的模拟器不是同一个），比的是快慢：讲义 3.88 对 5.35 秒${gapWords(3.88, 5.35)}`,
          why: rs
            .filter((r) => Number(r.simple) > 1.1 * Number(r.elaborate))
            .map((r) => `${r.case}：${sig(Number(r.simple))} 对 Preble ${sig(Number(r.elaborate))} 秒${gapWords(Number(r.simple), Number(r.elaborate))}，慢了 10% 以上`)
            .join("；"),
        };
      },
    },
    {
      id: "elaborate-at-the-edge",
      says: "精巧的设计在边界情况下才显出价值：过载时的 Preble、局部最优处的 LLMSelector",
      lecture: "精巧的设计在边界情况（热点、局部最优、过载）下才显出价值",
      judge: (t) => {
        const over = needRows(t, { demo: "03.1" }).filter((r) => r.overloaded === true);
        const edge = needRow(t, { demo: "04.1" });
        const parts = over.map((r) => `${r.case}：简单规则 ${sig(Number(r.simple))} 秒（过载），Preble ${sig(Number(r.elaborate))} 秒`);
        parts.push(`定位-求解从 C+C 出发：贪心 ${sig(Number(edge.simple))}，LLMSelector ${sig(Number(edge.elaborate))}`);
        return { holds: over.length > 0 && over.every((r) => Number(r.elaborate) < Number(r.simple) / 1.5) && Number(edge.captured) < 0.5, ours: parts.join("；") };
      },
    },
    {
      id: "greedy-most-pools",
      says: "贪心在多数模型池上不输 LLMSelector（每种系统上，按池平均的测试准确率不低于 LLMSelector 的池过半）",
      lecture: "贪心在多数模型池上不输 LLMSelector",
      judge: (t) => {
        const rs = needRows(t, { demo: "04.2" });
        const weak = rs.filter((r) => !(Number(r.notWorsePools) > 0.5));
        return {
          holds: weak.length === 0,
          ours: rs.map((r) => `${String(r.case).replace("随机模型池：", "")}：${pct(Number(r.notWorsePools))} 的池不输（按运行数 ${pct(Number(r.notWorse))}），平均拿到 LLMSelector 收益的 ${pct(Number(r.captured))}`).join("；"),
          why: weak
            .map((r) => `${String(r.case).replace("随机模型池：", "")}（${r.modules} 个模块）上只有 ${pct(Number(r.notWorsePools))} 的池贪心不输：贪心停下时换哪一个模块都不再提高训练准确率，训练准确率却平均比穷举低 ${f(Number(r.greedyTrainShort), 1)} 个百分点（LLMSelector 低 ${f(Number(r.llmTrainShort), 1)}），即停在了局部最优`)
            .join("；"),
        };
      },
    },
    {
      id: "one-threshold-router",
      says: "请求 → 模型：只有一个阈值的路由器，信号准时就能以最强模型一部分的价格追上它",
      judge: (t) => {
        const r = needRow(t, { demo: "05.2" });
        const gap = Number(r.testGapPoints);
        const tolerance = Number(r.tolerancePoints);
        // "catches up" on the test set: the price is the training-set threshold's, the accuracy is judged on new questions
        return {
          holds: Number(r.simple) < 1 && gap <= tolerance + 1e-9,
          ours: `路由器 ${pct(Number(r.simple))}、级联 ${pct(Number(r.elaborate))} 的价格；测试集上路由器比最强模型低 ${f(gap, 1)} 个百分点`,
          why: Number(r.simple) >= 1 ? "路由器没有比最强模型便宜" : `价格是训练集上挑的阈值的；到测试集上路由器比最强模型低 ${f(gap, 1)} 个百分点，超过 ${tolerance} 个百分点的目标，没有真正追上（笔记本 05 §5.2）`,
        };
      },
    },
  ],
});

// ---------------------------------------------------------------------------------------------------------------

/** 01.3's default refresh intervals with `needed` added (sorted): at the default stale interval, 01.3's own defaults,
 * the run notebook 01 shows. */
function withIntervals(needed: number[]): number[] {
  const list = [...(getDemo("01.3").defaults.refreshIntervals as number[])];
  for (const x of needed) if (!list.includes(x)) list.push(x);
  return list.sort((a, b) => a - b);
}

export const informationAndFreshness = defineDemo({
  id: "05.5",
  section: "§5",
  title: "教训：信息决定上限，新鲜度决定会不会出事——每个层次需要的信息",
  // Size: no size of its own: 01.3, 02.1, 04.3, 05.2 at their defaults (or only the rows read).
  defaults: { seed: 1, staleInterval: 4 },
  describe: {
    seed: { meaning: "派发模拟与集群模拟的种子（传给演示 01.3、02.1）", range: "整数" },
    staleInterval: { meaning: "过时的负载快照多久刷新一次（平均服务时间，传给演示 01.3）", range: "> 0" },
  },
  run(p, { progress }) {
    const seed = checkInteger("seed", p.seed);
    const stale = checkNumber("staleInterval", p.staleInterval, { above: 0 });
    progress?.("05.5：01.3 过时的负载信息");
    const t13 = runDemoSmaller("01.3", { seed, refreshIntervals: withIntervals([0, stale]) }, { refreshIntervals: [0, stale] });
    progress?.("05.5：02.1 缓存信息");
    const t21 = runDemoSmaller("02.1", { seed }, { workloads: ["longDocQA"], policies: ["leastLoad", "thresholdAffinity"] });
    progress?.("05.5：05.2 信号的质量");
    const t52 = runDemo("05.2");
    progress?.("05.5：04.3 诊断器的准确率");
    const t43 = runDemo("04.3");
    const rows: Row[] = [];
    const m13 = (refresh: number, policy: string) => cellOf(t13, { refresh, policy }, "mean");
    rows.push({ level: "requestToReplica", info: "各服务器的队列长度", demo: "01.3", rule: "jsq", condition: "实时（T = 0）", value: m13(0, "jsq"), reference: m13(0, "random"), unit: "平均响应（个服务时间）", referenceUnit: "随机派发在同一刷新间隔下的平均响应（个服务时间）" });
    rows.push({ level: "requestToReplica", info: "各服务器的队列长度", demo: "01.3", rule: "jsq", condition: `过时（T = ${stale}）`, value: m13(stale, "jsq"), reference: m13(stale, "random"), unit: "平均响应（个服务时间）", referenceUnit: "随机派发在同一刷新间隔下的平均响应（个服务时间）" });
    rows.push({ level: "requestToReplica", info: "各服务器的队列长度", demo: "01.3", rule: "powerOfTwo", condition: "实时（T = 0）", value: m13(0, "powerOfTwo"), reference: m13(0, "random"), unit: "平均响应（个服务时间）", referenceUnit: "随机派发在同一刷新间隔下的平均响应（个服务时间）" });
    rows.push({ level: "requestToReplica", info: "各服务器的队列长度", demo: "01.3", rule: "powerOfTwo", condition: `过时（T = ${stale}）`, value: m13(stale, "powerOfTwo"), reference: m13(stale, "random"), unit: "平均响应（个服务时间）", referenceUnit: "随机派发在同一刷新间隔下的平均响应（个服务时间）" });
    for (const policy of ["leastLoad", "thresholdAffinity"]) {
      rows.push({ level: "requestToReplica", info: "谁缓存了什么", demo: "02.1", rule: policy, condition: policy === "leastLoad" ? "不看缓存" : "看缓存（派出即记下）", value: cellOf(t21, { workload: "longDocQA", policy }, "hitRate"), valueFormat: "percent1", reference: cellOf(t21, { workload: "longDocQA", policy }, "meanLatency"), unit: "长文档的命中率", referenceUnit: "这条规则自己的平均延迟（秒）" });
    }
    for (const method of ["cascade", "router"]) {
      const rs = needRows(t52, { method }).sort((a, b) => Number(a.signalNoise) - Number(b.signalNoise));
      for (const r of [rs[0], rs[rs.length - 1]]) {
        rows.push({ level: "requestToModel", info: method === "cascade" ? "答案对不对（打分器）" : "题目难不难（难度估计）", demo: "05.2", rule: method, condition: method === "cascade" ? `AUC ${f(Number(r.scorerAuc), 2)}` : `相关系数 ${f(Number(r.routerCorrelation), 2)}`, value: Number(r.costShare), reference: Number(r.accuracy), unit: `训练集上追上最强模型（低不到 ${f(Number(getDemo("05.2").defaults.tolerancePoints), 0)} 个百分点）的价格 ÷ 它的价格`, referenceUnit: "这条规则自己的测试准确率" });
      }
    }
    for (const q of [1, 0.6]) {
      const runs = cellOf(t43, { verdicts: "fresh", q }, "runs");
      rows.push({ level: "moduleToModel", info: "哪个模块出了错（诊断器）", demo: "04.3", rule: "llmSelector", condition: `诊断正确的概率 q = ${q}`, value: cellOf(t43, { verdicts: "fresh", q }, "evaluated"), reference: cellOf(t43, { verdicts: "fresh", q }, "testAcc"), runs, unit: `评估的分配数（${f(runs, 0)} 次运行的均值）`, referenceUnit: `测试准确率（同样 ${f(runs, 0)} 次运行的均值）` });
    }
    return {
      title: `信息与新鲜度：每个层次上信息变差时会怎样（过时的快照 T = ${stale}）`,
      columns: [
        LEVEL_COLUMN,
        { key: "info", label: "需要的信息", format: "text" },
        { key: "demo", label: "演示", format: "text" },
        { key: "rule", label: "规则", format: "name" },
        { key: "condition", label: "信息的状况", format: "text" },
        { key: "value", label: "结果", format: "sig3", formatFrom: "valueFormat" },
        { key: "unit", label: "结果的含义", format: "text" },
        { key: "reference", label: "另一个量", format: "sig3" },
        { key: "referenceUnit", label: "另一个量的含义（每行不同）", format: "text" },
      ],
      rows,
      notes: [
        "01.3（默认的刷新间隔之外补上需要的几档）、02.1、04.3、05.2 取各自演示的默认参数；参数与前面笔记本里相同时就是同一次运行。05.2 只取最好和最差的信号。",
        "缓存信息也有新鲜度的问题：Preble 在派发时就更新全局树，本地淘汰再异步通知；SGLang 路由器只按派发历史维护一棵近似树，副本因显存压力淘汰或重启清空了缓存，它都不知道（见 06）。",
      ],
    };
  },
  claims: [
    {
      id: "load-info",
      says: "实时的队列长度让最短队列远好于随机派发；信息过时几个服务时间，它反而比随机更差，二选一仍好于随机",
      lecture: "信息过时几个服务时间，它就比随机还差（误区 2）",
      judge: (t) => {
        const live = needRow(t, { rule: "jsq", condition: "实时（T = 0）" });
        const old = needRows(t, { rule: "jsq" }).find((r) => r !== live);
        const p2 = needRows(t, { rule: "powerOfTwo" });
        needParam(old !== undefined && p2.length === 2, "需要实时与过时两种快照");
        const o = old as Row;
        return {
          holds: Number(live.value) < Number(live.reference) / 2 && Number(o.value) > Number(o.reference) && Number(p2[1].value) < Number(p2[1].reference),
          ours: `最短队列 ${sig(Number(live.value))} → ${sig(Number(o.value))}（随机 ${sig(Number(o.reference))}）；二选一 ${sig(Number(p2[0].value))} → ${sig(Number(p2[1].value))}`,
          why: [
            Number(live.value) < Number(live.reference) / 2 ? "" : `实时信息下最短队列 ${sig(Number(live.value))} 没有低到随机 ${sig(Number(live.reference))} 的一半以下`,
            Number(o.value) > Number(o.reference) ? "" : `${o.condition}时最短队列 ${sig(Number(o.value))} 没有比随机 ${sig(Number(o.reference))} 差`,
            Number(p2[1].value) < Number(p2[1].reference) ? "" : `${p2[1].condition}时二选一 ${sig(Number(p2[1].value))} 不比随机 ${sig(Number(p2[1].reference))} 好`,
          ].filter(Boolean).join("；"),
        };
      },
    },
    {
      id: "cache-info",
      says: "知道谁缓存了什么，命中率和延迟都好得多",
      lecture: "命中率 33% → 58%",
      judge: (t) => {
        const a = needRow(t, { rule: "leastLoad" });
        const b = needRow(t, { rule: "thresholdAffinity" });
        return {
          holds: Number(b.value) > Number(a.value) && Number(b.reference) < Number(a.reference),
          ours: `命中率 ${pct(Number(a.value), 1)} → ${pct(Number(b.value), 1)}，平均延迟 ${sig(Number(a.reference))} → ${sig(Number(b.reference))} 秒（和讲义一样，比的是两条规则：只看负载的${displayName(a.rule)}与看缓存的${displayName(b.rule)}；后者不只多了信息，还按它决定亲和与否）`,
          why: Number(b.value) <= Number(a.value) ? "看缓存的规则命中率没有更高" : "看缓存的规则平均延迟没有更低",
        };
      },
    },
    {
      id: "signal-info",
      says: "请求 → 模型：信号越准，追上最强模型花的钱越少；信号成了噪声，省下的钱所剩无几——路由器最多退回到全交给最强的模型，级联没有这个底线，可能比直接用它还贵",
      judge: (t) => {
        const parts = ["cascade", "router"].map((m) => needRows(t, { rule: m }));
        return {
          holds: parts.every((rs) => rs.length === 2 && Number(rs[0].value) < Number(rs[1].value)) && parts[1].every((r) => Number(r.value) <= 1 + 1e-9),
          ours: parts.map((rs) => `${displayName(rs[0].rule)}：${rs.map((r) => `${r.condition} 时 ${pct(Number(r.value))}`).join(" → ")}`).join("；"),
        };
      },
    },
    {
      id: "diagnosis-info",
      says: "模块 → 模型：诊断器不准，代价首先体现为预算上涨",
      lecture: "诊断器判断正确的概率从 1.0 降到 0.6，评估的分配数从 68 涨到 633",
      judge: (t) => {
        const rs = needRows(t, { rule: "llmSelector" });
        needParam(rs.length === 2, "需要 q = 1 与 q = 0.6 两行");
        return {
          holds: Number(rs[1].value) > 2 * Number(rs[0].value),
          ours: `${sig(Number(rs[0].value))} → ${sig(Number(rs[1].value))} 个分配（${f(Number(rs[1].value) / Number(rs[0].value), 1)} 倍；讲义 68 → 633，${f(633 / 68, 1)} 倍：这里是玩具世界里 ${rs[0].runs} 次运行的均值，讲义是它的实验，比的是涨的方向与量级），测试准确率 ${sig(Number(rs[0].reference))} → ${sig(Number(rs[1].reference))}`,
          why: `分配数只涨到 ${f(Number(rs[1].value) / Number(rs[0].value), 1)} 倍，不到 2 倍`,
        };
      },
    },
  ],
});

export const threeLevelsDemos = [herdingAtEachLevel, simpleRulesTakeMost, informationAndFreshness];
