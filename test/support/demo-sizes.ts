// Small parameter sets that make each demo run in well under a second, for the perturbation test
// (test/claims.test.ts). Each area of the lecture keeps its demos' lines in its own block.
// ALLOWED_ERRORS: a perturbation that must be refused with a ParameterError (why, in the comment).
export const SMALL: Record<string, Record<string, unknown>> = {
  // §0
  "00.1": {},
  "00.2": {},

  // §1

  // §2

  // §3

  // §4–§5

  // §6 and traces
  // traces (issue 18): 03.6 on the Azure arrivals, 06.4 on the Mooncake trace
  "03.6": { requestCount: 300, seeds: 1 },
  "06.4": { minutes: 2, loads: [0.3, 0.7], policies: ["roundRobin", "leastLoad", "prefixAffinity", "thresholdAffinity"] },
};

/** demo id → parameter names whose perturbation may be refused with a ParameterError, and why. */
export const ALLOWED_ERRORS: Record<string, Record<string, string>> = {};
