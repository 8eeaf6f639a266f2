// The test run StrykerJS uses for `npm run mutation` (stryker.config.mjs): the unit tests of the decision cores
// selected by MUTATION_CORE (test/support/mutation-cores.mjs), all when unset. Never included: the golden tables
// (bench-golden: a changed number says "something changed", it does not test a rule), every test that starts
// Jupyter, a kernel, a browser or a notebook (notebooks, handouts, exercises-notebook, exercises-grade,
// runner-cleanup, workspace*, fresh-machine), and the demo-level tests (claims, *-demos, production-routers,
// traces-replay, azure-replay).
import { defineConfig } from "vitest/config";
// @ts-expect-error a plain .mjs module shared with stryker.config.mjs
import { CORES, selectedCores } from "./test/support/mutation-cores.mjs";

const cores = CORES as Record<string, { tests: string[] }>;
const include = [...new Set((selectedCores() as string[]).flatMap((name) => cores[name].tests))];

export default defineConfig({
  test: { include, testTimeout: 60000 },
});
