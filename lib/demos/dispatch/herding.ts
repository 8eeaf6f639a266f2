// 代码 01 演示 4 (§1.3): the herding stale snapshots cause — arrivals per server per refresh interval, the share
// sent to the snapshot's shortest servers, queue spread — and the pictures of it (heat maps, queue-length traces).
import { checkInteger, checkNumber } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { seedList, simulateDispatch } from "../../dispatch/servers";
import { jobsToCover } from "../../dispatch/traces";
import { defineDemo } from "../registry";
import { f, needRow, pct, seedsAgreeing } from "../claims";
import { checkPolicyEntries, checkQueueParams, COLUMNS, int, ownPoliciesNote, parsePerSeed, perSeedCell, policyNames, QUEUE_DOCS, readsLoad, seedsText, seedStats, warmupNote } from "./shared";

type HerdingParams = { servers: number; utilization: number; jobs: number; refresh: number; policies: unknown[]; seeds: number; warmupFraction: number; seed: number | string };

function herdingParams(p: HerdingParams) {
  checkQueueParams(p);
  return {
    jobs: checkInteger("jobs", p.jobs, { min: 100 }),
    refresh: checkNumber("refresh", p.refresh, { above: 0 }),
    policies: checkPolicyEntries("policies", p.policies),
    seeds: checkInteger("seeds", p.seeds, { min: 1 }),
  };
}

const rowFor = (t: Table, policy: string) => needRow(t, { policy });
const perSeedOf = (t: Table, policy: string, key: string, what: string) => parsePerSeed(rowFor(t, policy)[key], `${displayName(policy)}${what}`);

/** A policy's time-averaged queue spread beside random's: the seed means and each seed's values. */
function spreadAgainstRandom(t: Table, policy: string): { ours: number; random: number; oursPerSeed: number[]; randomPerSeed: number[] } {
  return {
    ours: rowFor(t, policy).queueSpread as number,
    random: rowFor(t, "random").queueSpread as number,
    oursPerSeed: perSeedOf(t, policy, "spreadPerSeed", "的队列差"),
    randomPerSeed: perSeedOf(t, "random", "spreadPerSeed", "的队列差"),
  };
}

