// Small parameter sets that make each demo run in well under a second, for the perturbation test
// (test/claims.test.ts). Each area of the lecture keeps its demos' lines in its own block.
// ALLOWED_ERRORS: a perturbation that must be refused with a ParameterError (why, in the comment).
export const SMALL: Record<string, Record<string, unknown>> = {
  // §0
  "00.1": {},
  "00.2": {},

  // §1

  // §2 (代码 02)
  "02.1": { requestCounts: [150, 200, 300], seeds: 1 },
  "02.2": { requestsPerReplica: 40, seeds: 1 },
  "02.3": { requestCounts: [150, 200, 300], seeds: 1 },
  "02.4": { requestCount: 600, seeds: 1 },
  "02.5": { requestCount: 200, seeds: 1 },
  "02.6": { requestCount: 300 },
  "02.7": {},
  "02.8": { requestCount: 200, topRanks: 10 },
  "02.9": { samples: 10 },
  "02.10": { samples: 10 },

  // §3

  // §4–§5

  // §6 and traces
};

/** demo id → parameter names whose perturbation may be refused with a ParameterError, and why. */
export const ALLOWED_ERRORS: Record<string, Record<string, string>> = {
  // §2: SMALL gives requestCounts for the three default workloads, so a cut list no longer lines up with it
  // (changing workloads alone, with rates and requestCounts left at their defaults, does run: see cluster-demos)
  "02.1": { workloads: "rates / requestCounts 与 workloads 一一对应", rates: "rates 与 workloads 一一对应", requestCounts: "requestCounts 与 workloads 一一对应" },
  "02.3": { workloads: "rates / requestCounts 与 workloads 一一对应", rates: "rates 与 workloads 一一对应", requestCounts: "requestCounts 与 workloads 一一对应" },
};
