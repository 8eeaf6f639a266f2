// The columns every cluster demo shares (§2, §3, §6): one definition each, so the same metric reads the same —
// label, unit and number format — in every table and chart. Rows keep English identifiers (workload and policy
// names); "name" columns show their glossary names (lib/core/glossary.ts).
import type { Column } from "../core/table";

export const CLUSTER_COLUMNS = {
  workload: { key: "workload", label: "负载", format: "name" },
  meanLatency: { key: "meanLatency", label: "平均延迟", unit: "秒", format: "fixed2" },
  p99Latency: { key: "p99Latency", label: "P99 延迟", unit: "秒", format: "fixed2" },
  hitRate: { key: "hitRate", label: "命中率", format: "percent1" },
  /** ClusterMetrics.dispatchHitRate: the chosen replica's cache at the routing decision */
  dispatchHitRate: { key: "dispatchHitRate", label: "派发时所选副本已缓存", format: "percent1" },
  /** ClusterMetrics.oracleHitRate: the longest match over every replica's cache at the routing decision */
  oracleHitRate: { key: "oracleHitRate", label: "派发时集群里任一副本已缓存", format: "percent1" },
  replication: { key: "replication", label: "复制倍数", unit: "×", format: "fixed2" },
  maxShare: { key: "maxShare", label: "最忙副本的请求占比", format: "percent0" },
  overloaded: { key: "overloaded", label: "过载" },
} satisfies Record<string, Column>;

/** The column naming what was compared: a router ("策略"), a named configuration or a local queue policy. */
export function policyColumn(label = "策略"): Column {
  return { key: "policy", label, format: "name" };
}