export const herdingDemo = defineDemo({
  id: "01.4",
  section: "§1.3",
  title: "扎堆：过时的快照让请求一窝蜂涌向同一台",
  // Size: 4 seeds × 50,000 jobs, as 01.2 and 01.3 (same seeds, same tables): herding is judged on means over seeds.
  defaults: { servers: 16, utilization: 0.9, jobs: 50000, refresh: 4, policies: ["random", "jsq", "powerOfTwo"], seeds: 4, warmupFraction: 0.2, seed: 1 } as HerdingParams,
  describe: {
    servers: QUEUE_DOCS.servers,
    utilization: QUEUE_DOCS.utilization,
    jobs: { meaning: "每次运行的请求数（含预热）；请求大小服从指数分布", range: "≥ 100 的整数" },
    refresh: { meaning: "负载快照的刷新间隔 T（个服务时间）", range: "> 0 的数" },
    policies: QUEUE_DOCS.policies,
    seeds: { meaning: "跑几个种子取平均", range: "≥ 1 的整数（比较的结论需要 ≥ 3）" },
    warmupFraction: QUEUE_DOCS.warmupFraction,
    seed: QUEUE_DOCS.seed,
  },
  run(p, { progress }) {
    const { jobs, refresh, policies, seeds } = herdingParams(p);
    const rows: Row[] = policies.map(({ id: policy, input }) => {
      progress?.(`扎堆：${displayName(policy)}`);
      const runs = seedList(p.seed, seeds).map((seed) =>
        simulateDispatch({ servers: p.servers, utilization: p.utilization, jobs, policy: input, refresh, warmupFraction: p.warmupFraction, seed, herding: { interval: refresh, queueStep: 0.25 } }),
      );
      const share = runs.map((r) => r.herding!.topServerShare);
      const spread = runs.map((r) => r.herding!.queueSpread);
      const toShortest = runs.map((r) => r.herding!.snapshotShortestShare);
      return {
        policy,
        mean: seedStats(runs.map((r) => r.mean)).mean,
        topServerShare: seedStats(share).mean,
        shareSd: seedStats(share).sd,
        queueSpread: seedStats(spread).mean,
        longestQueue: Math.max(...runs.map((r) => r.herding!.longestQueue)),
        snapshotShortestShare: seedStats(toShortest).mean,
        shortestTies: seedStats(runs.map((r) => r.herding!.shortestTies)).mean,
        toShortestPerSeed: perSeedCell(toShortest),
        sharePerSeed: perSeedCell(share),
        spreadPerSeed: perSeedCell(spread),
      };
    });
    return {
      title: `扎堆：快照每 ${refresh} 个服务时间刷新一次（${p.servers} 台服务器，ρ = ${p.utilization}，${policyNames(policies.map((e) => e.id))}）`,
      columns: [
        COLUMNS.policy,
        COLUMNS.mean,
        { key: "topServerShare", label: "每个刷新间隔里，收到最多的那台所占的份额", format: "percent0" },
        { key: "shareSd", label: "± 种子间标准差", format: "percent1" },
        { key: "queueSpread", label: "最长与最短队列之差（时间平均）", unit: "个请求", format: "fixed1" },
        { key: "longestQueue", label: "见到的最长队列", unit: "个请求", format: "int" },
        { key: "snapshotShortestShare", label: "发给快照里最短那台（含并列）的请求", format: "percent0" },
        { key: "shortestTies", label: "快照里并列最短的台数（平均）", format: "fixed1" },
        { key: "sharePerSeed", label: "各种子的份额", format: "text" },
        { key: "spreadPerSeed", label: "各种子的队列差", format: "text" },
      ],
      rows,
      notes: [
        `单位：时间以平均服务时间计，队列长度以请求数计（排队 + 正在服务）。请求大小服从指数分布，每次 ${int(jobs)} 个请求，${seedsText(p.seed, seeds)}；同一个种子下每种策略看到完全相同的到达和请求大小。平均响应、份额和队列差是各种子的平均，最长队列取各种子中最长的。`,
        `份额：把时间切成长 ${refresh} 的刷新间隔，每个间隔里统计收到请求最多的那台占这个间隔全部请求的比例，再对所有间隔取平均；完全均匀时约为 1/${p.servers} = ${pct(1 / p.servers)}（加上随机波动）。`,
        `${warmupNote(p.warmupFraction, jobs)}队列长度从第一个计入统计的请求到达起每 0.25 个服务时间采样一次。`,
        "“发给快照里最短那台”：每个计入统计的请求，去的是不是当时那张快照里队列最短的服务器（几台并列最短时算其中任何一台）；“并列最短的台数”对预热后的每张快照取平均。",
        "每台服务器在每个刷新间隔里各收到几个请求，画在笔记本 01 §1.3「扎堆长什么样」的热力图里。",
        ...ownPoliciesNote(policies),
      ],
    };
  },
  claims: [
    {
      id: "jsq-herds",
      says: "快照过时后，快照里最短的那台在下一次刷新之前收下所有新请求",
      lecture: "快照里最短的那台，在下一次刷新之前收下所有请求",
      judge: (t, p) => {
        const row = rowFor(t, "jsq");
        const toShortest = row.snapshotShortestShare as number;
        const ties = row.shortestTies as number;
        const top = row.topServerShare as number;
        const random = rowFor(t, "random").topServerShare as number;
        const a = perSeedOf(t, "jsq", "toShortestPerSeed", "发给快照里最短那台的比例");
        return {
          holds: toShortest >= 0.99,
          ours: `最短队列把 ${pct(toShortest)} 的请求发给了当时快照里最短的服务器；快照里平均 ${f(ties, 1)} 台并列最短，它们随机分摊这一波，所以每个 ${p.refresh} 个服务时间的间隔里收到最多的那一台占 ${pct(top)}（随机 ${pct(random)}，完全均匀 ${pct(1 / p.servers)}）`,
          seeds: seedsAgreeing(a, (x) => x >= 0.99),
          why: `只有 ${pct(toShortest)} 的请求去了快照里最短的服务器：这条最短队列规则并不总是照快照挑最短的那台`,
        };
      },
    },
    {
      id: "two-choice-spreads",
      says: "二选一把流量摊开：每个请求各抽两台比较，队列长度保持均匀，比随机还均匀得多",
      lecture: "不同请求抽到的不同，天然把流量分散开",
      judge: (t) => {
        const { ours: two, random, oursPerSeed: a, randomPerSeed: b } = spreadAgainstRandom(t, "powerOfTwo");
        return {
          holds: two < random / 2,
          ours: `最长与最短队列平均相差：二选一 ${f(two, 1)} 个，随机 ${f(random, 1)} 个`,
          remark: shareRemark(rowFor(t, "powerOfTwo").topServerShare as number, rowFor(t, "random").topServerShare as number),
          seeds: seedsAgreeing(a.map((x, k) => x / b[k]), (r) => r < 0.5),
        };
      },
    },
    {
      id: "herding-unbalances",
      says: "扎堆让队列忽长忽短：过时信息下最短队列的队列差比闭着眼的随机派发还大",
      judge: (t) => {
        const { ours: jsq, random, oursPerSeed: a, randomPerSeed: b } = spreadAgainstRandom(t, "jsq");
        return {
          holds: jsq > random,
          ours: `最长与最短队列平均相差：最短队列 ${f(jsq, 1)} 个，随机 ${f(random, 1)} 个；最短队列见到的最长队列 ${rowFor(t, "jsq").longestQueue} 个请求`,
          seeds: seedsAgreeing(a.map((x, k) => x - b[k]), (d) => d > 0),
        };
      },
    },
  ],
});

