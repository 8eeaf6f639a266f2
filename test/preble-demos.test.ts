// Demos of 代码 03 (§3): every claim's verdict at default parameters (what the numbers say, whether or not the lecture
// agrees), titles computed from the parameters, Chinese errors naming the parameter, and the shapes other notebooks
// read (row identifiers of 03.1–03.3).
import { describe, expect, it } from "vitest";
import { ParameterError } from "../lib/core/errors";
import { rowsWhere } from "../lib/core/table";
import type { Row, Table } from "../lib/core/table";
import { hotSpotShareOverTime } from "../lib/cluster/index";
import { getDemo, runDemo } from "../lib/demos/index";
import { evaluateClaim } from "../lib/demos/claims";
import { readGolden } from "../bench/golden";
import { schedulerSpeedClock } from "../lib/demos/preble/mechanics";
import { partOf, readingsTable } from "../lib/view/index";

const num = (x: unknown) => x as number;

function verdicts(t: Table): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const c of t.claims ?? []) out[c.id] = c.readings && c.readings.length > 1 ? c.readings.map((r) => r.verdict) : c.verdict;
  return out;
}

/** Runs a demo at its defaults once per test file. */
const cache = new Map<string, Table>();
function atDefaults(id: string): Table {
  if (!cache.has(id)) cache.set(id, runDemo(id));
  return cache.get(id) as Table;
}

