// How often Preble's rebalancing acted, and what it saw (issue 28: a mechanism that did not act is reported, not
// averaged): the router's counts are consistent with its own rule, and 03.11 shows them and judges on them.
import { describe, expect, it } from "vitest";
import { configurationOptions } from "../lib/cluster/preble/configs";
import { PREBLE_DEFAULTS } from "../lib/cluster/preble/options";
import { simulateCluster } from "../lib/cluster/simulate";
import { generateWorkload } from "../lib/cluster/workloads";
import { runDemo } from "../lib/demos/index";

const RELEASED = { decodeEstimate: "released", evictionEstimate: "memoryFull" };
const num = (x: unknown) => x as number;

describe("rebalancing's counts", () => {
  const w = generateWorkload("toolCalling", { rate: 32, requestCount: 600, seed: 2 });
  const run = (o: Record<string, unknown>) => simulateCluster({ workload: w, replicas: 4, ...configurationOptions("e2+rebalance", o) }).routerStats as Record<string, unknown>;

  it("redirects happen only at dispatches whose busiest ÷ lightest window load was above Th_bal", () => {
    for (const thBal of [1.05, 1.5, 3]) {
      const s = run({ thBal });
      if (num(s.rebalance) > 0) expect(num(s.aboveThBal)).toBeGreaterThan(0);
      if (num(s.maxLoadRatio) <= thBal) expect([s.rebalance, s.aboveThBal]).toEqual([0, 0]);
      expect(num(s.aboveThBal)).toBeLessThanOrEqual(600);
    }
    // a lower threshold never sees fewer dispatches above it
    expect(num(run({ thBal: 1.05 }).aboveThBal)).toBeGreaterThanOrEqual(num(run({ thBal: 3 }).aboveThBal));
  });

  it("migrations: those straight back and the nodes moved are parts of the total; none without rebalancing", () => {
    const s = run({ ...RELEASED, rebalanceAction: "migrate" });
    expect(num(s.migratedBack)).toBeLessThanOrEqual(num(s.migrated));
    expect(num(s.migratedNodes)).toBeLessThanOrEqual(num(s.migrated));
    if (num(s.migrated) > 0) expect(num(s.migratedNodes)).toBeGreaterThan(0);
    const off = simulateCluster({ workload: w, replicas: 4, ...configurationOptions("e2", RELEASED) }).routerStats as Record<string, unknown>;
    expect([off.migrated, off.migratedBack, off.rebalance, off.maxLoadRatio, off.aboveThBal]).toEqual([0, 0, 0, 0, 0]);
  });
});

describe("03.11 shows what each mechanism did, and a claim on one that never acted is unjudged", () => {
  const t = runDemo("03.11", { rate: 32, minRequests: 300, minSeconds: 0 });
  const row = (policy: string) => t.rows.find((r) => r.policy === policy) as Record<string, unknown>;
  it("counts only on the rungs that have the mechanism", () => {
    expect([row("baseline").rebalanced, row("e2").rebalanced, row("e2").paired]).toEqual([null, null, null]);
    expect(typeof row("e2+rebalance").rebalanced).toBe("number");
    expect(typeof row("e2+rebalance+pairing").paired).toBe("number");
    expect(typeof row("e2+migrateReleased").migratedBack).toBe("number");
    expect(t.columns.map((c) => c.key)).toEqual(expect.arrayContaining(["rebalanced", "migratedBack", "maxLoadRatio", "paired"]));
  });
  it("rebalance-mainly-p99 under the lecture's reading: unjudged with the count and the ratio exactly when no request was redirected", () => {
    const c = t.claims?.find((x) => x.id === "rebalance-mainly-p99");
    const lecture = c?.readings?.[0];
    if (num(row("e2+rebalance").rebalanced) === 0) {
      expect(lecture?.verdict).toBe("unjudged");
      expect(lecture?.why).toContain("触发了 0 次");
      expect(lecture?.why).toContain(`Th_bal = ${PREBLE_DEFAULTS.thBal}`);
      // the two rungs made the same decisions
      expect(row("e2+rebalance").meanLatency).toBe(row("e2").meanLatency);
    } else expect(lecture?.verdict).not.toBe("unjudged");
  });
});
