// What the §3 demos (代码 03) share: Chinese columns, the notes every table carries (printed once per notebook by
// show(), folded after), parameter docs and checks used by several demos.
import { checkNonEmpty, checkNumber, checkOneOf, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Column, Row } from "../../core/table";
import { CLUSTER_CONFIGURATIONS, CONFIGURATION_NAMES } from "../../cluster/preble/configs";
import { WORKLOAD_NAMES } from "../../cluster/workloads";
import type { ParamDoc } from "../registry";

/** The columns of §3's tables, in Chinese (the same keys as lib/demos/columns.ts, so rows read alike). */
export const COLUMNS = {
  workload: { key: "workload", label: "负载", format: "name" },
  rate: { key: "rate", label: "请求率", unit: "请求/秒", format: "sig3" },
  configuration: { key: "policy", label: "配置", format: "name" },
  localPolicy: { key: "policy", label: "副本内排队", format: "name" },
  requests: { key: "requests", label: "请求数", format: "int" },
  meanLatency: { key: "meanLatency", label: "平均延迟", unit: "秒", format: "fixed2" },
  p99Latency: { key: "p99Latency", label: "P99 延迟", unit: "秒", format: "fixed2" },
  meanTPOT: { key: "meanTPOT", label: "平均 TPOT", unit: "毫秒", format: "fixed1" },
  hitRate: { key: "hitRate", label: "命中率", format: "percent1" },
  maxShare: { key: "maxShare", label: "最忙副本的请求占比", format: "percent0" },
  overloaded: { key: "overloaded", label: "过载" },
} satisfies Record<string, Column>;

/** The overload rule, one note shared by every §3 table (show() prints it once per notebook, folded after). */
export const OVERLOAD_NOTE =
  "过载的判定：测量段最后四分之一到达的请求的平均延迟超过第二个四分之一的 1.3 倍、并且最后 10% 到达时在途的请求数超过 40%–50% 时的 1.5 倍再加每个副本一个；或者平均延迟超过单独运行时的 10 倍。过载的格子里延迟随模拟时长一直增长，两个过载格子之比不是加速比。";

/** The names of the two readings of Preble, as each claim judged under both says them (the lecture's first). */
export const READING_LABEL = { lecture: "讲义的读法", released: "开源代码的读法" } as const;

/** The warm-up rule (every cluster run of §3). */
export const WARMUP_NOTE = "每次模拟从空缓存开始，按到达顺序的前 20% 请求只用来预热，不计入统计；同一个种子下每个配置看到的是同一批请求。";

/** "2 个种子" / "种子 1" — the seeds of a run in words. */
export function seedWords(seed: unknown): string {
  return `种子 ${String(seed)}`;
}

/** "种子 1、2、3" for runs over several seeds. */
export function seedsOf(seed: number | string, count: number): Array<number | string> {
  return Array.from({ length: count }, (_, k) => (typeof seed === "number" ? seed + k : k === 0 ? seed : `${seed}/${k}`));
}

export const SEED_DOC: ParamDoc = { meaning: "随机种子（同一个种子下每个配置看到同一批请求）", range: "整数或字符串" };
export const REPLICAS_DOC: ParamDoc = { meaning: "副本（GPU）个数", range: "1–30 的整数" };

export const CONFIGURATIONS_RANGE = `非空数组，每项为 ${CONFIGURATION_NAMES.join("、")} 之一`;
export const WORKLOADS_RANGE = `非空数组，每项为 ${WORKLOAD_NAMES.join("、")} 之一`;

export function checkConfigurations(name: string, list: unknown): string[] {
  return checkNonEmpty(name, list as string[]).map((c, i) => checkOneOf(`${name}[${i}]`, c, CONFIGURATION_NAMES as string[]));
}

export function checkWorkloads(name: string, list: unknown): string[] {
  return checkNonEmpty(name, list as string[]).map((w, i) => checkOneOf(`${name}[${i}]`, w, WORKLOAD_NAMES as string[]));
}

/** A { workload: number } parameter (e.g. costRates): every key a workload, every value > 0. */
export function checkWorkloadRates(name: string, value: unknown): Array<[string, number]> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new ParameterError(name, `应为对象 { 负载名: 请求率 }，实际是 ${JSON.stringify(value)}`);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw new ParameterError(name, "至少要有一个负载");
  return entries.map(([w, r]) => {
    checkOneOf(`${name} 的负载名`, w, WORKLOAD_NAMES as string[]);
    return [w, checkNumber(`${name}.${w}`, r, { above: 0 })];
  });
}

/** "基线 = …；E2 = …" — what each configuration of a table is, in one note. */
export function configurationsNote(names: readonly string[]): string {
  return `配置：${names.map((c) => `${displayName(c)} = ${CLUSTER_CONFIGURATIONS[c].description}`).join("；")}。`;
}

/** Requests for a run at `rate`: at least `minRequests`, and enough to cover `minSeconds` of arrivals (longer than
 * the load window H = 180 s, so that Preble's window statistics reach a steady state). */
export function requestsFor(rate: number, minRequests: number, minSeconds: number): number {
  return Math.max(minRequests, Math.ceil(rate * minSeconds));
}

/** The mean of a list (NaN when empty). */
export function meanOf(xs: readonly number[]): number {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN;
}

/** The columns that have a value in at least one row (a demo with several parts drops the others' columns). */
export function presentColumns(columns: readonly Column[], rows: readonly Row[]): Column[] {
  return columns.filter((c) => rows.some((r) => r[c.key] !== null && r[c.key] !== undefined));
}

/** Row values that mark the released code's reading in the §3 demos' tables (besides ids ending in "Released"): the
 * paper's baseline, migrating rebalancing, the one-group-per-iteration rotation. */
const RELEASED_VALUES = new Set(["baselinePaper", "e2+migrate", "perIteration"]);

/** Whether a §3 demo's row belongs to the released code's reading (the appendix's rows, not §3's main page). */
export function isReleasedRow(row: Row): boolean {
  if (row.released === true) return true;
  return Object.values(row).some((v) => typeof v === "string" && (v.endsWith("Released") || RELEASED_VALUES.has(v)));
}

/** Columns that only the released reading fills or that compare with the paper's baseline. */
export const RELEASED_COLUMNS: readonly string[] = ["vsPaperBaseline", "ratioKindPaper", "migrated", "migratedBack"];
