// Reading a reader's answer the way a person writes it: numbers as strings, full-width characters, thousands
// separators, "36%", "10^6", "100万", "3.77 秒", and the lecture's Chinese words for a choice ("利用").

const SUPERSCRIPT: Record<string, string> = { "⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7", "⁸": "8", "⁹": "9", "⁻": "-" };

/** Full-width → half-width (NFKC), superscript exponents → ^n, the minus sign and × spelled the ASCII way. */
export function normalizeText(s: string): string {
  const sup = s.replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+/g, (m) => "^" + [...m].map((c) => SUPERSCRIPT[c]).join(""));
  return sup.normalize("NFKC").replace(/[−–—]/g, "-").replace(/[×]/g, "x").replace(/\u3000/g, " ").trim();
}

/** A value the notebook puts there before the reader answers: NaN, "?", "", undefined / null. */
export function isPlaceholder(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (typeof v === "number") return Number.isNaN(v);
  if (typeof v === "string") {
    const t = normalizeText(v);
    return t === "" || t === "?" || t.toLowerCase() === "nan";
  }
  return false;
}

/** Drops the commas of well-formed thousands groups: "219,089" → "219089" (not "5,26", a decimal comma). */
export function dropThousandsSeparators(s: string): string {
  return s.replace(/(?<![\d.])\d{1,3}(?:[,_]\d{3})+(?!\d)/g, (m) => m.replace(/[,_]/g, ""));
}

// One number as written: 219089, 0.36, .5, 1e6, 10^6, 10**6, 2.19x10^5, with an optional %, ‰, 万 or 亿.
const NUMBER = /[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?(?:\s*(?:\^|\*\*)\s*[+-]?\d+)?(?:\s*x\s*10\s*(?:\^|\*\*)\s*[+-]?\d+)?\s*(?:%|‰|万|亿)?/gi;

export type ParsedNumber =
  | { ok: true; value: number; percent: boolean; note?: string }
  | { ok: false; kind: "type" | "format"; message: string };

function numberFromToken(token: string): { value: number; percent: boolean } {
  let t = token.replace(/\s+/g, "");
  let scale = 1;
  let percent = false;
  if (t.endsWith("%")) (scale = 0.01), (percent = true), (t = t.slice(0, -1));
  else if (t.endsWith("‰")) (scale = 0.001), (percent = true), (t = t.slice(0, -1));
  else if (t.endsWith("万")) (scale = 1e4), (t = t.slice(0, -1));
  else if (t.endsWith("亿")) (scale = 1e8), (t = t.slice(0, -1));
  let value: number;
  const sci = /^(.*?)x10(?:\^|\*\*)([+-]?\d+)$/i.exec(t);
  const pow = /^(.*?)(?:\^|\*\*)([+-]?\d+)$/.exec(t);
  if (sci) value = Number(sci[1]) * Math.pow(10, Number(sci[2]));
  else if (pow) value = Math.pow(Number(pow[1]), Number(pow[2]));
  else value = Number(t);
  return { value: value * scale, percent };
}

/** Reads one number from a reader's value (a number, or a string such as "219,089", "36%", "3.77 秒", "１０"). */
export function parseNumber(v: unknown): ParsedNumber {
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return { ok: false, kind: "type", message: `${v} 不是一个有限的数` };
    return { ok: true, value: v, percent: false };
  }
  if (typeof v === "bigint") return { ok: true, value: Number(v), percent: false };
  if (typeof v !== "string") return { ok: false, kind: "type", message: `应是一个数，你给的是${describeType(v)}` };
  const text = normalizeText(v);
  if (/\d,\d{1,2}(?!\d)/.test(text) && !/\d,\d{3}/.test(text)) {
    return { ok: false, kind: "format", message: `"${v}" 里的逗号像是小数点：逗号只作千位分隔，小数点请写「.」` };
  }
  const tokens = dropThousandsSeparators(text).match(NUMBER) ?? [];
  if (tokens.length === 0) return { ok: false, kind: "type", message: `应是一个数，你给的是文字 "${v}"` };
  if (tokens.length > 1) return { ok: false, kind: "format", message: `"${v}" 里有 ${tokens.length} 个数，这里只要一个` };
  const { value, percent } = numberFromToken(String(tokens[0]));
  if (!Number.isFinite(value)) return { ok: false, kind: "format", message: `读不出 "${v}" 是多少` };
  return { ok: true, value, percent };
}

export type ParsedChoice = { ok: true; value: string } | { ok: false; kind: "type" | "format"; message: string };

const squash = (s: string) => normalizeText(s).toLowerCase().replace(/[\s"'“”‘’「」『』。.!！]/g, "");

/** Reads a choice: "exploit", " Exploit ", "利用", "利用（exploit）" → "exploit"; "Ａ＋Ｂ" → "A+B". */
export function parseChoice(v: unknown, choices: string[][]): ParsedChoice {
  const options = choices.map((c) => `"${c[0]}"${c.length > 1 ? `（${c.slice(1).join(" / ")}）` : ""}`).join(" 或 ").replace(/） 或/g, "）或");
  if (typeof v !== "string") {
    return { ok: false, kind: "type", message: `应是文字 ${options}，你给的是${describeType(v)}` };
  }
  const s = squash(v);
  const found = choices.filter((c) => c.some((w) => s === squash(w) || s.includes(squash(w))));
  if (found.length === 1) return { ok: true, value: found[0][0] };
  if (found.length > 1) return { ok: false, kind: "format", message: `"${v}" 里同时出现了 ${found.map((c) => `"${c[0]}"`).join(" 和 ")}，只能选一个` };
  return { ok: false, kind: "format", message: `"${v}" 不是可选的答案之一：请写 ${options}` };
}

/** "一个数 5"、"文字 "abc""、"true（布尔值）" … for messages. */
export function describeType(v: unknown): string {
  if (typeof v === "number") return `数 ${v}`;
  if (typeof v === "string") return `文字 "${v}"`;
  if (typeof v === "boolean") return `布尔值 ${v}`;
  if (Array.isArray(v)) return `含 ${v.length} 个值的数组`;
  if (v === null || v === undefined) return "空值";
  if (typeof v === "function") return "一个函数";
  return "一个对象";
}

/** Splits one string holding several values ("5.26, 3.79", "21,013、1,987、利用、2") into its parts. */
export function splitValues(s: string, expected: number): string[] {
  const text = dropThousandsSeparators(normalizeText(s));
  const byPunctuation = text.split(/\s*[,;、|/\n]\s*/).filter((x) => x !== "");
  if (byPunctuation.length === expected) return byPunctuation;
  const bySpace = text.split(/\s+/).filter((x) => x !== "");
  if (bySpace.length === expected) return bySpace;
  return byPunctuation;
}
