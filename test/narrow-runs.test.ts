// Notebooks 05 and 07 opened alone compute only what they show (issue 27): 05.x read a few rows of 01–04's demos and
// 07 a few claims of 03.1, so without the result cache they run those demos cut down (runDemoSmaller,
// runDemoForClaims). The cut-down runs must give exactly what the full runs give: the same 05.x tables and verdicts,
// the same claims of 03.1, word for word.
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { afterAll, describe, expect, it } from "vitest";
import { getDemo, runDemo, runDemoForClaims } from "../lib/demos/index";
import { RESULT_CACHE_VARIABLE } from "../lib/demos/result-cache";
import { claimLinesMarkdown } from "../lib/view/summary";
import type { Table } from "../lib/core/table";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "l11-narrow-"));
afterAll(() => {
  delete process.env[RESULT_CACHE_VARIABLE];
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Runs `f` with no result cache (every sub-demo cut down) or with this file's cache (full runs put there first). */
function withCache<T>(on: boolean, f: () => T): T {
  if (on) process.env[RESULT_CACHE_VARIABLE] = dir;
  else delete process.env[RESULT_CACHE_VARIABLE];
  try {
    return f();
  } finally {
    delete process.env[RESULT_CACHE_VARIABLE];
  }
}

const shown = (t: Table) => ({ title: t.title, rows: t.rows, notes: t.notes, claims: t.claims });

describe("05.x opened alone: the sub-demos cut to the rows read give the full runs' table", { timeout: 300_000 }, () => {
  // the sub-demos at the parameters 05.x pass, full, into the cache: then 05.x read those
  const full: Record<string, Array<[string, Record<string, unknown>]>> = {
    "05.3": [["01.4", { seed: 1 }], ["02.1", { seed: 1 }], ["03.3", { seed: 1 }]],
    "05.4": [["01.2", { seed: 1 }], ["03.1", { seed: 1 }]],
    "05.5": [["01.3", { seed: 1, refreshIntervals: getDemo("01.3").defaults.refreshIntervals }], ["02.1", { seed: 1 }]],
  };
  for (const id of ["05.3", "05.4", "05.5"]) {
    it(`${id}: rows, notes and verdicts identical`, () => {
      const alone = withCache(false, () => runDemo(id));
      const after = withCache(true, () => {
        for (const [sub, params] of full[id]) runDemo(sub, params);
        return runDemo(id);
      });
      expect(shown(alone)).toEqual(shown(after));
    });
  }
});

describe("07's claims of 03.1 computed alone are the full run's, word for word", { timeout: 300_000 }, () => {
  const fullRun = () => withCache(true, () => runDemo("03.1", { seed: 1 }));
  const sets = [
    ["small-shared-small-gain"],
    ["programming-cold-start", "gap-at-video-8"],
  ];
  for (const ids of sets) {
    it(ids.join(", "), () => {
      const cut = withCache(false, () => runDemoForClaims("03.1", { seed: 1 }, ids));
      expect((cut.params?.workloads as string[]).length).toBeLessThan(5);
      const all = fullRun();
      expect(claimLinesMarkdown(cut, ids)).toBe(claimLinesMarkdown(all, ids));
      for (const c of ids) expect(cut.claims?.find((x) => x.id === c)).toEqual(all.claims?.find((x) => x.id === c));
      // with the full run in the cache, that run is read back
      expect(withCache(true, () => runDemoForClaims("03.1", { seed: 1 }, ids)).params?.workloads).toEqual(all.params?.workloads);
    });
  }
  it("a claim that compares every workload is not cut", () => {
    expect(getDemo("03.1").narrowForClaims?.(["programming-least"], getDemo("03.1").defaults)).toBeUndefined();
    expect(getDemo("03.1").narrowForClaims?.(["simple-not-worse"], getDemo("03.1").defaults)).toBeUndefined();
    expect(getDemo("03.1").narrowForClaims?.(["simple-not-worse", "largest-ratio-overloaded"], getDemo("03.1").defaults)).toBeUndefined();
    expect(getDemo("03.1").narrowForClaims?.(["long-video-gain-most", "simple-not-worse", "preble-wins-at-top"], getDemo("03.1").defaults)).toBeUndefined();
  });
});

describe("07's single claims of 01.2 and 02.1 computed alone are the full run's", { timeout: 300_000 }, () => {
  for (const [id, claim, cutKey] of [["01.2", "round-robin-fragile", "policies"], ["02.1", "pure-affinity-collapse", "policies"]] as const) {
    it(`${id} ${claim}`, () => {
      const cut = withCache(false, () => runDemoForClaims(id, { seed: 1 }, [claim]));
      expect((cut.params?.[cutKey] as unknown[]).length).toBeLessThan((getDemo(id).defaults[cutKey] as unknown[]).length);
      const all = withCache(true, () => runDemo(id, { seed: 1 }));
      expect(cut.claims?.find((x) => x.id === claim)).toEqual(all.claims?.find((x) => x.id === claim));
      expect(getDemo(id).narrowForClaims?.([claim, "something-else"], getDemo(id).defaults)).toBeUndefined();
    });
  }
});

describe("07's pairing claim of 03.2 and budget claim of 04.3 computed alone show the full run's line", { timeout: 300_000 }, () => {
  for (const [id, params, claim] of [["03.2", { parts: ["pairing"] }, "pairing-hurts-long"], ["04.3", { seed: 7 }, "budget-grows"]] as const) {
    it(`${id} ${claim}`, () => {
      const cut = withCache(false, () => runDemoForClaims(id, params, [claim]));
      const all = withCache(true, () => runDemo(id, params));
      expect(cut.params).not.toEqual(all.params);
      // what 07 shows: the claim's line (its first reading)
      expect(claimLinesMarkdown(cut, [claim])).toBe(claimLinesMarkdown(all, [claim]));
      const [a, b] = [cut, all].map((t) => t.claims?.find((x) => x.id === claim));
      expect(a?.verdict).toBe(b?.verdict);
      if (id === "03.2") expect(a).toEqual(b);
    });
  }
});

describe("a cut never makes a reader's parameters fail", () => {
  it("03.1 without the workloads the claims read is not cut (the full run says what is missing)", () => {
    const p = { ...getDemo("03.1").defaults, workloads: ["programming"] };
    expect(getDemo("03.1").narrowForClaims?.(["long-video-gain-most"], p)).toBeUndefined();
    expect(getDemo("03.1").narrowForClaims?.(["gap-at-video-8"], { ...getDemo("03.1").defaults, workloads: ["videoQA", "agent"] })).toEqual({ workloads: ["videoQA"], configurations: ["baseline", "baselinePaper", "e2+rebalance", "preble"] });
  });
});
