// §5's shared lessons as demos: each collects several demos' numbers (at those demos' defaults) and judges the lesson.
import { describe, expect, it } from "vitest";
import { rowsWhere } from "../lib/core";
import { runDemo } from "../lib/demos";
import type { Table } from "../lib/core/table";
import { resultCacheForThisFile } from "./support/result-cache-folder";

// A result cache of this file's own: 05.x read their sub-demos at those demos' defaults, and the three share some (02.1, 05.2).
resultCacheForThisFile();

const verdicts = (t: Table) => Object.fromEntries((t.claims ?? []).map((c) => [c.id, c.verdict]));

describe("05.3 herding and its cure at each level", { timeout: 60_000 }, () => {
  const t = runDemo("05.3");
  it("every verdict at defaults, one herding rule and one cure per case, at both levels", () => {
    expect(verdicts(t)).toEqual({ "herding-everywhere": "holds", "cures-work": "holds" });
    expect(rowsWhere(t, { role: "herding" }).map((r) => r.rule)).toEqual(["jsq", "prefixAffinity", "e2", "sameGenerators"]);
    expect(rowsWhere(t, { role: "cure" }).map((r) => r.rule)).toEqual(["powerOfTwo", "thresholdAffinity", "e2+rebalance", "mixedGenerators"]);
    expect(new Set(t.rows.map((r) => r.level))).toEqual(new Set(["requestToReplica", "moduleToModel"]));
    // three identical generators: the most-used model holds all three slots
    expect(rowsWhere(t, { rule: "sameGenerators" })[0].share).toBe(1);
  });
});

describe("05.4 simple rules take most of the gain", { timeout: 60_000 }, () => {
  const t = runDemo("05.4");
  it("every verdict at defaults; each level has a row", () => {
    // one-threshold-router: its price is the training-set threshold's, and on the test set the router is 1.3 points below
    // the strongest model (the target is 1): it does not catch up there
    expect(verdicts(t)).toEqual({ "two-choice": "holds", "guarded-vs-preble": "holds", "elaborate-at-the-edge": "holds", "greedy-most-pools": "fails", "one-threshold-router": "fails" });
    expect(new Set(t.rows.map((r) => r.level))).toEqual(new Set(["requestToReplica", "requestToModel", "moduleToModel"]));
  });
  it("the captured share is computed the right way round for lower- and higher-is-better metrics", () => {
    for (const r of t.rows) {
      const [b, s, e] = [Number(r.baseline), Number(r.simple), Number(r.elaborate)];
      const expected = r.lowerBetter ? (b - s) / (b - e) : (s - b) / (e - b);
      expect(Number(r.captured)).toBeCloseTo(expected, 12);
    }
  });
});

describe("05.5 information and its freshness", { timeout: 60_000 }, () => {
  it("every verdict at defaults; a fresher snapshot changes the load row", () => {
    const t = runDemo("05.5");
    expect(verdicts(t)).toEqual({ "load-info": "holds", "cache-info": "holds", "signal-info": "holds", "diagnosis-info": "holds" });
    const s = runDemo("05.5", { staleInterval: 0.5 });
    expect(s.title).toContain("T = 0.5");
    expect(() => runDemo("05.5", { staleInterval: 0 })).toThrow(/参数 staleInterval/);
  });
});
