// The algorithms on the page (issue 24, notebook 03): a run of the §3 scenarios with the page's E2, load cost,
// rebalancing redirect or priority groups beside the same run with the library's, so the reader sees that the page's
// code is what runs — and, after editing it, what the edit changed (the first decision that differs).
import { checkEachOneOf, checkInteger, checkOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import type { LocalPolicy, LocalPolicyFactory } from "../../cluster/local/policy";
import { priorityGroups } from "../../cluster/local/prefix-and-priority";
import { CONFIGURATION_NAMES } from "../../cluster/preble/configs";
import { DECISION_KINDS } from "../../cluster/preble/index";
import type { PrebleDecide, PrebleLoadCostFn, PrebleRedirectFn } from "../../cluster/preble/index";
import { configurationRun } from "../../cluster/preble/runs";
import { simulateCluster } from "../../cluster/simulate";
import { Claim, evaluateClaims, needRows } from "../claims";
import { COLUMNS, OVERLOAD_NOTE, WARMUP_NOTE } from "./common";
import { COST_RATES } from "./costs";
import { quotaTaken } from "./local-policies";

/** The page's parts: any of them replaces the library's in the page's run. */
export interface PrebleOnPage {
  decide?: PrebleDecide;
  loadCost?: PrebleLoadCostFn;
  redirect?: PrebleRedirectFn;
  localPolicy?: LocalPolicyFactory;
}

export interface PageScenario {
  workload: string;
  rate: number;
  replicas: number;
  configuration: string;
}

/** The lecture's §3 scenarios: 03.2's five workloads at their cost rates under full Preble, and 03.3's hot spot. */
export const PAGE_SCENARIOS: Readonly<Record<string, PageScenario>> = {
  ...Object.fromEntries(Object.entries(COST_RATES).map(([workload, rate]) => [workload, { workload, rate, replicas: 4, configuration: "preble" }])),
  toolCallingHotSpot: { workload: "toolCallingHotSpot", rate: 70, replicas: 8, configuration: "e2+rebalance" },
};

export interface PrebleOnPageOptions {
  /** scenario names of PAGE_SCENARIOS (default: all) */
  scenarios?: string[];
  /** a named configuration for every scenario (default: each scenario's own) */
  configuration?: string;
  requestCount?: number;
  seed?: number | string;
}

type Log = { kind: number[]; gpu: number[] };

/** The first decision (0-based, dispatch order) where two logs differ; null when they are identical. */
function firstDifference(a: Log, b: Log): number | null {
  const n = Math.max(a.kind.length, b.kind.length);
  for (let i = 0; i < n; i++) if (a.kind[i] !== b.kind[i] || a.gpu[i] !== b.gpu[i]) return i;
  return null;
}

const SAME_CLAIM: Claim<{ scenarios: string[] }> = {
  id: "page-equals-library",
  says: "本页的代码和库里的实现做出完全相同的决定（每个请求的决定类别和 GPU 都一样），所以两行的数也一样",
  judge: (t, p) => {
    const diffs = p.scenarios.map((s) => ({ s, row: needRows(t, { scenario: s, version: "page" })[0] }));
    const differing = diffs.filter((d) => d.row.firstDiff !== null);
    const decisions = diffs.reduce((a, d) => a + (d.row.decisions as number), 0);
    return {
      holds: differing.length === 0,
      ours: differing.length === 0 ? `${diffs.length} 个场景、共 ${decisions} 个决定全部相同` : differing.map((d) => `${displayName(d.s)}：从第 ${(d.row.firstDiff as number) + 1} 个决定起不同（${String(d.row.diffWhat)}）`).join("；"),
    };
  },
};

/** Runs each scenario twice — the library's Preble, and the same with the page's parts — and compares them. */
export function prebleOnPage(page: PrebleOnPage, options: PrebleOnPageOptions = {}): Table {
  const names = checkEachOneOf("scenarios", options.scenarios ?? Object.keys(PAGE_SCENARIOS), Object.keys(PAGE_SCENARIOS));
  const configuration = options.configuration === undefined ? undefined : checkOneOf("configuration", options.configuration, CONFIGURATION_NAMES as string[]);
  const requestCount = checkInteger("requestCount", options.requestCount ?? 1000, { min: 100 });
  const seed = options.seed ?? 1;
  const { localPolicy, ...routerParts } = page;
  const rows: Row[] = [];
  for (const name of names) {
    const s = PAGE_SCENARIOS[name];
    const base = configurationRun({ workload: s.workload, rate: s.rate, replicas: s.replicas, configuration: configuration ?? s.configuration, requestCount, seed });
    const router = base.router as { name: string } & Record<string, unknown>;
    const logs: Log[] = [];
    for (const version of ["library", "page"]) {
      const mine = version === "page";
      const res = simulateCluster({ ...base, router: { ...router, ...(mine ? routerParts : {}), recordDecisions: true }, localPolicy: mine && localPolicy ? localPolicy : base.localPolicy });
      const log = res.routerStats.decisions as Log;
      logs.push(log);
      const counts = Object.fromEntries(DECISION_KINDS.map((k, i) => [k, log.kind.filter((x) => x === i).length]));
      const m = res.metrics;
      rows.push({ scenario: name, workload: s.workload, rate: s.rate, policy: configuration ?? s.configuration, version, decisions: log.kind.length, ...counts, meanLatency: m.meanLatency, p99Latency: m.p99Latency, hitRate: m.hitRate, maxShare: m.maxShare, overloaded: m.overloaded, firstDiff: null, diffWhat: null });
    }
    const k = firstDifference(logs[0], logs[1]);
    const row = rows[rows.length - 1];
    row.firstDiff = k;
    if (k !== null) row.diffWhat = `库：${displayName(DECISION_KINDS[logs[0].kind[k]])} GPU ${logs[0].gpu[k]}，本页：${displayName(DECISION_KINDS[logs[1].kind[k]])} GPU ${logs[1].gpu[k]}`;
  }
  const table: Table = {
    title: "本页的代码与库里的实现：同一批请求、同一个种子",
    columns: [
      COLUMNS.workload,
      COLUMNS.rate,
      COLUMNS.configuration,
      { key: "version", label: "谁来决定", format: "name" },
      ...DECISION_KINDS.map((k) => ({ key: k, label: displayName(k), format: "int" as const })),
      COLUMNS.meanLatency,
      COLUMNS.p99Latency,
      COLUMNS.hitRate,
      COLUMNS.maxShare,
      COLUMNS.overloaded,
      { key: "firstDiff", label: "与库第一处不同的决定（从 0 数）", format: "int" },
      { key: "diffWhat", label: "那一处", format: "text" },
    ],
    rows,
    notes: [`每个场景 ${requestCount} 个请求、种子 ${String(seed)}，库里的实现跑一遍，换进本页的部分（${Object.keys(page).join("、") || "无"}）再跑一遍：请求相同，决定一样，后面就都一样。`, WARMUP_NOTE, OVERLOAD_NOTE],
  };
  table.claims = evaluateClaims([SAME_CLAIM], table, { scenarios: names });
  return table;
}

const QUOTA_CLAIMS: Claim<{ perGroup: number; take: number }>[] = [
  {
    id: "quota-equals-library",
    says: "本页的优先级组和库里的实现从手搭的队列里取出同样多的请求（每一组）",
    judge: (t) => {
      const differ = t.rows.filter((r) => r.library !== r.page);
      return { holds: differ.length === 0, ours: differ.length === 0 ? "每一组都一样" : differ.map((r) => `第 ${r.group} 组：库 ${r.library}，本页 ${r.page}`).join("；") };
    },
  },
  {
    id: "quota-10-to-1",
    says: "一次取 55 个时，从最高组往下依次取 10、9、…、1 个",
    lecture: "第 10 组取 10 个、第 9 组取 9 个……第 1 组取 1 个",
    judge: (t) => {
      const taken = t.rows.map((r) => r.page as number);
      return { holds: taken.every((n, i) => n === 10 - i), ours: taken.join(" + ") };
    },
  },
];

/** The quota of a fresh priority-group policy (e.g. the page's) on 03.5's hand-made queue (`perGroup` requests in each of the 10 groups, `take` admitted): the page's
 * priority groups beside the library's. */
export function quotaOnPage(policy: LocalPolicy, perGroup = 12, take = 55): Table {
  checkInteger("perGroup", perGroup, { min: 1, max: 1000 });
  checkInteger("take", take, { min: 1 });
  const library = quotaTaken(priorityGroups(), perGroup, take);
  const page = quotaTaken(policy, perGroup, take);
  const rows: Row[] = library.map((n, i) => ({ group: 9 - i, priority: 10 - i, library: n, page: page[i] }));
  const table: Table = {
    title: `优先级组的份额：每组排 ${perGroup} 个，一次最多取 ${take} 个`,
    columns: [
      { key: "group", label: "优先级组", format: "int" },
      { key: "priority", label: "优先级", format: "int" },
      { key: "library", label: "库里的实现取了几个", format: "int" },
      { key: "page", label: "本页的代码取了几个", format: "int" },
    ],
    rows,
    notes: [`手搭的等待队列：100 token 的提示，第 g 组已缓存 10g + 5 个 token（与代码 03 演示 5 相同）。`],
  };
  table.claims = evaluateClaims(QUOTA_CLAIMS, table, { perGroup, take });
  return table;
}
