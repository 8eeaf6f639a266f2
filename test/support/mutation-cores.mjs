// The decision cores that `npm run mutation` mutates (issue 30), each with the unit tests that state its rules.
// A core's mutants run against its own tests only: the simulations that also pass through a core (cluster-simulate,
// the demos) would make every mutant cost seconds, and a rule should be killed by a test of the rule.
// Read by stryker.config.mjs (MUTATION_CORE=name selects one) and vitest.mutation.config.ts.
export const CORES = {
  dispatch: {
    what: "§1 dispatch: the five policies' choice of a server (ServerState.choose)",
    mutate: ["lib/dispatch/server-state.ts"],
    tests: ["test/dispatch-decisions.test.ts"],
  },
  routers: {
    what: "§2 cluster routers and their helpers (leastLoaded, longestMatch, powerOfTwo, θ, the guard)",
    mutate: ["lib/cluster/routers.ts"],
    tests: ["test/router-decisions.test.ts"],
  },
  radix: {
    what: "the radix tree: match, insert, touch, lock, LRU eviction",
    mutate: ["lib/cluster/radix-tree.ts", "lib/cluster/radix-node.ts", "lib/cluster/lru-candidates.ts"],
    tests: ["test/cluster-radix-tree.test.ts", "test/radix-lru-model.test.ts", "test/radix-rules.test.ts", "test/lru-candidates.test.ts", "test/radix-pool.test.ts"],
  },
  production: {
    what: "§6 production routers' choice functions (SGLang's tree and rules, Dynamo's cost, the gateway's scores)",
    mutate: ["lib/cluster/routers-production/sglang.ts", "lib/cluster/routers-production/tenant-tree.ts", "lib/cluster/routers-production/dynamo.ts", "lib/cluster/routers-production/gateway.ts"],
    tests: ["test/production-decisions.test.ts", "test/production-costs.test.ts", "test/tenant-tree-model.test.ts"],
  },
  preble: {
    what: "§3 Preble: E2, the L + M + P load cost, rebalancing and autoscaling",
    mutate: ["lib/cluster/preble/e2.ts", "lib/cluster/preble/load-cost.ts", "lib/cluster/preble/rebalance.ts"],
    tests: ["test/preble.test.ts", "test/preble-argmin.test.ts", "test/preble-decisions.test.ts", "test/preble-load-cost.test.ts", "test/preble-rebalance.test.ts"],
  },
  local: {
    what: "local queue policies (FCFS, longest prefix first, priority groups)",
    mutate: ["lib/cluster/local/policy.ts", "lib/cluster/local/prefix-and-priority.ts"],
    tests: ["test/preble.test.ts", "test/local-policies.test.ts"],
  },
  selector: {
    what: "§4 LLMSelector and the greedy optimizers",
    mutate: ["lib/selector/optimizers.ts"],
    tests: ["test/selector.test.ts", "test/optimizer-decisions.test.ts"],
  },
  exercises: {
    what: "the exercises' evaluate (answer → verdict)",
    mutate: ["lib/exercises/evaluate.ts"],
    tests: ["test/exercises.test.ts"],
  },
};

/** The cores selected by MUTATION_CORE (comma-separated names), all when unset. */
export function selectedCores(env = process.env.MUTATION_CORE) {
  const names = env ? env.split(",") : Object.keys(CORES);
  for (const n of names) if (!(n in CORES)) throw new Error(`MUTATION_CORE: unknown core ${n}; known: ${Object.keys(CORES).join(", ")}`);
  return names;
}
