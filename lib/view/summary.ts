// Compact verdicts for the summary page (07): a few chosen claims of a demo, one item each — the verdict, the claim
// and our figures, and its reason on its own line when it does not hold — and, for a pitfall, a link to the section that shows it.
import type { ClaimResult, Table } from "../core/table";
import { DemoParams, runDemoForClaims } from "../demos/registry";
import { claimSays, figures, verdictBadge, whyLines } from "./claims";
import { displayMarkdown } from "./display";

/** Where a line points: the notebook section that shows the demo in full. */
export interface SectionLink {
  /** the words of the link, e.g. "笔记本 01 §1.2" */
  label: string;
  /** the notebook (relative link), e.g. "01-classic-load-balancing.ipynb" */
  href: string;
  /** the section's heading text exactly as in that notebook (without "## "), e.g. "1.2 五种派发策略 · Five dispatch
   * policies": the link then reaches that heading, not the top of the notebook */
  section?: string;
}

/** The anchor nbconvert gives a markdown heading (spaces → "-", then URL-encoded except ?/:@!$&'()*+,;= and
 * A–Z a–z 0–9 _ . - ~: Python's quote(…, safe="?/:@!$&'()*+,;=") in nbconvert's add_anchor). The classic notebook
 * gives the same heading the id with only spaces → "-"; a browser matches the encoded fragment to it after decoding,
 * so one link reaches the heading in the live notebook and in the handout. */
export function headingAnchor(heading: string): string {
  const kept = /^[A-Za-z0-9_.~?/:@!$&'()*+,;=-]$/;
  return Array.from(heading.replace(/ /g, "-"))
    .map((ch) => (kept.test(ch) ? ch : encodeURIComponent(ch)))
    .join("");
}

/** A section link's target: the notebook, and the heading's anchor when a section is given. */
export function sectionHref(link: SectionLink): string {
  return link.section ? `${link.href}#${headingAnchor(link.section)}` : link.href;
}

/** The claim `id` of a table (a line saying it is missing when the run did not judge it: never throws). */
function claimOf(t: Table, id: string): ClaimResult | string {
  const c = (t.claims ?? []).find((x) => x.id === id);
  return c ?? `演示 ${t.id ?? ""} 这次运行没有判断这条结论`;
}

/** One claim as a list item: verdict, what it says and our figures ("这里：…", the separator the claims view uses, so
 * a dash in the claim itself never runs into it) — and, when it does not hold, why, on its own "原因：" line under
 * it (verdictReason, as everywhere). The first reading only (the lecture's); the notebooks show the others. `link`
 * goes at the end of the claim's own line. */
export function claimLine(c: ClaimResult, link = ""): string {
  const figs = figures(c.ours, c.seeds);
  return [`- ${verdictBadge(c.verdict)} · ${claimSays(c)}${figs ? `　${figs}` : ""}${link}`, ...whyLines(c, "    ")].join("\n");
}

/** The chosen claims of a table as a markdown list, one item each, with an optional link after the last claim. */
export function claimLinesMarkdown(t: Table, ids: readonly string[], link?: SectionLink): string {
  return ids
    .map((id, i) => {
      const c = claimOf(t, id);
      const after = link && i === ids.length - 1 ? `（详见 [${link.label}](${sectionHref(link)})）` : "";
      return typeof c === "string" ? `- ${c}${after}` : claimLine(c, after);
    })
    .join("\n");
}

/** Shows the chosen claims of a demo's run, one line each (the summary's evidence, a pitfall's verdict). */
export function claimLines(t: Table, ids: readonly string[], link?: SectionLink): void {
  displayMarkdown(claimLinesMarkdown(t, ids, link));
}

/** Runs demo `id` as far as the claims `ids` need (only the workloads, configurations … they read, unless an earlier
 * notebook's full run is in the result cache) and shows them, one line each: what 07 shows, computed alone. */
export function claimLinesOf(id: string, params: DemoParams, ids: readonly string[], link?: SectionLink): void {
  claimLines(runDemoForClaims(id, params, ids), ids, link);
}
