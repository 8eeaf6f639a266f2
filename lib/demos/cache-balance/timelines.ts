// 代码 02, §2.2 and §2.5 over time: outstanding requests per replica, sampled by the cluster simulation's timeline
// (lib/cluster/timeline.ts) — the pure-affinity collapse against its one working variant (02.9), and the hot spot
// with and without the load guard (02.10).
import { checkEachOneOf, checkInteger } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import type { RouterFactory } from "../../cluster/routers";
import { generateWorkload } from "../../cluster/workloads";
import { Demo, defineDemo, DemoContext } from "../registry";
import { Claim, needRows } from "../claims";
import { pureAffinity } from "./hot-spot";
import { names, runSection2, SEED_DOCS } from "./section2";

interface Scenario {
  workload: string;
  overrides?: Record<string, number>;
  replicas: number;
  rate: number;
  requestCount: number;
  router: () => string | RouterFactory;
  /** what it is, for the parameter docs */
  about: string;
}

/** The runs whose dynamics the lecture describes: §2.2 the collapse, §2.5 the hot spot. */
export const TIMELINE_SCENARIOS: Record<string, Scenario> = {
  affinityCollapse: { workload: "longDocQA", replicas: 4, rate: 1, requestCount: 1200, router: () => pureAffinity("lowestIndex"), about: "长文档，纯亲和，平局取最小编号" },
  affinityNoSystemLeastLoad: { workload: "longDocQA", overrides: { systemPromptTokens: 0 }, replicas: 4, rate: 1, requestCount: 1200, router: () => pureAffinity("leastLoad"), about: "长文档去掉系统提示，纯亲和，平局取负载最轻" },
  hotSpotThreshold: { workload: "toolCallingHotSpot", replicas: 8, rate: 70, requestCount: 8000, router: () => "thresholdAffinity", about: "热点（最热的工具约占 40%），8 个副本，阈值亲和" },
  hotSpotGuarded: { workload: "toolCallingHotSpot", replicas: 8, rate: 70, requestCount: 8000, router: () => "cacheAwareGuarded", about: "同一热点，缓存感知 + 负载保护" },
};

type PTimeline = { scenarios: string[]; samples: number; seed: number };

/** Outstanding requests per replica at the last sample of a scenario and half-way, and the largest gap between
 * the busiest and the idlest replica over the run. */
export function endState(t: Table, scenario: string): { last: number[]; half: number[]; maxGap: number } {
  const rows = needRows(t, { scenario });
  const times = [...new Set(rows.map((r) => r.time as number))].sort((a, b) => a - b);
  const at = (time: number) => rows.filter((r) => r.time === time).sort((a, b) => (a.replica as number) - (b.replica as number)).map((r) => r.outstanding as number);
  let maxGap = 0;
  for (const time of times) {
    const o = at(time);
    maxGap = Math.max(maxGap, Math.max(...o) - Math.min(...o));
  }
  return { last: at(times[times.length - 1]), half: at(times[Math.floor(times.length / 2)]), maxGap };
}

