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
  "03.1": { workloads: ["longDocQA", "videoQA"], rates: { longDocQA: [1], videoQA: [8] }, minRequests: 200, minSeconds: 0 },
  "03.2": { costRates: { toolCalling: 16 }, pairingRates: { longDocQA: 1 }, pairingSeeds: 1, minRequests: 200, minSeconds: 0 },
  "03.3": { requestCount: 400, thBals: [1.5, 2] },
  "03.4": { hotSpotRequestCount: 400, windows: [60, 180], longDocRequestCount: 200 },
  "03.5": { requestCount: 300, rate: 4 },
  "03.7": {},
  "03.8": {},
  "03.9": { requests: 2000, repeats: 1 },
  "03.10": { rates: { videoQA: 8 }, minRequests: 200, minSeconds: 0 },
  "03.11": { rate: 32, minRequests: 300, minSeconds: 0 },

  // §4–§5

  // §6 and traces
};

/** demo id → parameter names whose perturbation may be refused with a ParameterError, and why. */
export const ALLOWED_ERRORS: Record<string, Record<string, string>> = {};
