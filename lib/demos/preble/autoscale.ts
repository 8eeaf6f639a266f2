// 03.4 — autoscaling on 03.3's hot spot (both readings), and the window H on long documents (both readings).
import { displayName } from "../../core/glossary";
import { checkEachOneOf, checkInteger, checkNonEmpty, checkNumber } from "../../core/errors";
import type { Row } from "../../core/table";
import { configurationRun } from "../../cluster/preble/runs";
import { simulateConfigurations } from "../../cluster/preble/memo";
import { cannotJudge, Claim, f, Judgement, needParam, needRows, notActed, seedsAgreeing, times } from "../claims";
import { COLUMNS, OVERLOAD_NOTE, SEED_DOC, seedsOf, WARMUP_NOTE } from "./common";
import { HOT_READINGS, RELEASED_COST } from "./hotspot";
import { defineDemo } from "../registry";

const num = (x: unknown): number => x as number;

type AutoscaleParams = {
  readings: string[];
  experiments: string[];
  hotSpotRate: number;
  hotSpotReplicas: number;
  hotSpotRequestCount: number;
  windows: number[];
  longDocRate: number;
  longDocRequestCount: number;
  windowSeeds: number;
  replicas: number;
  seed: number | string;
};

const setting = (t: Parameters<Claim["judge"]>[0], s: string, experiment = "autoscale") => needRows(t, { experiment, setting: s })[0];

/** The autoscale experiment's four settings: [setting, configuration, router options]. The released rows add the
 * released load cost (RELEASED_COST) and, where rebalancing is on, the released action (migrate important nodes). */
const SCALING: ReadonlyArray<readonly [string, string, Record<string, unknown>]> = [
  ["e2", "e2", {}],
  ["e2 + autoscale", "e2", { autoscale: true }],
  ["e2 + rebalance", "e2+rebalance", {}],
  ["e2 + rebalance + autoscale", "e2+rebalance", { autoscale: true }],
];
const releasedScaling = (configuration: string, o: Record<string, unknown>): Record<string, unknown> =>
  configuration === "e2+rebalance" ? { rebalanceAction: "migrate", ...o, ...RELEASED_COST } : { ...o, ...RELEASED_COST };

/** Autoscaling in the released code (WukLab/preble 8e7906a) is not a mechanism of its own but one branch of the
 * rebalancing after each dispatch (gsw:345–347, 377–393): once 50 × #GPUs requests were dispatched and the busiest
 * GPU's load is ≥ 1.5 × the lightest's, a busiest GPU whose load rests on a single important node seen more than
 * once (gsw:406–410, 419) copies that node to the lightest GPU when the lightest does not hold it and the node's
 * mean TTFT on the busiest GPU in the later half of a 3-minute window is ≥ 2 × the earlier half
 * (gsw:211, 363, 493–497; ttft_overload_detector.py:31–63, each half needing one sample); the detector's data for
 * that (node, GPU) are then dropped (gsw:429), which is the only cool-down. Our autoscaler (lib/cluster/preble/
 * rebalance.ts maybeAutoscale) triggers on queueing time instead, by itself (also without rebalancing), with ≥ 5
 * samples per half, ≥ 0.5 s and an H/2 cool-down. The released rows therefore run our autoscaler over the released
 * load cost and, with rebalancing, the released migration (which leaves a single hot node to autoscaling). */
const RELEASED_AUTOSCALE_REMARK = "开源的 decode 项和 M、迁移重要节点的再平衡，自动扩展用我们的触发（见表下的说明）";

/** The autoscale claims under each reading in `readings` (the lecture's first); without "released" the lecture's
 * verdict alone. */
function perScalingReading<T extends Judgement>(p: AutoscaleParams, judge: (experiment: string) => T): T | Array<T & { reading: string }> {
  const list = HOT_READINGS.filter((r) => p.readings.includes(r.id));
  if (list.length === 0) cannotJudge("参数 readings 里没有可判断的读法");
  if (list.length === 1 && list[0].id === "lecture") return judge("autoscale");
  return list.map((r) => {
    if (r.id === "lecture") return { reading: r.label, ...judge("autoscale") };
    const v = judge("autoscaleReleased");
    return { reading: r.label, ...v, remark: [v.remark, RELEASED_AUTOSCALE_REMARK].filter(Boolean).join("；") };
  });
}

