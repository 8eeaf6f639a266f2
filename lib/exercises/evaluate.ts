// Comparing a reader's answer with the reference, generously and with a reason: an untouched placeholder is
// "尚未作答"; a wrong type, a wrong count and a wrong order each get their own message; a known slip (a percentage
// for a share, GiB for GB, a factor of 1000) is named; a right value written in an ordinary way is accepted.
import { ParameterError } from "../core/errors";
import { describeType, isPlaceholder, parseChoice, parseNumber, splitValues } from "./parse";
import { exerciseLabel, getExercise, type Exercise, type Slot } from "./registry";

export type CheckStatus = "correct" | "wrong" | "unanswered";
/** Why: ok; accepted (right, written another way — the message says how it was read); placeholder; partial (some
 * values still placeholders); type; count; order; format (unreadable, e.g. a decimal comma); value. */
export type CheckKind = "ok" | "accepted" | "placeholder" | "partial" | "type" | "count" | "order" | "format" | "value";

export interface CheckResult {
  id: string;
  /** the lecture's numbering, "4(c)" */
  label: string;
  status: CheckStatus;
  passed: boolean;
  kind: CheckKind;
  /** Chinese, for the reader: what was read, what is wrong, a hint — never the reference value */
  message: string;
  points: number;
  maxPoints: number;
  /** exactly how the values were compared (Chinese; for the gradebook's note): each value's tolerance rule and the
   * other ways of writing it that are accepted; never the reference value */
  tolerance: string;
}

type Parsed = { ok: true; value: number | string; percent: boolean } | { ok: false; kind: "type" | "format"; message: string };

const fmt = (x: number) => String(Number(x.toPrecision(6)));

function tolerance(slot: Slot, expected: number): number {
  return Math.max(Math.abs(expected) * (slot.relTolerance ?? 0.02), slot.absTolerance ?? 0);
}

const percentText = (x: number) => `${Number((x * 100).toPrecision(6))}%`;

/** One value's comparison rule in words: 精确相等, 相对误差 ≤ 1%, 绝对误差 ≤ 0.02, or both (the wider counts). */
function slotRule(slot: Slot, expected: number | string): string {
  if (typeof expected === "string") return "文字须是正确选项的一种写法（不分大小写与全半角，可带其他字）"; // not the options: they would give the answer away
  const rel = slot.relTolerance ?? 0.02;
  const abs = slot.absTolerance ?? 0;
  const extras = [slot.share ? "百分数写法按小数读" : "", slot.wholeNumberToo ? "四舍五入的整数也算对" : ""].filter((x) => x !== "");
  let rule: string;
  if (rel === 0 && abs === 0) rule = "精确相等";
  else if (abs === 0) rule = `相对误差 ≤ ${percentText(rel)}`;
  else if (rel === 0) rule = `绝对误差 ≤ ${abs}`;
  else rule = `相对误差 ≤ ${percentText(rel)} 或绝对误差 ≤ ${abs}（取较宽者）`;
  return extras.length > 0 ? `${rule}；${extras.join("；")}` : rule;
}

/** The tolerance of every value of a part, grouped: "每个值：相对误差 ≤ 2%" or "随机：…；二选一：…". */
function toleranceText(slots: Slot[], want: Array<number | string>): string {
  const rules = slots.map((s, i) => slotRule(s, want[i]));
  if (rules.every((r) => r === rules[0])) return `${want.length > 1 ? "每个值" : "容差"}：${rules[0]}`;
  return rules.map((r, i) => `${slots[i].label}：${r}`).join("；");
}

function slotsOf(e: Exercise, want: Array<number | string>): Slot[] {
  return want.map((w, i) => e.slots?.[i] ?? { label: `第 ${i + 1} 个值`, choices: typeof w === "string" ? [[w]] : undefined });
}

