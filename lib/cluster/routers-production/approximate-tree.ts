// The SGLang router's own state, as a small object for a router written on the page (notebook 06, §6): the
// approximate tree of what it SENT where (never what the workers really cache), how many requests it sent each
// worker, and the background eviction. The decision rule itself — the imbalance guard, the match-rate threshold,
// the least-loaded worker — is left to the page; this object only answers what the released router's tree answers.
// It reuses the library's SglangRouter for its tree and its hit rule (the matched node's creator, else its first
// tenant), so the page's router and sglangRouter decide alike (test/page-routers.test.ts checks every decision).
import type { ClusterRequest } from "../workloads";
import { SglangRouter, SglangRouterOptions } from "./sglang";

export class ApproximateTree {
  /** the library's router, used only for its tree, its counters and its hit rule (never asked to route) */
  private readonly state: SglangRouter;
  private nextEviction: number;

  /** `workers` replicas; options as sglangRouter's (evictionInterval, maxTreeTokens, hitTenant …), CLI defaults */
  constructor(readonly workers: number, options: Partial<SglangRouterOptions> = {}) {
    this.state = new SglangRouter(workers, options as Record<string, unknown>, "approximateTree");
    this.nextEviction = this.state.options.evictionInterval;
  }

  /** The background eviction (every evictionInterval seconds, each worker's part trimmed to maxTreeTokens by LRU
   * leaves); call it first at every decision: nothing reads the tree in between, so doing it late is the same. */
  expire(now: number): void {
    if (now < this.nextEviction) return;
    const o = this.state.options;
    for (let w = 0; w < this.workers; w++) this.state.tree.evictTenant(w, o.maxTreeTokens);
    this.nextEviction = (Math.floor(now / o.evictionInterval) + 1) * o.evictionInterval;
  }

  /** The longest prefix of the prompt in the tree (tokens) and the worker a hit goes to (−1: nothing matched).
   * Like the released prefix_match it refreshes that worker's access time on the matched path. */
  match(request: ClusterRequest, now: number): { tokens: number; worker: number } {
    const { node, tokens } = this.state.tree.match(request.segments);
    const worker = this.state.hitTenant(node);
    if (worker >= 0) this.state.tree.touch(node, worker, now);
    return { tokens, worker };
  }

  /** Records that the request goes to `worker` (its prompt joins the worker's part of the tree; the worker's sent
   * count grows by one) and returns `worker`. */
  send(request: ClusterRequest, worker: number, now: number): number {
    this.state.tree.insert(request.segments, worker, now);
    this.state.processed[worker]++;
    return worker;
  }

  /** Requests sent to the worker so far (the released router breaks load ties by it). */
  sent(worker: number): number {
    return this.state.processed[worker];
  }

  /** Tokens the tree holds for the worker (the rule before December 2025 sent a miss to the smallest). */
  treeTokens(worker: number): number {
    return this.state.tree.sizeTokens[worker];
  }
}
