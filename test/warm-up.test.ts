// The kernel's warm-up runs (lib/demos/warm-up.ts, called by scripts/kernel-startup.cjs) leave no trace in what a
// demo computes after them: the same tables before and after, for the §2 / §3 cluster demos and the §1 dispatch ones
// whose code paths they warm.
import { describe, expect, it } from "vitest";
import { runDemo } from "../lib/demos/index";
import { warmEngines, warmRunsDone } from "../lib/demos/warm-up";
import { SMALL } from "./support/demo-sizes";

const IDS = ["02.4", "03.3", "01.2", "01.3"];

describe("the kernel's warm-up runs", () => {
  it("change no demo's table: the same numbers before and after them", () => {
    const before = IDS.map((id) => runDemo(id, SMALL[id] ?? {}));
    expect(warmEngines()).toBe(8);
    expect(warmRunsDone()).toBeGreaterThanOrEqual(8);
    const after = IDS.map((id) => runDemo(id, SMALL[id] ?? {}));
    after.forEach((t, k) => expect(t, IDS[k]).toEqual(before[k]));
  }, 60_000);
});
