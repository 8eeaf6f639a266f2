// Counting allocations and their price (exercises 6 and 7).
import { checkInteger, checkNumber, ParameterError } from "../core/errors";

/** K models, L modules: K^L allocations (what exhaustive search evaluates). */
export function allocationCount(models: number, modules: number): number {
  checkInteger("models", models, { min: 1 });
  checkInteger("modules", modules, { min: 1 });
  return Math.pow(models, modules);
}

/** The fewest allocations LLMSelector can evaluate: starting at the optimum it still needs L rounds to collect
 * L + 1 identical allocations in its history (the start counts), and each round evaluates K allocations. */
export function minimumEvaluations(models: number, modules: number): number {
  checkInteger("models", models, { min: 1 });
  checkInteger("modules", modules, { min: 1 });
  return models * modules;
}

/** The price of one run of an allocation: the sum of its modules' per-call prices. */
export function allocationCost(models: readonly string[] | string, prices: Readonly<Record<string, number>>): number {
  const names = typeof models === "string" ? models.split(/[\s+/]+/).filter((s) => s !== "") : [...models];
  if (names.length === 0) throw new ParameterError("models", "must name at least one model");
  let total = 0;
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(prices, name)) {
      throw new ParameterError("prices", `has no price for model ${JSON.stringify(name)}; priced: ${Object.keys(prices).join(", ")}`);
    }
    total += checkNumber(`prices.${name}`, prices[name], { min: 0 });
  }
  return total;
}
