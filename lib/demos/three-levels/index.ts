// §5 (notebook 05): routing at three levels — request → model (05.1 the cascade, 05.2 a router's signal,
// model-routing.ts) and the lessons the three levels share (05.3–05.5, three-levels.ts).
import { modelRoutingDemos } from "./model-routing";
import { threeLevelsDemos } from "./three-levels";

export { routingCurveLabel } from "./model-routing";

export const threeLevelsSectionDemos = [...modelRoutingDemos, ...threeLevelsDemos];
