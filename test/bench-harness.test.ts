// The bench harness (npm run bench): names, one merged JSON object on stdout, a clear error for unknown names;
// the router-burst bench's decision loop; runDemoWithProgress returning runDemo's table.
import { spawnSync } from "child_process";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { routerBurst } from "../lib/cluster/burst";
import { burstRequests } from "../lib/cluster/burst";
import { routerNames } from "../lib/cluster/routers";
import "../lib/cluster/index";
import { runDemo } from "../lib/demos/index";
import { runDemoWithProgress } from "../lib/view/run-demo";

const ROOT = path.join(__dirname, "..");
const bench = (args: string[]) => spawnSync(process.execPath, [path.join(ROOT, "scripts", "bench.mjs"), ...args], { cwd: ROOT, encoding: "utf8", timeout: 120_000 });

describe("npm run bench", () => {
  it("rejects an unknown name, listing the valid ones", () => {
    const r = bench(["e2-burst", "no-such-bench"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unknown name "no-such-bench"');
    for (const name of ["e2-burst", "router-burst", "sim-throughput", "balls", "queues", "lecture", "golden"]) expect(r.stderr).toContain(name);
    expect(r.stdout).toBe("");
  });

  it("--json prints exactly one object { name: { metric: { value, unit } } } on stdout", () => {
    const r = bench(["golden", "--json", "--ids=00.1,04.5"]);
    expect(r.status, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const out = JSON.parse(lines[0]) as Record<string, Record<string, { value: number; unit: string }>>;
    expect(Object.keys(out)).toEqual(["golden"]);
    expect(out.golden.demos.value).toBe(2);
    expect(out.golden.differing.value).toBe(0);
    for (const m of Object.values(out.golden)) {
      expect(typeof m.value).toBe("number");
      expect(typeof m.unit).toBe("string");
    }
  }, 120_000);
});

describe("router-burst: every registered router decides a burst", () => {
  const requests = burstRequests("toolCalling", 2000);

  it("each router places every request on a valid replica", () => {
    expect(routerNames().length).toBeGreaterThanOrEqual(8);
    for (const name of routerNames()) {
      const r = routerBurst(name, requests, 4);
      expect(r.decisions, name).toBe(2000);
      expect(r.perReplica.reduce((a, b) => a + b, 0), name).toBe(2000);
      expect(r.decilePerSecond, name).toHaveLength(10);
      expect(r.decisionsPerSecond, name).toBeGreaterThan(0);
    }
  });

  it("round robin spreads the burst evenly; prefix affinity piles it onto one replica (every prompt matches the first)", () => {
    expect(routerBurst("roundRobin", requests, 4).perReplica).toEqual([500, 500, 500, 500]);
    const affinity = routerBurst("prefixAffinity", burstRequests("videoQA", 2000), 8).perReplica;
    expect(Math.max(...affinity)).toBeGreaterThan(0.5 * 2000);
  });
});

describe("runDemoWithProgress", () => {
  it("returns runDemo's table; bad parameters and unknown ids throw", () => {
    const params = { experiments: ["window"], windows: [60, 180], longDocRequestCount: 400 };
    expect(runDemoWithProgress("03.4", params)).toEqual(runDemo("03.4", params));
    expect(() => runDemoWithProgress("03.4", { windows: [-1] })).toThrow(/windows\[0\]/);
    expect(() => runDemoWithProgress("9.9")).toThrow(/没有演示 "9\.9"/);
  });
});
