// What the §1 queue demos (01.2–01.4) share: parameter docs and checks, per-seed cells, and Chinese phrases for notes.
import { checkInteger, checkNonEmpty, checkNumber, checkOneOf, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Cell, Column } from "../../core/table";
import { DISPATCH_POLICIES, DispatchPolicy, LOAD_AWARE_POLICIES } from "../../dispatch/policies";
import { DispatchPolicyInput, isUserPolicy, policyInputName } from "../../dispatch/user-policy";
import type { ParamDoc } from "../registry";
import { cannotJudge } from "../claims";

export const QUEUE_DOCS: Record<string, ParamDoc> = {
  servers: { meaning: "先来先服务的服务器台数 N", range: "1–1,000 的整数" },
  utilization: { meaning: "利用率 ρ：每个平均服务时间到达 ρ·N 个请求", range: "> 0 且 < 1 的数" },
  warmupFraction: { meaning: "预热：按到达顺序最先的这部分请求照常模拟但不计入统计（系统从空开始）", range: "≥ 0 且 < 1 的数" },
  seed: { meaning: "随机种子：第 k 次运行用种子 seed/k", range: "任意数或字符串" },
  policies: {
    meaning: "比较的派发策略：库里的名字，或你自己写的策略函数 (servers, rng) => 服务器编号（表里这一行用函数名；也可写成 { name, choose }）",
    range: `非空数组，每项为 ${DISPATCH_POLICIES.map((p) => `"${p}"`).join("、")} 之一，或一个策略函数`,
  },
};

export function checkQueueParams(p: { servers: number; utilization: number; warmupFraction: number }): void {
  checkInteger("servers", p.servers, { min: 1, max: 1000 });
  checkNumber("utilization", p.utilization, { above: 0, below: 1 });
  checkNumber("warmupFraction", p.warmupFraction, { min: 0, below: 1 });
}

/** Refuses a list with a repeated value (each value names one row; a repeat would make two rows alike). */
export function checkDistinct<T>(name: string, values: readonly T[]): readonly T[] {
  const seen = new Set<T>();
  values.forEach((v, i) => {
    if (seen.has(v)) throw new ParameterError(`${name}[${i}]`, `重复了：${JSON.stringify(v)} 已经在列表里`);
    seen.add(v);
  });
  return values;
}

/** One entry of a demo's `policies`: the row's name, and what simulateDispatch runs. */
export interface PolicyEntry {
  id: string;
  input: DispatchPolicyInput;
  /** written by the reader (a function), not the library's */
  own: boolean;
}

/** Checks a demo's `policies`: each a library name or a reader's policy function; the names must differ. */
export function checkPolicyEntries(name: string, values: unknown): PolicyEntry[] {
  const entries = checkNonEmpty(name, values as unknown[]).map((v, i): PolicyEntry => {
    if (isUserPolicy(v)) return { id: policyInputName(v, `${name}[${i}]`), input: v, own: true };
    const id = checkOneOf(`${name}[${i}]`, v, DISPATCH_POLICIES);
    return { id, input: id, own: false };
  });
  checkDistinct(name, entries.map((e) => e.id));
  return entries;
}

/** Whether a policy may read the servers' state (a reader's policy may: it is run at every refresh interval). */
export const readsLoad = (e: PolicyEntry) => e.own || LOAD_AWARE_POLICIES.includes(e.id as DispatchPolicy);

/** The note under a table some of whose rows come from the reader's functions (none: no note). */
export function ownPoliciesNote(entries: readonly PolicyEntry[]): string[] {
  const own = entries.filter((e) => e.own).map((e) => e.id);
  return own.length ? [`${own.join("、")} 这几行由你传入的策略函数算出（不是库里的实现）；函数名与库里的策略同名时，表里用库里的中文名，结论核对也把它当作那种策略来判断。`] : [];
}

export const int = (n: number) => n.toLocaleString("en-US");

/** "种子 1 派生的 4 个子种子（1/0 … 1/3）": the runs' streams come from seed/k, k = 0 … seeds − 1. */
export const seedsText = (seed: unknown, seeds: number) =>
  seeds === 1 ? `种子 ${String(seed)} 派生的子种子 ${String(seed)}/0` : `种子 ${String(seed)} 派生的 ${seeds} 个子种子（${String(seed)}/0 … ${String(seed)}/${seeds - 1}）`;

export const warmupNote = (warmupFraction: number, jobs: number) =>
  `预热：服务器从空开始；按到达顺序最先的 ${Math.round(warmupFraction * 100)}% 请求（${int(Math.floor(warmupFraction * jobs))} / ${int(jobs)} 个）照常模拟，但不计入统计。`;

// Per-seed values travel in the table as one text cell ("9.812 / 10.32 / …", 4 significant digits): the reader sees
// the spread, and claims judged over seeds read it back.

/** One cell holding per-seed values. */
export function perSeedCell(values: readonly number[]): string {
  return values.map((v) => (Number.isFinite(v) ? Number(v.toPrecision(4)).toString() : "NaN")).join(" / ");
}

/** The values of a per-seed cell; Unjudgeable when the cell is missing or malformed. */
export function parsePerSeed(cell: Cell, what: string): number[] {
  if (typeof cell !== "string" || cell === "") cannotJudge(`没有${what}的逐种子数值`);
  const xs = cell.split(" / ").map(Number);
  if (xs.some((x) => Number.isNaN(x))) cannotJudge(`${what}的逐种子数值读不出来`);
  return xs;
}

/** Mean, standard deviation and standard error of per-seed values. */
export function seedStats(values: readonly number[]): { mean: number; sd: number; se: number } {
  const n = values.length;
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const sd = n > 1 ? Math.sqrt(values.reduce((s, v) => s + (v - mean) * (v - mean), 0) / (n - 1)) : 0;
  return { mean, sd, se: sd / Math.sqrt(n) };
}

export const TIME_UNIT = "个服务时间";

export const COLUMNS = {
  policy: { key: "policy", label: "策略", format: "name" },
  mean: { key: "mean", label: "平均响应", unit: TIME_UNIT, format: "fixed2" },
  meanSd: { key: "meanSd", label: "± 种子间标准差", unit: TIME_UNIT, format: "fixed2" },
  p99: { key: "p99", label: "P99 响应", unit: TIME_UNIT, format: "fixed1" },
  p99Sd: { key: "p99Sd", label: "P99 ± 标准差", unit: TIME_UNIT, format: "fixed1" },
  meanPerSeed: { key: "meanPerSeed", label: "各种子的平均响应", format: "text" },
  p99PerSeed: { key: "p99PerSeed", label: "各种子的 P99", format: "text" },
} satisfies Record<string, Column>;

/** "随机、二选一" — policies the way a note lists them. */
export const policyNames = (ids: readonly string[]) => ids.map(displayName).join("、");
