// StrykerJS mutation testing of the decision cores (issue 30): `npm run mutation`. Each mutant is a one-token
// change of the code (a `<` made `<=`, a `+` made `-`, a branch emptied …); the unit tests of
// vitest.mutation.config.ts must fail on it ("killed"). Report: reports/mutation/ (HTML + JSON, git-ignored);
// scores per file and the equivalent survivors in test/MUTATION.md. One file: `npm run mutation -- --mutate lib/cluster/routers.ts`.
// @ts-check
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: [
    // §1 dispatch: the five policies' choice of a server
    "lib/dispatch/server-state.ts",
    // §2 cluster routers and their shared helpers
    "lib/cluster/routers.ts",
    // §6 production routers' choice functions (the routers' classes and the scores they rank by)
    "lib/cluster/routers-production/sglang.ts",
    "lib/cluster/routers-production/tenant-tree.ts",
    "lib/cluster/routers-production/dynamo.ts",
    "lib/cluster/routers-production/gateway.ts",
    // §3 Preble: E2, the load cost, rebalancing and autoscaling
    "lib/cluster/preble/e2.ts",
    "lib/cluster/preble/load-cost.ts",
    "lib/cluster/preble/rebalance.ts",
    // the radix tree: match, insert, touch, evict
    "lib/cluster/radix-tree.ts",
    "lib/cluster/radix-node.ts",
    "lib/cluster/lru-candidates.ts",
    // local queue policies
    "lib/cluster/local/policy.ts",
    "lib/cluster/local/prefix-and-priority.ts",
    // §4 LLMSelector and the greedy optimizers
    "lib/selector/optimizers.ts",
    // the exercises' evaluate
    "lib/exercises/evaluate.ts",
  ],
  // checked parameters and Chinese error texts are not decisions
  ignoreStatic: true,
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 5000,
  reporters: ["html", "json", "clear-text", "progress"],
  htmlReporter: { fileName: "reports/mutation/index.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  // inside .cache/ (git-ignored, and excluded by vitest's defaults, so a plain `npx vitest` never runs the sandbox's copies)
  tempDirName: ".cache/stryker",
  ignorePatterns: ["notebooks", "dist", "build", ".jupyter", "workspace", "reports", "bench/golden", ".ci"],
  cleanTempDir: "always",
};
