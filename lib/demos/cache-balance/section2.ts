// What the demos of 代码 02 (§2) share: the setting (Preble's Mistral-7B on A6000 replicas), the three workloads
// with their rates, parameter checks and docs in Chinese, and runs over several seeds whose rows carry the mean,
// the range and each seed's value (so that claims can judge a ranking on the mean and count the seeds agreeing).
import { checkEachOneOf, checkInteger, checkNonEmpty, checkNumber, checkOneOf, ParameterError } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Cell, Row, Table } from "../../core/table";
import { fixedText, percentText, rangeText } from "../../core/format";
import { ClusterOptions, ClusterResult, simulateCluster } from "../../cluster/simulate";
import { RunSummary, simulateMany } from "../../cluster/sweep";
import { Router, RouterFactory, routerNames, RouterSpec } from "../../cluster/routers";
import { WORKLOAD_NAMES, Workload } from "../../cluster/workloads";
import { cannotJudge, needRow } from "../claims";
import type { ParamDoc } from "../registry";

/** The §2 setting: Preble's (Mistral-7B on A6000 replicas). */
export const SECTION2_MODEL = "MISTRAL_7B";
export const SECTION2_GPU = "A6000";

/** The three workloads of §2 with the rates that load 4 replicas about equally (the best load-only policy's
 * mean latency ≈ 2× a lone request's, as for long documents at the lecture's 1 req/s), and run lengths. */
export const SECTION2_WORKLOADS: ReadonlyArray<{ workload: string; rate: number; requestCount: number }> = [
  { workload: "longDocQA", rate: 1, requestCount: 1200 },
  { workload: "videoQA", rate: 3, requestCount: 2000 },
  { workload: "toolCalling", rate: 36, requestCount: 4000 },
];

export const LOAD_ONLY_POLICIES = ["random", "roundRobin", "leastLoad", "powerOfTwo"];

/** The §2 setting that 02.1 and 02.3 both run: 4 replicas, the three workloads at their rates and run lengths. */
export function section2Defaults(): { replicas: number; workloads: string[]; rates: number[]; requestCounts: number[] } {
  return {
    replicas: 4,
    workloads: SECTION2_WORKLOADS.map((w) => w.workload),
    rates: SECTION2_WORKLOADS.map((w) => w.rate),
    requestCounts: SECTION2_WORKLOADS.map((w) => w.requestCount),
  };
}

/** The mean of a list (NaN for none). */
export const mean = (xs: readonly number[]): number => xs.reduce((s, v) => s + v, 0) / xs.length;

/** The workloads in a table's rows, in order. */
export const workloadsIn = (t: Table): string[] => [...new Set(t.rows.map((r) => String(r.workload)))];

/** One cluster run in the §2 setting. */
export function runSection2(w: Workload, replicas: number, router: RouterSpec, seed: number, extra: Record<string, unknown> = {}): ClusterResult {
  return simulateCluster({ workload: w, replicas, router, seed, model: SECTION2_MODEL, gpu: SECTION2_GPU, oracle: true, ...extra });
}

/** A §2 run named by plain data, so that it can go to a worker thread. */
export interface Section2Job {
  workload: string;
  rate: number;
  requestCount: number;
  replicas: number;
  router: string;
  seed: number;
  routerOptions?: Record<string, unknown>;
}

/** runSection2's options with the workload given by name: the thread that runs it generates the same requests as
 * generateWorkload(workload, { rate, seed, requestCount }) in the caller (a pure function of those). */
export function section2Options(j: Section2Job): ClusterOptions {
  const o: ClusterOptions = { workload: j.workload, rate: j.rate, requestCount: j.requestCount, replicas: j.replicas, router: j.router, seed: j.seed, model: SECTION2_MODEL, gpu: SECTION2_GPU, oracle: true };
  if (j.routerOptions) o.routerOptions = j.routerOptions;
  return o;
}

/** Several §2 runs at once over the worker threads (simulateMany: the summaries, in order, identical to running
 * them one after another), with a progress line "<demo>：已完成 k/n 次模拟". */
