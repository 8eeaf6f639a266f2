// 03.1's claims (Preble's Figure 3 on paper). The four on Figure 3's ratio (baselines ÷ Preble) are judged on the seed
// means, and where those rows ran several seeds (parameter ratioSeeds) also on each seed's own view of the table:
// the verdict is the means', `seeds` says on how many seeds' views the claim holds. The four that set a one-seed configuration
// (cache-aware + guard, E2 + rebalancing, the released cells) beside them are judged on seed 1's view: like with like.
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { cannotJudge, Claim, f, Judgement, needParam, needRows, ReadingJudgement, times } from "../claims";
import { READING_LABEL } from "./common";
import { BASELINES, seedView } from "./figure3-seeds";
import type { Baseline } from "./figure3-seeds";

const num = (x: unknown): number => x as number;

export type Fig3Params = {
  readings: string[];
  workloads: string[];
  rates: Record<string, number[]>;
  configurations: string[];
  replicas: number;
  minRequests: number;
  minSeconds: number;
  ratioSeeds: number;
  seed: number | string;
};

/** Rows of one configuration in one workload, by rate. */
const rowsOf = (t: Table, workload: string, policy: string) => needRows(t, { workload, policy });

/** The highest rate of the grid at which `policy` is not overloaded (NaN if it is overloaded everywhere). */
function sustained(t: Table, workload: string, policy: string): number {
  const ok = rowsOf(t, workload, policy).filter((r) => r.overloaded === false).map((r) => num(r.rate));
  return ok.length ? Math.max(...ok) : NaN;
}


/** The largest baseline ÷ preble mean ratio over cells where neither is overloaded (NaN if none). */
function fairMax(t: Table, workload: string, b: Baseline = BASELINES[0]): number {
  const xs = rowsOf(t, workload, "preble").filter((r) => r[b.kind] === "speedUp").map((r) => num(r[b.ratio]));
  return xs.length ? Math.max(...xs) : NaN;
}

/** The geometric mean of the baseline ÷ preble mean ratios over cells where neither is overloaded (NaN if none):
 * the typical gain over the grid (the largest alone hides rates where Preble is slower). */
function typicalGain(t: Table, workload: string, b: Baseline): number {
  const xs = rowsOf(t, workload, "preble").filter((r) => r[b.kind] === "speedUp").map((r) => num(r[b.ratio]));
  return xs.length ? Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length) : NaN;
}

/** Each speed-up cell of `workload`: "rate 请求/秒 ratio×". */
function gainsByRate(t: Table, workload: string, b: Baseline): string {
  return rowsOf(t, workload, "preble")
    .filter((r) => r[b.kind] === "speedUp")
    .map((r) => `${r.rate} 请求/秒 ${times(num(r[b.ratio]))}`)
    .join("、");
}

/** The claim's remark, with the overloaded runs it compares named first: their mean latency grows with the run's
 * length, so a ratio against them is not a speed-up. */
function overloadRemark(rows: Array<[string, Row]>, remark: string): string {
  const over = rows.filter(([, r]) => r.overloaded === true).map(([label]) => label);
  return over.length ? `${over.join("、")}过载，比值不是加速比；${remark}` : remark;
}

/** One judgement per baseline present in the table (the first: ours). */
function perBaseline(p: Fig3Params, judge: (b: Baseline) => Judgement) {
  const present = BASELINES.filter((b) => p.configurations.includes(b.id));
  if (present.length === 0) cannotJudge("需要至少一个基线配置（参数 configurations：baseline 或 baselinePaper）");
  return present.map((b) => ({ reading: b.reading, ...judge(b) }));
}

/** Preble as released (lib/cluster/preble/options.ts READINGS), for the four claims that compare Preble with itself or
 * with the simple rule: full Preble = the configuration prebleReleased; E2 + rebalancing = migrating important nodes
 * with the released cost model. Run only in the cells those claims read, and only beside the paper's baseline. */
export const RELEASED_OF: Readonly<Record<string, { id: string; configuration: string; routerOptions: Record<string, unknown> }>> = {
  preble: { id: "prebleReleased", configuration: "prebleReleased", routerOptions: {} },
  "e2+rebalance": { id: "e2+migrateReleased", configuration: "e2+rebalance", routerOptions: { rebalanceAction: "migrate", decodeEstimate: "released", evictionEstimate: "memoryFull" } },
};
const releasedJudged = (p: Fig3Params) => p.readings.includes("released") && p.configurations.includes("baselinePaper");

