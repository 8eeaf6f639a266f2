// Claims: the lecture's conclusions about a demo, judged on the demo's own numbers. A demo declares them; runDemo
// evaluates them into ClaimResults; notebooks render them (view/claims.ts), the CLI prints them, tests assert them.
// A judge that cannot find what it needs says so (verdict "unjudged", naming the row or parameter): a reader's
// changed parameter never makes a claim throw.
import { displayName, spacedText } from "../core/glossary";
import type { Cell, ClaimResult, Row, Table, Verdict } from "../core/table";
import { rowsWhere } from "../core/table";
import { fixedText, percentText, rangeText } from "../core/format";

export type { ClaimResult, Verdict } from "../core/table";

/** What a judge returns: whether the conclusion holds on these numbers, and our figure(s) in a short phrase. */
export interface Judgement {
  holds: boolean;
  /** our figure(s), e.g. "9.7 → 4.1 个服务时间" */
  ours: string;
  /** a remark shown after the figures (e.g. what the numbers mean) */
  remark?: string;
  /** for a claim judged over seeds: on how many of them the claim holds, seed by seed ("3 个种子中 1 个成立" under a
   * verdict on the mean that does not hold: the one seed where it held is the exception) */
  seeds?: { agree: number; total: number };
  /** when it does not hold: why, in one or two Chinese sentences computed from the run (the figure that explains it;
   * where our simulator differs from the lecture's companion code, in what, and the demo that shows it). Ignored
   * when it holds. */
  why?: string;
  /** set when this judgement (typically one reading of several) cannot be judged after all: why, e.g. the mechanism
   * acted zero times (the verdict is then "unjudged" whatever `holds` says) */
  unjudged?: string;
}

/** A judgement under one reading of a paper (the lecture's, or the released code's). */
export interface ReadingJudgement extends Judgement {
  reading: string;
}

export interface Claim<P = Record<string, unknown>> {
  id: string;
  /** the conclusion, in our own Chinese words (no numbers: the figures come from the judge) */
  says: string;
  /** the lecture's figure where it gives one, e.g. "约 2 倍" or "3.88 对 5.35 秒" */
  lecture?: string;
  /** a narrower statement of ours placed beside the lecture's claim (rendered as ours, not the lecture's) */
  ourStatement?: boolean;
  /** computes our figures and the verdict; may throw Unjudgeable (via need / needRow / cannotJudge) */
  judge(table: Table, params: P): Judgement | ReadingJudgement[];
  /** whether the claim concerns this run at all (e.g. a part of the demo the parameters did not ask for): when it
   * returns false the claim is left out of the table's claims instead of being listed as "unjudged" */
  applies?(params: P): boolean;
}

/** Thrown by a judge when the table or the parameters lack what the claim needs. */
export class Unjudgeable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = "Unjudgeable";
  }
}

export function cannotJudge(reason: string): never {
  throw new Unjudgeable(reason);
}

/** "策略 = 最短队列 (JSQ)、刷新间隔 = 0" — a row selector in words. */
export function describeMatch(table: Table, match: Record<string, Cell>): string {
  return Object.entries(match)
    .map(([k, v]) => {
      const col = table.columns.find((c) => c.key === k);
      return `${col ? col.label : k} = ${v === null || v === undefined ? "—" : displayName(v)}`;
    })
    .join("、");
}

/** The rows matching `match`; Unjudgeable when there are none. */
export function needRows(table: Table, match: Record<string, Cell>): Row[] {
  const rows = rowsWhere(table, match);
  if (rows.length === 0) cannotJudge(`需要 ${describeMatch(table, match)} 的行，这组参数下没有`);
  return rows;
}

/** The single row matching `match`; Unjudgeable when there is none (or several: say which parameter to narrow). */
export function needRow(table: Table, match: Record<string, Cell>): Row {
  const rows = needRows(table, match);
  if (rows.length > 1) cannotJudge(`${describeMatch(table, match)} 对应 ${rows.length} 行，需要恰好一行`);
  return rows[0];
}

/** The number in column `key` of the single row matching `match`. */
export function need(table: Table, match: Record<string, Cell>, key: string): number {
  const v = needRow(table, match)[key];
  if (typeof v !== "number" || Number.isNaN(v)) cannotJudge(`${describeMatch(table, match)} 这一行没有 ${key} 的数值`);
  return v;
}

/** A parameter value the claim needs to be present (e.g. refresh interval 0 in refreshIntervals). */
export function needParam(condition: boolean, reason: string): void {
  if (!condition) cannotJudge(reason);
}

/** Evaluates every claim of a demo on its table; never throws. */
export function evaluateClaims<P>(claims: readonly Claim<P>[], table: Table, params: P): ClaimResult[] {
  return claims.filter((c) => !c.applies || appliesSafely(c, params)).map((c) => evaluateClaim(c, table, params));
}

