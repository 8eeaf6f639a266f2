// 代码 01 演示 3 (§1.3): JSQ and power of two fed a snapshot of the queues refreshed every T service times
// (Mitzenmacher 2000). Demo 4 (the herding it causes) and its pictures are in herding.ts.
import { checkInteger, checkNonEmpty, checkNumber } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { dispatchAcrossSeeds, DispatchSummary } from "../../dispatch/servers";
import { mm1 } from "../../dispatch/theory";
import { defineDemo } from "../registry";
import { cannotJudge, f, needParam, needRow, pct, seedsAgreeing } from "../claims";
import { checkDistinct, checkPolicyEntries, checkQueueParams, COLUMNS, int, ownPoliciesNote, parsePerSeed, perSeedCell, policyNames, QUEUE_DOCS, readsLoad, seedsText, TIME_UNIT, warmupNote } from "./shared";

type StaleParams = { servers: number; utilization: number; jobs: number; refreshIntervals: number[]; policies: unknown[]; seeds: number; warmupFraction: number; seed: number | string };

const meanAt = (t: Table, refresh: number, policy: string) => needRow(t, { refresh, policy }).mean as number;
const seedMeansAt = (t: Table, refresh: number, policy: string) => parsePerSeed(needRow(t, { refresh, policy }).meanPerSeed, `T = ${refresh} 时${displayName(policy)}`);
/** Refresh intervals that have a row for `policy`, ascending. */
const intervalsOf = (t: Table, policy: string) => t.rows.filter((r) => r.policy === policy).map((r) => r.refresh as number).sort((a, b) => a - b);
/** The random reference (it ignores the snapshot, so every row of it is the same run). */
function randomReference(t: Table): { mean: number; perSeed: number[] } {
  const rows = t.rows.filter((r) => r.policy === "random");
  if (!rows.length) cannotJudge("需要随机派发的行（policies 里的 \"random\"）作参照");
  return { mean: rows[0].mean as number, perSeed: parsePerSeed(rows[0].meanPerSeed, "随机派发") };
}

/** "Almost unaffected" (lecture §1.3, power of two): at the longest refresh interval, at most this much slower than at the shortest. */
const ALMOST_UNAFFECTED = 0.2;

