// The conclusions §6 draws from 06.1 (side by side), judged on its table: one seed, so each is a statement about
// this run; 06.3 is where a ratio rests on several seeds.
import { displayName, displayNames } from "../../core/glossary";
import type { Table } from "../../core/table";
import { Claim, cannotJudge, f, need, needParam, pct, times } from "../claims";

import type { SideBySideParams as P } from "./common";

const PROD = ["sglangRouter", "sglangRouterLate2025", "dynamoKvRouter", "gatewayPrefixScorer"];
const LONG_AND_VIDEO = ["longDocQA", "videoQA"];

function present(t: Table, key: string): Set<string> {
  return new Set(t.rows.map((r) => String(r[key])));
}

/** The workloads of `wanted` that ran, or unjudged naming them. */
function workloadsOf(t: Table, wanted: string[]): string[] {
  const ran = present(t, "workload");
  const ws = wanted.filter((w) => ran.has(w));
  needParam(ws.length > 0, `需要 ${displayNames(wanted)} 中至少一种负载，这组参数下没有`);
  return ws;
}

/** The production routers that ran, or unjudged. */
function productionOf(t: Table): string[] {
  const ran = present(t, "policy");
  const ps = PROD.filter((p) => ran.has(p));
  needParam(ps.length > 0, "需要至少一个生产路由器（sglangRouter、sglangRouterLate2025、dynamoKvRouter、gatewayPrefixScorer）");
  return ps;
}

const mean = (t: Table, workload: string, policy: string): number => need(t, { workload, policy }, "meanLatency");

