// 03.5 — the local scheduler (§3.5): the shares of Preble's priority groups on a hand-made queue, and FCFS vs
// longest-prefix-first vs priority groups on video QA under Preble routing.
import { checkEachOneOf, checkInteger, checkNumber, checkOneOf } from "../../core/errors";
import type { Row, Table } from "../../core/table";
import { priorityGroup, priorityGroups, priorityGroupsPerIteration } from "../../cluster/local/prefix-and-priority";
import { configurationRun, LOW_HIT_FRACTION } from "../../cluster/preble/runs";
import { QUEUEING_QUANTILES, simulateQueueingMany } from "../../cluster/preble/memo";
import { displayName } from "../../core/glossary";
import { RequestRecord } from "../../cluster/record";
import { WORKLOAD_NAMES } from "../../cluster/workloads";
import { Claim, f, need, needParam, needRows, pct, times } from "../claims";
import { COLUMNS, OVERLOAD_NOTE, REPLICAS_DOC, SEED_DOC, WARMUP_NOTE } from "./common";
import { presentColumns } from "./common";
import { defineDemo } from "../registry";
import { EFFECT_BAND } from "./effect-band";
import type { LocalPolicy } from "../../cluster/local/policy";

const num = (x: unknown): number => x as number;
const GROUPS = 10;
const POLICIES = ["fcfs", "lpf", "priority", "priorityReleased"];

type LocalParams = { parts: string[]; queuedPerGroup: number; workload: string; rate: number; replicas: number; requestCount: number; policies: string[]; seed: number | string };

/** The two readings of the priority groups' rotation. */
const ROTATIONS = [
  { id: "priority", rotation: "quotaCycle", reading: "讲义的读法（配额跨迭代轮转，k = 1）" },
  { id: "priorityReleased", rotation: "perIteration", reading: "开源代码的读法（每迭代一组，k = 10）" },
] as const;
type Rotation = (typeof ROTATIONS)[number];

/** One iteration's admissions (up to `take`) of `policy` from a queue holding `perGroup` requests of every group
 * (request i of group g: 100-token prompt with 10·g + 5 cached): how many came from each group, highest first. */
export function quotaTaken(policy: LocalPolicy, perGroup: number, take: number): number[] {
  const cached = new Map<RequestRecord, number>();
  const waiting: RequestRecord[] = [];
  for (let i = 0; i < perGroup; i++) {
    for (let g = 0; g < GROUPS; g++) {
      const id = waiting.length;
      const rec = new RequestRecord({ id, arrival: 0, segments: [{ id: 100_000 + id, tokens: 100 }], promptTokens: 100, outputTokens: 1, outputSegment: { id: 200_000 + id, tokens: 1 }, key: 0, keySegment: 0 }, 0);
      cached.set(rec, 10 * g + 5);
      waiting.push(rec);
    }
  }
  const order = policy.order(waiting, { now: 0, replica: 0, cachedTokens: (x) => cached.get(x) as number }) ?? waiting;
  const first = order.slice(0, take);
  const taken: number[] = [];
  for (let g = GROUPS - 1; g >= 0; g--) taken.push(first.filter((x) => priorityGroup(cached.get(x) as number, 100, GROUPS) === g).length);
  return taken;
}

/** quotaTaken's rows for each rotation (the lecture's and the released one). */
export function quotaRows(perGroup: number, take: number): Row[] {
  const rows: Row[] = [];
  for (const r of ROTATIONS) {
    const taken = quotaTaken(r.id === "priority" ? priorityGroups() : priorityGroupsPerIteration(), perGroup, take);
    taken.forEach((n, i) => rows.push({ part: "quota", rotation: r.rotation, group: GROUPS - 1 - i, priority: GROUPS - i, taken: n }));
  }
  return rows;
}

const policyRow = (t: Table, policy: string) => needRows(t, { part: "policies", policy })[0];

/** One judgement per rotation among the policies run (the lecture's first), each against FCFS / LPF as `needs` says. */
function perRotation(p: LocalParams, needs: string[], judge: (r: Rotation) => { holds: boolean; ours: string; remark?: string; why?: string }) {
  needParam(p.parts.includes("policies"), "需要 parts 里有 \"policies\"");
  for (const x of needs) needParam(p.policies.includes(x), `需要排队策略 ${x}（参数 policies）`);
  const present = ROTATIONS.filter((r) => p.policies.includes(r.id));
  needParam(present.length > 0, "需要排队策略 priority 或 priorityReleased（参数 policies）");
  return present.map((r) => ({ reading: r.reading, ...judge(r) }));
}

