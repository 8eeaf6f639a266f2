// Preble's global scheduler (§3.1–§3.4), one part a file under preble/ with one-way imports:
// options → queues → global-tree → window → load-cost → pairing, rebalance → e2 → router.
// Importing this file registers the router "preble".
export { DECISION_KINDS } from "./preble/e2";
export type { DecisionKind } from "./preble/e2";
export { PREBLE_DEFAULTS, READINGS, prebleOptions } from "./preble/options";
export type { DecodeEstimate, EvictionEstimate, PairingRule, PrebleOptions, RebalanceAction } from "./preble/options";
export { GlobalNodeInfo } from "./preble/global-tree";
export type { LoadCost } from "./preble/load-cost";
export type { AutoscaleEvent, Migration } from "./preble/rebalance";
export { PrebleRouter } from "./preble/router";
