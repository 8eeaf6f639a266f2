// The fixed scenarios of coding exercise 12 (notebook 08): E2's exploit / explore decision written by the student as
// Preble's `decide(request, state)` hook. Hand-made states whose right decision the test cell computes by hand (the
// global tree's match, each GPU's L + M + P), exercise 3's long-document request on a real Preble router, and the
// lecture's §3 runs where every decision must equal the library's E2.
import { displayName } from "../core/glossary";
import { ParameterError } from "../core/errors";
import { decideAfterPlacing } from "../cluster/preble/cases";
import { DECISION_KINDS } from "../cluster/preble/index";
import type { PrebleDecide, PrebleDecision, PrebleState } from "../cluster/preble/index";
import type { ClusterRequest, Segment } from "../cluster/workloads";
import { prebleOnPage, PAGE_SCENARIOS } from "../demos/preble/page";
import { promptOf } from "./coding-cases";

/** A decision in words, as the test messages show it: "利用 exploit GPU 2"; anything else as it came back. */
export function decisionText(d: unknown): string {
  const x = d as Partial<PrebleDecision> | null;
  if (x && typeof x === "object" && typeof x.gpu === "number" && DECISION_KINDS.includes(x.kind as never)) return `${displayName(x.kind as string)} GPU ${x.gpu}`;
  let shown: string;
  try {
    shown = JSON.stringify(d) ?? String(d);
  } catch {
    shown = String(d);
  }
  return `${shown}（应为 { gpu, kind }）`;
}

export interface E2StateSpec {
  /** the global tree's longest match: tokens cached anywhere, and missed = prompt − cached */
  cached: number;
  missed: number;
  /** GPUs holding that match */
  holders: number[];
  /** L + M + P of this request on each GPU (seconds); the number of GPUs is its length */
  costs: number[];
  /** rebalancing: chosen GPU → target (absent: no redirect, −1) */
  redirect?: Record<number, number>;
}

/** A hand-made PrebleState: the match, each GPU's load cost as given (all of it in L), the redirect map; no
 * pairing. Everything else reads as an idle cluster. */
export function e2StateWith(spec: E2StateSpec): PrebleState {
  const n = spec.costs.length;
  if (spec.holders.some((g) => !(g >= 0 && g < n))) throw new ParameterError("holders", `应为 0–${n - 1} 的 GPU 编号（costs 有 ${n} 项）`);
  const gpus = Array.from({ length: n }, (_, g) => g);
  return {
    gpus,
    now: 0,
    match: { cached: spec.cached, missed: spec.missed, holders: [...spec.holders] },
    matchOn: (g) => (spec.holders.includes(g) ? spec.cached : 0),
    window: () => ({ requests: 0, prefillSeconds: 0, decodeSecondsPerToken: 0 }),
    meanOutputTokens: 45,
    prefillSeconds: () => 0,
    capacityTokens: 1e6,
    allocatedTokens: () => 0,
    evictionOrder: () => [],
    isDecodeHeavy: () => false,
    outstandingRequests: () => 0,
    dispatches: 0,
    settings: { pairing: false, pairingPrefillTokens: 0, rebalance: spec.redirect !== undefined, thBal: 1.5, rebalanceAfter: 0 },
    loadCost: (g) => ({ L: spec.costs[g], M: 0, P: 0, total: spec.costs[g] }),
    redirect: (chosen) => spec.redirect?.[chosen] ?? -1,
  };
}

/** The student's E2 on a hand-made state, in words ("探索 explore GPU 1"). */
export function e2On(decide: PrebleDecide, spec: E2StateSpec): string {
  return decisionText(decide(promptOf(spec.cached + spec.missed), e2StateWith(spec)));
}

const seg = (id: number, tokens: number): Segment => ({ id, tokens });
const request = (id: number, segments: Segment[]): ClusterRequest => ({
  id,
  arrival: id === 99 ? 1 : 0,
  segments,
  promptTokens: segments.reduce((a, s) => a + s.tokens, 0),
  outputTokens: 40,
  outputSegment: seg(1000 + id, 40),
  key: 0,
  keySegment: segments[1]?.id ?? 0,
});

/** Exercise 3's cluster (lecture §9): 4 GPUs, A6000 + Mistral-7B; a 13-token system prompt everywhere, GPU 2 also
 * holds the 21,000-token document; then a request of system prompt + document + a question of `questionTokens`
 * (exercise 3: 1,987) is decided — by `decide` (the student's E2), or by the library's E2 when it is absent.
 * Returns the decision in words and the match the global tree saw. */
export function exercise3Decision(decide?: PrebleDecide, questionTokens = 1987): { decision: string; cached: number; missed: number } {
  const system = seg(1, 13);
  const doc = seg(2, 21000);
  const placed = [0, 1, 2, 3].map((gpu) => ({ request: request(gpu, gpu === 2 ? [system, doc, seg(10, 200)] : [system, seg(20 + gpu, 300)]), gpu }));
  const d = decideAfterPlacing(placed, request(99, [system, doc, seg(30, questionTokens)]), 4, decide ? { decide } : {});
  return { decision: decisionText(d), cached: d.cached, missed: d.missed };
}

/** A §3 run (PAGE_SCENARIOS: a workload at its cost rate on 4 GPUs, or the hot spot on 8) under a configuration
 * without pairing, once with the library's E2 and once with `decide`: null when every decision (kind and GPU) is
 * the same, else the first that differs in one line. */
export function e2Difference(decide: PrebleDecide, scenario = "toolCallingHotSpot", configuration = "e2+rebalance", requestCount = 800): string | null {
  if (!(scenario in PAGE_SCENARIOS)) throw new ParameterError("scenario", `应为 ${Object.keys(PAGE_SCENARIOS).join("、")} 之一`);
  if (configuration !== "e2" && configuration !== "e2+rebalance") throw new ParameterError("configuration", "应为 e2 或 e2+rebalance（练习 12 的 E2 不做搭配）");
  const t = prebleOnPage({ decide }, { scenarios: [scenario], configuration, requestCount });
  const row = t.rows[t.rows.length - 1];
  return row.firstDiff === null ? null : `从第 ${(row.firstDiff as number) + 1} 个决定起不同（${String(row.diffWhat)}）`;
}
