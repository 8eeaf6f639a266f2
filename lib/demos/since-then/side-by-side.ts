// 代码 06 (§6, exercise 8): production cache-aware routers next to ours on the §2/§3 workloads — the SGLang router
// (approximate tree), NVIDIA Dynamo's KV router (index from KV events) and the Kubernetes inference gateway's prefix
// scorer, each as released (the versions are named in lib/cluster/routers-production). This file: what the 06.x
// demos share, and 06.1 (side by side). 06.0 (a hand-built scenario), 06.2 (a replica restart) and 06.3 (the SGLang
// router's "death spiral") have files of their own.
import { checkEachOneOf, checkInteger, checkNumber, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { CHARACTERS_PER_TOKEN, SGLANG_PYTHON_EVICTION_INTERVAL, SGLANG_ROUTER_DEFAULTS } from "../../cluster/routers-production/sglang";
import { generateWorkload, WORKLOAD_NAMES } from "../../cluster/workloads";
import type { ClusterMetrics } from "../../cluster/simulate";
import { registrationsKey } from "../../cluster/sweep";
import { kvCapacityTokens } from "../../hardware/step-model";
import { SECTION2_GPU, SECTION2_MODEL } from "../cache-balance/cache-vs-balance";
import { defineDemo, DemoContext } from "../registry";
import { CLUSTER_COLUMNS } from "../columns";
import { sinceThenClaims } from "./claims";
import type { SideBySideParams } from "./common";
import { checkPolicies, OUR_POLICIES, PREBLE_POLICIES, PRODUCTION_POLICIES, policyNameColumn, runPolicy, SINCE_THEN_WORKLOADS, WARMUP_NOTE } from "./common";
import { workedExample } from "./example";
import { restartIllustration } from "./restart";
import { deathSpiral } from "./spiral";

export { SINCE_THEN_WORKLOADS, OUR_POLICIES, PREBLE_POLICIES, PRODUCTION_POLICIES, policyFamily, resolvePolicy } from "./common";
export { workedExample, restartIllustration, deathSpiral };
export type { SideBySideParams } from "./common";

const PARAM_DOCS = {
  workloads: { meaning: "负载的名字（data/workloads.json），每种负载一组运行", range: `非空数组；${WORKLOAD_NAMES.join("、")} 之一` },
  replicas: { meaning: "每种负载的副本数（与 workloads 一一对应）", range: "与 workloads 等长的数组，每项为 1–31 的整数" },
  rates: { meaning: "每种负载的请求率（请求/秒）", range: "与 workloads 等长的数组，每项 > 0" },
  requestCounts: { meaning: "每种负载模拟的请求数（前 20% 用于预热）", range: "与 workloads 等长的数组，每项为 ≥ 10 的整数" },
  policies: { meaning: "比较的路由策略：注册过的路由器，或 Preble 的配置（e2+rebalance、preble）", range: "非空数组；名字见 routerNames()" },
  notificationDelay: { meaning: "副本的 KV 存储 / 淘汰事件晚多少秒到达读事件的路由器（Dynamo、Preble）", range: "≥ 0 的数（秒）" },
  seed: { meaning: "随机种子（到达、长度与路由器的随机性）", range: "整数" },
};

function aligned(name: string, values: readonly unknown[], n: number): void {
  if (!Array.isArray(values) || values.length !== n) throw new ParameterError(name, `应与 workloads 等长（${n} 项），实际是 ${Array.isArray(values) ? values.length : JSON.stringify(values)} 项`);
}

const share = (a: number, b: number): number => (b > 0 ? a / b : NaN);

// 06.1's runs, kept for the session: notebook 06 runs the lecture's routers first and adds the production routers in
// the next cell, which takes the first cell's runs from here instead of running them again. A run is a pure function of
// its key (the registries' state included: a router registered again under a name runs anew).
type SideBySideRun = { metrics: ClusterMetrics; routerStats: Record<string, unknown> };
const SESSION_RUNS = new Map<string, SideBySideRun>();
const SESSION_RUNS_LIMIT = 1000;

export const productionRouters = defineDemo<SideBySideParams>({
  id: "06.1",
  section: "§6",
  title: "我们的路由器、Preble 与三个生产路由器在 §2/§3 负载上同台比较",
  // Size: §2's long-document and video settings and 02.4's hot spot, one seed: the same runs as those demos, so the routers' rows sit beside §2's.
  defaults: {
    workloads: SINCE_THEN_WORKLOADS.map((w) => w.workload),
    replicas: SINCE_THEN_WORKLOADS.map((w) => w.replicas),
    rates: SINCE_THEN_WORKLOADS.map((w) => w.rate),
    requestCounts: SINCE_THEN_WORKLOADS.map((w) => w.requestCount),
    policies: [...OUR_POLICIES, ...PREBLE_POLICIES, ...PRODUCTION_POLICIES],
    notificationDelay: 0.1,
    seed: 1,
  },
  describe: PARAM_DOCS,
  run(p, ctx: DemoContext) {
    const workloads = checkEachOneOf("workloads", p.workloads, WORKLOAD_NAMES as string[]);
    aligned("replicas", p.replicas, workloads.length);
    aligned("rates", p.rates, workloads.length);
    aligned("requestCounts", p.requestCounts, workloads.length);
    const policies = checkPolicies("policies", p.policies);
    const delay = checkNumber("notificationDelay", p.notificationDelay, { min: 0 });
    const seed = checkInteger("seed", p.seed);
    const rows: Row[] = [];
    const overloaded: string[] = [];
    const settings: string[] = [];
    let evictions = 0;
    let sglangRuns = 0;
    for (let k = 0; k < workloads.length; k++) {
      const replicas = checkInteger(`replicas[${k}]`, p.replicas[k], { min: 1, max: 31 });
      const rate = checkNumber(`rates[${k}]`, p.rates[k], { above: 0 });
      const count = checkInteger(`requestCounts[${k}]`, p.requestCounts[k], { min: 10 });
      const w = generateWorkload(workloads[k], { rate, seed, requestCount: count });
      settings.push(`${displayName(workloads[k])} ${rate} 请求/秒、${replicas} 个副本、${count} 个请求（约 ${Math.round(w.requests[w.requests.length - 1].arrival)} 秒的到达）`);
      for (const policy of policies) {
        const key = JSON.stringify([registrationsKey(), workloads[k], rate, seed, count, replicas, policy, delay]);
        let res = SESSION_RUNS.get(key);
        if (res === undefined) {
          ctx.progress?.(`06.1：${displayName(workloads[k])}，${displayName(policy)}`);
          res = runPolicy(w, replicas, policy, seed, { notificationDelay: delay }, (r) => ({ metrics: r.metrics, routerStats: r.routerStats }));
          if (SESSION_RUNS.size >= SESSION_RUNS_LIMIT) SESSION_RUNS.clear();
          SESSION_RUNS.set(key, res);
        }
        const m = res.metrics;
        if (m.overloaded) overloaded.push(`${displayName(workloads[k])} / ${displayName(policy)}`);
        const s = res.routerStats;
        const row: Row = { workload: workloads[k], policy, meanLatency: m.meanLatency, p99Latency: m.p99Latency, hitRate: m.hitRate, maxShare: m.maxShare, overloaded: m.overloaded, imbalancedShare: NaN, staleHitShare: NaN, passedUpShare: NaN };
        if (typeof s.imbalanced === "number") {
          const decisions = (s.imbalanced as number) + (s.hit as number) + (s.miss as number);
          row.imbalancedShare = share(s.imbalanced as number, decisions);
          row.staleHitShare = share(s.staleHits as number, s.hit as number);
          evictions += s.treeEvictions as number;
          sglangRuns++;
        }
        if (typeof s.passedUpHits === "number") row.passedUpShare = share(s.passedUpHits as number, s.decisions as number);
        rows.push(row);
      }
    }
    const capacity = kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU);
    const d = SGLANG_ROUTER_DEFAULTS;
    return {
      title: `${workloads.length} 种负载、${policies.length} 种路由策略同台比较（每个副本一块 A6000 上的 Mistral-7B，种子 ${seed}）`,
      columns: [
        { ...CLUSTER_COLUMNS.workload, format: "name" },
        policyNameColumn(),
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.maxShare,
        { key: "imbalancedShare", label: "SGLang：判为不均衡的决定", format: "percent0" },
        { key: "staleHitShare", label: "SGLang：“命中”里副本上其实已没有的", format: "percent0" },
        { key: "passedUpShare", label: "Dynamo：放弃了半数以上命中的决定", format: "percent0" },
      ],
      rows,
      notes: [
        `运行：${settings.join("；")}。`,
        "除 Preble 的两个配置（E2 + 再平衡用先来先服务；完整 Preble 另有自动扩展、搭配和副本上的优先级组）外，所有路由器下的副本都用先来先服务，差别只来自路由。",
        `读 KV 事件的路由器（Dynamo 的索引、Preble 的全局树）在副本动作 ${delay} 秒后收到存储 / 淘汰事件；SGLang 路由器和网关只记自己派过什么。`,
        `SGLang 路由器用 CLI 默认值：缓存阈值 ${d.cacheThreshold}；在途请求数最大减最小 > ${d.balanceAbs} 且最大 > ${d.balanceRel} × 最小时判为不均衡；每 ${d.evictionInterval} 秒（Python 启动器是 ${SGLANG_PYTHON_EVICTION_INTERVAL} 秒）把每个工作进程的树剪到 2^26 个字符 ≈ ${d.maxTreeTokens.toLocaleString("en-US")} 个 token（每 token ${CHARACTERS_PER_TOKEN} 个字符），是一个副本 KV 容量的 ${(d.maxTreeTokens / capacity).toFixed(0)} 倍${sglangRuns > 0 ? `：这些运行里树${evictions === 0 ? "一次也没有剪过" : `共剪了 ${evictions} 次`}` : ""}。`,
        `过载（队列无界增长，数字取决于模拟时长）：${overloaded.length ? overloaded.join("、") : "无"}。`,
        `最忙副本的份额 = 单个副本承担的被统计请求的最大比例。${WARMUP_NOTE}`,
      ],
    } as Table;
  },
  claims: sinceThenClaims,
});

/** The demos of 代码 06, in order. */
export const sinceThenDemos = [workedExample, productionRouters, restartIllustration, deathSpiral];