function appliesSafely<P>(claim: Claim<P>, params: P): boolean {
  try {
    return (claim.applies as (p: P) => boolean)(params);
  } catch {
    return true;
  }
}

function verdictOf(j: Judgement): Verdict {
  return j.unjudged ? "unjudged" : j.holds ? "holds" : "fails";
}

function withRemark(j: Judgement): string {
  return j.remark ? `${j.ours}（${j.remark}）` : j.ours;
}

export function evaluateClaim<P>(claim: Claim<P>, table: Table, params: P): ClaimResult {
  return spacedClaim(judgedClaim(claim, table, params));
}

/** The claim's sentences spaced where Chinese meets a Latin letter or digit (spacedText): the names a judge
 * interpolates ("最好的${name}") may start or end with either. */
function spacedClaim(c: ClaimResult): ClaimResult {
  const text = <T extends { ours: string; why?: string; reason?: string }>(x: T): T => ({ ...x, ours: spacedText(x.ours), ...(x.why ? { why: spacedText(x.why) } : {}), ...(x.reason ? { reason: spacedText(x.reason) } : {}) });
  return { ...text(c), says: spacedText(c.says), ...(c.readings ? { readings: c.readings.map(text) } : {}) };
}

function judgedClaim<P>(claim: Claim<P>, table: Table, params: P): ClaimResult {
  const base = { id: claim.id, says: claim.says, lecture: claim.lecture, ...(claim.ourStatement ? { ourStatement: true } : {}) };
  try {
    const judged = claim.judge(table, params);
    if (Array.isArray(judged)) {
      if (judged.length === 0) return { ...base, verdict: "unjudged", ours: "—", reason: "没有可判断的读法", why: "没有可判断的读法" };
      const readings = judged.map((r) => ({ reading: r.reading, verdict: verdictOf(r), ours: withRemark(r), seeds: r.seeds, ...whyOf(r) }));
      return { ...base, verdict: readings[0].verdict, ours: readings[0].ours, seeds: readings[0].seeds, ...whyOf(judged[0]), readings };
    }
    return { ...base, verdict: verdictOf(judged), ours: withRemark(judged), seeds: judged.seeds, ...whyOf(judged) };
  } catch (e) {
    if (e instanceof Unjudgeable) return { ...base, verdict: "unjudged", ours: "—", reason: e.reason, why: e.reason };
    const message = e instanceof Error ? e.message : String(e);
    return { ...base, verdict: "unjudged", ours: "—", reason: `判断时出错：${message}`, why: `判断时出错：${message}`, error: message };
  }
}

/** The `why` of a judgement that does not hold (none when it holds). */
function whyOf(j: Judgement): { why?: string; reason?: string } {
  if (j.unjudged) return { why: j.unjudged, reason: j.unjudged };
  return !j.holds && j.why ? { why: j.why } : {};
}

/** For a claim about a mechanism: the words for "it acted zero times in this run" (with `because`: what kept it from
 * acting), or undefined when it acted — for Judgement.unjudged, or cannotJudge via needActed. */
export function notActed(count: number, mechanism: string, because = ""): string | undefined {
  return count === 0 ? `${mechanism}在这次运行里触发了 0 次${because ? `：${because}` : ""}，无从判断它的效果` : undefined;
}

/** cannotJudge when the mechanism acted zero times (see notActed). */
export function needActed(count: number, mechanism: string, because = ""): void {
  const r = notActed(count, mechanism, because);
  if (r) cannotJudge(r);
}

// Small helpers judges use to write their figures.

/** A number with `digits` decimals. */
export const f = (x: number, digits = 2): string => fixedText(x, digits);
/** A share as a whole percentage: 0.364 → "36%". */
export const pct = (x: number, digits = 0): string => percentText(x, digits);
/** A ratio: 1.834 → "1.83×". */
export const times = (x: number, digits = 2): string => `${f(x, digits)}×`;

/** Mean, min and max of per-seed values, and a "均值 (范围 a–b)" phrase. */
export function spread(values: readonly number[], digits = 2): { mean: number; min: number; max: number; text: string } {
  if (values.length === 0) cannotJudge("没有种子的结果");
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const text = values.length === 1 ? f(mean, digits) : `${f(mean, digits)}（${values.length} 个种子，范围 ${rangeText(f(min, digits), f(max, digits))}）`;
  return { mean, min, max, text };
}

/** How many per-seed values satisfy `test`, the claim's own test seed by seed (for Judgement.seeds). */
export function seedsAgreeing<T>(perSeed: readonly T[], test: (x: T) => boolean): { agree: number; total: number } {
  return { agree: perSeed.filter(test).length, total: perSeed.length };
}
