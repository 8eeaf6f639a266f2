// Errors point at what the user typed: a bad name in a list parameter is reported under that parameter's own name
// (not an internal one such as "router"), with the allowed names, and before any cross-check of list lengths (an
// unknown workload is named first, not "rates: needs one entry per workload"). Both through runDemo (what a notebook
// cell calls) and through the CLI (`npm run demo -- <id> --key=value`, which turns one value into a one-element list).
import { describe, expect, it } from "vitest";
import { getDemo, listDemos, runDemo } from "../lib/demos/index";
import { ParameterError } from "../lib/core/errors";
import { ROOT, runProcess } from "./support/processes";
import * as path from "path";

function errorOf(id: string, overrides: Record<string, unknown>): ParameterError {
  try {
    runDemo(id, overrides);
  } catch (e) {
    if (e instanceof ParameterError) return e;
    throw new Error(`${id}: expected a ParameterError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  throw new Error(`${id}: ran with ${JSON.stringify(overrides)} instead of refusing it`);
}

/** The demos whose default for `param` is a list of names (strings). */
function demosWithNameList(param: string): string[] {
  return listDemos()
    .filter((d) => Array.isArray(d.defaults[param]) && (d.defaults[param] as unknown[]).every((v) => typeof v === "string"))
    .map((d) => d.id);
}

describe("an unknown name in a list parameter is reported under that parameter", () => {
  const withPolicies = demosWithNameList("policies");
  const withWorkloads = demosWithNameList("workloads");

  it("the lecture has demos with such parameters (03.5 policies, 03.1 workloads among them)", () => {
    expect(withPolicies).toContain("03.5");
    expect(withWorkloads).toContain("03.1");
  });

  for (const id of withPolicies) {
    it(`${id} --policies=fastest names "policies", the value and the allowed names`, () => {
      const e = errorOf(id, { policies: ["fastest"] });
      expect(e.parameter).toMatch(/^policies(\[0\])?$/);
      expect(e.message).toMatch(/^参数 policies(\[0\])?：/);
      expect(e.message).toContain('"fastest"');
      expect(e.message, "names an allowed policy").toContain(JSON.stringify((getDemo(id).defaults.policies as string[])[0]));
      expect(e.message, "in Chinese").toMatch(/[\u4e00-\u9fff]{2}/);
      expect(e.message).not.toContain("router");
    });
  }

  for (const id of withWorkloads) {
    it(`${id} --workloads=chat names the unknown workload before any list-length check`, () => {
      const e = errorOf(id, { workloads: ["chat"] });
      expect(e.parameter).toMatch(/^workloads(\[0\])?$/);
      expect(e.message).toContain('"chat"');
      expect(e.message, "names an allowed workload").toContain(JSON.stringify((getDemo(id).defaults.workloads as string[])[0]));
      expect(e.message, "in Chinese").toMatch(/[\u4e00-\u9fff]{2}/);
      expect(e.message).not.toMatch(/needs one entry|rates|replicas/);
    });
  }

  it(
    "the CLI prints the same message on one line, no stack trace, exit 2: npm run demo -- 03.5 --policies=fastest",
    async () => {
      const r = await runProcess(process.execPath, [path.join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), path.join(ROOT, "lib", "cli.ts"), "03.5", "--policies=fastest"]);
      expect(r.code, r.output).toBe(2);
      expect(r.output.trim().split("\n")[0]).toMatch(/^错误：参数 policies(\[0\])?：应为以下之一：.*实际是 "fastest"$/);
      expect(r.output).not.toMatch(/\n\s+at /); // no stack trace
    },
    60_000,
  );
});
