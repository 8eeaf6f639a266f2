// Named cluster configurations for the §3 comparisons: a router plus a local queue policy per replica.
import { checkOneOf } from "../../core/errors";
import { kvCapacityTokens } from "../../hardware/step-model";
import type { ClusterOptions } from "../simulate";
import "./index";
import "../local/prefix-and-priority";

export interface ClusterConfiguration {
  name: string;
  /** one line for tables and the notebook (Chinese: readers see it) */
  description: string;
  router: string;
  routerOptions: Record<string, unknown>;
  localPolicy: string;
  /** prefill tokens per engine iteration when not the engine's default 512 (the paper's baseline: no chunking) */
  chunkBudget?: number;
}

/** SGLang without chunked prefill fills an iteration with up to max(context, total KV / 6) prompt tokens (rpc:120–127):
 * for Mistral-7B on an A6000 that is a sixth of the KV capacity. */
export const UNCHUNKED_PREFILL_TOKENS = Math.floor(kvCapacityTokens("MISTRAL_7B", "A6000") / 6);

const E2_ONLY = { rebalance: false, autoscale: false, pairing: false };

export const CLUSTER_CONFIGURATIONS: Readonly<Record<string, ClusterConfiguration>> = {
  baseline: {
    name: "baseline",
    description: "轮转 + 每个副本最长前缀优先（每个副本一份 SGLang，分块 prefill：我们的基线；论文的基线是 LPM、不分块的那一种）",
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
  baselinePaper: {
    name: "baselinePaper",
    description: "论文的基线：轮转 + 每个副本 SGLang 的最长前缀匹配（LPM），不分块 prefill（e2e_4r_toolbench_config.py:23–29）",
    router: "roundRobin",
    routerOptions: {},
    localPolicy: "lpm",
    chunkBudget: UNCHUNKED_PREFILL_TOKENS,
  },
  preble: {
    name: "preble",
    description: "完整的 Preble：E2、再平衡、自动扩展、prefill/decode 搭配，副本内优先级组",
    router: "preble",
    routerOptions: { rebalance: true, autoscale: true, pairing: true },
    localPolicy: "priority",
  },
  prebleReleased: {
    name: "prebleReleased",
    description: "完整的 Preble，按开源代码读：迁移重要节点的再平衡、在途请求 × 实测 TPOT 的 decode 项、显存总是满的 M、命中率 ≥ 70% 的搭配，副本内每迭代一组（k = 10）",
    router: "preble",
    routerOptions: { rebalance: true, rebalanceAction: "migrate", autoscale: true, pairing: true, pairingRule: "released", decodeEstimate: "released", evictionEstimate: "memoryFull" },
    localPolicy: "priorityReleased",
  },
};

export const CONFIGURATION_NAMES: readonly string[] = Object.keys(CLUSTER_CONFIGURATIONS);

/** The router and local policy of a named configuration, ready to spread into simulateCluster's options;
 * `routerOptions` are merged over the configuration's (e.g. { thBal: 2 }). */
export function configurationOptions(name: string, routerOptions: Record<string, unknown> = {}, localPolicy?: string): Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy" | "chunkBudget"> {
  const c = CLUSTER_CONFIGURATIONS[checkOneOf("configuration", name, CONFIGURATION_NAMES as string[])];
  const out: Pick<ClusterOptions, "router" | "routerOptions" | "localPolicy" | "chunkBudget"> = { router: { name: c.router, ...c.routerOptions, ...routerOptions }, routerOptions: {}, localPolicy: localPolicy ?? c.localPolicy };
  if (c.chunkBudget !== undefined) out.chunkBudget = c.chunkBudget;
  return out;
}