describe("verdicts at default parameters", () => {
  // A claim judged under two readings lists both verdicts: [default reading, the other] (03.1: our baseline / the
  // paper's; 03.2: the lecture's cost model and pairing rule / the released ones; 03.3: redirect / migrate; 03.5: the
  // quota rotation / one group per iteration; 03.4: the lecture's autoscale rows / the released load cost and migration
  // (rebalancing does not move the single hot prefix, copying does: rebalance-first fails); 03.7: full Preble as the lecture reads it / as released).
  const expected: Record<string, Record<string, string | string[]>> = {
    "03.1": {
      "long-video-gain-most": ["holds", "holds"],
      "small-shared-small-gain": ["fails", "fails"],
      // judged on the typical (geometric-mean) gain over the speed-up cells, as the lecture quotes an average: programming
      // 0.90× / 0.94× is the smallest (every other workload ≥ 1.18×) but below 1 — Preble slower at 3 of its 4 rates —
      // where the lecture (the paper's 1.56–1.8×) reports a small gain
      "programming-least": ["fails", "fails"],
      "largest-ratio-overloaded": ["holds", "holds"],
      // judged on every workload's lower half of rates (the lecture's "中低负载" is general): at video's 2 req/s the
      // simple rule is 9% slower (seed 1); as released only long documents' 1 req/s runs below the top, and there it holds
      "simple-not-worse": ["fails", "holds"],
      // per workload: no clear win in the lower half, a clear one at the top. Long documents and video win by far at
      // the top (the simple rule overloaded), but at tool calling's 64 and programming's 16 req/s Preble is slower, and
      // the agent ties; as released only long documents' and video's top cells run, and there it holds
      "preble-wins-at-top": ["fails", "holds"],
      "programming-cold-start": ["holds", "holds"],
      "gap-at-video-8": ["holds", "fails"],
    },
    "03.2": {
      "L-dominates": ["holds", "holds"],
      "M-almost-zero": ["fails", "fails"],
      "M-negligible": ["holds", "fails"],
      "explore-is-argmin-L": ["holds", "fails"],
      "explore-is-fewest-dispatched": ["fails", "fails"],
      // pairing is judged with the effect band (±10%, lib/demos/preble/effect-band.ts): tool calling's P99 6.36 → 5.89 s
      // (8% faster) and video's 6.35 → 6.51 s (2% slower, seed 3 overloaded) are inside it — unjudged; long documents'
      // 18.37 → 20.93 s (14% slower) holds; as released, P99 3.1× and 3.4× slower on tool calling and video
      "pairing-helps-tool": ["unjudged", "fails"],
      "pairing-hurts-long": ["holds", "holds"],
      "pairing-hurts-video": ["unjudged", "holds"],
      "pairing-slows-decode": ["holds", "holds"],
    },
    // thbal-insensitive names its mechanism (the load spreads over the copies): as released every Th_bal overloads, so
    // the thresholds agree only in failing — it fails there
    "03.3": { "e2-collapses": ["holds", "holds"], "rebalance-cures": ["holds", "fails"], "thbal-insensitive": ["holds", "fails"] },
    "03.4": { "autoscale-helps-slowly": ["holds", "holds"], "rebalance-first": ["holds", "fails"], "window-longer-better": ["fails", "fails"], "window-no-order-of-magnitude": ["holds", "holds"] },
    "03.5": {
      "quota-shares": ["holds", "fails"],
      "mean-improves": ["holds", "fails"],
      // mainly-mean: the mean's speed-up over FCFS must beat the P99's by 10%: 1.48× against 1.45× (2% more) fails;
      // as released 1.11× against 1.19× (the P99 gains more) fails
      "mainly-mean": ["fails", "fails"],
      "paper-p99-not-mean": ["fails", "fails"],
      "like-lpf": ["holds", "fails"],
      "low-hit-not-starved": ["fails", "fails"],
      "low-hit-not-worse": ["holds", "holds"],
      "no-hit-queueing": ["holds", "holds"],
    },
    "03.7": { "one-gpu-e2": "holds", "one-gpu-preble": ["holds", "holds"] },
    "03.8": { "strict-boundary": "holds", "exploit-saves": "holds", "explore-elsewhere": "holds" },
    // 03.11 — on one seed (the default) the lecture's priority step changes mean and P99 by under 10%: unjudged (with 3
    // seeds the pairing step reverses its sign); the pairing step (mean 1%, P99 2% slower) is inside the effect band,
    // unjudged whatever the seeds
    // rebalance-mainly-p99 as released: P99 8% faster but the mean 32% slower (migrations moving nodes back and forth):
    // not "mainly P99" — it fails
    "03.11": { "e2-already-better": ["holds", "holds"], "rebalance-mainly-p99": ["unjudged", "fails"], "pairing-improves-both": ["unjudged", "fails"], "priority-p99-not-mean": ["unjudged", "fails"], "full-vs-baseline": ["holds", "holds"] },
    // 03.12 — chosen-is-argmin: the explore branch takes the argmin of L + M + P by construction (all 40 decisions, both
    // readings); argmin-L-alone: the lecture's M and P are small (39 of 40 as L alone), the released M (every placement
    // evicts the request's new tokens) differs between GPUs and flips 15 of 40; P-cannot-flip: the explored requests hit
    // no prefix on any GPU, so P is the same on every GPU.
    // explore-is-fewest: the lecture's "派得最少" — the explored GPU is the one with the fewest dispatches in only about a
    // third of the decisions (L counts work, not requests), under both readings.
    "03.12": { "chosen-is-argmin": ["holds", "holds"], "argmin-L-alone": ["holds", "fails"], "P-cannot-flip": ["holds", "holds"], "explore-is-fewest": ["fails", "fails"] },
    // 03.6 — same-realised-rate: both arrival rows are scaled to 6 requests/s, the Azure row from the shipped trace;
    // bursts-hurt: every configuration's mean latency and TTFT grow under the bursts (TTFT 2.37 → 15.27 s for the
    // baseline, 0.63 → 4.72 s for Preble), both shown in its figures; preble-several-fold(-but-tpot): see
    // below; guard-behind-
    // preble: the guard's 20.1 s against the lecture's Preble 6.5 s, the released Preble's 20.6 s is no better.
    // preble-several-fold is the lecture's whole sentence (mean, P99, TTFT and TPOT several-fold): TPOT does not improve
    // (1.0×), so it fails under both readings; preble-several-fold-but-tpot, ours, leaves TPOT out.
    "03.6": { "same-realised-rate": "holds", "bursts-hurt": "holds", "preble-several-fold": ["fails", "fails"], "preble-several-fold-but-tpot": ["holds", "fails"], "guard-behind-preble": ["holds", "fails"] },
    "03.10": { "routing-pays-at-equal-local": ["holds", "holds"], "local-queue-pays-at-equal-routing": ["holds", "holds"], "simple-not-worse-at-equal-local": ["holds", "holds"], "top-load-gap-is-local": ["holds", "holds"], "figure3-ratio-mixes": ["holds", "holds"] },
  };
  for (const [id, want] of Object.entries(expected)) {
    it(`${id}: every claim judged, as the numbers say`, () => {
      expect(verdicts(atDefaults(id))).toEqual(want);
    }, 60_000);
  }
  // 03.9 times the scheduler: its claims are tested on an injected clock, never on this machine's speed.
  describe("03.9 on an injected clock", () => {
    /** A clock that advances by step(k) seconds at its k-th reading (two readings a tenth of a burst). */
    const withClock = (step: (k: number) => number) => {
      let t = 0;
      let k = 0;
      schedulerSpeedClock.now = () => (t += step(k++));
      try {
        return runDemo("03.9", { requests: 2000, repeats: 1 });
      } finally {
        schedulerSpeedClock.now = undefined;
      }
    };
    it("a tenth of 2,000 decisions in 1 ms each: 200,000 a second, flat → both claims hold", () => {
      const t = withClock(() => 0.001);
      expect(t.rows.find((r) => r.decile === null)?.decisionsPerSecond).toBeCloseTo(200000, 6);
      expect(verdicts(t)).toEqual({ "not-the-bottleneck": "holds", "flat-per-decision": "holds" });
    });
    it("the whole row uses the same timings as the tenths: n ÷ the sum of each tenth's fastest time, never below the slowest tenth", () => {
      // 1,000 requests, two timed runs after a 1-ms-a-tenth warm-up (clock readings 0–19); each tenth reads the clock
      // twice (start, end), so odd readings end a tenth. Run 1: 1 ms a tenth but a 51 ms stall in tenth 5;
      // run 2: 2 ms a tenth but a 50 ms stall in tenth 3.
      const ms = [...Array(10).fill(1), ...[1, 1, 1, 1, 51, 1, 1, 1, 1, 1], ...[2, 2, 50, 2, 2, 2, 2, 2, 2, 2]];
      let t = 0;
      let k = 0;
      schedulerSpeedClock.now = () => (k++ % 2 === 1 ? (t += ms[(k - 1) >> 1] / 1000) : t);
      let table: Table;
      try {
        table = runDemo("03.9", { requests: 1000, repeats: 2 });
      } finally {
        schedulerSpeedClock.now = undefined;
      }
      const tenth = (d: number | null) => table.rows.find((r) => r.decile === d)?.decisionsPerSecond as number;
      // fastest tenths: 1 ms everywhere except tenth 5 (2 ms in run 2) → 100 / 0.001 and 100 / 0.002
      expect(tenth(3)).toBeCloseTo(100000, 3);
      expect(tenth(5)).toBeCloseTo(50000, 3);
      // whole: 1,000 ÷ (9 × 1 ms + 2 ms) ≈ 90,909 a second (the fastest whole run, 60 ms, would give 16,667)
      expect(tenth(null)).toBeCloseTo(1000 / 0.011, 3);
      const tenths = table.rows.filter((r) => r.decile !== null).map((r) => r.decisionsPerSecond as number);
      expect(tenth(null)).toBeGreaterThanOrEqual(Math.min(...tenths));
      expect(tenth(null)).toBeLessThanOrEqual(Math.max(...tenths));
    });
    it("1 s a tenth: 200 a second, below the paper's 245 → not-the-bottleneck fails", () => {
      expect(verdicts(withClock(() => 1))["not-the-bottleneck"]).toBe("fails");
    });
    it("the last five tenths take 3× as long: flat-per-decision fails (the rule is late ≥ ½ early)", () => {
      // readings 0–19 of the timed run come after 20 of the warm-up; the timed run's tenths 6–10 take 3 ms
      const t = withClock((k) => (k >= 30 && k % 2 === 1 ? 0.003 : k % 2 === 1 ? 0.001 : 0));
      expect(verdicts(t)["flat-per-decision"]).toBe("fails");
      const even = withClock((k) => (k >= 30 && k % 2 === 1 ? 0.002 : k % 2 === 1 ? 0.001 : 0));
      expect(verdicts(even)["flat-per-decision"]).toBe("holds");
    });
  });
});

