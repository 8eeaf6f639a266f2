// The fixed scenarios the test cells of coding exercises 10 and 11 (notebook 08) run the student's code on: hand-made
// servers and cluster views whose right answer is computed by hand in the test cell, and the lecture's runs where the
// student's code must decide as the library does (or at least not collapse). Nothing here judges: the test cell
// compares (lib/exercises/tests.ts), so the expected value stays visible in the cell.
import { rng } from "../core/rng";
import { ParameterError } from "../core/errors";
import type { DispatchServers, NamedPolicy, PolicyFunction, PolicyRng } from "../dispatch/user-policy";
import type { DispatchPolicy } from "../dispatch/policies";
import { simulateDispatch } from "../dispatch/servers";
import { createRouter, type ClusterView, type Router, type RouterFactory } from "../cluster/routers";
import { simulateCluster } from "../cluster/simulate";
import { generateWorkload, type ClusterRequest } from "../cluster/workloads";
import type { StepModel } from "../hardware/step-model";

// ---- exercise 10: a dispatch policy `(servers, rng) => server` ----

/** Servers with fixed queue lengths (jobs in system), as a dispatch policy sees them with live information; `looked`
 * collects the servers whose queue or work the policy read. */
export interface ServersWith extends DispatchServers {
  readonly looked: Set<number>;
}

/** Hand-made servers: `queues[s]` jobs on server s (its remaining work = the same number of mean service times). */
export function serversWith(queues: readonly number[]): ServersWith {
  const looked = new Set<number>();
  const read = (s: number, method: string): number => {
    if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s >= queues.length) throw new RangeError(`servers.${method}(${String(s)})：服务器编号应为 0–${queues.length - 1} 的整数`);
    looked.add(s);
    return queues[s];
  };
  return {
    count: queues.length,
    job: 0,
    now: 0,
    stale: false,
    snapshotTime: 0,
    queueLength: (s) => read(s, "queueLength"),
    workLeft: (s) => read(s, "workLeft"),
    looked,
  };
}

/** A seeded stream of random numbers, as the simulator hands a policy (uniform(), int(n)). */
export function seededRng(seed: number | string): PolicyRng {
  return rng(seed).fork("exercise");
}

/** Calls `choose` `draws` times on the same queues (one seeded stream) and returns the share of calls that chose
 * each server (0–1, three decimals). A value that is not a server index stops with one line. */
export function choiceShares(choose: PolicyFunction, queues: readonly number[], draws: number, seed: number | string = 1): number[] {
  const counts = new Array(queues.length).fill(0);
  const stream = seededRng(seed);
  for (let k = 0; k < draws; k++) {
    const s = choose(serversWith(queues), stream);
    if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s >= queues.length) throw new RangeError(`第 ${k + 1} 次返回了 ${String(s)}：应返回服务器编号，0–${queues.length - 1} 的整数`);
    counts[s]++;
  }
  return counts.map((c) => Math.round((c / draws) * 1000) / 1000);
}

/** The servers a policy read on one call: { chosen, looked (sorted) }. */
export function oneChoice(choose: PolicyFunction, queues: readonly number[], seed: number | string = 1): { chosen: number; looked: number[] } {
  const servers = serversWith(queues);
  const chosen = choose(servers, seededRng(seed));
  return { chosen, looked: [...servers.looked].sort((a, b) => a - b) };
}

/** §1's run (01.2's setting: 16 FCFS servers, ρ = 0.9, exponential sizes) with a policy: the library's by name, or
 * the student's (run under a time limit: a loop stops with one line). Returns the mean response time. */
export function dispatchMeanResponse(policy: DispatchPolicy | PolicyFunction | NamedPolicy, seed: number | string = 1, jobs = 20000): number {
  const p = typeof policy === "function" ? { name: "你的策略", choose: policy, timeLimit: 10 } : policy;
  return simulateDispatch({ servers: 16, utilization: 0.9, jobs, policy: p, seed }).mean;
}

// ---- exercise 11: a router `{ name, route(request, view) }` ----

