// The test run StrykerJS uses for `npm run mutation` (stryker.config.mjs): the unit tests of the decision cores
// only. Left out on purpose: the golden tables (bench-golden: a changed number is "something changed", not a test
// of the rule), every test that starts Jupyter, a kernel, a browser or a notebook (notebooks, handouts,
// exercises-notebook, exercises-grade, runner-cleanup, workspace*, fresh-machine), and the demo-level smoke and
// claim tests (claims, *-demos, traces-replay, azure-replay): they run whole demos and would make every mutant cost
// seconds without testing a rule.
import { defineConfig } from "vitest/config";

export const MUTATION_TESTS = [
  "test/dispatch.test.ts",
  "test/dispatch-theory.test.ts",
  "test/cluster-radix-tree.test.ts",
  "test/radix-lru-model.test.ts",
  "test/cluster-simulate.test.ts",
  "test/router-decisions.test.ts",
  "test/production-routers.test.ts",
  "test/production-decisions.test.ts",
  "test/preble.test.ts",
  "test/preble-argmin.test.ts",
  "test/preble-decisions.test.ts",
  "test/local-policies.test.ts",
  "test/selector.test.ts",
  "test/optimizer-decisions.test.ts",
  "test/exercises.test.ts",
];

export default defineConfig({
  test: {
    include: MUTATION_TESTS,
    // one fork at a time: the machine's 2 vCPUs are shared, and Stryker runs its own workers
    pool: "forks",
    poolOptions: { forks: { singleFork: true } },
  },
});
