// Counting allocations and their price (exercises 6 and 7).
import { checkInteger, checkNumber, checkOneOf, ParameterError } from "../core/errors";

/** How a per-module optimizer's budget is counted: "lecture" = K allocations per round (the lecture, our tables);
 * "released" = K − 1 per round, as the authors' counter adds len(models) − 1 (optimizer.py: M = len(self.models) − 1,
 * c += M) — the current allocation is among the K and not counted again. */
export const BUDGET_COUNTINGS = ["lecture", "released"] as const;
export type BudgetCounting = (typeof BUDGET_COUNTINGS)[number];

/** K models, L modules: K^L allocations (what exhaustive search evaluates). */
export function allocationCount(models: number, modules: number): number {
  checkInteger("models", models, { min: 1 });
  checkInteger("modules", modules, { min: 1 });
  return Math.pow(models, modules);
}

/** Allocations counted for `rounds` rounds with K = `models` candidates a round. */
export function countedEvaluations(rounds: number, models: number, counting: BudgetCounting = "lecture"): number {
  checkInteger("rounds", rounds, { min: 0 });
  checkInteger("models", models, { min: 1 });
  return rounds * (checkOneOf("counting", counting, BUDGET_COUNTINGS) === "lecture" ? models : models - 1);
}

/** The fewest allocations LLMSelector can evaluate: starting at the optimum it still needs L rounds to collect
 * L + 1 identical allocations in its history (the start counts); each round counts K (lecture) or K − 1 (released). */
export function minimumEvaluations(models: number, modules: number, counting: BudgetCounting = "lecture"): number {
  checkInteger("models", models, { min: 1 });
  checkInteger("modules", modules, { min: 1 });
  return countedEvaluations(modules, models, counting);
}

/** The price of one run of an allocation: the sum of its modules' per-call prices. */
export function allocationCost(models: readonly string[] | string, prices: Readonly<Record<string, number>>): number {
  const names = typeof models === "string" ? models.split(/[\s+/]+/).filter((s) => s !== "") : [...models];
  if (names.length === 0) throw new ParameterError("models", "至少要有一个模型");
  let total = 0;
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(prices, name)) {
      throw new ParameterError("prices", `没有模型 ${JSON.stringify(name)} 的价格；有价格的模型：${Object.keys(prices).join("、")}`);
    }
    total += checkNumber(`prices.${name}`, prices[name], { min: 0 });
  }
  return total;
}
