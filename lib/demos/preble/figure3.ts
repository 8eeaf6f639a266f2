// 03.1 — Preble's Figure 3 on paper (§3.6): five workloads × rates × named configurations on replicas of Mistral-7B
// on A6000, mean and P99 latency, and baseline ÷ configuration where that ratio is a speed-up.
import { checkEachOneOf, checkInteger, checkNumber, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { configurationRun } from "../../cluster/preble/runs";
import { simulateConfigurations } from "../../cluster/preble/memo";
import { Fig3Params, FIGURE3_CLAIMS, figure3ForClaims, RELEASED_OF, releasedCells } from "./figure3-claims";
import { addRatios, BASELINES, RATIO_CONFIGURATIONS } from "./figure3-seeds";
import { f } from "../claims";
import { COLUMNS, CONFIGURATIONS_RANGE, checkConfigurations, checkWorkloads, configurationsNote, OVERLOAD_NOTE, meanOf, REPLICAS_DOC, requestsFor, SEED_DOC, seedsOf, WARMUP_NOTE, WORKLOADS_RANGE } from "./common";
import { defineDemo } from "../registry";

export const FIG3_RATES: Readonly<Record<string, readonly number[]>> = {
  longDocQA: [0.5, 1, 1.5, 2],
  videoQA: [2, 4, 6, 8],
  toolCalling: [16, 32, 48, 64],
  programming: [4, 8, 12, 16],
  agent: [20, 60],
};


export const figure3Demo = defineDemo<Fig3Params>({
  id: "03.1",
  section: "§3.6",
  title: "论文图 3 的纸上版：各负载、请求率、配置下的平均与 P99 延迟",
  // Size: every run covers ≥ 200 s of arrivals (longer than the window H = 180 s) and ≥ 1,000 requests; 3 ratio seeds where the baseline is not overloaded: the four ratio claims are judged on seed means and report how many seeds agree.
  defaults: {
    readings: ["lecture", "released"],
    workloads: ["longDocQA", "videoQA", "toolCalling", "programming", "agent"],
    rates: FIG3_RATES as Record<string, number[]>,
    configurations: ["baseline", "baselinePaper", "cacheAwareGuarded", "e2+rebalance", "preble"],
    replicas: 4,
    minRequests: 1000,
    minSeconds: 200,
    ratioSeeds: 3,
    seed: 1,
  },
  describe: {
    readings: { meaning: "按哪几种读法下结论：lecture（讲义读的 Preble）、released（另在四条结论要用的几格里按开源代码跑完整 Preble 和 E2 + 迁移重要节点，要求 configurations 里有 baselinePaper）；讲义的各行总是跑", range: "非空数组，每项为 lecture、released 之一" },
    workloads: { meaning: "要跑的负载", range: WORKLOADS_RANGE },
    rates: { meaning: "每种负载的请求率（请求/秒）", range: "对象 { 负载名: [请求率…] }，每个请求率 > 0" },
    configurations: { meaning: "比较的配置（路由器 + 副本内排队）", range: CONFIGURATIONS_RANGE },
    replicas: REPLICAS_DOC,
    minRequests: { meaning: "每次模拟至少多少个请求（前 20% 预热）", range: "≥ 100 的整数" },
    minSeconds: { meaning: "每次模拟至少覆盖多少秒的到达（请求数取 max(minRequests, 请求率 × minSeconds)）", range: "≥ 0 的数" },
    ratioSeeds: { meaning: "两种基线和完整 Preble 在种子 seed 下基线不过载的格子里各跑几个种子（seed、seed + 1 …）：图 3 的比值、误差线和比值的结论用它们的均值；其余配置只跑种子 seed", range: "1–10 的整数" },
    seed: SEED_DOC,
  },
  run(p, { progress }) {
    const workloads = checkWorkloads("workloads", p.workloads);
    const configurations = checkConfigurations("configurations", p.configurations);
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 30 });
    const minRequests = checkInteger("minRequests", p.minRequests, { min: 100 });
    const minSeconds = checkNumber("minSeconds", p.minSeconds, { min: 0 });
    const rates = p.rates;
    if (typeof rates !== "object" || rates === null || Array.isArray(rates)) throw new ParameterError("rates", `应为对象 { 负载名: [请求率…] }，实际是 ${JSON.stringify(rates)}`);
    // Every (workload, rate, configuration) run is independent: all go to simulateMany, then rows in table order.
    const cells: Array<{ workload: string; rate: number; configuration: string; requests: number }> = [];
    for (const workload of workloads) {
      const list = rates[workload];
      if (!Array.isArray(list) || list.length === 0) throw new ParameterError(`rates.${workload}`, `应为非空的请求率数组（负载 ${workload} 在 workloads 里）`);
      for (const [i, rate] of list.entries()) {
        checkNumber(`rates.${workload}[${i}]`, rate, { above: 0 });
        for (const configuration of configurations) cells.push({ workload, rate, configuration, requests: requestsFor(rate, minRequests, minSeconds) });
      }
    }
    checkEachOneOf("readings", p.readings, ["lecture", "released"]);
    const extra = releasedCells(p).map((c) => ({ ...c, requests: requestsFor(c.rate, minRequests, minSeconds) }));
    const seeds = seedsOf(p.seed, checkInteger("ratioSeeds", p.ratioSeeds, { min: 1, max: 10 }));
    // Two rounds, each going to simulateMany at once: every (cell, configuration) with seed `seed`; then the other
    // seeds for Figure 3's ratio (both baselines and full Preble), only in the cells where seed `seed` left a baseline
    // not overloaded — where a ratio is a speed-up (in an overloaded cell the ratio grows with the simulated time; more
    // seeds do not change that). A ratio or claim that sets a one-seed row beside them reads their seed-`seed` values.
    const runOf = (c: { workload: string; rate: number; requests: number }, configuration: string, routerOptions: Record<string, unknown> | undefined, seed: number | string) =>
      configurationRun({ workload: c.workload, rate: c.rate, replicas, configuration, ...(routerOptions ? { routerOptions } : {}), requestCount: c.requests, seed });
    const all = [...cells.map((c) => ({ cell: c, configuration: c.configuration, routerOptions: undefined as Record<string, unknown> | undefined })), ...extra.map((c) => ({ cell: c, configuration: RELEASED_OF[c.of].configuration, routerOptions: RELEASED_OF[c.of].routerOptions }))];
    const first = simulateConfigurations(
      all.map((x) => runOf(x.cell, x.configuration, x.routerOptions, p.seed)),
      (done, total) => progress?.(`03.1：种子 ${String(p.seed)}，已完成 ${done}/${total} 次模拟`),
    );
    const baseOk = new Set<string>();
    cells.forEach((c, i) => {
      if (BASELINES.some((b) => b.id === c.configuration) && !first[i].metrics.overloaded) baseOk.add(`${c.workload}|${c.rate}`);
    });
    const more = all.map((x, i) => (i < cells.length && RATIO_CONFIGURATIONS.includes(x.configuration) && baseOk.has(`${x.cell.workload}|${x.cell.rate}`) ? seeds.slice(1) : []));
    const againJobs = all.flatMap((x, i) => more[i].map((seed) => runOf(x.cell, x.configuration, x.routerOptions, seed)));
    const again = againJobs.length ? simulateConfigurations(againJobs, (done, total) => progress?.(`03.1：另外 ${seeds.length - 1} 个种子，已完成 ${done}/${total} 次模拟`)) : [];
    let k = 0;
    /** The metrics of run i of `all` over its seeds. */
    const metricsOf = (i: number) => [first[i].metrics, ...more[i].map(() => again[k++].metrics)];
    /** Seed means, the latency range and each seed's values (read by the claims' seed views). */
    const seedFields = (ms: ReturnType<typeof metricsOf>): Row => {
      const means = ms.map((m) => m.meanLatency);
      const row: Row = { seeds: ms.length, meanLatency: meanOf(means), meanMin: Math.min(...means), meanMax: Math.max(...means), meanRange: ms.length > 1 ? `${f(Math.min(...means))}–${f(Math.max(...means))}` : null, p99Latency: meanOf(ms.map((m) => m.p99Latency)), overloaded: ms.some((m) => m.overloaded), overloadedSeeds: ms.filter((m) => m.overloaded).length, hitRate: meanOf(ms.map((m) => m.hitRate)) };
      if (ms.length > 1) ms.forEach((m, j) => Object.assign(row, { [`meanSeed${j}`]: m.meanLatency, [`p99Seed${j}`]: m.p99Latency, [`overSeed${j}`]: m.overloaded }));
      return row;
    };
    const rows: Row[] = [];
    let c = 0;
    for (const workload of workloads) {
      for (const rate of rates[workload]) {
        const group: Row[] = [];
        for (const configuration of configurations) {
          group.push({ workload, rate, policy: configuration, requests: cells[c].requests, ...seedFields(metricsOf(c)) });
          c++;
        }
        addRatios(group);
        rows.push(...group);
      }
    }
    extra.forEach((x, i) => {
      rows.push({ workload: x.workload, rate: x.rate, policy: RELEASED_OF[x.of].id, requests: x.requests, ...seedFields(metricsOf(cells.length + i)), vsBaseline: NaN, ratioKind: null, vsPaperBaseline: NaN, ratioKindPaper: null, released: true });
    });
    const several = rows.some((r) => Number(r.seeds) > 1);
    return {
      title: `论文图 3 的纸上版：${replicas} 个副本（Mistral-7B / A6000），${workloads.length} 种负载的平均与 P99 延迟`,
      columns: [
        COLUMNS.workload,
        COLUMNS.rate,
        COLUMNS.configuration,
        COLUMNS.requests,
        ...(several ? [{ key: "seeds", label: "种子数", format: "int" as const }] : []),
        COLUMNS.meanLatency,
        ...(several ? [{ key: "meanRange", label: "平均延迟的范围（各种子）", unit: "秒", format: "text" as const }] : []),
        COLUMNS.p99Latency,
        COLUMNS.overloaded,
        ...(several ? [{ key: "overloadedSeeds", label: "过载的种子数", format: "int" as const }] : []),
        COLUMNS.hitRate,
        { key: "vsBaseline", label: "基线 ÷ 此配置（平均）", unit: "倍", format: "fixed2" },
        { key: "ratioKind", label: "比值的含义", format: "name" },
        { key: "vsPaperBaseline", label: "论文的基线 ÷ 此配置", unit: "倍", format: "fixed2" },
        { key: "ratioKindPaper", label: "比值的含义（论文的基线）", format: "name" },
      ].filter((c) => c.key.endsWith("Paper") || c.key.endsWith("PaperBaseline") ? configurations.includes("baselinePaper") : c.key === "vsBaseline" || c.key === "ratioKind" ? configurations.includes("baseline") : true) as Table["columns"],
      rows,
      notes: [
        `每次模拟 max(${minRequests}, 请求率 × ${minSeconds} 秒) 个请求（“请求数”一列）。${several ? `图 3 的比值是两种基线与完整 Preble 之比：这三个配置在种子 ${String(p.seed)} 下基线不过载的格子里各跑 ${seeds.length} 个种子（${seeds.join("、")}），表里是均值（平均延迟另列各种子的范围；任一种子过载就算过载），Preble 的比值是均值之比；其余配置和基线过载的格子只跑种子 ${String(p.seed)}（过载格子的比值随模拟时长增长，不是加速比），它们的比值和拿它们比较的结论都用种子 ${String(p.seed)} 的数。` : `种子 ${String(p.seed)}。`}`,
        WARMUP_NOTE,
        configurationsNote(configurations),
        ...(extra.length ? [`开源代码的读法只在四条结论要用的 ${extra.length} 格里另跑（完整 Preble = prebleReleased，E2 + 迁移重要节点 = 开源的再平衡、decode 项和 M）：${extra.map((c) => `${displayName(c.workload)} ${c.rate} 请求/秒 ${displayName(RELEASED_OF[c.of].id)}`).join("、")}；这几行不算比值。`] : []),
        OVERLOAD_NOTE,
      ],
    };
  },
  claims: FIGURE3_CLAIMS,
  narrowForClaims: figure3ForClaims,
});
