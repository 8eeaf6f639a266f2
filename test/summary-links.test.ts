// The summary page (07) links each verdict line to the section that shows the demo in full: the link carries the
// heading's anchor in nbconvert's form, and every section named in 07 is a real heading of its notebook.
import * as fs from "fs";
import * as path from "path";
import { describe, expect, it } from "vitest";
import { claimLine, headingAnchor, sectionHref } from "../lib/view/summary";
import { claimMarkdown } from "../lib/view/claims";
import type { ClaimResult } from "../lib/core/table";

const NOTEBOOKS = path.join(__dirname, "..", "notebooks");
const cellsOf = (file: string): Array<{ cell_type: string; source: string[] | string }> => JSON.parse(fs.readFileSync(path.join(NOTEBOOKS, file), "utf8")).cells;
const text = (c: { source: string[] | string }) => (Array.isArray(c.source) ? c.source.join("") : c.source);

describe("section links on the summary page", () => {
  it("headingAnchor: spaces → '-', non-ASCII UTF-8 percent-encoded, nbconvert's safe characters kept", () => {
    // hand-encoded: 负 E8 B4 9F, 载 E8 BD BD, · C2 B7
    expect(headingAnchor("3.3 负载 L + M · The cost")).toBe("3.3-%E8%B4%9F%E8%BD%BD-L-+-M-%C2%B7-The-cost");
    expect(headingAnchor("2.4 win: the cluster's cache, a/b")).toBe("2.4-win:-the-cluster's-cache,-a/b");
    expect(headingAnchor('a "b" #c')).toBe("a-%22b%22-%23c");
    expect(decodeURIComponent(headingAnchor("4.4 我们的玩具复现 · Our toy reproduction"))).toBe("4.4-我们的玩具复现-·-Our-toy-reproduction");
  });
  it("sectionHref: the notebook alone without a section, notebook#anchor with one", () => {
    expect(sectionHref({ label: "x", href: "01-a.ipynb" })).toBe("01-a.ipynb");
    expect(sectionHref({ label: "x", href: "01-a.ipynb", section: "1.2 A b" })).toBe("01-a.ipynb#1.2-A-b");
  });
  it("every link in 07 names a section, and that section is a '## ' heading of the linked notebook", () => {
    const code = cellsOf("07-summary-pitfalls.ipynb").filter((c) => c.cell_type === "code").map(text).join("\n");
    const links = [...code.matchAll(/\{ label: "[^"]*", href: "([^"]+)"(?:, section: "([^"]+)")? \}/g)];
    expect(links.length).toBeGreaterThan(10);
    for (const [, href, section] of links) {
      expect(section, `${href} without a section`).toBeDefined();
      const headings = cellsOf(href).filter((c) => c.cell_type === "markdown").flatMap((c) => text(c).split("\n")).filter((l) => l.startsWith("## ")).map((l) => l.slice(3));
      expect(headings, `${href} has no heading "${section}"`).toContain(section);
    }
  });
});

describe("a claim line on the summary page reads as in its notebook", () => {
  it("keeps the 'our addition' mark and the seed count the notebook's claims view shows", () => {
    const c = { id: "x", says: "重尾时轮转省下的不到一半", lecture: "", verdict: "holds", ours: "3.1 对 7.2", seeds: { agree: 2, total: 3 }, ourStatement: true } as unknown as ClaimResult;
    const line = claimLine(c);
    expect(line).toContain("重尾时轮转省下的不到一半（我们补充的说法，不是讲义的结论）");
    expect(line).toContain("这里：3.1 对 7.2；3 个种子中 2 个成立");
    expect(claimMarkdown(c)).toContain("（我们补充的说法，不是讲义的结论）");
    expect(claimLine({ ...c, ourStatement: undefined, seeds: undefined } as ClaimResult)).not.toMatch(/我们补充|种子/);
  });
});
