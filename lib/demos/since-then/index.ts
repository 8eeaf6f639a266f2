// §6 (代码 06, notebook 06): the production routers since Preble — 06.0 a hand-worked scenario (example.ts), 06.1 side
// by side (side-by-side.ts), 06.2 a replica restart (restart.ts), 06.3 the death spiral (spiral.ts), 06.4 every router
// on the Mooncake trace (trace-replay.ts); the router arena, compareRouters (arena.ts).
import { sinceThenDemos } from "./side-by-side";
import { traceReplay } from "./trace-replay";

export { compareRouters, ARENA_BASELINES, ARENA_WORKLOADS, ARENA_REQUEST_COUNTS, ARENA_MOONCAKE } from "./arena";
export type { ArenaRouter, CompareRoutersOptions } from "./arena";
export { SINCE_THEN_WORKLOADS, OUR_POLICIES, PREBLE_POLICIES, PRODUCTION_POLICIES, policyFamily } from "./side-by-side";

export const sinceThenSectionDemos = [...sinceThenDemos, traceReplay];
