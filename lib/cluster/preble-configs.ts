// Named cluster configurations for the §3 comparisons: a router plus a local queue policy per replica.
import { checkOneOf } from "../core/errors";
import type { ClusterOptions } from "./simulate";
import "./preble";
import "./preble-local";

export interface ClusterConfiguration {
  name: string;
  /** one line for tables and the notebook (Chinese: readers see it) */
  description: string;
  router: string;
  routerOptions: Record<string, unknown>;
  localPolicy: string;
}

const E2_ONLY = { rebalance: false, autoscale: false, pairing: false };

export const CLUSTER_CONFIGURATIONS: Readonly<Record<string, ClusterConfiguration>> = {
  baseline: {
    name: "baseline",
    description: "轮转 + 每个副本最长前缀优先（每个副本一份 SGLang，Preble 论文的基线）",
    router: "roundRobin",
    routerOptions: {},
    localPolicy: "lpf",
  },
  cacheAwareGuarded: {
    name: "cacheAwareGuarded",
    description: "仿 SGLang 路由器的缓存感知路由加负载保护（§2.5），副本内 FCFS，与第 2 节相同",
    router: "cacheAwareGuarded",
    routerOptions: {},
    localPolicy: "fcfs",
  },
  e2: {
    name: "e2",
    description: "只有 E2 和负载代价 L + M + P（不再平衡、不自动扩展、不搭配），副本内 FCFS",
    router: "preble",
    routerOptions: { ...E2_ONLY },
    localPolicy: "fcfs",
  },
  "e2+rebalance": {
    name: "e2+rebalance",
    description: "E2 加事后再平衡（Th_bal = 1.5），副本内 FCFS",
    router: "preble",
    routerOptions: { ...E2_ONLY, rebalance: true },
    localPolicy: "fcfs",
  },
  preble: {
    name: "preble",
    description: "完整的 Preble：E2、再平衡、自动扩展、prefill/decode 搭配，副本内优先级组",
    router: "preble",
    routerOptions: { rebalance: true, autoscale: true, pairing: true },
    localPolicy: "priority",
  },
};

export const CONFIGURATION_NAMES: readonly string[] = Object.keys(CLUSTER_CONFIGURATIONS);

/** The router and local policy of a named configuration, ready to spread into simulateCluster's options;
 * `routerOptions` are merged over the configuration's (e.g. { thBal: 2 }). */
export function configurationOptions(name: string, routerOptions: Record<string, unknown> = {}, localPolicy?: string): Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy"> {
  const c = CLUSTER_CONFIGURATIONS[checkOneOf("configuration", name, CONFIGURATION_NAMES as string[])];
  return { router: { name: c.router, ...c.routerOptions, ...routerOptions }, routerOptions: {}, localPolicy: localPolicy ?? c.localPolicy };
}