export function runSection2Many(jobs: readonly Section2Job[], demo: string, progress?: (message: string) => void): RunSummary[] {
  return simulateMany(jobs.map(section2Options), progress ? (done, total) => progress(`${demo}：已完成 ${done}/${total} 次模拟`) : undefined);
}

// ---- parameters ----

export const SEED_DOCS: Record<"seed" | "seeds", ParamDoc> = {
  seed: { meaning: "第一个随机种子（到达、文档热度、随机路由都由它决定）", range: "≥ 0 的整数" },
  seeds: { meaning: "跑几个种子（seed, seed + 1, …）：表中是各种子的均值，结论按均值判断并数一致的种子", range: "1–10 的整数" },
};

export const WORKLOADS_DOCS: Record<"replicas" | "workloads" | "rates" | "requestCounts", ParamDoc> = {
  replicas: { meaning: "副本数（每个副本一块 GPU）", range: "1–64 的整数" },
  workloads: { meaning: "负载（data/workloads.json 里的名字）", range: `非空数组，每项为 ${WORKLOAD_NAMES.join("、")} 之一` },
  rates: { meaning: "每种负载的请求率（请求/秒），与 workloads 一一对应；不改它而只改 workloads 时，每种负载取默认设定（长文档问答 1、视频问答 3、工具调用 36）", range: "与 workloads 等长的数组，每项 > 0 且 ≤ 10000" },
  requestCounts: { meaning: "每种负载模拟的请求数（前 20% 用来预热，不计入统计）；不改它而只改 workloads 时同样取默认设定", range: "与 workloads 等长的数组，每项为 10–200000 的整数" },
};

export const policiesDoc = (what = "路由策略"): ParamDoc => ({ meaning: `要比较的${what}（路由器的名字，见表中的英文标识）`, range: "非空数组，每项为已注册的路由器名" });
export const routerChoicesDoc = (): ParamDoc => ({
  meaning: "要比较的路由策略：路由器的名字（见表中的英文标识），或格子里写的路由器 { name, route(request, view) }，或返回这种路由器的函数（每次运行调用一次）",
  range: "非空数组，每项为已注册的路由器名、路由器对象或函数；名字不能重复",
});

/** The seeds to run: seed, seed + 1, … (seeds of them). */
export function seedList(p: { seed: unknown; seeds: unknown }): number[] {
  const first = checkInteger("seed", p.seed, { min: 0 });
  const n = checkInteger("seeds", p.seeds, { min: 1, max: 10 });
  return Array.from({ length: n }, (_, i) => first + i);
}

export function checkReplicas(name: string, value: unknown): number {
  return checkInteger(name, value, { min: 1, max: 64 });
}

export function checkPolicies(value: unknown): string[] {
  return checkEachOneOf("policies", value, routerNames());
}

/** A router in a §2 demo's `policies`: a registered name; a `{ name, route(request, view) }` object written in a
 * cell (used as is in every run, so any state it keeps carries from run to run); or a function returning such an
 * object (called once per run: for a router that counts or remembers, like the page's cache-aware + guard). */
export type RouterChoice = string | Router | RouterFactory;

/** The policies list of 02.1 / 02.4: names checked against the registry, objects and functions by shape. */
export function checkRouterChoices(value: unknown, name = "policies"): RouterChoice[] {
  return checkNonEmpty(name, value as unknown[]).map((v, i) => {
    if (typeof v === "function") return v as RouterFactory;
    if (v !== null && typeof v === "object") {
      const r = v as Partial<Router>;
      if (typeof r.route !== "function" || typeof r.name !== "string" || r.name === "") {
        throw new ParameterError(`${name}[${i}]`, "应为路由器的名字、{ name, route(request, view) } 对象（name 是非空字符串，route 是函数）或返回这种对象的函数");
      }
      return v as Router;
    }
    return checkOneOf(`${name}[${i}]`, v, routerNames());
  });
}

/** The row name of a router choice: the name, the object's name; for a function, the name of the router it made
 * (`made`, from the run's result). */
export function choiceName(choice: RouterChoice, made?: string): string {
  if (typeof choice === "string") return choice;
  if (typeof choice === "function") return made ?? (choice.name || "router");
  return choice.name;
}