/** The window experiment under each reading in `readings` (the lecture's first): the released one runs full Preble as
 * released (prebleReleased), one seed per H to keep the demo fast. */
function perWindowReading<T extends Judgement>(p: AutoscaleParams, judge: (experiment: string) => T) {
  const list = HOT_READINGS.filter((r) => p.readings.includes(r.id));
  if (list.length === 0) cannotJudge("参数 readings 里没有可判断的读法");
  return list.map((r) => {
    const v = judge(r.id === "released" ? "windowReleased" : "window");
    return { reading: r.label, ...v, remark: r.id === "released" ? [v.remark, "开源代码的读法：完整 Preble 按开源代码跑，每个 H 一个种子、请求数较少（见说明）"].filter(Boolean).join("；") : v.remark };
  });
}

const AUTOSCALE_CLAIMS: Claim<AutoscaleParams>[] = [
  {
    id: "autoscale-helps-slowly",
    applies: (p) => p.experiments.includes("autoscale"),
    says: "只加自动扩展也能缓解热点，但反应慢：窗口的前半段要先攒够样本，第一次复制在半个窗口（90 秒）之后",
    judge: (t, p) => {
      needParam(p.experiments.includes("autoscale"), "需要 experiments 里有 \"autoscale\"");
      return perScalingReading(p, (experiment) => {
        const e2 = setting(t, "e2", experiment);
        const a = setting(t, "e2 + autoscale", experiment);
        if (num(a.autoscaled) === 0) return { holds: false, ours: `平均 ${f(num(e2.meanLatency), 1)} → ${f(num(a.meanLatency), 1)} 秒`, unjudged: notActed(0, "自动扩展", "热前缀后半个窗口的平均排队时间始终没有到前半个窗口的两倍") };
        const halves = num(a.meanLatency) < num(e2.meanLatency) / 2;
        const late = num(a.firstAutoscale) > 90;
        return {
          holds: halves && late,
          ours: `平均 ${f(num(e2.meanLatency), 1)} → ${f(num(a.meanLatency), 1)} 秒${a.overloaded ? "（仍过载）" : ""}；第一次复制在第 ${f(num(a.firstAutoscale), 0)} 秒，共复制 ${num(a.autoscaled)} 次`,
          remark: !halves ? "平均延迟没有降到一半以下" : !late ? "第一次复制不到 90 秒" : undefined,
          why: !halves ? `复制了 ${num(a.autoscaled)} 次，平均延迟只从 ${f(num(e2.meanLatency), 1)} 降到 ${f(num(a.meanLatency), 1)} 秒，没有降到一半以下` : `第一次复制在第 ${f(num(a.firstAutoscale), 0)} 秒，不到半个窗口（90 秒）`,
        };
      });
    },
  },
  {
    id: "rebalance-first",
    applies: (p) => p.experiments.includes("autoscale"),
    says: "再平衡每个请求都看一眼，从一开始就把热点摊开，比自动扩展快；两者都开时几乎没有留给自动扩展的事",
    judge: (t, p) => {
      needParam(p.experiments.includes("autoscale"), "需要 experiments 里有 \"autoscale\"");
      return perScalingReading(p, (experiment) => {
        const a = setting(t, "e2 + autoscale", experiment);
        const r = setting(t, "e2 + rebalance", experiment);
        const both = setting(t, "e2 + rebalance + autoscale", experiment);
        const faster = num(r.meanLatency) < num(a.meanLatency);
        const little = num(both.autoscaled) <= 2;
        const acted = r.migrated === undefined ? num(r.rebalanced) : num(r.migrated);
        return {
          holds: faster && little,
          unjudged: notActed(acted, r.migrated === undefined ? "再平衡（改派请求）" : "再平衡（迁移重要节点）"),
          why: !faster
            ? `E2 + 再平衡 ${f(num(r.meanLatency))} 秒，不比 E2 + 自动扩展的 ${f(num(a.meanLatency), 1)} 秒快${r.migrated !== undefined ? `：迁移了 ${f(num(r.migrated), 0)} 次重要节点，搬走的是热 GPU 上别的前缀，单个热前缀搬不走，开源代码把它留给复制（gsw:419–429）` : ""}`
            : `两者都开时自动扩展仍复制了 ${num(both.autoscaled)} 次`,
          ours: `E2 + 再平衡 ${f(num(r.meanLatency))} 秒${r.overloaded ? "（过载）" : ""}（${r.migrated === undefined ? `改派 ${f(num(r.rebalanced), 0)} 个请求` : `迁移 ${f(num(r.migrated), 0)} 次`}），E2 + 自动扩展 ${f(num(a.meanLatency), 1)} 秒${a.overloaded ? "（过载）" : ""}；两者都开时 ${f(num(both.meanLatency))} 秒，复制了 ${num(both.autoscaled)} 次`,
          remark: !faster
            ? `再平衡没有比自动扩展快${r.migrated ? `：迁移了 ${f(num(r.migrated), 0)} 次重要节点，搬走的是热 GPU 上别的前缀，单个热前缀搬不走——开源代码把它留给复制（gsw:419–429）${both.overloaded ? "" : `；两者都开（最接近开源代码）时复制 ${num(both.autoscaled)} 次就不过载了`}` : ""}`
            : !little
              ? "两者都开时自动扩展仍复制了不少次：再平衡没有把热点摊开"
              : undefined,
        };
      });
    },
  },
  {
    id: "window-longer-better",
    applies: (p) => p.experiments.includes("window"),
    says: "窗口 H 越长越好一些：每加长一档，平均延迟都不升",
    lecture: "长文档 10.09 → 6.76 秒；论文说不敏感",
    judge: (t, p) => {
      needParam(p.experiments.includes("window") && p.windows.length >= 2, "需要 experiments 里有 \"window\"，windows 至少两个值");
      return perWindowReading(p, (experiment) => {
        const rows = needRows(t, { experiment });
        const byH = [...rows].sort((a, b) => num(a.windowSeconds) - num(b.windowSeconds));
        const rises = byH.filter((r, i) => i > 0 && num(r.meanLatency) > num(byH[i - 1].meanLatency));
        const n = num(byH[0].seeds);
        const monotone = (k: number) => byH.every((r, i) => i === 0 || num(r[`meanSeed${k}`]) <= num(byH[i - 1][`meanSeed${k}`]));
        const means = byH.map((r) => num(r.meanLatency));
        return {
          holds: rises.length === 0,
          why: `H = ${rises.map((r) => r.windowSeconds).join("、")} 秒比上一档慢，各档之间最多只差 ${f((Math.max(...means) / Math.min(...means) - 1) * 100, 0)}%：这里看不出“越长越好”。讲义的数（长文档 10.09 → 6.76 秒）来自讲义的配套代码，我们的模拟在这里和它不同`,
          ours: byH.map((r) => `H = ${r.windowSeconds} 秒：${f(num(r.meanLatency))} 秒`).join("、"),
          remark: rises.length ? `${n > 1 ? "种子平均里 " : ""}H = ${rises.map((r) => r.windowSeconds).join("、")} 秒比上一档慢` : undefined,
          seeds: n > 1 ? seedsAgreeing(Array.from({ length: n }, (_, k) => monotone(k)), (x) => x) : undefined,
        };
      });
    },
  },
  {
    id: "window-no-order-of-magnitude",
    applies: (p) => p.experiments.includes("window"),
    says: "窗口 H 的影响远小于一个数量级（最慢与最快之比小于 2）：探索只看各 GPU 的 L 谁大谁小，窗口长短很少改变这个排序",
    lecture: "没有数量级差别",
    judge: (t, p) => {
      needParam(p.experiments.includes("window") && p.windows.length >= 2, "需要 experiments 里有 \"window\"，windows 至少两个值");
      return perWindowReading(p, (experiment) => {
        const rows = needRows(t, { experiment });
        const means = rows.map((r) => num(r.meanLatency));
        if (means.some((x) => !Number.isFinite(x))) cannotJudge("有的窗口没有结果");
        const ratio = Math.max(...means) / Math.min(...means);
        const n = num(rows[0].seeds);
        const perSeed = Array.from({ length: n }, (_, k) => {
          const xs = rows.map((r) => num(r[`meanSeed${k}`]));
          return Math.max(...xs) / Math.min(...xs);
        });
        return { holds: ratio < 2, why: `最慢的窗口比最快的慢 ${times(ratio)}`, ours: `${n > 1 ? "种子平均的" : ""}最慢 ÷ 最快 = ${times(ratio)}`, seeds: n > 1 ? seedsAgreeing(perSeed, (x) => x < 2) : undefined };
      });
    },
  },
];