export const sinceThenClaims: Claim<P>[] = [
  {
    id: "production-beat-load-only",
    says: "在长文档和视频问答上，每个生产路由器都快于只看负载的轮转和最少负载",
    judge: (t) => {
      const ws = workloadsOf(t, LONG_AND_VIDEO);
      const ps = productionOf(t);
      const parts: string[] = [];
      const slower: string[] = [];
      for (const w of ws) {
        const loadOnly = Math.min(mean(t, w, "roundRobin"), mean(t, w, "leastLoad"));
        const worst = Math.max(...ps.map((p) => mean(t, w, p)));
        for (const p of ps) if (mean(t, w, p) >= loadOnly) slower.push(`${displayName(p)}（${displayName(w)}）`);
        parts.push(`${displayName(w)}：只看负载最好 ${f(loadOnly)} 秒，生产路由器最慢 ${f(worst)} 秒`);
      }
      return { holds: slower.length === 0, ours: parts.join("；"), why: `不快于只看负载的最好者：${slower.join("、")}` };
    },
  },
  {
    id: "simple-rule-holds",
    says: "§2.5 的简单规则“缓存感知 + 负载保护”在这里的每种负载上都不输任何一个生产路由器（慢不到 5% 算不输）：简单规则拿走了大部分收益",
    lecture: "§6：代码 02、03 的“缓存感知 + 负载保护”是 SGLang 路由器的简化版",
    judge: (t) => {
      const ws = [...present(t, "workload")];
      const ps = productionOf(t);
      const parts: string[] = [];
      const lost: string[] = [];
      for (const w of ws) {
        const ours = mean(t, w, "cacheAwareGuarded");
        const best = ps.reduce((b, p) => (mean(t, w, p) < mean(t, w, b) ? p : b), ps[0]);
        if (ours > 1.05 * mean(t, w, best)) lost.push(`${displayName(w)}上${displayName(best)}快 ${pct(1 - mean(t, w, best) / ours)}`);
        parts.push(`${displayName(w)}：${f(ours)} 秒，生产路由器里最快的是${displayName(best)}，${f(mean(t, w, best))} 秒`);
      }
      return { holds: lost.length === 0, ours: parts.join("；"), why: `${lost.join("；")}（这张表只有一个种子）` };
    },
  },
  {
    id: "dynamo-trades-hits-for-p99",
    says: "Dynamo 把“占着的块”和“要重算的块”同等计价，常常放弃命中、换一个更闲的副本：长文档和视频问答上它的命中率在生产路由器里最低，P99 却最低",
    judge: (t) => {
      const ws = workloadsOf(t, LONG_AND_VIDEO);
      const ps = productionOf(t);
      needParam(ps.includes("dynamoKvRouter") && ps.length >= 2, "需要 Dynamo 和至少一个别的生产路由器");
      const others = ps.filter((p) => p !== "dynamoKvRouter");
      const parts: string[] = [];
      const why: string[] = [];
      for (const w of ws) {
        const hit = need(t, { workload: w, policy: "dynamoKvRouter" }, "hitRate");
        const p99 = need(t, { workload: w, policy: "dynamoKvRouter" }, "p99Latency");
        const minOtherHit = Math.min(...others.map((p) => need(t, { workload: w, policy: p }, "hitRate")));
        const minOtherP99 = Math.min(...others.map((p) => need(t, { workload: w, policy: p }, "p99Latency")));
        const passed = need(t, { workload: w, policy: "dynamoKvRouter" }, "passedUpShare");
        if (!(hit < minOtherHit)) why.push(`${displayName(w)}上 Dynamo 的命中率 ${pct(hit, 1)} 不是最低（其他最低 ${pct(minOtherHit, 1)}）`);
        if (!(p99 < minOtherP99)) why.push(`${displayName(w)}上 Dynamo 的 P99 ${f(p99)} 秒不是最低（其他最低 ${f(minOtherP99)} 秒）`);
        parts.push(`${displayName(w)}：命中率 ${pct(hit, 1)}（其他最低 ${pct(minOtherHit, 1)}），P99 ${f(p99)} 秒（其他最低 ${f(minOtherP99)} 秒），${pct(passed)} 的决定放弃了半数以上命中`);
      }
      return { holds: why.length === 0, ours: parts.join("；"), why: why.join("；") };
    },
  },
  {
    id: "gateway-reads-queues",
    says: "热点工具调用上网关是最快的生产路由器：它直接看每个副本此刻的等待队列，热门工具的副本一排队，队列分就把请求推走",
    judge: (t) => {
      workloadsOf(t, ["toolCallingHotSpot"]);
      const ps = productionOf(t);
      needParam(ps.includes("gatewayPrefixScorer") && ps.length >= 2, "需要网关和至少一个别的生产路由器");
      const w = "toolCallingHotSpot";
      const best = ps.reduce((b, p) => (mean(t, w, p) < mean(t, w, b) ? p : b), ps[0]);
      return {
        holds: best === "gatewayPrefixScorer",
        ours: `网关 ${f(mean(t, w, "gatewayPrefixScorer"))} 秒，最忙副本承担 ${pct(need(t, { workload: w, policy: "gatewayPrefixScorer" }, "maxShare"))}；生产路由器里最快的是${displayName(best)}`,
        why: `${displayName(best)} ${f(mean(t, w, best))} 秒、最忙副本承担 ${pct(need(t, { workload: w, policy: best }, "maxShare"))}，比网关快（这张表只有一个种子）`,
      };
    },
  },
  {
    id: "threshold-collapses-on-hot-spot",
    says: "只看命中的阈值亲和在热点上扎堆、过载，和 §2.5 一样；每个生产路由器都带某种负载信号，正是这个教训",
    lecture: "§2.5：一个超热的前缀会压垮单个副本，必须有负载保护",
    judge: (t, p) => {
      workloadsOf(t, ["toolCallingHotSpot"]);
      const w = "toolCallingHotSpot";
      const replicas = Number(p.replicas[p.workloads.indexOf(w)]);
      const maxShare = need(t, { workload: w, policy: "thresholdAffinity" }, "maxShare");
      const guarded = need(t, { workload: w, policy: "cacheAwareGuarded" }, "maxShare");
      const row = t.rows.find((r) => r.workload === w && r.policy === "thresholdAffinity");
      const overloaded = row?.overloaded === true;
      return {
        holds: maxShare > 2 / replicas && overloaded,
        ours: `阈值亲和：最忙副本承担 ${pct(maxShare)}（公平份额 ${pct(1 / replicas)}），平均 ${f(mean(t, w, "thresholdAffinity"), 1)} 秒${overloaded ? "，过载" : "，未过载"}；加了负载保护的是 ${pct(guarded)}`,
        why: [maxShare > 2 / replicas ? "" : `最忙副本只承担 ${pct(maxShare)}，不到公平份额的 2 倍（${pct(2 / replicas)}）`, overloaded ? "" : "阈值亲和在这个请求率下没有过载"].filter(Boolean).join("；"),
      };
    },
  },
  {
    id: "sglang-guard-too-wide",
    says: "SGLang 路由器的不均衡保护（在途请求差超过 64）对几个副本的小集群太宽：长文档和视频问答上它从不触发；热点上要等差距超过 64 才分流，P99 因此高于网关",
    judge: (t) => {
      const ws = workloadsOf(t, LONG_AND_VIDEO);
      workloadsOf(t, ["toolCallingHotSpot"]);
      const ran = present(t, "policy");
      needParam(ran.has("sglangRouter") && ran.has("gatewayPrefixScorer"), "需要 sglangRouter 和 gatewayPrefixScorer 两行");
      const quiet = ws.map((w) => need(t, { workload: w, policy: "sglangRouter" }, "imbalancedShare"));
      const hot = "toolCallingHotSpot";
      const sg = need(t, { workload: hot, policy: "sglangRouter" }, "p99Latency");
      const gw = need(t, { workload: hot, policy: "gatewayPrefixScorer" }, "p99Latency");
      const fired = ws.filter((w, i) => !(quiet[i] < 0.01));
      return {
        holds: quiet.every((x) => x < 0.01) && sg > gw,
        why: [fired.length ? `${fired.map((w) => `${displayName(w)}上保护在 ${pct(quiet[ws.indexOf(w)])} 的决定里触发了`).join("、")}` : "", sg > gw ? "" : `热点上 SGLang 路由器的 P99（${f(sg)} 秒）不高于网关（${f(gw)} 秒）`].filter(Boolean).join("；"),
        ours: `${ws.map((w, i) => `${displayName(w)}上判为不均衡的决定 ${pct(quiet[i])}`).join("、")}；热点上 ${pct(need(t, { workload: hot, policy: "sglangRouter" }, "imbalancedShare"))}，P99 ${f(sg)} 秒对网关 ${f(gw)} 秒（${times(sg / gw, 1)}）`,
      };
    },
  },
  {
    id: "approximate-tree-goes-stale",
    says: "SGLang 路由器的近似树只记派过什么、又几乎不忘：长文档上它的“命中”里有相当一部分，在派发时副本上早已被显存压力挤掉",
    lecture: "练习 8 (a)：副本因为显存压力淘汰了前缀，近似树却还记着它",
    judge: (t) => {
      workloadsOf(t, ["longDocQA"]);
      const stale = need(t, { workload: "longDocQA", policy: "sglangRouter" }, "staleHitShare");
      return { holds: stale > 0.1, ours: `${pct(stale)} 的“命中”派发时副本上连一半的匹配前缀都没有（也不在路上）`, remark: "“相当一部分”按超过 10% 判断", why: `只有 ${pct(stale)} 的“命中”派发时已被挤掉，不到 10%` };
    },
  },
  {
    id: "tie-break-spreads-video",
    says: "2025 年末版的平局规则（在途请求一样多时取编号最小的）让视频问答的请求偏向一个副本；今天的规则（在途请求、已派请求数、编号）把它们摊开，也更快",
    judge: (t) => {
      workloadsOf(t, ["videoQA"]);
      const ran = present(t, "policy");
      needParam(ran.has("sglangRouter") && ran.has("sglangRouterLate2025"), "需要 sglangRouter 和 sglangRouterLate2025 两行");
      const w = "videoQA";
      const late = need(t, { workload: w, policy: "sglangRouterLate2025" }, "maxShare");
      const now = need(t, { workload: w, policy: "sglangRouter" }, "maxShare");
      const lateMean = mean(t, w, "sglangRouterLate2025");
      const nowMean = mean(t, w, "sglangRouter");
      if (!Number.isFinite(late) || !Number.isFinite(now)) cannotJudge("最忙副本的份额不是数");
      return {
        holds: late > now + 0.05 && lateMean > nowMean,
        ours: `最忙副本的份额 ${pct(late)} → ${pct(now)}，平均 ${f(lateMean)} → ${f(nowMean)} 秒`,
        remark: "“摊开”按最忙副本的份额降 5 个百分点以上判断",
        why: [late > now + 0.05 ? "" : `最忙副本的份额只从 ${pct(late)} 变到 ${pct(now)}，没有降 5 个百分点以上（这张表只有一个种子）`, lateMean > nowMean ? "" : `今天的规则没有更快（${f(lateMean)} → ${f(nowMean)} 秒）`].filter(Boolean).join("；"),
      };
    },
  },
];
