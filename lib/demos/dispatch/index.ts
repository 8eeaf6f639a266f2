// 代码 01: classic load balancing (§1.2–§1.3), one file a demo: balls into bins (01.1), five dispatch policies with
// the exact queueing results beside them (01.2), stale load information (01.3) and the herding it causes (01.4).
// Times are in units of the mean service time.
import { ballsIntoBinsDemo } from "./balls";
import { policiesDemo } from "./policies";
import { herdingDemo, staleInformationDemo } from "./stale";

export { ballsIntoBinsDemo, choiceKey, trialsAt } from "./balls";
export { policiesDemo, policyTheory } from "./policies";
export { herdingDemo, herdingQueues, herdingTimelines, staleInformationDemo } from "./stale";
export type { HerdingQueues, HerdingTimeline } from "./stale";

export const classicDispatchDemos = [ballsIntoBinsDemo, policiesDemo, staleInformationDemo, herdingDemo];
