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
  "03.12": { requestCount: 200, decisions: 10 },

  // §4–§5
  "04.1": { sweepSeeds: 2 },
  "04.2": { seeds: 1, pools: 2, runsPerPool: 1 },
  "04.3": { seeds: 1, pools: 2, runsPerPool: 1, maxBudget: 500 },
  "04.4": { pools: 2 },
  "04.5": {},
  "04.6": { worlds: 1 },
  "05.1": {},
  "05.2": { train: 300, test: 300 },
  // 05.3–05.5 run other demos at fixed small sizes (about a second each)
  "05.3": { pools: 2 },
  "05.4": { pools: 2 },
  "05.5": {},

  // §6 and traces
  "06.0": {},
  "06.1": { workloads: ["videoQA"], replicas: [3], rates: [2], requestCounts: [150], policies: ["leastLoad", "cacheAwareGuarded", "sglangRouter", "sglangRouterLate2025", "dynamoKvRouter", "gatewayPrefixScorer"] },
  "06.2": { requestCount: 700, restartTime: 130, secondsBefore: 60, secondsAfter: 90, policies: ["sglangRouter", "dynamoKvRouter"], seeds: [1, 2] },
  "06.3": { requestCount: 300, longDecodeOutputTokens: 300, eventDelays: [0.1, 2], seeds: [1, 2] },
  // traces (issue 18): 03.6 on the Azure arrivals, 06.4 on the Mooncake trace
  "03.6": { requestCount: 300, seeds: 1 },
  "06.4": { minutes: 2, loads: [0.3, 0.7], policies: ["roundRobin", "leastLoad", "prefixAffinity", "thresholdAffinity"] },
};

/** demo id → parameter names whose perturbation may be refused with a ParameterError, and why. */
export const ALLOWED_ERRORS: Record<string, Record<string, string>> = {
  // §2: SMALL gives requestCounts for the three default workloads, so a cut list no longer lines up with it
  // (changing workloads alone, with rates and requestCounts left at their defaults, does run: see cluster-demos)
  "02.1": { workloads: "rates / requestCounts 与 workloads 一一对应", rates: "rates 与 workloads 一一对应", requestCounts: "requestCounts 与 workloads 一一对应" },
  "02.3": { workloads: "rates / requestCounts 与 workloads 一一对应", rates: "rates 与 workloads 一一对应", requestCounts: "requestCounts 与 workloads 一一对应" },
};