function parseSlot(v: unknown, slot: Slot, expected: number | string): Parsed {
  if (typeof expected === "number") {
    const p = parseNumber(v);
    return p.ok ? { ok: true, value: p.value, percent: p.percent } : p;
  }
  const c = parseChoice(v, slot.choices ?? [[expected]]);
  return c.ok ? { ok: true, value: c.value, percent: false } : c;
}

/** Whether one parsed value matches; a note when it was accepted in another reading (a percentage, whole balls). */
function matches(p: { value: number | string; percent: boolean }, expected: number | string, slot: Slot, raw: unknown): { ok: boolean; note?: string } {
  if (typeof expected === "string" || typeof p.value === "string") return { ok: p.value === expected };
  const v = p.value;
  const tol = tolerance(slot, expected);
  if (Math.abs(v - expected) <= tol) {
    return p.percent && slot.share ? { ok: true, note: `"${raw}" 按 ${fmt(v)} 读（题目要的是小数）` } : { ok: true };
  }
  if (slot.share && !p.percent && v > 1 && v <= 100 && Math.abs(v / 100 - expected) <= tol) {
    return { ok: true, note: `${fmt(v)} 看起来是百分数，按 ${fmt(v)}% = ${fmt(v / 100)} 读；题目要的是小数，下次写 ${fmt(v / 100)}` };
  }
  if (slot.wholeNumberToo && Number.isInteger(v) && v === Math.round(expected)) {
    return { ok: true, note: `${fmt(v)} 按"约几个球"的整数答案读（公式值不是整数，保留两位小数更准）` };
  }
  return { ok: false };
}

/** What a wrong number suggests: a known slip of this part, or a factor of 100 / 1000. */
function diagnose(v: number, expected: number, slot: Slot): string | undefined {
  for (const m of slot.mistakes ?? []) {
    const hit = typeof m.value === "function" ? m.value(v) : Math.abs(v - m.value) <= Math.abs(m.value) * (m.relTolerance ?? 0.01);
    if (hit) return m.message;
  }
  const tol = tolerance(slot, expected);
  const near = (x: number) => Math.abs(x - expected) <= tol;
  if (expected === 0) return undefined;
  if (near(v / 100) || near(v * 100)) return "差了 100 倍：是不是把百分数和小数弄混了？";
  if (near(v / 1000) || near(v * 1000)) return "差了 1000 倍：看看单位（秒 / 毫秒，token / 千 token）";
  if (near(-v)) return "符号反了";
  return undefined;
}

const shown = (v: unknown) => (typeof v === "string" ? `"${v}"` : typeof v === "number" ? (Number.isInteger(v) ? String(v) : fmt(v)) : describeType(v));
/** Joins message parts into one sentence that ends with one full stop. */
const sentence = (parts: string[]) => parts.join("；").replace(/[。；]*$/, "").replace(/([？！])$/, "$1") + (/[？！]$/.test(parts[parts.length - 1] ?? "") ? "" : "。");

function permutations(n: number): number[][] {
  if (n <= 1) return [[0]];
  const out: number[][] = [];
  for (const rest of permutations(n - 1)) for (let i = 0; i <= rest.length; i++) out.push([...rest.slice(0, i), n - 1, ...rest.slice(i)]);
  return out;
}