/** The cells (workload, rate, lecture configuration) the released verdicts read. */
export function releasedCells(p: Fig3Params): Array<{ workload: string; rate: number; of: string }> {
  const out: Array<{ workload: string; rate: number; of: string }> = [];
  if (!releasedJudged(p)) return out;
  const has = (w: string) => p.workloads.includes(w) && Array.isArray(p.rates[w]) && p.rates[w].length > 0;
  const add = (workload: string, rate: number, of: string) => {
    if (p.configurations.includes(of) && !out.some((c) => c.workload === workload && c.rate === rate && c.of === of)) out.push({ workload, rate, of });
  };
  if (has("longDocQA") && p.rates.longDocQA.includes(1)) add("longDocQA", 1, "preble");
  for (const w of ["longDocQA", "videoQA"]) if (has(w)) add(w, Math.max(...p.rates[w]), "preble");
  if (has("videoQA") && p.rates.videoQA.includes(8)) for (const of of ["e2+rebalance", "preble"]) add("videoQA", 8, of);
  if (has("programming")) add("programming", Math.min(...p.rates.programming), "e2+rebalance");
  return out;
}

/** The lecture's verdict alone (as before) when the released one is not judged, else both (the lecture's first). */
function lectureAndReleased(p: Fig3Params, judge: (name: (c: string) => string, released: boolean) => Judgement) {
  if (!releasedJudged(p)) return judge((c) => c, false);
  return [
    { reading: READING_LABEL.lecture, ...judge((c) => c, false) },
    { reading: READING_LABEL.released, ...judge((c) => RELEASED_OF[c]?.id ?? c, true) },
  ];
}

const rateWords = (x: number) => (Number.isNaN(x) ? "网格里每一档都过载" : `${x} 请求/秒`);

function needWorkloads(p: Fig3Params, list: string[], configurations: string[]): void {
  for (const w of list) needParam(p.workloads.includes(w), `需要负载 ${displayName(w)}（参数 workloads）`);
  for (const c of configurations) needParam(p.configurations.includes(c), `需要配置 ${displayName(c)}（参数 configurations）`);
}

/** One (workload, rate) cell with both the simple rule (cache-aware + guard) and `preble` (a configuration id): mean
 * latencies a (simple) and b (Preble); `low` = in the lower half of that workload's rates run by both (at least one,
 * none when only one rate ran). Ordered by workload, then rate. */
type Cell3 = { w: string; rate: number; a: number; b: number; overA: boolean; overB: boolean; low: boolean };
function simpleAgainstPreble(t: Table, p: Fig3Params, preble: string): Cell3[] {
  return p.workloads.flatMap((w) => {
    const both = t.rows
      .filter((r) => r.workload === w && r.policy === "cacheAwareGuarded")
      .flatMap((ra) => {
        const rb = t.rows.find((r) => r.workload === w && r.rate === ra.rate && r.policy === preble);
        return rb ? [{ w, rate: num(ra.rate), a: num(ra.meanLatency), b: num(rb.meanLatency), overA: ra.overloaded === true, overB: rb.overloaded === true, low: false }] : [];
      })
      .sort((x, y) => x.rate - y.rate);
    const lowCount = both.length >= 2 ? Math.floor(both.length / 2) : 0;
    return both.map((c, k) => ({ ...c, low: k < lowCount }));
  });
}

/** Per workload, the largest simple ÷ Preble ratio over `cells`: "长文档问答 0.80×、视频问答 1.09×…". */
function byWorkload(cells: Cell3[]): string {
  const ws = [...new Set(cells.map((c) => c.w))];
  return ws.map((w) => `${displayName(w)} ${times(Math.max(...cells.filter((c) => c.w === w).map((c) => c.a / c.b)))}`).join("、") || "没有（每种负载至少要两档请求率）";
}

