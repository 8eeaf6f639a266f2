// A verdict or status drawn by the page, not by a font: a small coloured label with its word (成立, 正确 …). Emoji
// marks (a green tick box, a red cross) and dingbats (check mark, ballot x) show as empty boxes on a machine without
// an emoji font, and the handouts ship a Chinese font only; a word in a CSS box renders wherever the Chinese does.
import { escapeHtml } from "./table";

export interface BadgeLook {
  /** the word the badge shows */
  word: string;
  /** its colour: the fill, or the border and the word when `outline` */
  colour: string;
  /** an outlined badge (a state that is not a verdict yet: 无法判断, 尚未作答) */
  outline?: boolean;
  /** a class name after "l11-badge" (e.g. "l11-verdict-holds"), for tests and page styles */
  kind?: string;
}

const BASE_STYLE = "display:inline-block;padding:0 0.5em;border-radius:0.75em;font-weight:bold;font-size:90%;line-height:1.45;white-space:nowrap;vertical-align:baseline";

/** The badge as inline HTML: a span with its style inline, so it needs no stylesheet (notebook, handout, markdown). */
export function badgeHtml(look: BadgeLook): string {
  const colours = look.outline
    ? `background:#ffffff;color:${look.colour};border:1px dashed ${look.colour}`
    : `background:${look.colour};color:#ffffff;border:1px solid ${look.colour}`;
  const kind = look.kind ? ` ${escapeHtml(look.kind)}` : "";
  return `<span class="l11-badge${kind}" style="${BASE_STYLE};${colours}">${escapeHtml(look.word)}</span>`;
}