function timelineDemo(id: string, section: string, title: string, scenarios: string[], claims: Claim<PTimeline>[]): Demo<PTimeline> {
  return defineDemo({
    id,
    section,
    title,
    // Size (02.9, 02.10): one seed of a §2 run (the collapse, the hot spot), 60 samples of the outstanding requests: the claims read a
    // trend (piles up vs stays level), not a mean.
    defaults: { scenarios: [...scenarios], samples: 60, seed: 1 },
    describe: {
      scenarios: { meaning: `要画的运行：${scenarios.map((s) => `${s}（${TIMELINE_SCENARIOS[s].about}）`).join("、")}`, range: `非空数组，每项为 ${scenarios.join("、")} 之一` },
      samples: { meaning: "从 0 到最后一个请求到达，等间隔取几个样本", range: "2–500 的整数" },
      seed: SEED_DOCS.seed,
    },
    run(p, ctx: DemoContext) {
      const chosen = checkEachOneOf("scenarios", p.scenarios, scenarios);
      const samples = checkInteger("samples", p.samples, { min: 2, max: 500 });
      const seed = checkInteger("seed", p.seed, { min: 0 });
      const rows: Row[] = [];
      const settings: string[] = [];
      for (const name of chosen) {
        const s = TIMELINE_SCENARIOS[name];
        ctx.progress?.(`${id}：${displayName(name)}`);
        const w = generateWorkload(s.workload, { rate: s.rate, seed, requestCount: s.requestCount, overrides: s.overrides });
        const last = w.requests[w.requests.length - 1].arrival;
        const tl = runSection2(w, s.replicas, s.router(), seed, { timeline: { interval: last / samples, maxSamples: samples + 2, keys: false } }).timeline;
        settings.push(`${displayName(name)}：${s.replicas} 个副本，${s.rate} 请求/秒，${s.requestCount.toLocaleString("en-US")} 个请求`);
        if (!tl) continue;
        for (let k = 0; k < tl.times.length && k < samples; k++) {
          for (let i = 0; i < tl.replicas; i++) rows.push({ scenario: name, replica: i, time: tl.times[k], outstanding: tl.outstanding[i][k], queued: tl.queued[i][k] });
        }
      }
      return {
        title: `在途请求随时间（每个副本一条线）：${names(chosen)}，种子 ${seed}`,
        columns: [
          { key: "scenario", label: "运行", format: "name" },
          { key: "replica", label: "副本", format: "int" },
          { key: "time", label: "时间", unit: "秒", format: "fixed0" },
          { key: "outstanding", label: "在途请求", unit: "个", format: "int" },
          { key: "queued", label: "其中排队等待的", unit: "个", format: "int" },
        ],
        rows,
        notes: [
          `在途请求 = 已派到这个副本、还没完成的请求。从 0 到最后一个请求到达，等间隔取 ${samples} 个样本（模拟器的时间线，lib/cluster/timeline.ts）。${settings.join("；")}。`,
        ],
      };
    },
    claims,
  });
}

const CLAIMS_029: Claim<PTimeline>[] = [
  {
    id: "collapse-piles-up",
    says: "纯亲和崩溃时，在途请求全堆在一个副本上，而且越积越多；其他副本一直空着",
    lecture: "其他副本一个请求都收不到，永远没有机会缓存任何东西",
    judge: (t) => {
      const s = endState(t, "affinityCollapse");
      const total = s.last.reduce((a, b) => a + b, 0);
      const top = Math.max(...s.last);
      return { holds: top >= 0.99 * total && top > Math.max(...s.half), ours: `最后一个请求到达时：最忙副本 ${top} 个在途（一半时 ${Math.max(...s.half)} 个），其他副本合计 ${total - top} 个` };
    },
  },
  {
    id: "spread-stays-level",
    says: "去掉系统提示、平局给负载最轻的副本，各副本的在途请求保持在同一个量级、不随时间增长",
    judge: (t) => {
      const s = endState(t, "affinityNoSystemLeastLoad");
      return { holds: Math.max(...s.last) < 20 && s.maxGap < 20, ours: `最后：各副本 ${s.last.join("、")} 个在途；全程最多与最少之差 ${s.maxGap}` };
    },
  },
];

const CLAIMS_0210: Claim<PTimeline>[] = [
  {
    id: "hot-spot-grows",
    says: "热点下没有负载保护：热门工具所在的副本在途请求一路上涨，其他副本很闲",
    lecture: "它的全部流量都会落到同一个副本上",
    judge: (t) => {
      const s = endState(t, "hotSpotThreshold");
      const sorted = [...s.last].sort((a, b) => b - a);
      const rest = sorted.slice(1);
      const median = rest[Math.floor(rest.length / 2)] ?? 0;
      return { holds: sorted[0] > 5 * Math.max(median, 1) && sorted[0] > Math.max(...s.half), ours: `最后：最忙副本 ${sorted[0]} 个在途（一半时 ${Math.max(...s.half)} 个），其余副本的中位数 ${median} 个` };
    },
  },
  {
    id: "guard-keeps-level",
    says: "加上负载保护，各副本的在途请求始终相差不大：失衡一超过保护阈值，请求就改派到最闲的副本",
    judge: (t) => {
      const s = endState(t, "hotSpotGuarded");
      return { holds: s.maxGap <= 30 && Math.max(...s.last) < 30, ours: `全程各副本在途请求最多与最少之差 ${s.maxGap}（保护阈值：差值 > 8 且 > 1.5 倍）；最后：${s.last.join("、")}` };
    },
  },
];

export const collapseTimeline = timelineDemo("02.9", "§2.2", "纯亲和的崩溃随时间：在途请求", ["affinityCollapse", "affinityNoSystemLeastLoad"], CLAIMS_029);
export const hotSpotTimeline = timelineDemo("02.10", "§2.5", "热点随时间：有无负载保护时的在途请求", ["hotSpotThreshold", "hotSpotGuarded"], CLAIMS_0210);
