// Preble's global scheduler (§3.1–§3.4), one part a file under preble/ with one-way imports:
// options → queues → global-tree → window → load-cost → pairing, rebalance → e2 → page-state (what the page's E2
// reads, issue 24) → router.
// Importing this file registers the router "preble".
export { DECISION_KINDS } from "./e2";
export type { DecisionKind } from "./e2";
export { PREBLE_DEFAULTS, READINGS, prebleOptions } from "./options";
export type { DecodeEstimate, EvictionEstimate, PairingRule, PrebleOptions, RebalanceAction } from "./options";
export { GlobalNodeInfo } from "./global-tree";
export type { LoadCost } from "./load-cost";
export type { AutoscaleEvent, Migration } from "./rebalance";
export { PrebleRouter } from "./router";
export type { GpuWindow, IdleNode, PrebleDecide, PrebleDecision, PrebleLoadCostFn, PrebleRedirectFn, PrebleState } from "./page-state";
