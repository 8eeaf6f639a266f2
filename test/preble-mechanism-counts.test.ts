// How often Preble's rebalancing acted, and what it saw (issue 28: a mechanism that did not act is reported, not
// averaged): the router's counts are consistent with its own rule, and 03.11 shows them and judges on them.
import { describe, expect, it } from "vitest";
import { configurationOptions } from "../lib/cluster/preble/configs";
import { PREBLE_DEFAULTS } from "../lib/cluster/preble/options";
import { simulateCluster } from "../lib/cluster/simulate";
import { generateWorkload } from "../lib/cluster/workloads";
import { runDemo } from "../lib/demos/index";
import { evaluateClaim } from "../lib/demos/claims";
import { ablationDemo } from "../lib/demos/preble/ablation";
import type { Table } from "../lib/core/table";

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
    } else expect(lecture?.why ?? "").not.toContain("触发了 0 次");
  });
});

describe("03.11: the pairing step is judged with the effect band (±10%), whatever the seeds", () => {
  const pairing = (ablationDemo.claims ?? []).find((c) => c.id === "pairing-improves-both") as NonNullable<typeof ablationDemo.claims>[number];
  // the lecture's ladder; only the pairing step (e2+rebalance → e2+rebalance+pairing) matters here; `over`: the
  // seeds (by index) where the pairing rung overloaded
  const ladder = (mean: number, p99: number, over: number[] = []): Table => ({
    title: "t",
    columns: [],
    rows: [
      { policy: "baseline", meanLatency: 5, p99Latency: 10, paired: null },
      { policy: "e2", meanLatency: 2, p99Latency: 4, paired: null },
      { policy: "e2+rebalance", meanLatency: 2, p99Latency: 4, paired: null },
      { policy: "e2+rebalance+pairing", meanLatency: mean, p99Latency: p99, paired: 100, ...Object.fromEntries(over.map((k) => [`overloadedSeed${k}`, true])) },
      { policy: "e2+rebalance+pairing+priority", meanLatency: mean, p99Latency: p99, paired: 100 },
    ],
  });
  const judge = (t: Table, seeds: number) => evaluateClaim(pairing, t, { readings: ["lecture"], seeds, seed: 1 } as never);
  it("2 → 2.02 s mean, 4 → 4.08 s P99 (1% and 2% slower): inside the band, unjudged on one seed and on three, saying so", () => {
    for (const seeds of [1, 3]) {
      const c = judge(ladder(2.02, 4.08), seeds);
      expect(c.verdict).toBe("unjudged");
      expect(c.why).toBe("变化都在 ±10% 以内：不算变好或变差");
    }
  });
  it("overloaded seeds are named in the reason: seed 3 (index 2) overloaded after pairing", () => {
    expect(judge(ladder(2.02, 4.08, [2]), 3).why).toContain("种子 3（搭配后）过载");
    expect(judge(ladder(2.5, 5, [0]), 3).why).toContain("种子 1（搭配后）过载");
  });
  it("both 10% faster or more holds (2 → 1.6 s, 4 → 3.2 s); 10% slower or more on either fails (2 → 2.5 s, 4 → 5 s)", () => {
    expect(judge(ladder(1.6, 3.2), 1).verdict).toBe("holds");
    expect(judge(ladder(1.6, 3.2), 3).verdict).toBe("holds");
    expect(judge(ladder(2.5, 5), 1).verdict).toBe("fails");
  });
  it("one ratio beyond the band the wrong way is enough: 2 → 2.02 s mean but 4 → 4.8 s P99 fails", () => {
    expect(judge(ladder(2.02, 4.8), 1).verdict).toBe("fails");
  });
  it("P99 20% faster but the mean only 1% (2 → 1.98 s): the mean's change is inside the band, unjudged naming it", () => {
    const c = judge(ladder(1.98, 3.2), 3);
    expect(c.verdict).toBe("unjudged");
    expect(c.why).toBe("平均快 1%，在 ±10% 以内：不算变好或变差");
  });
});
