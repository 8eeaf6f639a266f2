// Parameter checks that fail loudly: every message names the parameter the user typed and the allowed range, in
// Chinese (the reading language of the lecture).

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

/** True inside a tslab kernel (the notebook): its module is loaded. Never loads it. */
export function inNotebookKernel(): boolean {
  if (typeof require === "undefined" || !require.cache) return false;
  return Object.keys(require.cache).some((k) => /[\\/]tslab[\\/]dist[\\/]jupyter\.js$/.test(k));
}

/** A bad parameter: `parameter` is the name the user typed (e.g. "rates.videoQA[1]"). In a notebook it prints as
 * one line (tslab prints a thrown error with util.inspect, which would show a Node stack trace): the reader needs
 * the parameter and its allowed range, not the library's call stack. */
export class ParameterError extends RangeError {
  constructor(readonly parameter: string, message: string) {
    super(`参数 ${parameter}：${message}`);
    this.name = "ParameterError";
  }

  [inspectCustom](): string {
    return inNotebookKernel() ? `参数错误 · ${this.message}` : this.stack ?? this.message;
  }
}

export interface NumberRule {
  /** inclusive lower bound */
  min?: number;
  /** inclusive upper bound */
  max?: number;
  /** exclusive lower bound */
  above?: number;
  /** exclusive upper bound */
  below?: number;
  integer?: boolean;
}

/** "≥ 1 且 ≤ 64 的整数" — a rule in words (also used by help() for the allowed range). */
export function describeRule(rule: NumberRule): string {
  const lo = rule.min !== undefined ? `≥ ${rule.min}` : rule.above !== undefined ? `> ${rule.above}` : "";
  const hi = rule.max !== undefined ? `≤ ${rule.max}` : rule.below !== undefined ? `< ${rule.below}` : "";
  const range = [lo, hi].filter((s) => s !== "").join(" 且 ");
  const kind = rule.integer ? "整数" : "有限数";
  return range ? `${range} 的${kind}` : kind;
}

function shown(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number" || value === undefined || value === null || typeof value === "boolean") return String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/** Returns `value` if it satisfies `rule`, otherwise throws a ParameterError naming `name`. */
export function checkNumber(name: string, value: unknown, rule: NumberRule = {}): number {
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    (!rule.integer || Number.isInteger(value)) &&
    (rule.min === undefined || value >= rule.min) &&
    (rule.max === undefined || value <= rule.max) &&
    (rule.above === undefined || value > rule.above) &&
    (rule.below === undefined || value < rule.below);
  if (!ok) throw new ParameterError(name, `应为 ${describeRule(rule)}，实际是 ${shown(value)}`);
  return value as number;
}

export function checkInteger(name: string, value: unknown, rule: NumberRule = {}): number {
  return checkNumber(name, value, { ...rule, integer: true });
}

export function checkProbability(name: string, value: unknown): number {
  return checkNumber(name, value, { min: 0, max: 1 });
}

/** Returns `value` if it is one of `allowed`, otherwise throws listing the allowed values. */
export function checkOneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new ParameterError(name, `应为以下之一：${allowed.map((a) => JSON.stringify(a)).join("、")}，实际是 ${shown(value)}`);
  }
  return value as T;
}

/** Every element of a list is one of `allowed` (checked element by element, before any cross-check of lengths). */
export function checkEachOneOf<T extends string>(name: string, values: unknown, allowed: readonly T[]): T[] {
  return checkNonEmpty(name, values as readonly unknown[]).map((v, i) => checkOneOf(`${name}[${i}]`, v, allowed));
}

export function checkNonEmpty<T>(name: string, value: readonly T[] | undefined): readonly T[] {
  if (!Array.isArray(value) || value.length === 0) throw new ParameterError(name, `应为非空数组，实际是 ${shown(value)}`);
  return value;
}

/** Throws on the first key of `given` that is not in `allowed`, naming it and listing what `owner` accepts
 * (e.g. owner "路由器 preble", kind "option"; owner "演示 02.1", kind "parameter"). */
export function checkKnownKeys(owner: string, given: Record<string, unknown>, allowed: readonly string[], kind: "option" | "parameter" = "option"): void {
  const noun = kind === "option" ? "选项" : "参数";
  for (const k of Object.keys(given)) {
    if (!allowed.includes(k)) throw new ParameterError(k, `不是${owner}的${noun}；它的${noun}有：${allowed.length ? allowed.join("、") : "（无）"}`);
  }
}

/** Code the reader wrote (a dispatch policy on the page, a router) failed or answered nonsense. The message is one
 * Chinese line naming what the code was given (e.g. the job: its index and arrival time) and what it returned or
 * threw; in a notebook it prints as that one line, without a stack trace or a partial table (like ParameterError). */
export class UserCodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserCodeError";
  }

  [inspectCustom](): string {
    return inNotebookKernel() ? `你写的代码出错 · ${this.message}` : this.stack ?? this.message;
  }
}

/** A value as the reader would type it, for an error message: -1, NaN, 3.5, "3", undefined, {"a":1}. */
export function shownValue(value: unknown): string {
  if (typeof value === "function") return `函数 ${value.name || "（无名）"}`;
  return shown(value);
}