/** A request with a prompt of `tokens` tokens (one segment). */
export function promptOf(tokens: number): ClusterRequest {
  return { id: 0, arrival: 0, segments: [{ id: 1, tokens }], promptTokens: tokens, outputTokens: 1, outputSegment: { id: 2, tokens: 1 }, key: 0, keySegment: 1 };
}

/** A hand-made cluster view: outstanding requests per replica, their prompt tokens (default 100 a request) and the
 * tokens of the request's prompt each replica matches (default 0). */
export function viewWith(o: { requests: number[]; tokens?: number[]; match?: number[] }): ClusterView {
  const n = o.requests.length;
  const tokens = o.tokens ?? o.requests.map((x) => x * 100);
  const match = o.match ?? new Array(n).fill(0);
  if (tokens.length !== n || match.length !== n) throw new ParameterError("viewWith", "requests、tokens、match 的长度应相同（每个副本一项）");
  return {
    replicaCount: n,
    now: 0,
    kvCapacity: 1e6,
    step: null as unknown as StepModel,
    outstandingRequests: (i) => o.requests[i],
    outstandingTokens: (i) => tokens[i],
    dispatchedCount: (i) => o.requests[i],
    viewMatch: (_r, i) => match[i],
    cachedMatch: (_r, i) => match[i],
    queueLength: () => 0,
    pendingPrefillTokens: () => 0,
    activeKvTokens: () => 0,
    kvUtilization: () => 0,
    history: [],
  };
}

/** The §2 scenarios a router exercise runs on: 02.4's hot spot (the guard acts) and §2.2's long documents with the
 * shared 13-token system prompt (pure affinity collapses there, demo 02.5). */
export const ROUTER_SCENARIOS = {
  hotSpot: { workload: "toolCallingHotSpot", replicas: 8, rate: 70, requestCount: 2000 },
  systemPrompt: { workload: "longDocQA", replicas: 4, rate: 1, requestCount: 1200 },
} as const;
export type RouterScenario = keyof typeof ROUTER_SCENARIOS;

const scenarioOf = (name: string) => {
  if (!(name in ROUTER_SCENARIOS)) throw new ParameterError("scenario", `应为 ${Object.keys(ROUTER_SCENARIOS).join("、")} 之一，实际是 ${String(name)}`);
  return ROUTER_SCENARIOS[name as RouterScenario];
};

const runOn = (name: string, router: string | RouterFactory) => {
  const s = scenarioOf(name);
  const workload = generateWorkload(s.workload, { rate: s.rate, seed: 1, requestCount: s.requestCount });
  return simulateCluster({ workload, replicas: s.replicas, router, seed: 1, model: "MISTRAL_7B", gpu: "A6000", oracle: true });
};

/** Runs the student's router beside the library's `cacheAwareGuarded` on a scenario: at every arrival both decide on
 * the same view (the library's answer is dispatched). Returns the decisions, how many differ, and the first that
 * does in one line. `make` is called once per run (a fresh router). */
export function guardedLockstep(make: () => Router, scenario: RouterScenario = "hotSpot"): { decisions: number; differ: number; first: string } {
  let decisions = 0;
  let differ = 0;
  let first = "";
  const factory: RouterFactory = (ctx) => {
    const mine = make();
    const lib = createRouter("cacheAwareGuarded", ctx);
    return {
      name: "lockstep",
      route(request, view) {
        const b = lib.route(request, view);
        const a = mine.route(request, view);
        decisions++;
        if (a !== b && differ++ === 0) first = `第 ${decisions - 1} 个请求（提示 ${request.promptTokens} token）：库派给副本 ${b}，你的路由器派给 ${String(a)}`;
        return b;
      },
    };
  };
  runOn(scenario, factory);
  return { decisions, differ, first };
}

/** A whole run of a scenario with one router (the student's `make`, or the library's by name): the busiest replica's
 * share of the requests, the mean latency (s), and whether the queues grew without bound. */
export function routerRun(router: (() => Router) | string, scenario: RouterScenario = "systemPrompt"): { maxShare: number; meanLatency: number; overloaded: boolean } {
  const m = runOn(scenario, typeof router === "string" ? router : () => router()).metrics;
  return { maxShare: Math.round(m.maxShare * 1000) / 1000, meanLatency: Math.round(m.meanLatency * 100) / 100, overloaded: m.overloaded };
}