const CLAIMS_ON_ONE_TABLE: Claim<Fig3Params>[] = [
  {
    id: "long-video-gain-most",
    says: "长文档和视频问答收益最大：共享的上下文长、一个副本放不下几份，按前缀分区后集群的总缓存才够用——Preble 扛得住的请求率比基线高，高出的倍数在各负载里最大",
    lecture: "长文档和视频问答收益最大",
    judge: (t, p) => {
      needWorkloads(p, ["longDocQA", "videoQA"], ["preble"]);
      return perBaseline(p, (b) => {
        // the gain measured as capacity: the highest rate each side sustains (every rate overloaded on the baseline's
        // side and not on Preble's: an unbounded gain)
        const parts = p.workloads.map((w) => {
          const base = sustained(t, w, b.id);
          const preble = sustained(t, w, "preble");
          const gain = Number.isNaN(preble) ? 0 : Number.isNaN(base) ? Infinity : preble / base;
          return { w, base, preble, gain };
        });
        const lv = parts.filter((x) => x.w === "longDocQA" || x.w === "videoQA");
        const floor = Math.min(...lv.map((x) => x.gain));
        const notHigher = lv.filter((x) => !(x.gain > 1));
        const above = parts.filter((x) => x.w !== "longDocQA" && x.w !== "videoQA" && x.gain > floor);
        const rate = (x: number) => (Number.isNaN(x) ? "每档都过载" : String(x));
        const words = (x: { w: string; base: number; preble: number }) => `${displayName(x.w)} ${rate(x.base)} → ${rate(x.preble)}`;
        const baseName = b.reading.replace(/（.*$/, "");
        return {
          holds: notHigher.length === 0 && above.length === 0,
          ours: `不过载的最高请求率（请求/秒，基线 → Preble）：${parts.map(words).join("、")}`,
          why: [notHigher.length ? `${notHigher.map((x) => displayName(x.w)).join("、")}上 Preble 扛得住的请求率不比${baseName}高` : "", above.length ? `${above.map((x) => displayName(x.w)).join("、")}上 Preble 多扛的倍数更大` : ""].filter(Boolean).join("；"),
        };
      });
    },
  },
  {
    id: "small-shared-small-gain",
    says: "工具调用和智能体的共享部分每个副本都放得下，轮转也能命中大部分：两边扛得住的请求率相同，两边都不过载时收益不到 2 倍",
    lecture: "工具调用和 agent 收益小",
    judge: (t, p) => {
      needWorkloads(p, ["toolCalling", "agent"], ["preble"]);
      return perBaseline(p, (b) => {
        const parts = ["toolCalling", "agent"].map((w) => ({ w, base: sustained(t, w, b.id), preble: sustained(t, w, "preble"), fair: fairMax(t, w, b) }));
        const why = parts.flatMap((x) => [
          x.base !== x.preble ? `${displayName(x.w)}上${b.reading.replace(/（.*$/, "")}只扛到 ${rateWords(x.base)}、Preble 到 ${rateWords(x.preble)}` : "",
          x.fair >= 2 ? `${displayName(x.w)}在两边都不过载的格子里最大比值 ${times(x.fair)}，超过 2 倍` : "",
        ]).filter(Boolean);
        return {
          holds: parts.every((x) => x.base === x.preble && !(x.fair >= 2)),
          ours: parts.map((x) => `${displayName(x.w)}：不过载到 ${rateWords(x.base)} 对 ${rateWords(x.preble)}，最大比值 ${Number.isNaN(x.fair) ? "—" : times(x.fair)}`).join("；"),
          why: `${why.join("；")}：在这个网格上收益并不小`,
        };
      });
    },
  },
  {
    id: "programming-least",
    says: "编程负载收益最小（但仍是收益，几何平均 > 1）：它生成的 token 最多，时间大半花在 decode 上",
    lecture: "论文报告编程平均 1.56–1.8 倍，五种负载里最小",
    judge: (t, p) => {
      needParam(p.workloads.includes("programming") && p.workloads.length >= 2, "需要编程和至少一种别的负载（参数 workloads）");
      needWorkloads(p, [], ["preble"]);
      return perBaseline(p, (b) => {
        const gains = p.workloads.map((w) => ({ w, g: typicalGain(t, w, b) })).filter((x) => !Number.isNaN(x.g));
        const prog = gains.find((x) => x.w === "programming");
        if (!prog) return { holds: false, ours: "编程负载上没有两边都不过载的格子", why: "编程负载上没有两边都不过载的格子，无从比较收益" };
        const least = gains.reduce((a, c) => (c.g < a.g ? c : a));
        const cells = rowsOf(t, "programming", "preble").filter((r) => r[b.kind] === "speedUp");
        const behind = cells.filter((r) => num(r[b.ratio]) < 1).length;
        const slower = `；编程各档：${gainsByRate(t, "programming", b)}${behind > 0 ? `，其中 ${behind} 档 Preble 更慢` : ""}`;
        const notLeast = `收益最小的是${displayName(least.w)}（${times(least.g)}），编程是 ${times(prog.g)}${gains.filter((x) => x.g < prog.g).length > 1 ? `，比编程小的还有 ${gains.filter((x) => x.g < prog.g && x.w !== least.w).map((x) => displayName(x.w)).join("、")}` : ""}`;
        const noGain = `编程的收益最小，可只有 ${times(prog.g)}：Preble 在编程上平均反而更慢${behind > 0 ? `（${cells.length} 档里 ${behind} 档）` : ""}；最低一档上还有 E2 的冷启动（下面第四条）`;
        return {
          holds: least.w === "programming" && prog.g > 1,
          ours: `几何平均：${gains.map((x) => `${displayName(x.w)} ${times(x.g)}`).join("、")}${slower}`,
          why: least.w !== "programming" ? notLeast : noGain,
        };
      });
    },
  },
  {
    id: "largest-ratio-overloaded",
    says: "基线 ÷ Preble 的比值最大的格子里基线已经过载：那里的比值取决于模拟时长，不能当作加速比",
    lecture: "1.0–31.2 倍，最大的在基线过载的格子里",
    judge: (t, p) => {
      needWorkloads(p, [], ["preble"]);
      return perBaseline(p, (b) => {
        const rows = t.rows.filter((r) => r.policy === "preble" && Number.isFinite(num(r[b.ratio])));
        if (rows.length === 0) return { holds: false, ours: "没有可比的格子" };
        const top = rows.reduce((a, c) => (num(c[b.ratio]) > num(a[b.ratio]) ? c : a));
        const ratios = rows.map((r) => num(r[b.ratio]));
        return {
          holds: top[b.kind] === "baselineOverloaded",
          why: `比值最大的格子（${displayName(top.workload)} ${top.rate} 请求/秒，${times(num(top[b.ratio]), 1)}）里基线没有过载`,
          ours: `${times(Math.min(...ratios), 1)}–${times(Math.max(...ratios), 1)}；最大的是${displayName(top.workload)} ${top.rate} 请求/秒（基线${top[b.kind] === "baselineOverloaded" ? "已过载" : "没有过载"}）`,
        };
      });
    },
  },
  {
    id: "simple-not-worse",
    says: "简单的“缓存感知 + 负载保护”在中低负载下不输 Preble（每种负载较低的一半请求率上慢不到 5%），长文档 1 请求/秒时甚至更好",
    lecture: "中低负载下不输 Preble，长文档 1/s 时甚至更好（3.88 vs 5.35 秒）",
    judge: (t, p) => {
      needWorkloads(p, ["longDocQA"], ["cacheAwareGuarded", "preble"]);
      needParam((p.rates.longDocQA ?? []).includes(1), "需要长文档 1 请求/秒这一档（参数 rates.longDocQA）");
      return lectureAndReleased(p, (name, released) => {
        const cells = simpleAgainstPreble(t, p, name("preble"));
        const low = cells.filter((c) => c.low);
        const lost = low.filter((c) => c.a > 1.05 * c.b);
        const at1 = needRows(t, { workload: "longDocQA", rate: 1, policy: "cacheAwareGuarded" })[0];
        const a1 = num(at1.meanLatency);
        const b1 = num(needRows(t, { workload: "longDocQA", rate: 1, policy: name("preble") })[0].meanLatency);
        const why = [
          lost.length ? `${lost.map((c) => `${displayName(c.w)} ${c.rate} 请求/秒时简单规则慢 ${f((c.a / c.b - 1) * 100, 0)}%（${f(c.a, 2)} 对 ${f(c.b, 2)} 秒）`).join("；")}（排队相同时见 03.10）` : "",
          a1 < b1 ? "" : `长文档 1 请求/秒时简单规则 ${f(a1)} 秒，不比 Preble 的 ${f(b1)} 秒快`,
        ].filter(Boolean);
        return {
          holds: lost.length === 0 && a1 < b1,
          ours: `较低的一半请求率上，简单规则 ÷ Preble 最大：${byWorkload(low)}；长文档 1 请求/秒 ${f(a1)} 对 ${f(b1)} 秒`,
          why: why.join("；"),
        };
      });
    },
  },
  {
    id: "preble-wins-at-top",
    says: "Preble 只在最高的几档负载下明显（快 20% 以上）胜过简单规则：每种负载较低的一半请求率上不明显，最高一档上明显",
    lecture: "Preble 只在最高的几档负载下明显更好",
    judge: (t, p) => {
      needWorkloads(p, [], ["cacheAwareGuarded", "preble"]);
      return lectureAndReleased(p, (name, released) => {
        const cells = simpleAgainstPreble(t, p, name("preble"));
        needParam(cells.length > 0, "没有一个格子同时跑了缓存感知 + 负载保护和完整 Preble");
        const clear = (c: Cell3) => c.b < 0.8 * c.a;
        const workloads = [...new Set(cells.map((c) => c.w))];
        const parts = workloads.map((w) => {
          const mine = cells.filter((c) => c.w === w);
          const top = mine[mine.length - 1];
          return { w, top, topWin: clear(top), lowWins: mine.filter((c) => c.low && clear(c)) };
        });
        const bad = parts.filter((x) => !x.topWin || x.lowWins.length > 0);
        const gain = (c: Cell3) => `${c.rate} 请求/秒快 ${f((1 - c.b / c.a) * 100, 0)}%`;
        return {
          holds: bad.length === 0,
          ours: `最高一档，简单规则对 Preble（秒）：${parts.map((x) => `${displayName(x.w)} ${f(x.top.a, 1)}${x.top.overA ? "（过载）" : ""} 对 ${f(x.top.b, 1)}${x.top.overB ? "（过载）" : ""}`).join("；")}`,
          why: bad.map((x) => [
            x.lowWins.length ? `${displayName(x.w)}在较低的 ${x.lowWins.map(gain).join("、")}，不只在最高几档` : "",
            x.topWin ? "" : `${displayName(x.w)}最高的 ${x.top.rate} 请求/秒 Preble ${x.top.b > x.top.a ? `反而慢 ${f((x.top.b / x.top.a - 1) * 100, 0)}%` : `只快 ${f((1 - x.top.b / x.top.a) * 100, 0)}%`}${x.top.overA && x.top.overB ? "（两者都过载）" : ""}`,
          ].filter(Boolean).join("，")).join("；"),
        };
      });
    },
  },
  {
    id: "programming-cold-start",
    says: "编程负载的最低一档上，E2 + 再平衡反而比基线慢：共享的 2,400 token 前缀让再平衡开始之前（前 50 × GPU 数个请求）的请求都去“利用”同一块 GPU，积下的队列要一阵子才消化",
    judge: (t, p) => {
      needWorkloads(p, ["programming"], ["baseline", "e2+rebalance"]);
      const low = Math.min(...rowsOf(t, "programming", "baseline").map((r) => num(r.rate)));
      return lectureAndReleased(p, (name, released) => {
        const base = released ? "baselinePaper" : "baseline";
        const a = num(needRows(t, { workload: "programming", rate: low, policy: base })[0].meanLatency);
        const b = num(needRows(t, { workload: "programming", rate: low, policy: name("e2+rebalance") })[0].meanLatency);
        return {
          holds: b > a,
          why: `${low} 请求/秒时 E2 + 再平衡（${f(b)} 秒）不比基线（${f(a)} 秒）慢`,
          ours: `${low} 请求/秒：${released ? "论文的基线" : "基线"} ${f(a)} 秒，E2 + 再平衡 ${f(b)} 秒`,
          remark: released ? "开源代码的读法：E2 + 迁移重要节点（开源的 decode 项和 M），对论文的基线（LPM，不分块）" : "开源代码的再平衡也要等这么多请求（gsw:378）",
        };
      });
    },
  },
  {
    id: "gap-at-video-8",
    says: "视频问答 8 请求/秒时，“E2 + 再平衡”和完整 Preble 相差一大截（平均延迟差 1.5 倍以上）",
    lecture: "90.0 → 20.6 秒",
    judge: (t, p) => {
      needWorkloads(p, ["videoQA"], ["e2+rebalance", "preble"]);
      needParam((p.rates.videoQA ?? []).includes(8), "需要视频问答 8 请求/秒这一档（参数 rates.videoQA）");
      return lectureAndReleased(p, (name, released) => {
        const ra = needRows(t, { workload: "videoQA", rate: 8, policy: name("e2+rebalance") })[0];
        const rb = needRows(t, { workload: "videoQA", rate: 8, policy: name("preble") })[0];
        const a = num(ra.meanLatency);
        const b = num(rb.meanLatency);
        return {
          holds: a > 1.5 * b,
          remark: overloadRemark([["E2 + 再平衡", ra], ["完整 Preble", rb]], released ? "开源代码的读法：E2 + 迁移重要节点（FCFS）对开源代码的完整 Preble（每迭代一组的优先级组）" : "两者的副本内排队不同（FCFS 对优先级组），路由也不全同；排队相同时再比见 03.10"),
          why: a < b ? `E2 + 再平衡（${f(a, 1)} 秒）反而比完整 Preble（${f(b, 1)} 秒）快${released ? "：完整版多出的是每迭代一组的优先级组，03.5 里这种读法在视频问答上也不如讲义的读法" : ""}` : `E2 + 再平衡 ${f(a, 1)} 秒，完整 Preble ${f(b, 1)} 秒，只差 ${times(a / b, 1)}，不到 1.5 倍`,
          ours: `${f(a, 1)} → ${f(b, 1)} 秒（${times(a / b, 1)}）`,
        };
      });
    },
  },
];


