// Parameter checks that fail loudly: every message names the parameter and the allowed range.

export class ParameterError extends RangeError {
  constructor(readonly parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.name = "ParameterError";
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

function describeRule(rule: NumberRule): string {
  const parts: string[] = [];
  if (rule.integer) parts.push("an integer");
  else parts.push("a finite number");
  const lo = rule.min !== undefined ? `≥ ${rule.min}` : rule.above !== undefined ? `> ${rule.above}` : "";
  const hi = rule.max !== undefined ? `≤ ${rule.max}` : rule.below !== undefined ? `< ${rule.below}` : "";
  const range = [lo, hi].filter((s) => s !== "").join(" and ");
  return range ? `${parts[0]} ${range}` : parts[0];
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
  if (!ok) throw new ParameterError(name, `must be ${describeRule(rule)}, got ${String(value)}`);
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
    throw new ParameterError(name, `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}, got ${JSON.stringify(value)}`);
  }
  return value as T;
}

export function checkNonEmpty<T>(name: string, value: readonly T[] | undefined): readonly T[] {
  if (!Array.isArray(value) || value.length === 0) throw new ParameterError(name, "must be a non-empty array");
  return value;
}

/** Throws on the first key of `given` that is not in `allowed`, naming it and listing what `owner` accepts
 * (e.g. owner "router preble", kind "option"; owner "demo 02.1", kind "parameter"). */
export function checkKnownKeys(owner: string, given: Record<string, unknown>, allowed: readonly string[], kind: "option" | "parameter" = "option"): void {
  for (const k of Object.keys(given)) {
    if (!allowed.includes(k)) throw new ParameterError(k, `is not ${kind === "option" ? "an option" : "a parameter"} of ${owner}; its ${kind}s: ${allowed.length ? allowed.join(", ") : "none"}`);
  }
}
