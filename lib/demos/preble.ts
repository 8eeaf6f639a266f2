// 代码 03: Preble (§3), one file a demo family: 03.1 the paper's Figure 3 on paper (preble-figure3.ts); 03.2 the load
// cost terms L, M, P and prefill/decode pairing (preble-costs.ts); 03.3 the hot spot and rebalancing, 03.4
// autoscaling and the window H (preble-autoscale.ts); 03.5 local queue policies (preble-local-policies.ts); 03.7–03.9
// hand-built cases: the global tree at dispatch, the E2 boundary, the scheduler's speed (preble-mechanics.ts); 03.10
// routers × local policies, the local policy held equal (preble-local-equal.ts); 03.11 the ablation ladder (preble-ablation.ts);
// 03.12 what E2's explore argmin sees, every candidate GPU's L, M, P (preble-argmin.ts).
// All runs: replicas of Mistral-7B on A6000 (the StepModel paper GPU). 03.6 (Azure arrivals) is azure-replay.ts.
import { costTermsDemo } from "./preble-costs";
import { figure3Demo } from "./preble-figure3";
import { hotSpotDemo } from "./preble-hotspot";
import { autoscaleWindowDemo } from "./preble-autoscale";
import { localPolicyDemo } from "./preble-local-policies";
import { boundaryDemo, samplesDemo, schedulerSpeedDemo } from "./preble-mechanics";
import { localEqualDemo } from "./preble-local-equal";
import { ablationDemo } from "./preble-ablation";
import { argminDemo } from "./preble-argmin";

export { FIG3_RATES, figure3Demo } from "./preble-figure3";
export { COST_RATES, PAIRING_RATES, costTermsDemo } from "./preble-costs";
export { hotSpotDemo } from "./preble-hotspot";
export { autoscaleWindowDemo } from "./preble-autoscale";
export { localPolicyDemo, quotaRows } from "./preble-local-policies";
export { boundaryDemo, samplesDemo, schedulerSpeedDemo } from "./preble-mechanics";
export { localEqualDemo } from "./preble-local-equal";
export { ablationDemo } from "./preble-ablation";
export { argminDemo } from "./preble-argmin";
export { requestsFor } from "./preble-common";

export const prebleDemos = [figure3Demo, costTermsDemo, hotSpotDemo, autoscaleWindowDemo, localPolicyDemo, samplesDemo, boundaryDemo, schedulerSpeedDemo, localEqualDemo, ablationDemo, argminDemo];