/** A claim judged on the seed means, with on how many seeds' views it holds (when the ratio rows ran several seeds). */
function acrossSeeds(claim: Claim<Fig3Params>): Claim<Fig3Params> {
  return {
    ...claim,
    judge: (t, p) => {
      const onMeans = claim.judge(t, p);
      const n = Number(p.ratioSeeds);
      if (!(n > 1) || !t.rows.some((r) => num(r.seeds) > 1)) return onMeans;
      const perSeed = Array.from({ length: n }, (_, k) => {
        try {
          return claim.judge(seedView(t, k), p);
        } catch {
          return null; // a seed's view the claim cannot read counts as one where it does not hold
        }
      });
      const holdsAt = (j: Judgement | ReadingJudgement[] | null, i: number): boolean | undefined => (j === null ? undefined : Array.isArray(j) ? j[i]?.holds : j.holds);
      const withSeeds = <J extends Judgement>(j: J, i: number): J => ({ ...j, seeds: { agree: perSeed.filter((s) => holdsAt(s, i) === true).length, total: n } });
      return Array.isArray(onMeans) ? onMeans.map((j, i) => withSeeds(j, i)) : withSeeds(onMeans, 0);
    },
  };
}

/** A claim judged on seed 1's view (it compares a configuration that ran one seed), saying so when others ran more. */
function onFirstSeed(claim: Claim<Fig3Params>): Claim<Fig3Params> {
  return {
    ...claim,
    judge: (t, p) => {
      if (!t.rows.some((r) => num(r.seeds) > 1)) return claim.judge(t, p);
      const note = `种子 ${String(p.seed)} 的数`;
      const j = claim.judge(seedView(t, 0), p);
      const add = <J extends Judgement>(x: J): J => ({ ...x, remark: x.remark ? `${x.remark}；${note}` : note });
      return Array.isArray(j) ? j.map(add) : add(j);
    },
  };
}

