// 代码 03: Preble (§3), one file a demo family: 03.1 the paper's Figure 3 on paper (figure3.ts); 03.2 the load
// cost terms L, M, P and prefill/decode pairing (costs.ts); 03.3 the hot spot and rebalancing, 03.4
// autoscaling and the window H (autoscale.ts); 03.5 local queue policies (local-policies.ts); 03.7–03.9
// hand-built cases: the global tree at dispatch, the E2 boundary, the scheduler's speed (mechanics.ts); 03.10
// routers × local policies, the local policy held equal (local-equal.ts); 03.11 the ablation ladder (ablation.ts);
// 03.12 what E2's explore argmin sees, every candidate GPU's L, M, P (argmin.ts).
// All runs: replicas of Mistral-7B on A6000 (the StepModel paper GPU). 03.6 (Azure arrivals) is azure-replay.ts.
import { costTermsDemo } from "./costs";
import { figure3Demo } from "./figure3";
import { hotSpotDemo } from "./hotspot";
import { autoscaleWindowDemo } from "./autoscale";
import { localPolicyDemo } from "./local-policies";
import { boundaryDemo, samplesDemo, schedulerSpeedDemo } from "./mechanics";
import { localEqualDemo } from "./local-equal";
import { ablationDemo } from "./ablation";
import { argminDemo } from "./argmin";
import { azureReplay } from "./azure-replay";

export { FIG3_RATES, figure3Demo } from "./figure3";
export { COST_RATES, PAIRING_RATES, costTermsDemo } from "./costs";
export { hotSpotDemo } from "./hotspot";
export { autoscaleWindowDemo } from "./autoscale";
export { localPolicyDemo, quotaRows, quotaTaken } from "./local-policies";
export { PAGE_SCENARIOS, prebleOnPage, quotaOnPage } from "./page";
export { boundaryDemo, samplesDemo, schedulerSpeedDemo } from "./mechanics";
export { localEqualDemo } from "./local-equal";
export { ablationDemo } from "./ablation";
export { argminDemo } from "./argmin";
export { requestsFor } from "./common";
export { e2DecisionLine, globalTreeAtDispatch } from "./pictures";
export type { E2DecisionPoint, GlobalTreeAtDispatch, TreeSegmentDrawing } from "./pictures";

export const prebleDemos = [azureReplay, figure3Demo, costTermsDemo, hotSpotDemo, autoscaleWindowDemo, localPolicyDemo, samplesDemo, boundaryDemo, schedulerSpeedDemo, localEqualDemo, ablationDemo, argminDemo];