export const autoscaleWindowDemo = defineDemo<AutoscaleParams>({
  id: "03.4",
  section: "§3.3–§3.4",
  title: "热点上的自动扩展，以及长文档上窗口 H 的长短",
  // Size: 14,000 hot-spot requests (≈ 200 s: autoscaling needs both halves of the 180 s window filled); window sweep 2,500 long-document requests × 3 seeds (window-longer-better is judged on seed means).
  defaults: {
    readings: ["lecture", "released"],
    experiments: ["autoscale", "window"],
    hotSpotRate: 70,
    hotSpotReplicas: 8,
    hotSpotRequestCount: 14000,
    windows: [30, 60, 180, 600],
    longDocRate: 1.5,
    longDocRequestCount: 2500,
    windowSeeds: 3,
    replicas: 4,
    seed: 1,
  },
  describe: {
    readings: { meaning: "按哪几种读法下结论：lecture（讲义的读法）、released（开源代码的读法：自动扩展的四种组合另按开源的 decode 项和 M、迁移重要节点的再平衡跑一遍；窗口 H 另按开源代码的完整 Preble 跑，每个 H 一个种子、至多 1,000 个请求）；讲义的各行总是跑", range: "非空数组，每项为 lecture、released 之一" },
    experiments: { meaning: "跑哪几个实验：autoscale（热点上的自动扩展）、window（长文档上的窗口 H）", range: "非空数组，每项为 autoscale、window 之一" },
    hotSpotRate: { meaning: "热点的请求率（请求/秒）", range: "> 0 的数" },
    hotSpotReplicas: { meaning: "热点实验的副本数", range: "2–30 的整数" },
    hotSpotRequestCount: { meaning: "热点实验每次的请求数（70 请求/秒时约 200 秒：自动扩展要等 180 秒窗口的两半都有数据，第一次复制在 90 秒之后）", range: "≥ 100 的整数" },
    windows: { meaning: "长文档实验试的窗口长度 H（秒）", range: "非空数组，每项 > 0" },
    longDocRate: { meaning: "长文档的请求率（请求/秒）", range: "> 0 的数" },
    longDocRequestCount: { meaning: "长文档实验每次的请求数", range: "≥ 100 的整数" },
    windowSeeds: { meaning: "长文档实验每个 H 跑几个种子取平均（种子 seed、seed + 1 …）", range: "1–10 的整数" },
    replicas: { meaning: "长文档实验的副本数", range: "1–30 的整数" },
    seed: SEED_DOC,
  },
  run(p, { progress }) {
    const experiments = checkEachOneOf("experiments", p.experiments, ["autoscale", "window"]);
    const hotSpotRate = checkNumber("hotSpotRate", p.hotSpotRate, { above: 0 });
    const hotSpotReplicas = checkInteger("hotSpotReplicas", p.hotSpotReplicas, { min: 2, max: 30 });
    const hotSpotRequestCount = checkInteger("hotSpotRequestCount", p.hotSpotRequestCount, { min: 100 });
    const windows = checkNonEmpty("windows", p.windows).map((h, i) => checkNumber(`windows[${i}]`, h, { above: 0 }));
    const longDocRate = checkNumber("longDocRate", p.longDocRate, { above: 0 });
    const longDocRequestCount = checkInteger("longDocRequestCount", p.longDocRequestCount, { min: 100 });
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 30 });
    const windowSeeds = seedsOf(p.seed, checkInteger("windowSeeds", p.windowSeeds, { min: 1, max: 10 }));
    const released = checkEachOneOf("readings", p.readings, ["lecture", "released"]).includes("released");
    const autoscaleRuns = experiments.includes("autoscale") ? SCALING : [];
    const releasedScalingRuns = released ? autoscaleRuns : [];
    const windowRuns = experiments.includes("window") ? windows : [];
    /** the released runs are shorter (one seed, at most 1,000 requests ≈ 11 minutes of arrivals at 1.5/s): the budget of the notebook */
    const releasedRequests = Math.min(longDocRequestCount, 1000);
    const releasedWindows = released ? windowRuns : [];
    const hotSpotRun = (configuration: string, routerOptions: Record<string, unknown>) =>
      configurationRun({ workload: "toolCallingHotSpot", rate: hotSpotRate, replicas: hotSpotReplicas, configuration, routerOptions, requestCount: hotSpotRequestCount, seed: p.seed });
    const results = simulateConfigurations(
      [
        ...autoscaleRuns.map(([, configuration, routerOptions]) => hotSpotRun(configuration, routerOptions)),
        ...releasedScalingRuns.map(([, configuration, routerOptions]) => hotSpotRun(configuration, releasedScaling(configuration, routerOptions))),
        ...windowRuns.flatMap((H) => windowSeeds.map((seed) => configurationRun({ workload: "longDocQA", rate: longDocRate, replicas, configuration: "preble", routerOptions: { windowSeconds: H }, requestCount: longDocRequestCount, seed }))),
        ...releasedWindows.map((H) => configurationRun({ workload: "longDocQA", rate: longDocRate, replicas, configuration: "prebleReleased", routerOptions: { windowSeconds: H }, requestCount: releasedRequests, seed: p.seed })),
      ],
      (done, total) => progress?.(`03.4：已完成 ${done}/${total} 次模拟`),
    );
    const rows: Row[] = [];
    let next = 0;
    for (const [experiment, list] of [["autoscale", autoscaleRuns], ["autoscaleReleased", releasedScalingRuns]] as const) {
      for (const [name] of list) {
        const res = results[next++];
        const stats = res.routerStats as Record<string, unknown>;
        const events = stats.autoscaleEvents as Array<{ time: number }>;
        const row: Row = { experiment, setting: name, meanLatency: res.metrics.meanLatency, p99Latency: res.metrics.p99Latency, maxShare: res.metrics.maxShare, overloaded: res.metrics.overloaded, autoscaled: events.length, firstAutoscale: events.length ? events[0].time : NaN, rebalanced: name.includes("rebalance") ? num(stats.rebalance ?? 0) : null };
        if (experiment === "autoscaleReleased") row.migrated = stats.migrated as number;
        rows.push(row);
      }
    }
    for (const H of windowRuns) {
      const rs = results.slice(next, next + windowSeeds.length);
      next += windowSeeds.length;
      const means = rs.map((x) => x.metrics.meanLatency);
      const avg = (g: (x: (typeof rs)[number]) => number) => rs.reduce((a, x) => a + g(x), 0) / rs.length;
      const row: Row = { experiment: "window", setting: `H = ${H} 秒`, windowSeconds: H, meanLatency: avg((x) => x.metrics.meanLatency), meanMin: Math.min(...means), meanMax: Math.max(...means), meanRange: rs.length > 1 ? `${f(Math.min(...means))}–${f(Math.max(...means))}` : null, p99Latency: avg((x) => x.metrics.p99Latency), maxShare: avg((x) => x.metrics.maxShare), overloaded: rs.some((x) => x.metrics.overloaded), seeds: rs.length };
      means.forEach((m, k) => (row[`meanSeed${k}`] = m));
      rows.push(row);
    }
    for (const H of releasedWindows) {
      const m = results[next++].metrics;
      rows.push({ experiment: "windowReleased", setting: `H = ${H} 秒`, windowSeconds: H, meanLatency: m.meanLatency, meanMin: m.meanLatency, meanMax: m.meanLatency, meanRange: null, p99Latency: m.p99Latency, maxShare: m.maxShare, overloaded: m.overloaded, seeds: 1, meanSeed0: m.meanLatency });
    }
    const notes: string[] = [];
    if (autoscaleRuns.length) {
      notes.push(
        `${displayName("autoscale")}：工具调用（热点），${hotSpotReplicas} 个副本，${hotSpotRate} 请求/秒，${hotSpotRequestCount} 个请求（约 ${Math.round(hotSpotRequestCount / hotSpotRate)} 秒），副本内 FCFS。自动扩展（讲义没有实现，这是我们的）：一个前缀在 H = 180 秒窗口后半段的平均排队时间 ≥ 前半段的 2 倍（两半各至少 5 个完成的请求、后半均值 ≥ 0.5 秒）时，把它的关键部分再分配给一块还没有它的、负载最轻的 GPU，此后“利用”在这些 GPU 之间按负载代价分；同一个前缀 H/2 之内不再扩展。种子 ${String(p.seed)}。`,
      );
    }
    if (windowRuns.length) notes.push(`${displayName("window")}：长文档，${replicas} 个副本，${longDocRate} 请求/秒，${longDocRequestCount} 个请求，完整 Preble，只改窗口 H（L 只计 H 秒之内派出的活）；每个 H ${windowSeeds.length} 个种子（${windowSeeds.join("、")}）的均值。`);
    if (releasedScalingRuns.length) {
      notes.push(
        `${displayName("autoscaleReleased")}：同样的四种组合按开源代码的读法：负载代价用开源的 decode 项和 M，再平衡迁移重要节点（gsw:377–462）。开源代码没有单独的自动扩展：复制热节点是再平衡的一支——最忙的 GPU 只压着一个重要节点、且这个节点在它上面的 TTFT 后半窗均值 ≥ 前半窗的 2 倍时，才把它复制到最轻的 GPU（gsw:419–429）。所以“E2 + 自动扩展”在开源代码里不存在，“E2 + 再平衡 + 自动扩展”最接近开源代码；这两行的自动扩展用我们的触发（排队时间翻倍，见上）；种子 ${String(p.seed)}。`,
      );
    }
    if (releasedWindows.length) notes.push(`${displayName("windowReleased")}：同样的长文档实验，完整 Preble 按开源代码的读法（迁移重要节点、开源的 decode 项和 M、命中率 ≥ 70% 的搭配、每迭代一组的优先级组），每个 H 一个种子（${String(p.seed)}）、${releasedRequests} 个请求（比讲义的各行短，省时间）。`);
    notes.push(WARMUP_NOTE, OVERLOAD_NOTE);
    return {
      title: `自动扩展（热点，${hotSpotReplicas} 个副本，${hotSpotRate} 请求/秒）与窗口 H（长文档，${replicas} 个副本，${longDocRate} 请求/秒）`,
      columns: [
        { key: "experiment", label: "实验", format: "name" },
        { key: "setting", label: "设置", format: "name" },
        COLUMNS.meanLatency,
        { key: "meanRange", label: "平均延迟（各种子的范围）", unit: "秒", format: "text" },
        COLUMNS.p99Latency,
        COLUMNS.maxShare,
        COLUMNS.overloaded,
        { key: "seeds", label: "种子数", format: "int" },
        { key: "autoscaled", label: "自动扩展复制前缀的次数", format: "int" },
        { key: "rebalanced", label: "再平衡改派的请求", format: "int" },
        { key: "firstAutoscale", label: "第一次复制", unit: "秒", format: "fixed0" },
        ...(releasedScalingRuns.length ? [{ key: "migrated", label: "迁移的重要节点", format: "int" as const }] : []),
      ],
      rows,
      notes,
    };
  },
  claims: AUTOSCALE_CLAIMS,
});
