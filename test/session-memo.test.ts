// The session memos of runs (03.x's simulateConfigurations, 06.1's side-by-side runs): notebook 03 shows 03.1 at one
// seed and then adds the other seeds, notebook 06 shows the lecture's routers and then adds the production ones, and
// the second cell takes the first cell's runs from the memo. A memo key holds everything a run depends on, the
// registries' state included: a router or local policy registered again under a name runs anew.
import { describe, expect, it } from "vitest";
import { runDemo } from "../lib/demos/index";
import { registerRouter } from "../lib/cluster/routers";
import { registerLocalPolicy, fcfs } from "../lib/cluster/local/policy";
import { registrationsKey, registriesChangedHere } from "../lib/cluster/sweep";
import { simulateConfigurations } from "../lib/cluster/preble/memo";
import { configurationRun } from "../lib/cluster/preble/runs";
import type { Row } from "../lib/core/table";

const small = { workloads: ["videoQA"], replicas: [4], rates: [3], requestCounts: [300], seed: 1 };
const rowOf = (rows: Row[], policy: string) => rows.find((r) => r.policy === policy) as Row;

describe("06.1 keeps its runs for the session", () => {
  it("a second call runs only the policies the first did not, with the same rows", () => {
    const first: string[] = [];
    const a = runDemo("06.1", { ...small, policies: ["roundRobin", "leastLoad"] }, { progress: (m) => first.push(m) });
    const second: string[] = [];
    const b = runDemo("06.1", { ...small, policies: ["roundRobin", "leastLoad", "cacheAwareGuarded"] }, { progress: (m) => second.push(m) });
    expect(first.length).toBe(2);
    expect(second).toEqual([expect.stringContaining("缓存感知")]);
    for (const p of ["roundRobin", "leastLoad"]) expect(rowOf(b.rows, p)).toEqual(rowOf(a.rows, p));
  });

  it("another seed, rate or request count is another run", () => {
    const seen: string[] = [];
    runDemo("06.1", { ...small, policies: ["roundRobin"] });
    runDemo("06.1", { ...small, seed: 2, policies: ["roundRobin"] }, { progress: (m) => seen.push(m) });
    runDemo("06.1", { ...small, rates: [2], policies: ["roundRobin"] }, { progress: (m) => seen.push(m) });
    runDemo("06.1", { ...small, requestCounts: [200], policies: ["roundRobin"] }, { progress: (m) => seen.push(m) });
    expect(seen.length).toBe(3);
  });

  it("a router registered again under its name is run again (the memo does not answer with the old router's run)", () => {
    let calls = 0;
    registerRouter("sessionMemoTestRouter", "test: round robin", () => ({ name: "rr", route: (_r, view) => calls++ % view.replicaCount }));
    expect(registriesChangedHere()).toBe(true);
    const spread = runDemo("06.1", { ...small, policies: ["sessionMemoTestRouter"] });
    registerRouter("sessionMemoTestRouter", "test: everything to replica 0", () => ({ name: "zero", route: () => 0 }));
    const one = runDemo("06.1", { ...small, policies: ["sessionMemoTestRouter"] });
    expect(rowOf(spread.rows, "sessionMemoTestRouter").maxShare).toBeLessThan(0.5);
    expect(rowOf(one.rows, "sessionMemoTestRouter").maxShare).toBe(1);
  });
});

describe("03.x's memo of configuration runs", () => {
  const run = () => configurationRun({ workload: "videoQA", rate: 2, replicas: 4, configuration: "baseline", requestCount: 200, seed: 1 });
  it("answers a run it has with the same summary, and runs it again once a local policy is registered", () => {
    const [a] = simulateConfigurations([run()]);
    const [b] = simulateConfigurations([run()]);
    expect(b).toBe(a);
    const before = registrationsKey();
    registerLocalPolicy("sessionMemoTestPolicy", () => fcfs());
    expect(registrationsKey()).not.toBe(before);
    const [c] = simulateConfigurations([run()]);
    expect(c).not.toBe(a);
    expect(c.metrics).toEqual(a.metrics);
  });
});
