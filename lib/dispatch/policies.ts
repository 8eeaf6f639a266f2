// The five classic dispatch policies of §1.2 and what each needs to know.
export const DISPATCH_POLICIES = ["random", "roundRobin", "jsq", "powerOfTwo", "leastWorkLeft"] as const;
export type DispatchPolicy = (typeof DISPATCH_POLICIES)[number];

/** What the dispatcher must observe for each policy (§1.2): shown in tables and the notebook. */
export const POLICY_INFORMATION: Record<DispatchPolicy, string> = {
  random: "nothing",
  roundRobin: "its own counter",
  jsq: "every server's queue length (jobs)",
  powerOfTwo: "queue lengths of two random servers",
  leastWorkLeft: "every server's remaining work (needs job sizes)",
};

/** Policies that read server state and therefore can be fed a stale snapshot (§1.3). */
export const LOAD_AWARE_POLICIES: readonly DispatchPolicy[] = ["jsq", "powerOfTwo", "leastWorkLeft"];
