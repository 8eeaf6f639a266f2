// The columns every cluster demo shares (§2, §3, §6): one definition each, so the same metric reads the same —
// label, unit and number format — in every table and chart.
import type { Column } from "../core/table";

export const CLUSTER_COLUMNS = {
  workload: { key: "workload", label: "workload", format: "text" },
  meanLatency: { key: "meanLatency", label: "mean latency", unit: "s", format: "fixed2" },
  p99Latency: { key: "p99Latency", label: "P99 latency", unit: "s", format: "fixed2" },
  hitRate: { key: "hitRate", label: "hit rate", format: "fixed3" },
  maxShare: { key: "maxShare", label: "busiest replica's share", format: "percent0" },
  overloaded: { key: "overloaded", label: "overloaded" },
} satisfies Record<string, Column>;

/** The column naming what was compared: a router ("policy"), a named configuration or a local queue policy. */
export function policyColumn(label = "policy"): Column {
  return { key: "policy", label, format: "text" };
}