/** What power of two's per-interval share says beside random's: a higher share is not herding (the queues say so). */
function shareRemark(two: number, random: number): string {
  const both = `每个刷新间隔里收到最多的那台所占的份额：二选一 ${pct(two)}，随机 ${pct(random)}`;
  if (two <= random) return both;
  return `${both}。二选一的份额反而更高：每个请求从两台里挑短的，刚空下来的几台在一个间隔里多收一些；摊开的是队列，不是每个间隔的到达`;
}

/** A heatmap of arrivals per server per refresh interval (the view's heatmap() takes it as is). */
export interface HerdingTimeline {
  /** the library's policy id, or the name of the reader's policy */
  policy: string;
  title: string;
  xTitle: string;
  yTitle: string;
  zTitle: string;
  x: string[];
  y: string[];
  z: number[][];
  zmin: number;
  zmax: number;
}

/** The window a picture of table 01.4 looks at: `intervals` refresh intervals from `from` (after the warm-up by
 * default), the table's parameters, and the jobs a run needs to cover the window. */
function herdingWindow(caller: string, t: Table, window: { from?: number; intervals?: number }, defaultIntervals: number, maxIntervals: number) {
  if (t.id !== "01.4" || !t.params) throw new Error(`${caller}: needs the table of runDemo("01.4", …)`);
  const p = t.params as unknown as HerdingParams;
  const { refresh, policies } = herdingParams(p);
  const intervals = checkInteger("intervals", window.intervals ?? defaultIntervals, { min: 1, max: maxIntervals });
  const from = checkNumber("from", window.from ?? Math.ceil(200 / refresh) * refresh, { min: 0 });
  const to = from + intervals * refresh;
  return { p, refresh, policies, intervals, from, to, jobs: jobsToCover(p.utilization * p.servers, to) };
}

/** For a table of demo 01.4: every server's arrivals in each refresh interval of a window, for each load-aware
 * policy of the table, from the same run as the table's first seed (seed/0) — the herd itself. Memory: the window
 * (servers × intervals counts), not the jobs. All timelines share one colour scale. */
