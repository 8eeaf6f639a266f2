// The five classic dispatch policies of §1.2 and what each needs to know.
export const DISPATCH_POLICIES = ["random", "roundRobin", "jsq", "powerOfTwo", "leastWorkLeft"] as const;
export type DispatchPolicy = (typeof DISPATCH_POLICIES)[number];

/** What the dispatcher must observe for each policy (§1.2), in the reader's words. */
export const POLICY_INFORMATION: Record<DispatchPolicy, string> = {
  random: "什么都不用知道",
  roundRobin: "只有自己的计数器",
  jsq: "每台服务器上的请求数",
  powerOfTwo: "随机抽中的两台的请求数",
  leastWorkLeft: "每台的剩余工作量（得知道每个请求多大）",
};

/** Policies that read server state and therefore can be fed a stale snapshot (§1.3). */
export const LOAD_AWARE_POLICIES: readonly DispatchPolicy[] = ["jsq", "powerOfTwo", "leastWorkLeft"];

/** Policies that ignore the servers' state. */
export const BLIND_POLICIES: readonly DispatchPolicy[] = ["random", "roundRobin"];
