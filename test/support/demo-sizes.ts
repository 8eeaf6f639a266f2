// Small parameter sets that make each demo run in well under a second, for the perturbation test
// (test/claims.test.ts). Each area of the lecture keeps its demos' lines in its own block.
// ALLOWED_ERRORS: a perturbation that must be refused with a ParameterError (why, in the comment).
export const SMALL: Record<string, Record<string, unknown>> = {
  // §0
  "00.1": {},
  "00.2": {},

  // §1
  "01.1": { ns: [100, 1000, 10000], trials: 5 },
  "01.2": { jobs: 4000, heavyTailJobs: 8000 },
  "01.3": { jobs: 4000, seeds: 3 },
  "01.4": { jobs: 4000, seeds: 3 },

  // §2

  // §3

  // §4–§5

  // §6 and traces
};

/** demo id → parameter names whose perturbation may be refused with a ParameterError, and why. */
export const ALLOWED_ERRORS: Record<string, Record<string, string>> = {};
