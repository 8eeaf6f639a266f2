// Shared pieces of the §4 demos (代码 04): parameter docs, seeds, allocation tallies, number formats.
import { fixedText, rangeText as rangeBetween } from "../../core/format";
import { checkInteger, ParameterError } from "../../core/errors";
import type { Row } from "../../core/table";
import type { OptimizerResult } from "../../selector/optimizers";
import { SYSTEM_NAMES } from "../../selector/systems";
import { cannotJudge } from "../claims";

export const SEED_DOC = { meaning: "世界的种子：决定题目的难度和每个模型在每道题上的成败", range: "整数或字符串" };
export const SEEDS_DOC = { meaning: "重复几个世界种子（seed, seed + 1, …），结论按种子平均并报告几个种子一致", range: "1–10 的整数" };
export const POOLS_DOC = { meaning: "每个种子下的随机模型池个数（每池 5 个模型：能力 = 通用水平 + 各技能的专长）", range: "1–100 的整数" };
export const TRAIN_DOC = { meaning: "每个世界的训练题数（优化器只看训练集）", range: "≥ 1 的整数" };
export const TEST_DOC = { meaning: "每个世界的测试题数（表里的测试准确率在这些题上量）", range: "≥ 1 的整数" };
export const SYSTEMS_RANGE = `非空数组，每项为 ${SYSTEM_NAMES.join("、")} 之一`;

/** The world seeds of a multi-seed demo: seed, seed + 1, … (a string seed gets "/2", "/3" …). */
export function seedList(seed: number | string, count: unknown): Array<number | string> {
  const n = checkInteger("seeds", count, { min: 1, max: 10 });
  if (typeof seed !== "number" && typeof seed !== "string") throw new ParameterError("seed", `应为整数或字符串，实际是 ${JSON.stringify(seed)}`);
  return Array.from({ length: n }, (_, i) => (typeof seed === "number" ? seed + i : i === 0 ? seed : `${seed}/${i + 1}`));
}

/** "7–9" or "7" — the seeds used, for titles and notes. */
export function seedsText(seeds: ReadonlyArray<number | string>): string {
  return seeds.length === 1 ? String(seeds[0]) : typeof seeds[0] === "number" ? `${seeds[0]}–${seeds[seeds.length - 1]}` : seeds.map(String).join("、");
}

/** "A+B ×20；C+C ×5" — final allocations of many runs, most frequent first. */
export function tally(results: OptimizerResult[]): string {
  const counts = new Map<string, number>();
  for (const r of results) counts.set(r.label, (counts.get(r.label) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([label, n]) => `${label} ×${n}`)
    .join("；");
}

/** Allocation counts: whole numbers with separators (25, 15,625), run averages with one decimal (17.8). */
export const mean = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((s, x) => s + x, 0) / xs.length);

/** "1.2–3.4": a range of per-seed values for a table cell. */
export function rangeText(values: readonly number[], digits: number): string {
  if (values.length <= 1) return "—";
  return rangeBetween(fixedText(Math.min(...values), digits), fixedText(Math.max(...values), digits));
}

/** Per-seed values stored in a row (a JSON array in a field the table does not show). */
export function perSeed(row: Row, key: string): number[] {
  const raw = row[key];
  if (typeof raw !== "string") cannotJudge(`这一行没有按种子记下的 ${key}`);
  return JSON.parse(raw) as number[];
}
