// The one glossary of reader-facing names: identifiers in code stay English (rows, tests and JSON use them); what a
// reader sees is the Chinese name here, with the lecture's English terms where the lecture uses them (TTFT, E2, KV).
// Pure data with no imports, so every layer may use it (demos for titles and notes, view for tables and legends);
// lib/view re-exports it. An English edition is a second map with the same keys, not a rewrite.
//
// Each area of the lecture keeps its names in its own block below; add a name where its area is.

const NAMES: Record<string, string> = {
  // §1 classic dispatch: policies and job-size distributions
  random: "随机",
  roundRobin: "轮转",
  jsq: "最短队列 (JSQ)",
  powerOfTwo: "二选一",
  leastWorkLeft: "最少剩余工作",
  twoChoice: "二选一",
  exponential: "指数分布",
  boundedPareto: "有界 Pareto（重尾）",

  // §2 workloads and routers
  longDocQA: "长文档问答",
  videoQA: "视频问答",
  toolCalling: "工具调用",
  toolCallingHotSpot: "工具调用（热点）",
  programming: "编程",
  agent: "智能体",
  leastLoad: "最少负载",
  prefixAffinity: "纯前缀亲和",
  thresholdAffinity: "阈值亲和",
  cacheAwareGuarded: "缓存感知 + 负载保护",
  lowestIndex: "最小编号",
  systemPrompt: "有系统提示",
  noSystemPrompt: "去掉系统提示",
  affinityCollapse: "纯亲和 · 长文档 · 平局取最小编号",
  affinityNoSystemLeastLoad: "纯亲和 · 去掉系统提示 · 平局取负载最轻",
  hotSpotThreshold: "热点 · 阈值亲和",
  hotSpotGuarded: "热点 · 缓存感知 + 负载保护",

  // §3 Preble configurations and local queue policies
  baseline: "基线（轮转 + LPF）",
  e2: "E2",
  "e2+rebalance": "E2 + 再平衡",
  "e2+migrate": "E2 + 迁移重要节点（开源的再平衡）",
  e2Released: "E2（开源代码的负载代价）",
  "e2+migrateReleased": "E2 + 迁移重要节点（开源代码的读法）",
  "e2+rebalance+pairingReleased": "E2 + 迁移 + 搭配（开源代码的读法）",
  "e2+rebalance+pairing+priorityReleased": "E2 + 迁移 + 搭配 + 优先级组（开源代码的读法）",
  "e2+rebalance+pairing": "E2 + 再平衡 + 搭配",
  "e2+rebalance+pairing+priority": "E2 + 再平衡 + 搭配 + 优先级组",
  preble: "完整 Preble",
  fcfs: "FCFS",
  lpf: "最长前缀优先 (LPF)",
  priority: "优先级组",
  priorityReleased: "优先级组（开源：每迭代一组，k = 10）",
  lpm: "最长前缀匹配 (LPM)",
  baselinePaper: "论文的基线（轮转 + LPM，不分块）",
  prebleReleased: "完整 Preble（开源代码的读法）",
  // §3 rows: what a ratio means, parts and experiments of a demo, E2's decisions
  speedUp: "加速比",
  baselineOverloaded: "基线过载：不是加速比",
  selfOverloaded: "此配置过载",
  costs: "三项代价",
  costsReleased: "三项代价（开源）",
  pairing: "搭配",
  pairingOff: "搭配关",
  pairingOurs: "搭配（我们的规则）",
  pairingReleased: "搭配（开源的规则）",
  quota: "份额",
  queueing: "排队时间",
  quotaCycle: "配额跨迭代轮转（讲义）",
  perIteration: "每迭代一组（开源）",
  hitNone: "几乎没命中（< 10%）",
  hitLow: "命中 10%–50%",
  hitHigh: "命中 ≥ 50%",
  policies: "排队策略",
  autoscale: "自动扩展",
  autoscaleReleased: "自动扩展（开源代码的读法）",
  window: "窗口 H",
  windowReleased: "窗口 H（开源代码的读法）",
  "e2 + autoscale": "E2 + 自动扩展",
  "e2 + rebalance": "E2 + 再平衡",
  "e2 + rebalance + autoscale": "E2 + 再平衡 + 自动扩展",
  exploit: "利用 exploit",
  explore: "探索 explore",
  rebalance: "再平衡改派",
  cachedAbove: "cached > missed",
  cachedNotAbove: "cached ≤ missed",
  argminSummary: "汇总",
  argminCandidates: "每块候选 GPU",
  argminLecture: "讲义的读法",
  argminReleased: "开源代码的读法",
  library: "库里的实现",
  page: "本页的代码",

  // §4–§5 compound systems, optimizers, model routing
  locateSolve: "定位-求解",
  selfRefine: "自我改进",
  debate: "辩论",
  greedy: "贪心",
  llmSelector: "LLMSelector",
  exhaustive: "穷举",
  bestSingle: "最好的单一模型",
  randomSearch: "随机搜索",
  cascade: "级联",
  router: "路由器",
  single: "单个模型",
  releasedGreedy: "贪心（发布代码，α = 0）",
  fresh: "每次重新判断",
  cached: "按提示缓存",
  selfBlindCritic: "批评者看不出自己的错",
  debateDiversity: "辩论需要多样的答案",
  debateOwnKnowledge: "辩论者可凭自己的知识作答",
  herding: "追逐同一个最优",
  cure: "解药",
  requestToReplica: "请求 → 副本",
  requestToModel: "请求 → 模型",
  moduleToModel: "模块 → 模型",
  sameGenerators: "三个生成者用同一个模型",
  mixedGenerators: "最优分配（可混用）",
  onFrontier: "在前沿上",
  offFrontier: "不在前沿上",

  // §6 production routers
  sglangRouter: "SGLang 路由器（2026 版）",
  sglangRouterLate2025: "SGLang 路由器（2025 年末版）",
  sglangRouterSmallestTree: "SGLang 路由器（早期版：未命中 → 树最小）",
  dynamoKvRouter: "Dynamo KV 路由器",
  dynamoKvRouterRunningKv: "Dynamo（我们第一版的 decode 项）",
  gatewayPrefixScorer: "推理网关前缀打分",
  smallestTree: "最小的树",
  mooncakeTrace: "Mooncake 对话 trace",

  // traces: arrival processes of 03.6 (the replay demo 06.4 uses the router names above); the Azure 2023 traces
  conv: "聊天 (conv)",
  code: "编程补全 (code)",
  poissonArrivals: "泊松到达",
  azureCodeArrivals: "Azure 编程 trace 的到达时刻",
  azureConvArrivals: "Azure 对话 trace 的到达时刻",

  // charts
  coincidesWithSolid: "与实线处处重合",
  hatchedBars: "斜线的柱",
};

