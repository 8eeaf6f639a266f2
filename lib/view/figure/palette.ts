// Colours for a chart's series: one distinct colour per series. Up to 10 series the familiar D3 / Plotly palette;
// past 10 a 24-colour one (Plotly's Dark24); past 24 the colours repeat with a dash pattern (lines) or a hatch
// (bars), so no two series of one chart look the same (06.4 drew 13 lines from 10 colours: two shared one blue).

export const PALETTE_10: readonly string[] = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
/** Plotly's Dark24, reordered so that the first dozen or so differ most (06.4 draws 13 lines). */
export const PALETTE_24: readonly string[] = [
  "#2E91E5", "#EB663B", "#1CA71C", "#FB0D0D", "#750D86", "#222A2A", "#B68100", "#00A08B", "#FB00D1", "#778AAE", "#862A16", "#A777F1",
  "#1616A7", "#6C7C32", "#E15F99", "#B2828D", "#620042", "#511CFB", "#DA60CA", "#6C4516", "#0D2A63", "#AF0038", "#DA16FF", "#FC0080",
];
const DASHES: readonly string[] = ["solid", "dash", "dot", "dashdot", "longdash", "longdashdot"];
const HATCHES: readonly string[] = ["", "/", ".", "x", "-", "|"];

/** The palette for a chart of `count` series. */
export function paletteFor(count: number): readonly string[] {
  return count <= PALETTE_10.length ? PALETTE_10 : PALETTE_24;
}

/** Series `index` of `count`: its colour, and (past the palette) a line dash and a bar hatch that tell it apart. */
export function seriesLook(index: number, count: number): { color: string; dash: string; hatch: string } {
  const palette = paletteFor(count);
  const round = Math.floor(index / palette.length);
  return { color: palette[index % palette.length], dash: DASHES[round % DASHES.length], hatch: HATCHES[round % HATCHES.length] };
}