describe("titles and notes follow the parameters", () => {
  it("03.1 names the replicas and workloads used; 03.3 the replicas and rate", () => {
    const t = runDemo("03.1", { workloads: ["longDocQA"], rates: { longDocQA: [1] }, configurations: ["baseline", "preble"], replicas: 2, minRequests: 200, minSeconds: 0 });
    expect(t.title).toContain("2 个副本");
    expect(t.title).toContain("1 种负载");
    const h = runDemo("03.3", { replicas: 4, rate: 30, requestCount: 300, thBals: [1.5] });
    expect(h.title).toContain("4 个副本");
    expect(h.title).toContain("30 请求/秒");
    expect(h.notes?.join(" ")).toContain("1/4");
  });

  it("the overload rule is one note, the same text in every §3 table (show() prints it once)", () => {
    const notes = ["03.1", "03.2", "03.3", "03.4", "03.5"].map((id) => (atDefaults(id).notes ?? []).filter((n) => n.startsWith("过载的判定")));
    for (const n of notes) expect(n.length).toBe(1);
    expect(new Set(notes.map((n) => n[0])).size).toBe(1);
  });
});

describe("rows other notebooks read", () => {
  it("03.1: one row per workload × rate × configuration, the policy identifiers kept", () => {
    const t = atDefaults("03.1");
    // + the five released cells the released verdicts of four claims read
    expect(t.rows.length).toBe((4 + 4 + 4 + 4 + 2) * 5 + 5);
    expect(rowsWhere(t, { policy: "prebleReleased" }).length).toBe(3);
    expect(rowsWhere(t, { policy: "e2+migrateReleased" }).length).toBe(2);
    expect(rowsWhere(t, { workload: "longDocQA", rate: 1, policy: "cacheAwareGuarded" }).length).toBe(1);
    expect(rowsWhere(t, { workload: "videoQA", rate: 8, policy: "e2+rebalance" }).length).toBe(1);
    const over = rowsWhere(t, { workload: "videoQA", rate: 8, policy: "preble" })[0];
    expect(over.ratioKind).toBe("baselineOverloaded");
  });

  it("03.2: part costs and part pairing, one row per (workload, pairing)", () => {
    const t = atDefaults("03.2");
    expect(rowsWhere(t, { part: "costs" }).length).toBe(5);
    expect(rowsWhere(t, { part: "costsReleased" }).length).toBe(5);
    for (const w of ["toolCalling", "longDocQA", "videoQA"]) {
      for (const pairing of [true, false]) expect(rowsWhere(t, { part: "pairing", workload: w, pairing }).length).toBe(1);
      expect(rowsWhere(t, { part: "pairingReleased", workload: w, pairing: true }).length).toBe(1);
    }
  });

  it("03.3: e2, thresholdAffinity and e2+rebalance rows", () => {
    const t = atDefaults("03.3");
    expect(rowsWhere(t, { policy: "e2" }).length).toBe(1);
    expect(rowsWhere(t, { policy: "thresholdAffinity" }).length).toBe(1);
    expect(rowsWhere(t, { policy: "e2+rebalance" }).length).toBe(4);
  });
});