/** Rows are named by router: two routers of one name would share a row. */
export function checkDistinctNames(names: readonly string[], parameter = "policies"): void {
  const seen = new Set<string>();
  for (const n of names) {
    if (seen.has(n)) throw new ParameterError(parameter, `有两个路由器都叫 ${JSON.stringify(n)}；表按名字分行，请给它们不同的 name`);
    seen.add(n);
  }
}

/** workloads / rates / requestCounts, checked element by element (names first), then their lengths. Left at their
 * defaults while `workloads` changed, rates and requestCounts follow the workloads: each one's setting in
 * SECTION2_WORKLOADS (so `{ workloads: ["videoQA"] }` runs video QA at its 3 req/s). */
export function checkWorkloadSetting(p: { workloads: unknown; rates: unknown; requestCounts: unknown }): Array<{ workload: string; rate: number; requestCount: number }> {
  const workloads = checkEachOneOf("workloads", p.workloads, WORKLOAD_NAMES as string[]);
  const rates = followDefaults("rates", listOf("rates", p.rates), workloads, "rate");
  const counts = followDefaults("requestCounts", listOf("requestCounts", p.requestCounts), workloads, "requestCount");
  rates.forEach((r, k) => checkNumber(`rates[${k}]`, r, { above: 0, max: 10000 }));
  counts.forEach((c, k) => checkInteger(`requestCounts[${k}]`, c, { min: 10, max: 200000 }));
  for (const [name, list] of [["rates", rates], ["requestCounts", counts]] as const) {
    if (list.length !== workloads.length) throw new ParameterError(name, `应与 workloads 一一对应（workloads 有 ${workloads.length} 项：${workloads.join("、")}），实际有 ${list.length} 项`);
  }
  return workloads.map((workload, k) => ({ workload, rate: rates[k] as number, requestCount: counts[k] as number }));
}

const sameList = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The default list for the default workloads; for other workloads, each one's SECTION2_WORKLOADS setting. */
function followDefaults(name: string, given: unknown[], workloads: string[], key: "rate" | "requestCount"): unknown[] {
  const defaults = SECTION2_WORKLOADS.map((w) => w[key]);
  if (given.length === workloads.length || !sameList(given, defaults)) return given;
  const missing = workloads.filter((w) => !SECTION2_WORKLOADS.some((s) => s.workload === w));
  if (missing.length > 0) throw new ParameterError(name, `负载 ${missing.join("、")} 没有默认的${key === "rate" ? "请求率" : "请求数"}：请给出与 workloads 一一对应的 ${name}`);
  return workloads.map((w) => (SECTION2_WORKLOADS.find((s) => s.workload === w) as { rate: number; requestCount: number })[key]);
}

function listOf(name: string, value: unknown): unknown[] {
  if (!Array.isArray(value) || value.length === 0) throw new ParameterError(name, `应为非空数组，实际是 ${JSON.stringify(value)}`);
  return value;
}

// ---- rows over seeds ----

/** The key under which a row keeps seed i's value of `key` (not a column: judges read it). */
export const seedKey = (key: string, i: number): string => `${key}@${i}`;

/** One row from per-seed rows: `fixed` cells as given, each key of `keys` the mean over seeds, with keyMin /
 * keyMax (error bars) and key@i (seed i's value). A NaN in a seed makes the mean NaN (never silently dropped). */
export function meanOverSeeds(fixed: Row, perSeed: Row[], keys: readonly string[]): Row {
  const row: Row = { ...fixed };
  for (const key of keys) {
    const values = perSeed.map((r) => r[key] as number);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    row[key] = mean;
    row[`${key}Min`] = Math.min(...values);
    row[`${key}Max`] = Math.max(...values);
    values.forEach((v, i) => (row[seedKey(key, i)] = v));
  }
  return row;
}

/** Seed by seed, the values of `key` in the single row matching `match` (the mean row's key@i cells; a table
 * without them gives the one value it shows). */
export function perSeed(t: Table, match: Record<string, Cell>, key: string): number[] {
  const row = needRow(t, match);
  const out: number[] = [];
  for (let i = 0; typeof row[seedKey(key, i)] === "number"; i++) out.push(row[seedKey(key, i)] as number);
  if (out.length === 0) {
    const v = row[key];
    if (typeof v !== "number") cannotJudge(`${describe(match)} 这一行没有 ${key} 的数值`);
    out.push(v);
  }
  return out;
}

