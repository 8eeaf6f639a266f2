// §3.2's E2 rule as a picture: each request a point, the tokens its best-matching GPU has cached against the tokens
// it would still have to compute there (missed); the diagonal cached = missed is the decision line. Above it E2
// exploits (sends the request to that GPU), below it explores (picks the GPU by load cost); a rebalancing move is
// marked apart. Fed by plain arrays (a demo's decision log).
import type { Figure } from "./figure/figure";
import { displayName } from "../core/glossary";

export type E2DecisionKind = "exploit" | "explore" | "rebalance";

export interface E2Decision {
  cachedTokens: number;
  missedTokens: number;
  kind: E2DecisionKind;
}

const KIND_ORDER: readonly E2DecisionKind[] = ["exploit", "explore", "rebalance"];
const KIND_LOOK: Record<E2DecisionKind, { color: string; symbol: string }> = {
  exploit: { color: "#1a7f37", symbol: "circle" },
  explore: { color: "#d4730b", symbol: "triangle-up" },
  rebalance: { color: "#8250df", symbol: "x" },
};

/** The scatter of cached vs missed tokens per request, coloured by E2's decision, with the line cached = missed. */
export function e2DecisionChart(decisions: E2Decision[], o: { title?: string; log?: boolean } = {}): Figure {
  if (decisions.length === 0) throw new Error("e2DecisionChart: no decision to draw");
  const points = KIND_ORDER.map((kind) => ({ kind, rows: decisions.filter((d) => d.kind === kind) }))
    .filter((g) => g.rows.length > 0)
    .map((g) => ({
      type: "scatter",
      mode: "markers",
      name: `${displayName(g.kind)}（${g.rows.length}）`,
      x: g.rows.map((d) => d.missedTokens),
      y: g.rows.map((d) => d.cachedTokens),
      marker: { color: KIND_LOOK[g.kind].color, symbol: KIND_LOOK[g.kind].symbol, size: 7, opacity: 0.75 },
    }));
  const values = decisions.flatMap((d) => [d.cachedTokens, d.missedTokens]);
  const positive = values.filter((v) => v > 0);
  const low = o.log ? Math.min(...positive) : 0;
  const high = Math.max(...values, 1);
  const diagonal = { type: "scatter", mode: "lines", name: "已缓存 = 未命中（判定线）", x: [low, high], y: [low, high], line: { color: "#444444", dash: "dash", width: 1.5 } };
  const axis = (title: string) => ({ title, ...(o.log ? { type: "log" as const } : { rangemode: "tozero" }) });
  return {
    data: [...points, diagonal],
    layout: {
      title: o.title ?? "E2 的判定线：每个请求的已缓存与未命中 token",
      xaxis: axis("未命中的 token（要重算的，个）"),
      yaxis: axis("已缓存的 token（个）"),
      legend: { title: { text: "E2 的决定" } },
      annotations: [
        { xref: "paper", yref: "paper", x: 0.02, y: 0.98, xanchor: "left", yanchor: "top", showarrow: false, text: "线上方：已缓存多于未命中 → 利用（发往缓存最多的 GPU）", font: { size: 12, color: KIND_LOOK.exploit.color } },
        { xref: "paper", yref: "paper", x: 0.98, y: 0.02, xanchor: "right", yanchor: "bottom", showarrow: false, text: "线下方：未命中更多 → 探索（按负载代价挑 GPU）", font: { size: 12, color: KIND_LOOK.explore.color } },
      ],
    },
  };
}