describe("03.4's autoscale claims under both readings", () => {
  it("the released rows beside the lecture's, four settings each; the lecture's rows do not depend on readings", () => {
    const t = atDefaults("03.4");
    const settings = ["e2", "e2 + autoscale", "e2 + rebalance", "e2 + rebalance + autoscale"];
    expect(rowsWhere(t, { experiment: "autoscale" }).map((r) => r.setting)).toEqual(settings);
    expect(rowsWhere(t, { experiment: "autoscaleReleased" }).map((r) => r.setting)).toEqual(settings);
    // the released migration moves nodes but cannot spread the one hot prefix; the copy does
    const rel = (s: string) => rowsWhere(t, { experiment: "autoscaleReleased", setting: s })[0];
    expect(num(rel("e2 + rebalance").migrated)).toBeGreaterThan(0);
    expect(rel("e2 + rebalance").overloaded).toBe(true);
    // the copy does: with autoscaling on too the mean falls by more than half (in 200 s of arrivals the queue is still
    // draining at the end, so the row stays flagged overloaded; with 300 s it is not)
    expect(num(rel("e2 + rebalance + autoscale").meanLatency)).toBeLessThan(num(rel("e2 + rebalance").meanLatency) / 2);
    const lectureOnly = runDemo("03.4", { readings: ["lecture"], experiments: ["autoscale"] });
    expect(lectureOnly.rows.length).toBe(4);
    for (const r of lectureOnly.rows) expect(r).toEqual(rowsWhere(t, { experiment: "autoscale", setting: r.setting })[0]);
  }, 60_000);

  it("without \"released\" each autoscale claim falls back to the lecture's verdict alone", () => {
    const t = runDemo("03.4", { readings: ["lecture"], experiments: ["autoscale"] });
    expect(rowsWhere(t, { experiment: "autoscaleReleased" }).length).toBe(0);
    for (const id of ["autoscale-helps-slowly", "rebalance-first"]) {
      const c = (t.claims ?? []).find((x) => x.id === id);
      expect(c?.readings).toBeUndefined();
      expect(c?.verdict).toBe("holds");
    }
    const released = runDemo("03.4", { readings: ["released"], experiments: ["autoscale"] });
    const c = (released.claims ?? []).find((x) => x.id === "rebalance-first");
    expect(c?.readings?.map((r) => [r.reading, r.verdict])).toEqual([["开源代码的读法", "fails"]]);
  }, 60_000);
});