/** Element-wise f over several per-seed lists of equal length (e.g. a ratio seed by seed). */
export function zipSeeds(lists: number[][], f: (...xs: number[]) => number): number[] {
  const n = Math.min(...lists.map((l) => l.length));
  return Array.from({ length: n }, (_, i) => f(...lists.map((l) => l[i])));
}

function describe(match: Record<string, Cell>): string {
  return Object.entries(match).map(([k, v]) => `${k} = ${displayName(v)}`).join("、");
}

/** "长文档问答" … for a list of identifiers, in the reading order. */
export const names = (ids: readonly string[]): string => ids.map(displayName).join("、");

/** The number of seeds in a title: "3 个种子的均值" or "种子 1". */
export function seedsPhrase(seeds: readonly number[]): string {
  return seeds.length === 1 ? `种子 ${seeds[0]}` : `${seeds.length} 个种子（${seeds[0]}–${seeds[seeds.length - 1]}）的均值`;
}

/** The warm-up rule in Chinese, for tables' notes. */
export function warmupNote(warmup = 0.2): string {
  return `预热：缓存从空开始，按到达顺序前 ${Math.round(warmup * 100)}% 的请求不计入统计；复制倍数和缓存内容在之后的到达期间均匀取 20 次快照平均。`;
}

export const OVERLOAD_NOTE =
  "过载：队列越排越长（后四分之一请求的平均延迟超过第二个四分之一的 1.3 倍，且在途请求明显增多），或平均延迟超过单独运行时的 10 倍；这样的运行里平均值取决于模拟时长，不能当作稳态数字。";

/** "3 个种子：0.529–0.597", or "3 个种子相同" when both ends read the same. */
function seedRange(n: number, lo: string, hi: string, unit = ""): string {
  return lo === hi ? `${n} 个种子相同` : `${n} 个种子：${rangeText(lo, hi, unit)}`;
}

/** "0.557（3 个种子：0.529–0.597）" — a seed mean with its range (one seed: the value alone). */
export function meanText(values: readonly number[], digits = 2, unit = ""): string {
  const n = values.length;
  if (n === 0) return "—";
  const mean = values.reduce((s, v) => s + v, 0) / n;
  const fx = (x: number) => (Number.isFinite(x) ? fixedText(x, digits) : "—");
  const u = unit ? ` ${unit}` : "";
  return n === 1 ? `${fx(mean)}${u}` : `${fx(mean)}${u}（${seedRange(n, fx(Math.min(...values)), fx(Math.max(...values)))}）`;
}

/** How many seeds satisfy `test` on every one of several per-seed lists (e.g. one list per workload); undefined
 * for a single seed (nothing to count). */
export function seedsAgreeingAll(lists: readonly number[][], test: (x: number) => boolean): { agree: number; total: number } | undefined {
  const n = Math.min(...lists.map((l) => l.length));
  if (!(n > 1)) return undefined;
  let agree = 0;
  for (let i = 0; i < n; i++) if (lists.every((l) => test(l[i]))) agree++;
  return { agree, total: n };
}

/** How many seeds satisfy `test` (undefined for a single seed). */
export function agreeing(values: readonly number[], test: (x: number) => boolean): { agree: number; total: number } | undefined {
  return seedsAgreeingAll([values as number[]], test);
}

/** "38%（3 个种子：35–42%）" — a share's seed mean with its range; `digits` decimals ("41.2%" for a hit rate, as
 * the tables' "percent1" writes it). */
export function pctText(values: readonly number[], digits = 0): string {
  const n = values.length;
  if (n === 0) return "—";
  const p = (x: number) => (Number.isFinite(x) ? percentText(x, digits).slice(0, -1) : "—");
  const mean = values.reduce((s, v) => s + v, 0) / n;
  return n === 1 ? `${p(mean)}%` : `${p(mean)}%（${seedRange(n, p(Math.min(...values)), p(Math.max(...values)), "%")}）`;
}
