// Every demo of the lecture, registered by id: one folder per lecture section, each listing its demos in its
// index.ts. To add a demo, add it to its section's list (docs/design.md, "Adding a demo").
import { registerDemo } from "./registry";
import { overviewDemos } from "./overview/index";
import { classicDispatchDemos } from "./dispatch/index";
import { cacheBalanceDemos } from "./cache-balance/index";
import { prebleDemos } from "./preble/index";
import { llmSelectorDemos } from "./selector/index";
import { threeLevelsSectionDemos } from "./three-levels/index";
import { sinceThenSectionDemos } from "./since-then/index";

export * from "./registry";
export { routingCurveLabel } from "./three-levels/index";
export { caseStudyPaths } from "./selector/index";
export { herdingQueues, herdingTimelines, policyTheory, choiceKey } from "./dispatch/index";
export type { HerdingQueues, HerdingTimeline } from "./dispatch/index";
export { SINCE_THEN_WORKLOADS, OUR_POLICIES, PREBLE_POLICIES, PRODUCTION_POLICIES, policyFamily } from "./since-then/index";
export { compareRouters, ARENA_BASELINES, ARENA_WORKLOADS, ARENA_REQUEST_COUNTS, ARENA_MOONCAKE } from "./since-then/index";
export type { ArenaRouter, CompareRoutersOptions } from "./since-then/index";
export { PAGE_SCENARIOS, prebleOnPage, quotaOnPage } from "./preble/index";
export { e2DecisionLine, globalTreeAtDispatch } from "./preble/index";
export type { E2DecisionPoint, GlobalTreeAtDispatch, TreeSegmentDrawing } from "./preble/index";
export type { PageScenario, PrebleOnPage, PrebleOnPageOptions } from "./preble/page";
export { SECTION2_WORKLOADS, SECTION2_MODEL, SECTION2_GPU, LOAD_ONLY_POLICIES } from "./cache-balance/index";

const SECTIONS = [overviewDemos, classicDispatchDemos, cacheBalanceDemos, prebleDemos, llmSelectorDemos, threeLevelsSectionDemos, sinceThenSectionDemos];
for (const section of SECTIONS) for (const demo of section) registerDemo(demo);
