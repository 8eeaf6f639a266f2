// What the simulator does with a router's answer: a replica index is an integer 0 … N−1; anything else — a
// thrown error, −1, NaN, 2.5, N, a string — stops the run with ONE Chinese line naming the router, the request
// (its index in arrival order and its prompt length) and what came back. Routers written in a notebook cell
// (`{ name, route(request, view) }`) fail this way often; the reader needs the request and the value, not the
// simulator's call stack. withTimeBudget adds a limit on the seconds a router may spend deciding (the router arena
// runs students' code).
import { inNotebookKernel, ParameterError, UserCodeError } from "../core/errors";
import { runWithTimeLimit } from "../core/watchdog";
import type { ClusterView, Router } from "./routers";
import type { ClusterRequest } from "./workloads";

const inspectCustom = Symbol.for("nodejs.util.inspect.custom");

/** A router failed on a request. Shown in a notebook as one line (like ParameterError); elsewhere with its stack
 * (and, for a thrown error, the original as `cause`). */
export class RouterError extends UserCodeError {
  constructor(message: string, readonly routerName: string, readonly requestIndex: number, readonly original?: unknown) {
    super(message);
    this.name = "RouterError";
  }

  [inspectCustom](): string {
    return inNotebookKernel() ? `路由器错误 · ${this.message}` : `${this.stack ?? this.message}${this.original instanceof Error ? `\n原来的错误：${this.original.stack ?? this.original.message}` : ""}`;
  }
}

/** "第 17 个请求（按到达顺序从 0 数；提示 10,234 个 token）" */
export function describeRequest(index: number, request: ClusterRequest): string {
  return `第 ${index} 个请求（按到达顺序从 0 数；提示 ${request.promptTokens.toLocaleString("en-US")} 个 token）`;
}

/** A returned value as the reader would write it: 2.5, NaN, -1, "2", undefined, {"replica":1}. */
export function describeValue(value: unknown): string {
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : String(value);
  if (typeof value === "string") return JSON.stringify(value);
  if (value === undefined || value === null || typeof value === "boolean") return String(value);
  if (typeof value === "function") return "一个函数";
  try {
    const s = JSON.stringify(value);
    return s.length > 80 ? `${s.slice(0, 77)}…` : s;
  } catch {
    return String(value);
  }
}

/** The error's own message, one line (no stack). */
function messageOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name === "Error" ? "" : `${error.name}: `}${error.message}` : describeValue(error);
  return text.split("\n")[0];
}

/** Asks the router for the request's replica; a throw or a value that is not an integer 0 … replicas−1 becomes a
 * RouterError (a ParameterError or RouterError thrown inside the router passes through unchanged). */
export function routeChecked(router: Router, request: ClusterRequest, index: number, view: ClusterView): number {
  let target: unknown;
  try {
    target = router.route(request, view);
  } catch (e) {
    if (e instanceof ParameterError || e instanceof RouterError) throw e;
    throw new RouterError(`路由器 ${router.name} 在${describeRequest(index, request)}上抛出错误：${messageOf(e)}`, router.name, index, e);
  }
  const n = view.replicaCount;
  if (typeof target === "number" && Number.isInteger(target) && target >= 0 && target < n) return target;
  throw new RouterError(`路由器 ${router.name} 给${describeRequest(index, request)}返回了 ${describeValue(target)}；应为副本编号，0 到 ${n - 1} 的整数`, router.name, index);
}

/** The router with a limit on the seconds its route() calls may take in one run, in total: past it, the next
 * decision throws a RouterError naming that request. A call that never returns is stopped by runTimed's watchdog;
 * `deciding` says which request it was on. The other hooks are passed through. */
export function withTimeBudget(router: Router, budgetSeconds: number): Router & { deciding: { index: number; request: ClusterRequest } | null } {
  let spent = 0;
  let decisions = 0;
  const now = typeof performance !== "undefined" ? () => performance.now() / 1000 : () => Date.now() / 1000;
  const timed: Router & { deciding: { index: number; request: ClusterRequest } | null } = {
    name: router.name,
    deciding: null,
    route(request, view) {
      const start = now();
      timed.deciding = { index: view.history.length, request };
      const replica = router.route(request, view);
      timed.deciding = null;
      spent += now() - start;
      decisions++;
      if (spent > budgetSeconds) {
        const index = view.history.length;
        throw new RouterError(`路由器 ${router.name} 超出了时间预算：到${describeRequest(index, request)}为止，${decisions} 次决定共用了 ${spent.toFixed(2)} 秒，预算是每次运行 ${budgetSeconds} 秒`, router.name, index);
      }
      return replica;
    },
  };
  for (const hook of ["onDispatch", "onFinish", "onEvict", "onStore", "stats"] as const) {
    const f = router[hook] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof f === "function") (timed as unknown as Record<string, unknown>)[hook] = (...args: unknown[]) => f.apply(router, args);
  }
  return timed;
}

/** Runs a simulation of a timed router (withTimeBudget) with a wall-time limit: a route() call that loops forever is
 * interrupted (lib/core/watchdog.ts) and becomes a RouterError naming the request it was deciding. */
export function runTimed<T>(seconds: number, routerOf: () => (Router & { deciding: { index: number; request: ClusterRequest } | null }) | null, run: () => T): T {
  return runWithTimeLimit(seconds, run, () => {
    const r = routerOf();
    const d = r?.deciding;
    if (!r || !d) return new RouterError(`路由器的运行超过了时间上限 ${seconds} 秒`, r?.name ?? "", -1);
    return new RouterError(`路由器 ${r.name} 在${describeRequest(d.index, d.request)}上超过了时间上限 ${seconds} 秒（是不是死循环？）`, r.name, d.index);
  });
}