const ON_RATIO = new Set(["long-video-gain-most", "small-shared-small-gain", "programming-least", "largest-ratio-overloaded"]);
export const FIGURE3_CLAIMS: Claim<Fig3Params>[] = CLAIMS_ON_ONE_TABLE.map((c) => (ON_RATIO.has(c.id) ? acrossSeeds(c) : onFirstSeed(c)));

/** What each claim reads: its workloads and the configurations beside the two baselines (always kept: the ratio
 * claims judge against both, the released verdicts need the paper's). Every run is a pure function of its own cell
 * and seed, so dropping the other workloads and configurations leaves these rows — and the claims' words — as they are. */
const CLAIM_NEEDS: Readonly<Record<string, { workloads: readonly string[]; configurations: readonly string[] }>> = {
  "small-shared-small-gain": { workloads: ["toolCalling", "agent"], configurations: ["preble"] },
  "programming-cold-start": { workloads: ["programming"], configurations: ["e2+rebalance"] },
  "gap-at-video-8": { workloads: ["videoQA"], configurations: ["e2+rebalance", "preble"] },
};

/** 03.1 cut to the workloads and configurations the claims `ids` read (undefined when one of them reads them all:
 * programming-least, largest-ratio-overloaded, simple-not-worse, preble-wins-at-top and long-video-gain-most compare every workload). */
export function figure3ForClaims(ids: readonly string[], p: Fig3Params): Partial<Fig3Params> | undefined {
  if (ids.length === 0 || !ids.every((id) => id in CLAIM_NEEDS)) return undefined;
  const workloads = new Set(ids.flatMap((id) => CLAIM_NEEDS[id].workloads));
  const configurations = new Set<string>([...BASELINES.map((b) => b.id), ...ids.flatMap((id) => CLAIM_NEEDS[id].configurations)]);
  const cut = { workloads: p.workloads.filter((w) => workloads.has(w)), configurations: p.configurations.filter((c) => configurations.has(c)) };
  // none of them asked for: the full run says which workload or configuration the claims need
  return cut.workloads.length > 0 && cut.configurations.length > 0 ? cut : undefined;
}
