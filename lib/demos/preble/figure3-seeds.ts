// 03.1's seeds and baselines: the two readings of "the baseline", the configurations that run several seeds, and
// seed k's view of the table (rows of several seeds take seed k's values; the ratios recomputed per cell).
import type { Row, Table } from "../../core/table";

const num = (x: unknown): number => x as number;

/** The two readings of "the baseline": ours (chunked prefill, LPF with SGLang's 128-waiting cut-off) and the paper's
 * (LPM, no chunking). Each row carries its ratio to both. */
export const BASELINES = [
  { id: "baseline", ratio: "vsBaseline", kind: "ratioKind", reading: "我们的基线（分块 512 + LPF）" },
  { id: "baselinePaper", ratio: "vsPaperBaseline", kind: "ratioKindPaper", reading: "论文的基线（LPM，不分块）" },
] as const;
export type Baseline = (typeof BASELINES)[number];

/** The configurations that run ratioSeeds seeds: the two baselines and full Preble, whose ratio is Figure 3's. */
export const RATIO_CONFIGURATIONS: readonly string[] = ["baseline", "baselinePaper", "preble"];

/** Seed k's mean latency, P99 and overload verdict of a row (its only values when it ran one seed). */
function atSeed(r: Row, k: number): { mean: number; p99: number; overloaded: boolean } {
  return num(r.seeds) > 1 ? { mean: num(r[`meanSeed${k}`]), p99: num(r[`p99Seed${k}`]), overloaded: r[`overSeed${k}`] === true } : { mean: num(r.meanLatency), p99: num(r.p99Latency), overloaded: r.overloaded === true };
}

/** Sets each baseline's ratio and its meaning on the rows of one (workload, rate) cell: the seed means when the two
 * rows ran the same seeds, else seed 1's values of both (a one-seed row is never set beside a mean of three). */
export function addRatios(group: Row[]): void {
  for (const b of BASELINES) {
    const base = group.find((r) => r.policy === b.id);
    for (const r of group) {
      if (!base) {
        r[b.ratio] = NaN;
        r[b.kind] = null;
        continue;
      }
      const same = num(base.seeds) === num(r.seeds);
      const x = same ? { mean: num(base.meanLatency), overloaded: base.overloaded === true } : atSeed(base, 0);
      const y = same ? { mean: num(r.meanLatency), overloaded: r.overloaded === true } : atSeed(r, 0);
      r[b.ratio] = x.mean / y.mean;
      r[b.kind] = r.policy === b.id || BASELINES.some((z) => z.id === r.policy) ? null : x.overloaded ? "baselineOverloaded" : y.overloaded ? "selfOverloaded" : "speedUp";
    }
  }
}

/** Seed k's view of the table: rows that ran several seeds take seed k's mean, P99 and overload verdict, one-seed
 * rows stay, and the ratios are recomputed per cell. */
export function seedView(t: Table, k: number): Table {
  const rows = t.rows.map((r): Row => {
    if (!(num(r.seeds) > 1)) return { ...r };
    const v = atSeed(r, k);
    return { ...r, seeds: 1, meanLatency: v.mean, p99Latency: v.p99, overloaded: v.overloaded };
  });
  const cells = new Map<string, Row[]>();
  for (const r of rows) {
    if (r.released === true) continue; // the released cells carry no ratio
    const key = `${r.workload}|${r.rate}`;
    if (!cells.has(key)) cells.set(key, []);
    (cells.get(key) as Row[]).push(r);
  }
  for (const group of cells.values()) addRatios(group);
  return { ...t, rows };
}