describe("the hot tool's requests over time", () => {
  it("stay on one replica under E2 and spread under E2 + rebalancing", () => {
    const busiestShare = (configuration: string) => {
      const s = hotSpotShareOverTime({ configuration, requestCount: 2500, binSeconds: 10 });
      const late = s.rows.filter((r) => num(r.time) > 15);
      const bins = new Map<number, number>();
      for (const r of late) bins.set(num(r.time), Math.max(bins.get(num(r.time)) ?? 0, num(r.share)));
      return [...bins.values()].reduce((a, b) => a + b, 0) / bins.size;
    };
    expect(busiestShare("e2")).toBeGreaterThan(0.95);
    expect(busiestShare("e2+rebalance")).toBeLessThan(0.8);
  });
});

describe("bad parameters: one Chinese line naming the parameter", () => {
  it.each([
    ["03.1", { workloads: ["agent"], rates: {} }, /参数 rates\.agent/],
    ["03.1", { configurations: ["sglang"] }, /参数 configurations\[0\]/],
    ["03.2", { costRates: { nowhere: 1 } }, /参数 costRates 的负载名/],
    ["03.3", { thBals: [0.5] }, /参数 thBals\[0\]/],
    ["03.5", { policies: ["fastest"] }, /参数 policies\[0\]/],
    ["03.8", { holder: 7 }, /参数 holder/],
  ])("%s %o", (id, params, message) => {
    expect(() => runDemo(id, params)).toThrow(ParameterError);
    expect(() => runDemo(id, params)).toThrow(message);
  });
});

describe("the view of parts and readings", () => {
  it("partOf keeps one part's rows and the columns they use; readingsTable lists every claim judged under two readings", () => {
    const t = atDefaults("03.5");
    const q = partOf(t, "queueing");
    expect(q.rows.every((r) => r.part === "queueing")).toBe(true);
    expect(q.columns.map((c) => c.key)).toEqual(["policy", "bucket", "bucketRequests", "q50", "q90", "q99"]);
    const r = readingsTable([t, atDefaults("03.7")]);
    const withReadings = [t, atDefaults("03.7")].flatMap((x) => (x.claims ?? []).filter((c) => (c.readings?.length ?? 0) > 1));
    expect(r.rows.length).toBe(withReadings.length);
    expect(r.rows.find((x) => String(x.claim).startsWith("一次取 55 个"))?.same).toBe(false);
  });
});

describe("03.2's M-almost-zero reason is computed", () => {
  it("names the workload with the most evictions and whether its prompts are the longest (P), with P's value", () => {
    const t = atDefaults("03.2");
    const c = t.claims?.find((x) => x.id === "M-almost-zero");
    const why = (c?.readings?.[0] ?? c)?.why ?? "";
    expect(why).toMatch(/^长文档问答上 [\d.]+% 的决定 M > 0：它的提示最长（P 平均 [\d.]+ 秒，几种负载里最大）/);
  });
});