/** FCFS and policy `id`'s rows, and how many times faster `id` is than FCFS on the mean and on P99. */
function gainsOverFcfs(t: Table, id: string): { fc: Row; pr: Row; meanGain: number; p99Gain: number } {
  const fc = policyRow(t, "fcfs");
  const pr = policyRow(t, id);
  return { fc, pr, meanGain: num(fc.meanLatency) / num(pr.meanLatency), p99Gain: num(fc.p99Latency) / num(pr.p99Latency) };
}

const CLAIMS: Claim<LocalParams>[] = [
  {
    id: "quota-shares",
    applies: (p) => p.parts.includes("quota"),
    says: "一次取 55 个请求时，从最高组到最低组依次取 10、9、…、1 个：命中多的优先，命中少的组每轮也有份额",
    lecture: "10 + 9 + … + 1 = 55",
    judge: (t, p) => {
      needParam(p.queuedPerGroup >= GROUPS, `每组至少要排 ${GROUPS} 个请求（参数 queuedPerGroup）`);
      return ROTATIONS.map((r) => {
        const taken = needRows(t, { part: "quota", rotation: r.rotation }).map((x) => num(x.taken));
        const served = taken.filter((x) => x > 0).length;
        return { reading: r.reading, holds: taken.every((x, i) => x === GROUPS - i), ours: `从最高组往下：${taken.join("、")}`, why: `这一次取的 ${taken.reduce((a, x) => a + x, 0)} 个只来自 ${served} 个组，其余 ${GROUPS - served} 个组份额为 0：这种读法每次迭代只服务一个组，各组轮流` };
      });
    },
  },
  {
    id: "mean-improves",
    applies: (p) => p.parts.includes("policies"),
    says: "看缓存的排队策略把平均延迟降下来（比 FCFS 快 1.3 倍以上）：同一个视频的几个问题常挤在一个副本的队列里，先让已经命中的走，它们几乎不用 prefill",
    lecture: "FCFS 6.09 秒 → 优先级组 3.96、最长前缀优先 3.91",
    judge: (t, p) =>
      perRotation(p, ["fcfs", "lpf"], (r) => {
        const a = num(policyRow(t, "fcfs").meanLatency);
        const b = num(policyRow(t, r.id).meanLatency);
        const c = num(policyRow(t, "lpf").meanLatency);
        const slow = [a <= 1.3 * b ? `优先级组只快 ${times(a / b)}` : "", a <= 1.3 * c ? `最长前缀优先只快 ${times(a / c)}` : ""].filter(Boolean).join("，");
        return { holds: a > 1.3 * b && a > 1.3 * c, ours: `FCFS ${f(a)} 秒 → 优先级组 ${f(b)}、最长前缀优先 ${f(c)} 秒`, why: `${slow}，不到 1.3 倍` };
      }),
  },
  {
    id: "mainly-mean",
    applies: (p) => p.parts.includes("policies"),
    // the lecture's "mainly the mean" against the paper's "P99, not the mean": the mean's speed-up over FCFS beats the
    // P99's by the effect band (./effect-band.ts) or more; the low-hit requests' P99 is low-hit-not-starved's
    says: `优先级组主要改善平均延迟：比 FCFS 快的倍数，平均比 P99 大 ${pct(EFFECT_BAND)} 以上`,
    lecture: "本地优先级组主要改善平均延迟",
    judge: (t, p) =>
      perRotation(p, ["fcfs"], (r) => {
        const { meanGain, p99Gain } = gainsOverFcfs(t, r.id);
        const edge = meanGain / p99Gain;
        const why =
          meanGain < 1 + EFFECT_BAND
            ? `平均只快 ${times(meanGain)}，不到 ${times(1 + EFFECT_BAND, 1)}`
            : edge < 1
              ? `P99 快 ${times(p99Gain)}，比平均的 ${times(meanGain)} 还多：收益更多在尾延迟上`
              : `平均快的倍数只比 P99 的大 ${pct(edge - 1, 1)}：两者改善得差不多`;
        return { holds: meanGain >= 1 + EFFECT_BAND && edge >= 1 + EFFECT_BAND, ours: `平均快 ${times(meanGain)}，P99 快 ${times(p99Gain)}`, why };
      }),
  },
  {
    id: "paper-p99-not-mean",
    applies: (p) => p.parts.includes("policies"),
    says: "论文的说法：优先级组改善 P99（快 20% 以上）而不改善平均延迟（不到 10%）",
    lecture: "论文图 5：优先级队列改善 P99、不改善平均延迟",
    judge: (t, p) =>
      perRotation(p, ["fcfs"], (r) => {
        const { meanGain, p99Gain } = gainsOverFcfs(t, r.id);
        const parts = [p99Gain < 1.2 ? `P99 只快 ${times(p99Gain)}，不到 1.2 倍` : "", meanGain >= 1.1 ? `平均也快了 ${times(meanGain)}（论文说平均不变）` : ""].filter(Boolean);
        return { holds: p99Gain >= 1.2 && meanGain < 1.1, ours: `平均快 ${times(meanGain)}，P99 快 ${times(p99Gain)}`, why: parts.join("；") };
      }),
  },
  {
    id: "like-lpf",
    applies: (p) => p.parts.includes("policies"),
    says: "优先级组和最长前缀优先几乎一样：平均和 P99 都相差不到 20%，比最长前缀优先没有多出收益",
    lecture: "优先级组和最长前缀优先几乎一样",
    judge: (t, p) =>
      perRotation(p, ["lpf"], (r) => {
        const pr = policyRow(t, r.id);
        const lp = policyRow(t, "lpf");
        const close = (a: number, b: number) => Math.abs(a - b) / b < 0.2;
        return {
          holds: close(num(pr.meanLatency), num(lp.meanLatency)) && close(num(pr.p99Latency), num(lp.p99Latency)),
          ours: `平均 ${f(num(pr.meanLatency))} 对 ${f(num(lp.meanLatency))} 秒，P99 ${f(num(pr.p99Latency))} 对 ${f(num(lp.p99Latency))} 秒`,
          why: `优先级组比最长前缀优先平均${num(pr.meanLatency) > num(lp.meanLatency) ? "慢" : "快"} ${pct(Math.abs(num(pr.meanLatency) / num(lp.meanLatency) - 1))}、P99 ${num(pr.p99Latency) > num(lp.p99Latency) ? "慢" : "快"} ${pct(Math.abs(num(pr.p99Latency) / num(lp.p99Latency) - 1))}，至少一项相差 20% 以上`,
        };
      }),
  },
  {
    id: "low-hit-not-starved",
    applies: (p) => p.parts.includes("policies"),
    says: "命中少的请求的 P99 在优先级组下和 FCFS 时差不多（相差不到 10%）：没有饿死，也没有变好多少",
    lecture: "命中少的请求的 P99 和先来先服务时差不多",
    judge: (t, p) =>
      perRotation(p, ["fcfs"], (r) => {
        const a = need(t, { part: "policies", policy: "fcfs" }, "p99LowHit");
        const b = need(t, { part: "policies", policy: r.id }, "p99LowHit");
        const change = b / a - 1;
        return { holds: Math.abs(change) <= 0.1, ours: `FCFS ${f(a)} 秒，优先级组 ${f(b)} 秒`, why: `命中少的请求的 P99 在优先级组下${change < 0 ? `快了 ${pct(-change)}：没有饿死，而且明显好于 FCFS，不只是"差不多"` : `慢了 ${pct(change)}：份额没有护住它们的尾延迟`}` };
      }),
  },
  {
    id: "low-hit-not-worse",
    ourStatement: true,
    applies: (p) => p.parts.includes("policies"),
    says: "命中少的请求没有被饿死：它们的 P99 在优先级组下不比 FCFS 差（最多差 10%）",
    judge: (t, p) =>
      perRotation(p, ["fcfs"], (r) => {
        const a = need(t, { part: "policies", policy: "fcfs" }, "p99LowHit");
        const b = need(t, { part: "policies", policy: r.id }, "p99LowHit");
        return { holds: b <= 1.1 * a, ours: `FCFS ${f(a)} 秒，优先级组 ${f(b)} 秒`, why: `命中少的请求的 P99 在优先级组下慢了 ${pct(b / a - 1)}，超过 10%` };
      }),
  },
  {
    id: "no-hit-queueing",
    applies: (p) => p.parts.includes("queueing"),
    says: "几乎没命中的请求（已缓存不到 10%）排队也不比 FCFS 久：它们排队时间的 P90 在优先级组下不超过 FCFS 的 1.1 倍",
    lecture: "练习 5：份额保护命中少的组",
    judge: (t, p) => {
      needParam(p.policies.includes("fcfs"), "需要排队策略 fcfs（参数 policies）");
      const present = ROTATIONS.filter((r) => p.policies.includes(r.id));
      needParam(present.length > 0, "需要排队策略 priority 或 priorityReleased（参数 policies）");
      const a = need(t, { part: "queueing", policy: "fcfs", bucket: "hitNone" }, "q90");
      return present.map((r) => {
        const b = need(t, { part: "queueing", policy: r.id, bucket: "hitNone" }, "q90");
        return { reading: r.reading, holds: b <= 1.1 * a, ours: `排队 P90：FCFS ${f(a)} 秒，优先级组 ${f(b)} 秒`, why: `几乎没命中的请求排队的 P90 是 FCFS 的 ${times(b / a)}，超过 1.1 倍` };
      });
    },
  },
];

