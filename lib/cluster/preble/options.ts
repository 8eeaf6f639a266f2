// Preble's options (§3.1–§3.4). Where the lecture's reading of the paper and the released code (WukLab/preble,
// commit 8e7906a; gsw = preble/global_scheduler_with_time.py, rpc = python/sglang/srt/managers/router/model_rpc.py)
// differ, both are an option; the default is the lecture's reading. READINGS names each one's source line.
import { checkInteger, checkKnownKeys, checkNumber, checkOneOf, ParameterError } from "../../core/errors";

export type DecodeEstimate = "lecture" | "released";
export type EvictionEstimate = "freeSpace" | "memoryFull";
export type PairingRule = "ours" | "released";
export type RebalanceAction = "redirect" | "migrate";

export interface PrebleOptions {
  /** H: seconds of history the load cost looks at (Preble: 3 minutes, gsw:200) */
  windowSeconds: number;
  /** post-assignment rebalancing (§3.4) */
  rebalance: boolean;
  /** Th_bal: rebalance when the busiest GPU's L is at least thBal × the lightest's (gsw:208) */
  thBal: number;
  /** dispatches before rebalancing may act (the released code waits for 50 per GPU, gsw:378) */
  rebalanceAfter: number;
  /** redirect one exploit request to the lightest GPU (the lecture), or migrate the busiest GPU's important nodes,
   * cheapest first, to the lightest (released, gsw:387–457) */
  rebalanceAction: RebalanceAction;
  /** replicate a prefix whose queueing time doubled (the paper's autoscaling; the lecture skipped it) */
  autoscale: boolean;
  /** recent-half mean queueing ≥ factor × earlier-half mean triggers autoscaling (paper: 2) */
  autoscaleFactor: number;
  /** finished requests needed in each half-window before autoscaling may trigger (assumed) */
  autoscaleMinSamples: number;
  /** recent-half mean queueing must also be at least this many seconds (assumed: ignore doubling of tiny waits) */
  autoscaleMinQueueing: number;
  /** seconds before the same prefix may be replicated again (assumed; default H/2) */
  autoscaleCooldown: number;
  /** prefill/decode pairing in explore (§3.4) */
  pairing: boolean;
  /** ours: a prefill-heavy request goes to a decode-heavy GPU; released: to the GPU whose windowed hit ratio is the
   * highest when it is ≥ pairingHitRatio (gsw:329–330, simulator.py:349–364, model_runtime_manager.py:419–424) */
  pairingRule: PairingRule;
  /** ours: a request is prefill-heavy when it misses at least this many tokens (default 512 = one prefill chunk) */
  pairingPrefillTokens: number;
  /** ours: a GPU is decode-heavy when it runs ≥ 1 request and fewer prefill tokens than this remain on it (running
   * prefills + its queue; default 2,048 = four chunks): its next iterations are mostly decode, compute is idle */
  decodeHeavyPendingTokens: number;
  /** released: the hit ratio a GPU needs (default 0.7) */
  pairingHitRatio: number;
  /** released: seconds of admissions the hit ratio counts (default 30, the released harness's window) */
  pairingHitWindow: number;
  /** L's decode term: the window's requests × mean output × single-request decode time (lecture), or the requests
   * outstanding on the GPU × the last request's output length × the median measured TPOT (released) */
  decodeEstimate: DecodeEstimate;
  /** released decode: TPOT assumed before any request finished (gsw:197: 0.15 s) */
  initialTpotSeconds: number;
  /** released decode: measured TPOTs kept per GPU for the median (gsw:195: 200) */
  tpotSamples: number;
  /** M: evict only what does not fit in free memory (ours), or assume memory is full and evict the request's new
   * tokens on every placement, each evicted important node costing missrate × count × T (released, gsw:161–167, 280–289) */
  evictionEstimate: EvictionEstimate;
  /** output length assumed before any request has finished (the released code's default, 45) */
  defaultOutputTokens: number;
  /** keep L, M, P, the kind, the GPU and the global match (cached, missed) of every decision in stats().decisions (the
   * notebook's breakdown and E2's decision line); off by default */
  recordDecisions: boolean;
  /** keep every GPU's L, M, P at the first this many explore decisions (argmin over all GPUs) in stats().candidates;
   * 0 = off (exploit, rebalance and pairing decisions have no argmin over every GPU: not recorded) */
  recordCandidates: number;
  /** KV tokens per GPU the scheduler budgets with (default: the replica's capacity) */
  capacityTokens: number;
}

export const PREBLE_DEFAULTS: Readonly<Omit<PrebleOptions, "rebalanceAfter" | "autoscaleCooldown" | "capacityTokens">> = {
  windowSeconds: 180,
  rebalance: true,
  thBal: 1.5,
  rebalanceAction: "redirect",
  autoscale: true,
  autoscaleFactor: 2,
  autoscaleMinSamples: 5,
  autoscaleMinQueueing: 0.5,
  pairing: true,
  pairingRule: "ours",
  pairingPrefillTokens: 512,
  decodeHeavyPendingTokens: 2048,
  pairingHitRatio: 0.7,
  pairingHitWindow: 30,
  decodeEstimate: "lecture",
  initialTpotSeconds: 0.15,
  tpotSamples: 200,
  evictionEstimate: "freeSpace",
  defaultOutputTokens: 45,
  recordDecisions: false,
  recordCandidates: 0,
};

/** The two readings of each option that differs between the lecture and the released code: the values, and where
 * each comes from (for notes, docs and the notebook). */
