// §3.1's global radix tree drawn as a tree (an inline SVG: the bundled plotly.js has no treemap): the root on the
// left, each segment a box with its tokens, and below it a chip for every GPU that holds it; the segments a new
// request inserted at dispatch time have a dashed orange frame. Fed by plain arrays (a demo's tree after a handful
// of requests); radixTreeText gives the same tree as indented text.
import { escapeHtml } from "./table";
import { displayHtml } from "./display";
import { seriesLook } from "./figure/palette";

export interface RadixNodeDrawing {
  id: string;
  /** the parent's id; none for the root (or several roots) */
  parent?: string;
  /** what the segment is, e.g. "系统提示" or "样本 3" */
  label: string;
  tokens: number;
  /** the GPUs (replica indices) whose cache holds this segment */
  gpus: number[];
  /** inserted by the request being dispatched */
  inserted?: boolean;
}

export interface PlacedNode extends RadixNodeDrawing {
  depth: number;
  /** the row of the node's centre (leaves take rows 0, 1, 2 …; a parent sits midway between its children) */
  row: number;
}

const BOX_W = 150;
const BOX_H = 46;
const COL_GAP = 50;
const ROW_H = 62;
const PAD = 12;

function childrenOf(nodes: RadixNodeDrawing[]): Map<string | undefined, RadixNodeDrawing[]> {
  const ids = new Set(nodes.map((n) => n.id));
  if (ids.size !== nodes.length) throw new Error("radix tree: node ids must be unique");
  const children = new Map<string | undefined, RadixNodeDrawing[]>();
  for (const n of nodes) {
    if (n.parent !== undefined && !ids.has(n.parent)) throw new Error(`radix tree: node "${n.id}" has an unknown parent "${n.parent}"`);
    children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
  }
  return children;
}

/** Depth and row of every node, in drawing order (parents before children); throws on a cycle. */
export function placeRadixTree(nodes: RadixNodeDrawing[]): PlacedNode[] {
  const children = childrenOf(nodes);
  const placed: PlacedNode[] = [];
  let nextLeaf = 0;
  const visit = (n: RadixNodeDrawing, depth: number, path: Set<string>): number => {
    if (path.has(n.id)) throw new Error(`radix tree: cycle through "${n.id}"`);
    const mine: PlacedNode = { ...n, depth, row: 0 };
    placed.push(mine);
    const kids = children.get(n.id) ?? [];
    const rows = kids.map((k) => visit(k, depth + 1, new Set([...path, n.id])));
    mine.row = rows.length === 0 ? nextLeaf++ : (rows[0] + rows[rows.length - 1]) / 2;
    return mine.row;
  };
  for (const root of children.get(undefined) ?? []) visit(root, 0, new Set());
  if (placed.length !== nodes.length) throw new Error("radix tree: some nodes are not reachable from a root (a cycle)");
  return placed;
}

function shortLabel(text: string, max = 9): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

function nodeSvg(n: PlacedNode, gpuCount: number): string {
  const x = PAD + n.depth * (BOX_W + COL_GAP);
  const y = PAD + n.row * ROW_H;
  const frame = n.inserted ? 'stroke="#d4730b" stroke-width="2" stroke-dasharray="5 3"' : 'stroke="#57606a" stroke-width="1"';
  const chips = n.gpus
    .map((g, i) => {
      const look = seriesLook(g, Math.max(gpuCount, g + 1));
      return `<g class="l11-gpu"><rect x="${x + 6 + i * 30}" y="${y + 26}" width="26" height="15" rx="3" fill="${look.color}"/><text x="${x + 19 + i * 30}" y="${y + 37}" font-size="10" fill="#ffffff" text-anchor="middle">G${g}</text></g>`;
    })
    .join("");
  return (
    `<g class="l11-node" data-id="${escapeHtml(n.id)}"><title>${escapeHtml(`${n.label}：${n.tokens} 个 token；GPU ${n.gpus.join("、") || "无"}`)}</title>` +
    `<rect x="${x}" y="${y}" width="${BOX_W}" height="${BOX_H}" rx="6" fill="${n.inserted ? "#fff4e5" : "#f6f8fa"}" ${frame}/>` +
    `<text x="${x + 6}" y="${y + 17}" font-size="12" fill="#24292f">${escapeHtml(shortLabel(n.label))} · ${n.tokens}</text>${chips}</g>`
  );
}

function edgeSvg(child: PlacedNode, parent: PlacedNode): string {
  const x1 = PAD + parent.depth * (BOX_W + COL_GAP) + BOX_W;
  const y1 = PAD + parent.row * ROW_H + BOX_H / 2;
  const x2 = PAD + child.depth * (BOX_W + COL_GAP);
  const y2 = PAD + child.row * ROW_H + BOX_H / 2;
  const mid = (x1 + x2) / 2;
  return `<path class="l11-edge" d="M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}" fill="none" stroke="#8c959f" stroke-width="1.5"/>`;
}

/** The tree as an inline SVG (with a title line and a legend of what the marks mean). */
export function radixTreeSvg(nodes: RadixNodeDrawing[], o: { gpuCount: number; title?: string }): string {
  const placed = placeRadixTree(nodes);
  const byId = new Map(placed.map((n) => [n.id, n]));
  const depth = Math.max(0, ...placed.map((n) => n.depth));
  const rows = Math.max(0, ...placed.map((n) => n.row)) + 1;
  const width = PAD * 2 + (depth + 1) * BOX_W + depth * COL_GAP;
  const height = PAD * 2 + (rows - 1) * ROW_H + BOX_H;
  const edges = placed.filter((n) => n.parent !== undefined).map((n) => edgeSvg(n, byId.get(n.parent as string) as PlacedNode));
  const title = o.title ?? "全局基数树：每段的 token 数和持有它的 GPU";
  const legend = "方框：一段提示（名称 · token 数）；彩色小块：全局树记下的、这一段派去的 GPU（派发时就记下，那里不一定已经算完）；橙色虚线框：正在派发的请求新插入的段。";
  return (
    `<figure class="l11-radix-tree" style="margin:8px 0"><figcaption style="font-weight:bold;margin-bottom:4px">${escapeHtml(title)}</figcaption>` +
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}" style="max-width:100%;height:auto;font-family:inherit">` +
    `${edges.join("")}${placed.map((n) => nodeSvg(n, o.gpuCount)).join("")}</svg>` +
    `<div style="font-size:90%;color:#57606a">${escapeHtml(legend)}</div></figure>`
  );
}

/** The tree as indented text (terminals, tests): one line a segment. */
export function radixTreeText(nodes: RadixNodeDrawing[]): string {
  return placeRadixTree(nodes)
    .map((n) => `${"  ".repeat(n.depth)}${n.label} · ${n.tokens} token · GPU ${n.gpus.length ? n.gpus.join(",") : "—"}${n.inserted ? " · 新插入" : ""}`)
    .join("\n");
}

/** Draws the tree in the notebook (its text elsewhere). */
export function showRadixTree(nodes: RadixNodeDrawing[], o: { gpuCount: number; title?: string }): void {
  displayHtml({ html: radixTreeSvg(nodes, o), text: radixTreeText(nodes) });
}
