// 代码 01: classic load balancing (§1.2–§1.3), one file a demo: balls into bins (01.1), five dispatch policies with
// the exact queueing results beside them (01.2), stale load information (01.3) and the herding it causes (01.4).
// Times are in units of the mean service time.
import { ballsIntoBinsDemo } from "./balls";
import { policiesDemo } from "./policies";
import { staleInformationDemo } from "./stale";
import { herdingDemo } from "./herding";

export { ballsIntoBinsDemo, choiceKey, trialsAt } from "./balls";
export { policiesDemo, policyTheory } from "./policies";
export { staleInformationDemo } from "./stale";
export { herdingDemo, herdingQueues, herdingTimelines } from "./herding";
export type { HerdingQueues, HerdingTimeline } from "./herding";

export const classicDispatchDemos = [ballsIntoBinsDemo, policiesDemo, staleInformationDemo, herdingDemo];