/** The reader-facing name of an identifier (policy, workload, configuration, system …); the identifier itself when
 * the glossary has no entry (numbers, model letters, free text). */
export function displayName(id: unknown): string {
  const key = String(id);
  return Object.prototype.hasOwnProperty.call(NAMES, key) ? NAMES[key] : key;
}

/** Whether the glossary names `id`. */
export function hasDisplayName(id: string): boolean {
  return Object.prototype.hasOwnProperty.call(NAMES, id);
}

/** "轮转、最短队列 (JSQ)" — several names joined the Chinese way. */
export function displayNames(ids: readonly unknown[]): string {
  return ids.map(displayName).join("、");
}

/** Every entry (for the glossary table in notebook 09 and for tests). */
export function glossaryEntries(): Array<{ id: string; name: string }> {
  return Object.keys(NAMES).map((id) => ({ id, name: NAMES[id] }));
}

/** Generated Chinese text with a space wherever a Chinese character meets a Latin letter or a digit ("在Mooncake 对话
 * trace上" → "在 Mooncake 对话 trace 上"), the spacing the prose and the glossary use; a name interpolated into a
 * sentence template cannot know what stands beside it, so the sentence is spaced once it is whole. */
export function spacedText(text: string): string {
  return text.replace(/([\u4e00-\u9fff])([A-Za-z0-9])/g, "$1 $2").replace(/([A-Za-z0-9])([\u4e00-\u9fff])/g, "$1 $2");
}