export const localPolicyDemo = defineDemo<LocalParams>({
  id: "03.5",
  section: "§3.5",
  title: "副本内的排队策略：优先级组的份额，以及 FCFS、最长前缀优先与优先级组的比较",
  // Size: 6,000 video requests (≈ 17 minutes at 6/s): the P99 claims and the per-group queueing quantiles need thousands of measured requests.
  defaults: { parts: ["quota", "policies", "queueing"], queuedPerGroup: 12, workload: "videoQA", rate: 6, replicas: 4, requestCount: 6000, policies: ["fcfs", "lpf", "priority", "priorityReleased"], seed: 1 },
  describe: {
    parts: { meaning: "跑哪几部分：quota（手搭的队列上一次取 55 个来自哪些组）、policies（集群模拟里比较排队策略）、queueing（按接纳时的命中分组的排队时间分位数）", range: "非空数组，每项为 quota、policies、queueing 之一" },
    queuedPerGroup: { meaning: "quota：手搭的队列里每个优先级组排几个请求", range: "1–1000 的整数" },
    workload: { meaning: "policies：负载", range: `${WORKLOAD_NAMES.join("、")} 之一` },
    rate: { meaning: "policies：请求率（请求/秒）", range: "> 0 的数" },
    replicas: REPLICAS_DOC,
    requestCount: { meaning: "policies：每次模拟的请求数", range: "≥ 100 的整数" },
    policies: { meaning: "policies：比较的副本内排队策略（priority = 讲义读法的优先级组，priorityReleased = 开源代码的读法）", range: `非空数组，每项为 ${POLICIES.join("、")} 之一` },
    seed: SEED_DOC,
  },
  run(p, { progress }) {
    const parts = checkEachOneOf("parts", p.parts, ["quota", "policies", "queueing"]);
    const perGroup = checkInteger("queuedPerGroup", p.queuedPerGroup, { min: 1, max: 1000 });
    const workload = checkOneOf("workload", p.workload, WORKLOAD_NAMES as string[]);
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const replicas = checkInteger("replicas", p.replicas, { min: 1, max: 30 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 100 });
    const policies = checkEachOneOf("policies", p.policies, POLICIES);
    const rows: Row[] = parts.includes("quota") ? quotaRows(perGroup, 55) : [];
    const simulate = parts.includes("policies") || parts.includes("queueing");
    const results = simulate
      ? simulateQueueingMany(
          policies.map((policy) => configurationRun({ workload, rate, replicas, configuration: "preble", localPolicy: policy, requestCount, seed: p.seed })),
          (done, total) => progress?.(`03.5：已完成 ${done}/${total} 次模拟`),
        )
      : [];
    if (parts.includes("policies")) {
      policies.forEach((policy, j) => {
        const res = results[j];
        rows.push({ part: "policies", policy, meanLatency: res.metrics.meanLatency, p99Latency: res.metrics.p99Latency, p99LowHit: res.lowHitP99, lowHitShare: res.lowHitCount / res.metrics.requests, meanQueueing: res.metrics.meanQueueing, overloaded: res.metrics.overloaded });
      });
    }
    if (parts.includes("queueing")) {
      policies.forEach((policy, j) => {
        for (const b of results[j].queueing) {
          const row: Row = { part: "queueing", policy, bucket: b.bucket, bucketRequests: b.count };
          QUEUEING_QUANTILES.forEach((q, k) => (row[`q${Math.round(q * 100)}`] = b.quantiles[k]));
          rows.push(row);
        }
      });
    }
    const notes: string[] = [];
    if (parts.includes("quota")) notes.push(`份额：一个副本的等待队列里每个优先级组各排 ${perGroup} 个请求（100 token 的提示，第 g 组已缓存 10g + 5 个），看一次最多接纳 55 个时来自哪些组。讲义的读法：从最高组往下，第 g 组取 g + 1 个；开源代码：只服务指针所在的一组，最多取 (g + 1) × 10 个（rpc:474–486、790–801）。`);
    if (simulate) {
      notes.push(
        `排队策略：${displayName(workload)}，${replicas} 个副本，${rate} 请求/秒，${requestCount} 个请求，种子 ${String(p.seed)}；路由 = 完整 Preble（E2 + 再平衡 + 自动扩展 + 搭配），只换副本内的排队策略。“命中少”：接纳时已缓存的比例低于 ${LOW_HIT_FRACTION * 100}%（E2 会把它们当作探索请求）。`,
        "优先级组：P = 10 组，按已缓存比例分组（什么都没缓存进第 0 组，否则第 ⌈10 × 比例⌉ − 1 组），组内先来先服务。讲义的读法：从最高组往下轮，第 g 组每轮最多取 g + 1 个，轮到哪一组跨迭代记住，一个迭代可以从好几组取；开源代码：每个迭代只服务一组（指针每迭代下移一组，跳过空组），最多取 (g + 1) × 10 个，剩下的预算不给别的组。最长前缀优先（SGLang）：已缓存 token 最多的先走，等待超过 128 个时退回先来先服务。",
      );
    }
    if (parts.includes("queueing")) notes.push(`排队时间的分位数：按接纳时已缓存的比例分三组（不到 10%、10%–50%、50% 以上），每组每个策略的排队时间（从派发到进批）在 ${QUEUEING_QUANTILES.map((q) => `P${Math.round(q * 100)}`).join("、")} 处的值；表里列出 P50、P90、P99。`);
    if (simulate) notes.push(WARMUP_NOTE, OVERLOAD_NOTE);
    return {
      title: simulate ? `副本内的排队策略：${displayName(workload)}，${rate} 请求/秒，${replicas} 个副本，Preble 路由` : "优先级组的份额：手搭的等待队列",
      columns: presentColumns(
        [
          { key: "part", label: "部分", format: "name" },
          { key: "rotation", label: "轮转方式", format: "name" },
          { key: "group", label: "优先级组", format: "int" },
          { key: "priority", label: "优先级", format: "int" },
          { key: "taken", label: "一次取 55 个里来自这一组", format: "int" },
          COLUMNS.localPolicy,
          { key: "bucket", label: "接纳时的命中", format: "name" },
          { key: "bucketRequests", label: "请求数", format: "int" },
          { key: "q50", label: "排队 P50", unit: "秒", format: "fixed2" },
          { key: "q90", label: "排队 P90", unit: "秒", format: "fixed2" },
          { key: "q99", label: "排队 P99", unit: "秒", format: "fixed2" },
          COLUMNS.meanLatency,
          COLUMNS.p99Latency,
          { key: "p99LowHit", label: `命中少（< ${LOW_HIT_FRACTION * 100}%）的请求的 P99`, unit: "秒", format: "fixed2" },
          { key: "lowHitShare", label: "命中少的请求占比", format: "percent0" },
          { key: "meanQueueing", label: "平均排队", unit: "秒", format: "fixed2" },
          COLUMNS.overloaded,
        ],
        rows,
      ),
      rows,
      notes,
    };
  },
  claims: CLAIMS,
});
