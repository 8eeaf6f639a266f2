// Exercise 7: LLMSelector's toy world with prices — the allocation maximizing training accuracy − λ × price, the
// frontier those picks trace, and every allocation with its price and whether it is Pareto-optimal.
import { checkNonEmpty, checkNumber, ParameterError } from "../core/errors";
import { allocationCost, allocationCount } from "./budget";
import type { Evaluator } from "./evaluate";
import { decode, OptimizerResult, result } from "./optimizers";

export interface CostedResult extends OptimizerResult {
  lambda: number;
  /** price of one run (sum over modules) */
  cost: number;
}

function priceTable(ev: Evaluator, prices: Readonly<Record<string, number>>): number[] {
  return ev.world.names.map((name) => allocationCost([name], prices));
}

/** Exhaustive search for the allocation maximizing training accuracy − λ × price per run. */
export function costAware(ev: Evaluator, options: { prices: Readonly<Record<string, number>>; lambda: number }): CostedResult {
  const lambda = checkNumber("lambda", options.lambda, { min: 0 });
  const price = priceTable(ev, options.prices);
  const total = allocationCount(ev.modelCount, ev.moduleCount);
  if (total > 1_000_000) throw new ParameterError("system", `${total} 个分配太多，不能按价格穷举`);
  let best: number[] = [];
  let bestValue = -Infinity;
  let bestCost = 0;
  for (let i = 0; i < total; i++) {
    const a = decode(i, ev.modelCount, ev.moduleCount);
    let cost = 0;
    for (const k of a) cost += price[k];
    const value = ev.accuracy(a, "train") - lambda * cost;
    // equal value: the cheaper one
    if (value > bestValue + 1e-12 || (Math.abs(value - bestValue) <= 1e-12 && cost < bestCost)) {
      bestValue = value;
      best = a;
      bestCost = cost;
    }
  }
  return { ...result(ev, "costAware", best, total, [best], 0, true), lambda, cost: bestCost };
}

/** costAware for each λ: the cost–accuracy frontier traced by the price weight. */
export function costFrontier(ev: Evaluator, options: { prices: Readonly<Record<string, number>>; lambdas: readonly number[] }): CostedResult[] {
  return checkNonEmpty("lambdas", options.lambdas).map((lambda) => costAware(ev, { prices: options.prices, lambda }));
}

export interface PricedAllocation {
  allocation: number[];
  label: string;
  cost: number;
  trainAcc: number;
  testAcc: number;
  /** no other allocation is at most as expensive and strictly more accurate on the training set (or cheaper and as accurate) */
  pareto: boolean;
}

/** Every allocation with its price and accuracy, Pareto-optimal ones (train accuracy vs price) marked. */
export function pricedAllocations(ev: Evaluator, prices: Readonly<Record<string, number>>): PricedAllocation[] {
  const price = priceTable(ev, prices);
  const total = allocationCount(ev.modelCount, ev.moduleCount);
  if (total > 100_000) throw new ParameterError("system", `${total} 个分配太多，不能逐个列出`);
  const all: PricedAllocation[] = [];
  for (let i = 0; i < total; i++) {
    const a = decode(i, ev.modelCount, ev.moduleCount);
    let cost = 0;
    for (const k of a) cost += price[k];
    all.push({ allocation: a, label: ev.label(a), cost, trainAcc: ev.accuracy(a, "train"), testAcc: ev.accuracy(a, "test"), pareto: false });
  }
  for (const p of all) {
    p.pareto = !all.some((o) => (o.cost <= p.cost && o.trainAcc > p.trainAcc) || (o.cost < p.cost && o.trainAcc >= p.trainAcc));
  }
  return all;
}