/** Compares a reader's answer with the reference (see the file comment); never throws on a reader's value. */
export function evaluate(id: string, answer: unknown): CheckResult {
  const e = getExercise(id);
  if (e.coding) throw new ParameterError("id", `练习 ${exerciseLabel(e.id)} 是编码题，不用 check()：写好答案单元格里的函数，运行它下面的测试单元格`);
  if (!e.reference) throw new ParameterError("id", `练习 ${exerciseLabel(e.id)} 是文字题，不能用 check() 自动核对：答案写在它的「你的答案」单元格里`);
  const ref = e.reference();
  const want = Array.isArray(ref) ? ref : [ref];
  const slots = slotsOf(e, want);
  const order = `[${slots.map((s) => s.label).join(", ")}]`;
  const result = (status: CheckStatus, kind: CheckKind, message: string): CheckResult => ({
    id: e.id,
    label: exerciseLabel(e.id),
    status,
    passed: status === "correct",
    kind,
    message,
    points: status === "correct" ? e.points : 0,
    maxPoints: e.points,
    tolerance: toleranceText(slots, want),
  });
  const prefix = (i: number) => (want.length > 1 ? `第 ${i + 1} 个值（${slots[i].label}）` : "");

  let got: unknown[];
  if (Array.isArray(answer)) got = answer.length === 1 && Array.isArray(answer[0]) && want.length > 1 ? answer[0] : answer;
  else if (typeof answer === "string" && want.length > 1 && !isPlaceholder(answer)) got = splitValues(answer, want.length);
  else got = [answer];
  got = got.map((g) => (Array.isArray(g) && g.length === 1 ? g[0] : g));

  if (got.length === 0 || got.every(isPlaceholder)) return result("unanswered", "placeholder", "把占位的 NaN（或 \"?\"）换成你的答案，运行答案单元格，再运行检查单元格。");
  if (typeof answer === "object" && answer !== null && !Array.isArray(answer)) {
    return result("wrong", "type", want.length > 1 ? `应是一个数组 ${order}，你给的是${describeType(answer)}。` : `应是一个值，你给的是${describeType(answer)}。`);
  }
  if (got.length !== want.length) {
    const msg = want.length === 1 ? `这里只要一个值，你给了 ${got.length} 个` : `需要 ${want.length} 个值，按 ${order} 的顺序；你给了 ${got.length} 个`;
    return result("wrong", "count", `${msg}。`);
  }
  const missing = got.map((g, i) => (isPlaceholder(g) ? i : -1)).filter((i) => i >= 0);
  if (missing.length > 0) {
    return result("wrong", "partial", `还有 ${missing.length} 个值没填：${missing.map((i) => prefix(i) || "答案").join("、")}。`);
  }
  const parsed = got.map((g, i) => parseSlot(g, slots[i], want[i]));
  const unreadable = parsed.map((p, i) => ({ p, i })).filter((x) => !x.p.ok);
  if (unreadable.length > 0) {
    const kind = unreadable.some((x) => !x.p.ok && x.p.kind === "type") ? "type" : "format";
    return result("wrong", kind, sentence(unreadable.map(({ p, i }) => `${prefix(i)}${p.ok ? "" : p.message}`)));
  }
  const values = parsed as Array<{ ok: true; value: number | string; percent: boolean }>;
  const verdicts = values.map((p, i) => matches(p, want[i], slots[i], got[i]));
  if (verdicts.every((v) => v.ok)) {
    const notes = verdicts.map((v, i) => (v.note ? `${prefix(i)}${v.note}` : "")).filter((s) => s !== "");
    return notes.length > 0 ? result("correct", "accepted", `换了写法，也算对：${notes.join("；")}。`) : result("correct", "ok", "和库算出的参考答案一致。");
  }
  if (want.length > 1 && want.length <= 5) {
    const reordered = permutations(want.length).some(
      (perm) => perm.some((j, i) => j !== i) && perm.every((j, i) => typeof want[j] === typeof values[i].value && matches(values[i], want[j], slots[j], got[i]).ok),
    );
    if (reordered) return result("wrong", "order", `每个值都对，但顺序不对：请按 ${order} 的顺序给出。`);
  }
  let needsHint = false;
  const wrong = verdicts
    .map((v, i) => ({ v, i }))
    .filter((x) => !x.v.ok)
    .map(({ i }) => {
      const value = values[i].value;
      const why = typeof value === "number" && typeof want[i] === "number" ? diagnose(value, want[i] as number, slots[i]) : undefined;
      if (!why) needsHint = true;
      return `${prefix(i)}${shown(got[i])} 不对${why ? `：${why}` : ""}`;
    });
  return result("wrong", "value", `${sentence(wrong)}${needsHint ? `提示：${e.hint}` : ""}`);
}
