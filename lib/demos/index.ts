// Every demo of the lecture, registered by id. Add a new demo file here.
import { registerDemo } from "./registry";
import { stepModelDecode, stepModelPrefill } from "./step-model";
import { classicDispatchDemos } from "./classic-dispatch";
import { llmSelectorDemos } from "./llmselector";
import { cacheVsBalanceDemos, section2MoreDemos } from "./cache-vs-balance";
import { prebleDemos } from "./preble";
import { modelRoutingDemos } from "./model-routing";
import { sinceThenDemos } from "./since-then";
import { azureReplay } from "./azure-replay";
import { traceReplay } from "./trace-replay";
import { threeLevelsDemos } from "./three-levels";

export * from "./registry";
export { routingCurveLabel } from "./model-routing";
export { caseStudyPaths } from "./llmselector";
export { herdingTimelines, policyTheory, choiceKey } from "./classic-dispatch";
export type { HerdingTimeline } from "./classic-dispatch";
export { SINCE_THEN_WORKLOADS, OUR_POLICIES, PREBLE_POLICIES, PRODUCTION_POLICIES, policyFamily } from "./since-then";
export { SECTION2_WORKLOADS, SECTION2_MODEL, SECTION2_GPU, LOAD_ONLY_POLICIES } from "./cache-vs-balance";

for (const demo of [stepModelPrefill, stepModelDecode]) registerDemo(demo);
for (const demo of classicDispatchDemos) registerDemo(demo);
for (const demo of llmSelectorDemos) registerDemo(demo);
for (const demo of cacheVsBalanceDemos) registerDemo(demo);
for (const demo of section2MoreDemos) registerDemo(demo);
for (const demo of prebleDemos) registerDemo(demo);
for (const demo of sinceThenDemos) registerDemo(demo);
for (const demo of modelRoutingDemos) registerDemo(demo);
registerDemo(azureReplay);
registerDemo(traceReplay);
for (const demo of threeLevelsDemos) registerDemo(demo);
