// Text beside each point of a scatter (e.g. the allocation "A+B" at its cost and accuracy): above the marker, or
// below it where another point sits just above — so that two close points' labels do not print over each other.

/** Where each point's label goes ("top center" or "bottom center"), given every point of the chart. */
export function labelPositions(points: ReadonlyArray<{ x: number; y: number }>): string[] {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const xSpan = Math.max(...xs) - Math.min(...xs) || 1;
  const ySpan = Math.max(...ys) - Math.min(...ys) || 1;
  return points.map((p, i) => {
    const crowdedAbove = points.some((q, j) => j !== i && Math.abs(q.x - p.x) <= 0.04 * xSpan && q.y > p.y && q.y - p.y <= 0.08 * ySpan);
    return crowdedAbove ? "bottom center" : "top center";
  });
}

/** The text settings of each group's trace: every row's label (`text(row)`) at its position among all the groups'
 * points, and the trace mode with "+text". */
export function pointLabelTraces<R extends Record<string, unknown>>(groups: ReadonlyArray<readonly R[]>, x: string, y: string, text: (row: R) => string, mode: string): Array<Record<string, unknown>> {
  const points = groups.flat();
  const at = labelPositions(points.map((r) => ({ x: Number(r[x]), y: Number(r[y]) })));
  return groups.map((rows) => ({ mode: `${mode}+text`, text: rows.map(text), textposition: rows.map((r) => at[points.indexOf(r)]), textfont: { size: 10 } }));
}
