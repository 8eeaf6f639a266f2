// Runs of the named configurations (§3) and measures the notebook and demos read from them.
import { checkInteger, checkNumber } from "../../core/errors";
import { displayName } from "../../core/glossary";
import { quantile } from "../../core/stats";
import type { Row, Table } from "../../core/table";
import { configurationOptions } from "./configs";
import { ClusterOptions, ClusterResult, simulateCluster } from "../simulate";

/** Cached fraction below which a request counts as "low hit" in 03.5 (it would be an explore request under E2). */
export const LOW_HIT_FRACTION = 0.5;

export interface PrebleRunOptions {
  workload: string;
  rate: number;
  replicas: number;
  configuration: string;
  requestCount: number;
  seed: number | string;
  /** merged over the configuration's router options */
  routerOptions?: Record<string, unknown>;
  /** overrides the configuration's local policy */
  localPolicy?: string;
  workloadOverrides?: Record<string, number>;
  notificationDelay?: number;
}

/** One cluster run of a named configuration. */
export function runConfiguration(o: PrebleRunOptions): ClusterResult {
  return simulateCluster(configurationRun(o));
}

/** The simulateCluster options of such a run (plain data: sweeps hand them to worker threads, lib/cluster/sweep). */
export function configurationRun(o: PrebleRunOptions): ClusterOptions {
  const cfg = configurationOptions(o.configuration, o.routerOptions ?? {}, o.localPolicy);
  return {
    workload: o.workload,
    rate: o.rate,
    replicas: o.replicas,
    requestCount: o.requestCount,
    seed: o.seed,
    workloadOverrides: o.workloadOverrides,
    notificationDelay: o.notificationDelay,
    replicationSamples: 0,
    ...cfg,
  };
}

/** P99 latency of measured requests whose cached fraction was below LOW_HIT_FRACTION. */
export function lowHitP99(result: ClusterResult): number {
  const xs = result.records.filter((r) => r.measured && r.cachedTokens < LOW_HIT_FRACTION * r.promptTokens).map((r) => r.latency);
  return xs.length ? quantile(xs, 0.99) : NaN;
}

/** Share of the hot tool's requests each replica received, per time bin (the notebook's "hot-spot share per
 * replica over time" chart). */
export function hotSpotShareOverTime(o: { configuration: string; routerOptions?: Record<string, unknown>; rate?: number; replicas?: number; requestCount?: number; binSeconds?: number; seed?: number | string }): Table {
  const rate = checkNumber("rate", o.rate ?? 70, { above: 0 });
  const replicas = checkInteger("replicas", o.replicas ?? 8, { min: 2, max: 30 });
  const requestCount = checkInteger("requestCount", o.requestCount ?? 4000, { min: 100 });
  const bin = checkNumber("binSeconds", o.binSeconds ?? 5, { above: 0 });
  const res = runConfiguration({ workload: "toolCallingHotSpot", rate, replicas, configuration: o.configuration, routerOptions: o.routerOptions, requestCount, seed: o.seed ?? 1 });
  const hot = res.records.filter((r) => r.request.key === 0);
  const bins = Math.ceil((res.records[res.records.length - 1].arrival + 1e-9) / bin);
  const counts = Array.from({ length: bins }, () => new Array(replicas).fill(0));
  for (const r of hot) counts[Math.min(bins - 1, Math.floor(r.arrival / bin))][r.replica]++;
  const rows: Row[] = [];
  counts.forEach((c, b) => {
    const total = c.reduce((s, x) => s + x, 0);
    if (total === 0) return;
    c.forEach((x, replica) => rows.push({ time: (b + 0.5) * bin, replica, share: x / total, requests: x }));
  });
  return {
    title: `热门工具的请求落在哪个副本（${displayName(o.configuration)}，${replicas} 个副本，${rate} 请求/秒）`,
    columns: [
      { key: "time", label: "时间（格子中点）", unit: "秒", format: "fixed1" },
      { key: "replica", label: "副本", format: "int" },
      { key: "share", label: "该时段热门工具请求的占比", format: "percent0" },
      { key: "requests", label: "请求数", format: "int" },
    ],
    rows,
    notes: [`${bin} 秒一格；${res.records.length} 个请求里热门工具占 ${hot.length} 个。`],
  };
}