describe("the rules on hand-made tables", () => {
  const claimOf = (demo: string, id: string) => (getDemo(demo).claims ?? []).find((c) => c.id === id) as NonNullable<ReturnType<typeof getDemo>["claims"]>[number];

  describe("03.2: pairing helps / hurts P99 with the effect band (±10%); overloaded seeds named", () => {
    const params = { parts: ["pairing"], readings: ["lecture"], pairingRates: { videoQA: 8, toolCalling: 48 }, pairingSeeds: 3, seed: 1 };
    /** Pairing off and on for `workload`: seed-mean P99 `off` → `on` s (every seed the same), `over`: seed indices
     * overloaded with pairing off / on. */
    const table = (workload: string, off: number, on: number, over: { off?: number[]; on?: number[] } = {}): Table => {
      const row = (pairing: boolean, p99: number, overloaded: number[] = []) => ({ part: "pairing", workload, pairing, paired: pairing ? 100 : 0, p99Latency: p99, ...Object.fromEntries([0, 1, 2].flatMap((k) => [[`p99Seed${k}`, p99], [`tpotSeed${k}`, 50], [`overloadedSeed${k}`, overloaded.includes(k)]])) });
      return { title: "t", columns: [], rows: [row(false, off, over.off), row(true, on, over.on)] };
    };
    const judge = (id: string, t: Table) => evaluateClaim(claimOf("03.2", id), t, params as never);
    it("video 6 → 7 s (17% slower): hurts holds, with seed 2's overload beside the figures", () => {
      const c = judge("pairing-hurts-video", table("videoQA", 6, 7, { on: [1] }));
      expect(c.verdict).toBe("holds");
      expect(c.ours).toContain("种子 2（搭配开）过载");
    });
    it("video 7 → 6 s (17% faster): hurts fails, saying it got better", () => {
      const c = judge("pairing-hurts-video", table("videoQA", 7, 6));
      expect(c.verdict).toBe("fails");
      expect(c.why).toBe("P99 快 17%，变好了");
    });
    it("video 6.35 → 6.51 s (2.5% slower, seed 3 overloaded both ways): inside the band, unjudged, no seed count, the seed named", () => {
      const c = judge("pairing-hurts-video", table("videoQA", 6.35, 6.51, { off: [2], on: [2] }));
      expect(c.verdict).toBe("unjudged");
      expect(c.seeds).toBeUndefined();
      expect(c.why).toBe("P99 慢 3%，在 ±10% 以内：不算变好或变差；种子 3（搭配关、搭配开）过载，P99 随模拟时长变化");
    });
    it("tool calling 6.36 → 5.89 s (8% faster) is inside the band; 6.36 → 5.5 s (16% faster) holds; 9.6% is still inside", () => {
      expect(judge("pairing-helps-tool", table("toolCalling", 6.36, 5.89)).verdict).toBe("unjudged");
      expect(judge("pairing-helps-tool", table("toolCalling", 6.36, 5.5)).verdict).toBe("holds");
      const edge = judge("pairing-helps-tool", table("toolCalling", 6.576, 6));
      expect(edge.verdict).toBe("unjudged");
      expect(edge.why).toContain("快 9.6%");
    });
  });

  describe("03.1: the simple rule against Preble, per workload: lower half of the rates, top rate", () => {
    const params = { ...getDemo("03.1").defaults, readings: ["lecture"], ratioSeeds: 1 };
    /** Mean latencies of the simple rule (a) and Preble (b), rate by rate, for long documents and one other workload. */
    const table = (other: Array<[number, number, number]>): Table => {
      const rows: Row[] = [];
      const add = (workload: string, rate: number, a: number, b: number) => {
        rows.push({ workload, rate, policy: "cacheAwareGuarded", meanLatency: a, overloaded: false, seeds: 1 });
        rows.push({ workload, rate, policy: "preble", meanLatency: b, overloaded: false, seeds: 1 });
      };
      for (const [rate, a, b] of [[0.5, 4, 5], [1, 5, 6], [1.5, 12, 9], [2, 80, 25]] as const) add("longDocQA", rate, a, b);
      for (const [rate, a, b] of other) add("videoQA", rate, a, b);
      return { title: "t", columns: [], rows };
    };
    const p = { ...params, workloads: ["longDocQA", "videoQA"] } as never;
    const judge = (id: string, t: Table) => evaluateClaim(claimOf("03.1", id), t, p);
    it("not worse: 4% slower in the lower half is within 5%; 9% slower is not, naming the cell", () => {
      expect(judge("simple-not-worse", table([[2, 1.04, 1], [4, 1, 1], [6, 3, 1.3], [8, 20, 1.6]])).verdict).toBe("holds");
      const c = judge("simple-not-worse", table([[2, 1.09, 1], [4, 1, 1], [6, 3, 1.3], [8, 20, 1.6]]));
      expect(c.verdict).toBe("fails");
      expect(c.why).toContain("视频问答 2 请求/秒时简单规则慢 9%");
    });
    it("wins only at the top: a clear win (> 20% faster) in the lower half fails, and so does no clear win at the top", () => {
      expect(judge("preble-wins-at-top", table([[2, 1, 1], [4, 1, 0.9], [6, 3, 1.3], [8, 20, 1.6]])).verdict).toBe("holds");
      const low = judge("preble-wins-at-top", table([[2, 1, 0.7], [4, 1, 0.9], [6, 3, 1.3], [8, 20, 1.6]]));
      expect(low.verdict).toBe("fails");
      expect(low.why).toContain("视频问答在较低的 2 请求/秒快 30%");
      const top = judge("preble-wins-at-top", table([[2, 1, 1], [4, 1, 0.9], [6, 3, 1.3], [8, 2, 1.8]]));
      expect(top.verdict).toBe("fails");
      expect(top.why).toContain("视频问答最高的 8 请求/秒 Preble 只快 10%");
    });
  });

  describe("03.5 mainly-mean: the mean's speed-up over FCFS beats the P99's by 10% or more", () => {
    const table = (fcfs: [number, number], priority: [number, number]): Table => ({
      title: "t",
      columns: [],
      rows: [
        { part: "policies", policy: "fcfs", meanLatency: fcfs[0], p99Latency: fcfs[1] },
        { part: "policies", policy: "priority", meanLatency: priority[0], p99Latency: priority[1] },
      ],
    });
    const judge = (t: Table) => evaluateClaim(claimOf("03.5", "mainly-mean"), t, { parts: ["policies"], policies: ["fcfs", "priority"] } as never);
    it("the lecture's mean 6.09 → 3.96 s (1.54×) with P99 12 → 11 s (1.09×): holds", () => {
      expect(judge(table([6.09, 12], [3.96, 11])).verdict).toBe("holds");
    });
    it("mean 1.48× and P99 1.45× (our defaults): fails, the two gains 2% apart", () => {
      const c = judge(table([2.3576, 12.3705], [1.5909, 8.5207]));
      expect(c.verdict).toBe("fails");
      expect(c.why).toBe("平均快的倍数只比 P99 的大 2.1%：两者改善得差不多");
    });
    it("P99 gaining more than the mean fails saying so; a mean that hardly moves (1.05×) fails on that", () => {
      expect(judge(table([2.1, 12], [1.9, 10])).why).toContain("比平均的 1.11× 还多");
      expect(judge(table([2.1, 12], [2, 12])).why).toBe("平均只快 1.05×，不到 1.1×");
    });
  });

  describe("03.6 bursts-hurt: every configuration's mean latency and TTFT longer under the bursts, both shown", () => {
    const row = (arrivals: string, policy: string, mean: number, ttft: number) => ({ arrivals, policy, meanLatency: mean, meanTTFT: ttft, seeds: 1, "meanLatency@0": mean, "meanTTFT@0": ttft });
    const table = (ttftUnderBursts: number): Table => ({
      title: "t",
      columns: [],
      rows: [row("poissonArrivals", "baseline", 3, 2), row("poissonArrivals", "preble", 1.5, 0.6), row("azureCodeArrivals", "baseline", 17, 15), row("azureCodeArrivals", "preble", 6.5, ttftUnderBursts)],
    });
    const judge = (t: Table) => evaluateClaim(claimOf("03.6", "bursts-hurt"), t, {} as never);
    it("both grow for both configurations: holds, the TTFT figures in ours", () => {
      const c = judge(table(4.7));
      expect(c.verdict).toBe("holds");
      expect(c.ours).toBe("基线（轮转 + LPF） 平均 3.00 → 17.00、TTFT 2.00 → 15.00 秒；完整 Preble 平均 1.50 → 6.50、TTFT 0.60 → 4.70 秒");
    });
    it("Preble's TTFT 0.6 → 0.5 s under the bursts: fails, naming it", () => {
      const c = judge(table(0.5));
      expect(c.verdict).toBe("fails");
      expect(c.why).toBe("完整 Preble 的 TTFT 0.60 → 0.50 秒：突发下没有变长");
    });
  });

  describe("03.6 several-fold: a ratio against an overloaded side says it is no speed-up", () => {
    const row = (policy: string, x: number, overloadedSeeds: number) => ({
      arrivals: "azureCodeArrivals", policy, seeds: 2, overloaded: overloadedSeeds > 0, overloadedSeeds,
      ...Object.fromEntries(["meanLatency", "p99Latency", "meanTTFT", "meanTPOT"].flatMap((m) => [[m, x], [`${m}@0`, x], [`${m}@1`, x]])),
    });
    const judge = (base: number, overloadedSeeds: number) =>
      evaluateClaim(claimOf("03.6", "preble-several-fold"), { title: "t", columns: [], rows: [row("baseline", base, overloadedSeeds), row("preble", 1, 0)] }, {} as never);
    it("baseline overloaded in 2 of 2 seeds: named in the figures; not overloaded: no caveat", () => {
      const c = judge(3, 2);
      expect(c.verdict).toBe("holds");
      expect(c.ours).toContain("基线（轮转 + LPF）过载（2/2 个种子）：比值不是加速比");
      expect(judge(3, 0).ours).not.toContain("过载");
    });
  });

  describe("03.1 long-video-gain-most: long documents and video gain the most capacity (on the stored default table)", () => {
    const golden = readGolden("03.1");
    const decode = (v: unknown): any => {
      if (Array.isArray(v)) return v.map(decode);
      if (v && typeof v === "object") return "nonFinite" in v ? Number((v as { nonFinite: string }).nonFinite) : Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
      return v;
    };
    const base = (): Table => {
      if (!golden) throw new Error("bench/golden/03.1.json is missing");
      return decode(golden.table) as Table;
    };
    const params = { ...getDemo("03.1").defaults, ratioSeeds: 1 } as never;
    const judge = (t: Table) => evaluateClaim(claimOf("03.1", "long-video-gain-most"), t, params);
    const overloadAll = (t: Table, workload: string, policy: string): Table => ({ ...t, rows: t.rows.map((r) => (r.workload === workload && r.policy === policy ? { ...r, overloaded: true } : r)) });
    it("as run: holds under both baselines", () => {
      const c = judge(base());
      expect(c.readings?.map((r) => r.verdict)).toEqual(["holds", "holds"]);
    });
    it("another workload gaining more capacity (tool calling's baseline overloaded at every rate): fails naming it", () => {
      const c = judge(overloadAll(overloadAll(base(), "toolCalling", "baseline"), "toolCalling", "baselinePaper"));
      expect(c.verdict).toBe("fails");
      expect(c.why).toBe("工具调用上 Preble 多扛的倍数更大");
    });
    it("Preble no better than the baseline on video: fails saying so", () => {
      const t = base();
      const top = Math.max(...t.rows.filter((r) => r.workload === "videoQA").map((r) => Number(r.rate)));
      const c = judge({ ...t, rows: t.rows.map((r) => (r.workload === "videoQA" && r.policy === "preble" && Number(r.rate) > 4 ? { ...r, overloaded: true } : r)) });
      expect(top).toBeGreaterThan(4);
      expect(c.readings?.[0].verdict).toBe("fails");
      expect(c.readings?.[0].why).toContain("视频问答上 Preble 扛得住的请求率不比我们的基线高");
    });
  });
});