export const READINGS = {
  decodeEstimate: {
    lecture: { value: "lecture", source: "讲义 §3.3：窗口内的请求 × 平均输出长度 × 单个请求 decode 一个 token 的时间" },
    released: { value: "released", source: "gsw:152–159、195–197、368–369：在途的请求 × 上一个请求的 max_new_tokens × 实测 TPOT 的中位数（初值 0.15 秒）" },
  },
  evictionEstimate: {
    lecture: { value: "freeSpace", source: "讲义 §3.3：放不下时才淘汰，每个被淘汰的节点 = 重算时间 × 窗口命中率" },
    released: { value: "memoryFull", source: "gsw:161–167、280–289：假定显存总是满的，每次都淘汰这个请求的新 token，每个重要节点 = 未命中率 × 次数 × 重算时间" },
  },
  pairingRule: {
    lecture: { value: "ours", source: "讲义 §3.4 的读法（我们的定义）：缺 ≥ 512 token 的探索请求派给 decode 偏重的 GPU" },
    released: { value: "released", source: "gsw:329–330、simulator.py:349–364：探索请求派给 30 秒窗口命中率最高且 ≥ 70% 的 GPU" },
  },
  rebalanceAction: {
    lecture: { value: "redirect", source: "讲义 §3.4：把本该利用最忙 GPU 的请求改派给最轻的 GPU" },
    released: { value: "migrate", source: "gsw:377–462：派发满 50 × GPU 数之后，把最忙 GPU 的重要节点按代价从小到大迁到最轻的 GPU" },
  },
} as const;

const OPTION_NAMES = [...Object.keys(PREBLE_DEFAULTS), "rebalanceAfter", "autoscaleCooldown", "capacityTokens"];

/** Checks and completes Preble options (unknown names are rejected). */
export function prebleOptions(replicas: number, kvCapacity: number, o: Record<string, unknown> = {}): PrebleOptions {
  checkKnownKeys("路由器 preble ", o, OPTION_NAMES);
  const bool = (name: keyof PrebleOptions, fallback: boolean): boolean => {
    const v = o[name] ?? fallback;
    if (typeof v !== "boolean") throw new ParameterError(name, `应为 true 或 false，实际是 ${JSON.stringify(v)}`);
    return v;
  };
  const d = PREBLE_DEFAULTS;
  const windowSeconds = checkNumber("windowSeconds", o.windowSeconds ?? d.windowSeconds, { above: 0 });
  return {
    windowSeconds,
    rebalance: bool("rebalance", d.rebalance),
    thBal: checkNumber("thBal", o.thBal ?? d.thBal, { min: 1 }),
    rebalanceAfter: checkInteger("rebalanceAfter", o.rebalanceAfter ?? 50 * replicas, { min: 0 }),
    rebalanceAction: checkOneOf("rebalanceAction", o.rebalanceAction ?? d.rebalanceAction, ["redirect", "migrate"]),
    autoscale: bool("autoscale", d.autoscale),
    autoscaleFactor: checkNumber("autoscaleFactor", o.autoscaleFactor ?? d.autoscaleFactor, { above: 1 }),
    autoscaleMinSamples: checkInteger("autoscaleMinSamples", o.autoscaleMinSamples ?? d.autoscaleMinSamples, { min: 1 }),
    autoscaleMinQueueing: checkNumber("autoscaleMinQueueing", o.autoscaleMinQueueing ?? d.autoscaleMinQueueing, { min: 0 }),
    autoscaleCooldown: checkNumber("autoscaleCooldown", o.autoscaleCooldown ?? windowSeconds / 2, { min: 0 }),
    pairing: bool("pairing", d.pairing),
    pairingRule: checkOneOf("pairingRule", o.pairingRule ?? d.pairingRule, ["ours", "released"]),
    pairingPrefillTokens: checkInteger("pairingPrefillTokens", o.pairingPrefillTokens ?? d.pairingPrefillTokens, { min: 1 }),
    decodeHeavyPendingTokens: checkInteger("decodeHeavyPendingTokens", o.decodeHeavyPendingTokens ?? d.decodeHeavyPendingTokens, { min: 1 }),
    pairingHitRatio: checkNumber("pairingHitRatio", o.pairingHitRatio ?? d.pairingHitRatio, { min: 0, max: 1 }),
    pairingHitWindow: checkNumber("pairingHitWindow", o.pairingHitWindow ?? d.pairingHitWindow, { above: 0 }),
    decodeEstimate: checkOneOf("decodeEstimate", o.decodeEstimate ?? d.decodeEstimate, ["lecture", "released"]),
    initialTpotSeconds: checkNumber("initialTpotSeconds", o.initialTpotSeconds ?? d.initialTpotSeconds, { above: 0 }),
    tpotSamples: checkInteger("tpotSamples", o.tpotSamples ?? d.tpotSamples, { min: 1, max: 100_000 }),
    evictionEstimate: checkOneOf("evictionEstimate", o.evictionEstimate ?? d.evictionEstimate, ["freeSpace", "memoryFull"]),
    defaultOutputTokens: checkNumber("defaultOutputTokens", o.defaultOutputTokens ?? d.defaultOutputTokens, { above: 0 }),
    recordDecisions: bool("recordDecisions", d.recordDecisions),
    recordCandidates: checkInteger("recordCandidates", o.recordCandidates ?? d.recordCandidates, { min: 0, max: 100_000 }),
    capacityTokens: checkInteger("capacityTokens", o.capacityTokens ?? kvCapacity, { min: 1 }),
  };
}