export const staleInformationDemo = defineDemo({
  id: "01.3",
  section: "§1.3",
  title: "过时的负载信息：最短队列扎堆，二选一稳住",
  // Size: 4 seeds × 50,000 jobs, as 01.2 (same runs at T = 0): the rankings over refresh intervals need a mean over seeds; six intervals so that the crossing points (jsq vs random, two vs jsq) fall inside the grid.
  defaults: { servers: 16, utilization: 0.9, jobs: 50000, refreshIntervals: [0, 0.5, 1, 2, 4, 8], policies: ["jsq", "powerOfTwo", "random"], seeds: 4, warmupFraction: 0.2, seed: 1 } as StaleParams,
  describe: {
    servers: QUEUE_DOCS.servers,
    utilization: QUEUE_DOCS.utilization,
    jobs: { meaning: "每次运行的请求数（含预热）；请求大小服从指数分布", range: "≥ 100 的整数" },
    refreshIntervals: { meaning: "负载快照的刷新间隔 T（个服务时间；0 = 实时信息），每个 T 一组行", range: "非空数组，每项为 ≥ 0 的数，不重复" },
    policies: { ...QUEUE_DOCS.policies, meaning: "比较的派发策略（随机不看快照，作参照线）" },
    seeds: { meaning: "每个点跑几个种子取平均", range: "≥ 1 的整数（排序的结论需要 ≥ 3）" },
    warmupFraction: QUEUE_DOCS.warmupFraction,
    seed: QUEUE_DOCS.seed,
  },
  run(p, { progress }) {
    checkQueueParams(p);
    const jobs = checkInteger("jobs", p.jobs, { min: 100 });
    const intervals = checkDistinct("refreshIntervals", checkNonEmpty("refreshIntervals", p.refreshIntervals).map((x, i) => checkNumber(`refreshIntervals[${i}]`, x, { min: 0 })));
    const entries = checkPolicyEntries("policies", p.policies);
    const policies = entries.map((e) => e.id);
    const seeds = checkInteger("seeds", p.seeds, { min: 1 });
    const blind = new Map<string, DispatchSummary>();
    const rows: Row[] = [];
    for (const refresh of [...intervals].sort((a, b) => a - b)) {
      for (const entry of entries) {
        const policy = entry.id;
        progress?.(`T = ${refresh}，${displayName(policy)}`);
        const usesView = readsLoad(entry);
        let r = usesView ? undefined : blind.get(policy);
        if (!r) {
          r = dispatchAcrossSeeds({ servers: p.servers, utilization: p.utilization, jobs, policy: entry.input, refresh: usesView ? refresh : 0, warmupFraction: p.warmupFraction }, p.seed, seeds);
          if (!usesView) blind.set(policy, r);
        }
        rows.push({ refresh, policy, mean: r.mean, meanSd: r.meanSd, p99: r.p99, meanPerSeed: perSeedCell(r.perSeed.map((x) => x.mean)) });
      }
    }
    return {
      title: `过时的负载信息：快照每 T 个服务时间刷新一次（${p.servers} 台服务器，ρ = ${p.utilization}，${policyNames(policies)}）`,
      columns: [{ key: "refresh", label: "刷新间隔 T", unit: TIME_UNIT, format: "text" }, COLUMNS.policy, COLUMNS.mean, COLUMNS.meanSd, COLUMNS.p99, COLUMNS.meanPerSeed],
      rows,
      notes: [
        `单位：响应时间和 T 都以平均服务时间计。请求大小服从指数分布，${p.servers} 台先来先服务的服务器，利用率 ρ = ${p.utilization}，每次 ${int(jobs)} 个请求，${seedsText(p.seed, seeds)}。`,
        "路由器看到的是时刻 0、T、2T … 拍下的各台队列长度（排队 + 正在服务的请求数；T = 0 即实时）；两次快照之间它不知道自己刚派出去的请求——这正是最短队列扎堆的原因。并列时随机挑。随机派发不看快照，每一行都是同一组运行。",
        `随机派发下每台是 M/M/1，理论平均响应 1/(1−ρ) = ${f(mm1(p.utilization).mean, 2)}。默认设置与演示 01.2 的指数分布、演示 01.4 相同，三张表里随机派发的数字一样。`,
        warmupNote(p.warmupFraction, jobs),
        ...ownPoliciesNote(entries),
      ],
    };
  },
  claims: [
    {
      id: "jsq-degrades",
      says: "信息一过时，最短队列迅速变差：快照刷新得越慢，它越慢",
      judge: (t) => {
        const Ts = intervalsOf(t, "jsq");
        needParam(Ts.length >= 2, "需要最短队列（\"jsq\"）在至少两个刷新间隔下的行");
        const means = Ts.map((T) => meanAt(t, T, "jsq"));
        const perSeed = Ts.map((T) => seedMeansAt(t, T, "jsq"));
        const rising = (xs: number[]) => xs.every((x, k) => k === 0 || x > xs[k - 1]);
        return {
          holds: rising(means),
          ours: `最短队列：${Ts.map((T, k) => `T = ${T} 时 ${f(means[k], 2)}`).join("，")}`,
          seeds: seedsAgreeing(perSeed[0].map((_, s) => perSeed.map((xs) => xs[s])), rising),
        };
      },
    },
    {
      id: "jsq-worse-than-random",
      says: "快照旧到几个服务时间，最短队列就比完全不看负载的随机派发还差",
      lecture: "刷新间隔是 4 个服务时间时它已经比随机还差（误区 2）",
      judge: (t) => {
        const ref = randomReference(t);
        const Ts = intervalsOf(t, "jsq");
        needParam(Ts.includes(4), "讲义的说法是 T = 4 的，需要 refreshIntervals 里有 4");
        const at4 = meanAt(t, 4, "jsq");
        const first = Ts.find((T) => meanAt(t, T, "jsq") > ref.mean);
        const s4 = seedMeansAt(t, 4, "jsq");
        return {
          holds: at4 > ref.mean,
          ours: `T = 4 时最短队列 ${f(at4, 2)}，随机 ${f(ref.mean, 2)}；这组刷新间隔里最短队列${first === undefined ? "始终没有输给随机" : `从 T = ${first} 起输给随机`}`,
          seeds: seedsAgreeing(s4.map((x, k) => x - ref.perSeed[k]), (d) => d > 0),
        };
      },
    },
    {
      id: "two-overtakes-jsq",
      says: "刷新间隔到一个服务时间，二选一就已经比最短队列好",
      judge: (t) => {
        needParam(intervalsOf(t, "jsq").includes(1) && intervalsOf(t, "powerOfTwo").includes(1), "需要 T = 1 时最短队列和二选一的行");
        const jsq = meanAt(t, 1, "jsq");
        const two = meanAt(t, 1, "powerOfTwo");
        const a = seedMeansAt(t, 1, "jsq");
        const b = seedMeansAt(t, 1, "powerOfTwo");
        const both = intervalsOf(t, "jsq").filter((T) => intervalsOf(t, "powerOfTwo").includes(T));
        const first = both.find((T) => meanAt(t, T, "powerOfTwo") < meanAt(t, T, "jsq"));
        const from = first === undefined ? "" : `；这组刷新间隔里二选一从 T = ${first} 起就比最短队列好`;
        return { holds: two < jsq, ours: `T = 1：二选一 ${f(two, 2)}，最短队列 ${f(jsq, 2)}${from}`, seeds: seedsAgreeing(a.map((x, k) => x - b[k]), (d) => d > 0) };
      },
    },
    {
      id: "power-of-two-holds",
      says: "二选一几乎不受过时信息影响",
      lecture: "二选一几乎不受影响",
      judge: (t) => {
        const Ts = intervalsOf(t, "powerOfTwo");
        needParam(Ts.length >= 2 && Ts[Ts.length - 1] >= 4, "需要二选一在至少两个刷新间隔下的行，最长的 ≥ 4");
        const lo = Ts[0];
        const hi = Ts[Ts.length - 1];
        const rise = meanAt(t, hi, "powerOfTwo") / meanAt(t, lo, "powerOfTwo") - 1;
        const a = seedMeansAt(t, lo, "powerOfTwo");
        const b = seedMeansAt(t, hi, "powerOfTwo");
        const jsq = intervalsOf(t, "jsq");
        const jsqRise = jsq.includes(lo) && jsq.includes(hi) ? meanAt(t, hi, "jsq") / meanAt(t, lo, "jsq") : NaN;
        const path = Ts.map((T) => `T = ${T} 时 ${f(meanAt(t, T, "powerOfTwo"), 2)}`).join("，");
        return {
          holds: rise <= ALMOST_UNAFFECTED,
          ours: `二选一：${path}（T = ${hi} 比 T = ${lo} 慢 ${pct(rise)}）`,
          remark: `"几乎不受影响"按"最长的刷新间隔下比最短的慢不到 ${pct(ALMOST_UNAFFECTED)}"判断`,
          seeds: seedsAgreeing(b.map((x, k) => x / a[k] - 1), (r) => r <= ALMOST_UNAFFECTED),
          why: `二选一也随刷新间隔变慢，T = ${hi} 时比 T = ${lo} 慢 ${pct(rise)}：它比较的两台的队列长度同样是旧的，快照越旧，这次比较越接近随便挑一台${Number.isNaN(jsqRise) ? "" : `。只是它远不如最短队列变得多（同样从 T = ${lo} 到 T = ${hi}，最短队列 ×${f(jsqRise, 1)}，二选一 ×${f(1 + rise, 2)}）`}：不同请求抽到的两台不同，不会扎堆（下一条）。和最短队列比，它的确几乎不受影响；和它自己在实时信息下比，并非如此`,
        };
      },
    },
    {
      id: "power-of-two-no-herding",
      ourStatement: true,
      says: "二选一不扎堆：刷新间隔最长时，它仍远好于随机（不到随机的 2/3）",
      judge: (t) => {
        const ref = randomReference(t);
        const Ts = intervalsOf(t, "powerOfTwo");
        needParam(Ts.length >= 1 && Ts[Ts.length - 1] >= 4, "需要二选一在一个 ≥ 4 的刷新间隔下的行");
        const hi = Ts[Ts.length - 1];
        const perSeed = seedMeansAt(t, hi, "powerOfTwo");
        return {
          holds: meanAt(t, hi, "powerOfTwo") < ref.mean / 1.5,
          ours: `T = ${hi} 时二选一 ${f(meanAt(t, hi, "powerOfTwo"), 2)}，随机 ${f(ref.mean, 2)}（${pct(meanAt(t, hi, "powerOfTwo") / ref.mean)}）`,
          seeds: seedsAgreeing(perSeed.map((x, k) => x / ref.perSeed[k]), (r) => r < 1 / 1.5),
          why: `T = ${hi} 时二选一已是随机的 ${pct(meanAt(t, hi, "powerOfTwo") / ref.mean)}：快照旧到这个程度，两台里挑较短的那台几乎不比随便挑一台强`,
        };
      },
    },
  ],
});
