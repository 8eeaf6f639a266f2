// StrykerJS mutation testing of the decision cores (issue 30): `npm run mutation` (every core, one after another:
// scripts/mutation.mjs), or one core: `MUTATION_CORE=routers npx stryker run`. Each mutant is a one-token change of
// the code (a `<` made `<=`, a `+` made `-`, a branch emptied …); the core's unit tests (test/support/
// mutation-cores.mjs, run by vitest.mutation.config.ts) must fail on it ("killed"). Reports: reports/mutation/<core>
// (HTML + JSON, git-ignored); scores per file and the equivalent survivors in test/MUTATION.md.
// @ts-check
import { CORES, selectedCores } from "./test/support/mutation-cores.mjs";

const names = selectedCores();
const label = names.length === Object.keys(CORES).length ? "all" : names.join("+");

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: names.flatMap((n) => CORES[n].mutate),
  // module-level constants and checked defaults are not decisions
  ignoreStatic: true,
  // the strings in these files are names, descriptions and error texts for the reader; the few that select
  // behaviour (policy names, tie rules) are tested through the behaviour they select
  mutator: { excludedMutations: ["StringLiteral"] },
  coverageAnalysis: "perTest",
  // the machine's 2 vCPUs are shared
  concurrency: 1,
  timeoutMS: 5000,
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: `reports/mutation/${label}/index.html` },
  jsonReporter: { fileName: `reports/mutation/${label}/mutation.json` },
  // inside .cache/ (git-ignored, and excluded by vitest's defaults, so a plain `npx vitest` never runs the sandbox's copies)
  tempDirName: `.cache/stryker-${label}`,
  // .cache holds the other cores' sandboxes when two run side by side
  ignorePatterns: ["notebooks", "dist", "build", ".jupyter", "workspace", "reports", "bench/golden", ".ci", ".cache"],
  cleanTempDir: "always",
};
