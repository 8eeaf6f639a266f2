// Text beside each point of a scatter (e.g. the allocation "A+B" at its cost and accuracy): above the marker; below it
// where another point sits just above; to its right where points sit just above and just below — so that the labels
// of close points do not print over each other or over a neighbouring marker.

/** Where each point's label goes ("top center", "bottom center" or "middle right"), given every point of the chart. */
export function labelPositions(points: ReadonlyArray<{ x: number; y: number }>): string[] {
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y);
  const xSpan = Math.max(...xs) - Math.min(...xs) || 1;
  const ySpan = Math.max(...ys) - Math.min(...ys) || 1;
  const near = (p: { x: number; y: number }, i: number, side: 1 | -1) =>
    points.some((q, j) => j !== i && Math.abs(q.x - p.x) <= 0.04 * xSpan && side * (q.y - p.y) > 0 && Math.abs(q.y - p.y) <= 0.08 * ySpan);
  return points.map((p, i) => (!near(p, i, 1) ? "top center" : !near(p, i, -1) ? "bottom center" : "middle right"));
}

/** The text settings of each group's trace: every row's label (`text(row)`) at its position among all the groups'
 * points, and the trace mode with "+text". */
export function pointLabelTraces<R extends Record<string, unknown>>(groups: ReadonlyArray<readonly R[]>, x: string, y: string, text: (row: R) => string, mode: string): Array<Record<string, unknown>> {
  const points = groups.flat();
  const at = labelPositions(points.map((r) => ({ x: Number(r[x]), y: Number(r[y]) })));
  return groups.map((rows) => ({ mode: `${mode}+text`, text: rows.map(text), textposition: rows.map((r) => at[points.indexOf(r)]), textfont: { size: 10 } }));
}