export function herdingTimelines(t: Table, window: { from?: number; intervals?: number } = {}): HerdingTimeline[] {
  const { p, refresh, policies, intervals, from, jobs } = herdingWindow("herdingTimelines", t, window, 20, 500);
  const aware = policies.filter(readsLoad);
  const runs = aware.map(({ id: policy, input }) => ({
    policy,
    counts: simulateDispatch({ servers: p.servers, utilization: p.utilization, jobs, policy: input, refresh, warmupFraction: 0, seed: seedList(p.seed, 1)[0], arrivalWindow: { from, interval: refresh, intervals } }).arrivalCounts!,
  }));
  const zmax = Math.max(1, ...runs.flatMap((r) => r.counts.counts.flat()));
  return runs.map(({ policy, counts }) => ({
    policy,
    title: `${displayName(policy)}：每台服务器在每个刷新间隔里收到的请求（T = ${refresh}，种子 ${String(p.seed)}/0）`,
    xTitle: `刷新间隔的起点（个服务时间，每格 ${refresh}）`,
    yTitle: "服务器编号",
    zTitle: "请求数（个）",
    x: counts.starts.map((s) => String(Number(s.toFixed(6)))),
    y: counts.counts.map((_, s) => String(s)),
    z: counts.counts,
    zmin: 0,
    zmax,
  }));
}

/** One dispatcher's exact queue lengths over a window (queueLengthChart draws a list of them, one panel each). */
export interface HerdingQueues {
  /** the library's policy id, or the name of the reader's policy */
  policy: string;
  /** the panel's heading */
  name: string;
  times: number[];
  /** queues[server][i]: jobs on the server (waiting + in service) from times[i] on */
  queues: number[][];
  /** the snapshot refreshes inside the window */
  refreshTimes: number[];
  /** the server fed most (most arrivals) in each refresh interval of the window, each once, ascending */
  emphasis: number[];
}

/** Per refresh interval (k·T ≤ t < (k + 1)·T) of a trace, the server with the most arrivals (the lowest on a tie). */
export function mostFedServers(times: number[], queues: number[][], refresh: number): number[] {
  const perInterval = new Map<number, number[]>();
  for (let i = 1; i < times.length; i++) {
    const k = Math.floor(times[i] / refresh);
    queues.forEach((q, s) => {
      if (q[i] <= q[i - 1]) return;
      const counts = perInterval.get(k) ?? new Array<number>(queues.length).fill(0);
      counts[s] += q[i] - q[i - 1];
      perInterval.set(k, counts);
    });
  }
  const top = [...perInterval.values()].map((c) => c.indexOf(Math.max(...c)));
  return [...new Set(top)].sort((a, b) => a - b);
}

/** For a table of demo 01.4: every server's queue length at every arrival and completion on a window of `intervals`
 * refresh intervals from `from`, for each load-aware policy of the table, from the same run as the table's first
 * seed (seed/0) — §1.3's sawtooth: under stale JSQ the snapshot's shortest queue climbs until the next refresh.
 * Memory: the window's jobs, not the run's. */
export function herdingQueues(t: Table, window: { from?: number; intervals?: number } = {}): HerdingQueues[] {
  const { p, refresh, policies, from, to, jobs } = herdingWindow("herdingQueues", t, window, 6, 200);
  return policies.filter(readsLoad).map(({ id: policy, input }) => {
    const run = simulateDispatch({ servers: p.servers, utilization: p.utilization, jobs, policy: input, refresh, warmupFraction: 0, seed: seedList(p.seed, 1)[0], queueTrace: { from, to } });
    const trace = run.queueTrace!;
    const emphasis = mostFedServers(trace.times, trace.lengths, refresh);
    return { policy, name: `${displayName(policy)}（快照每 ${refresh} 个服务时间刷新，种子 ${String(p.seed)}/0；彩色：每个刷新间隔里收到请求最多的那台）`, times: trace.times, queues: trace.lengths, refreshTimes: trace.refreshTimes, emphasis };
  });
}
