// What a router sees of the cluster during a simulation (the ClusterView interface of routers.ts): outstanding
// requests and tokens per replica, what was dispatched, and the tokens a replica's cache — or the prompts already
// dispatched to it — would match. The simulator keeps these counts; routers only read them.
import type { StepModel } from "../hardware/step-model";
import { RadixTree } from "./radix-tree";
import type { RequestRecord } from "./record";
import type { Replica } from "./replica";
import type { ClusterView } from "./routers";
import type { ClusterRequest } from "./workloads";

export class SimulationView implements ClusterView {
  now = 0;
  readonly outstandingReq: Int32Array;
  readonly outstandingTok: Float64Array;
  readonly dispatched: Int32Array;
  readonly pending: RadixTree[];
  readonly history: RequestRecord[] = [];
  constructor(
    readonly replicaCount: number,
    readonly kvCapacity: number,
    readonly step: StepModel,
    private readonly engines: Replica[],
  ) {
    this.outstandingReq = new Int32Array(replicaCount);
    this.outstandingTok = new Float64Array(replicaCount);
    this.dispatched = new Int32Array(replicaCount);
    this.pending = engines.map(() => new RadixTree({ evictable: false, recycle: true }));
  }
  outstandingRequests(i: number): number {
    return this.outstandingReq[i];
  }
  outstandingTokens(i: number): number {
    return this.outstandingTok[i];
  }
  dispatchedCount(i: number): number {
    return this.dispatched[i];
  }
  viewMatch(request: ClusterRequest, i: number): number {
    const cached = this.engines[i].cache.matchTokens(request.segments);
    const pending = this.pending[i].matchTokens(request.segments);
    return cached > pending ? cached : pending;
  }
  cachedMatch(request: ClusterRequest, i: number): number {
    return this.engines[i].cache.matchTokens(request.segments);
  }
  queueLength(i: number): number {
    return this.engines[i].waiting.length;
  }
  pendingPrefillTokens(i: number): number {
    return this.engines[i].pendingPrefillTokens;
  }
  activeKvTokens(i: number): number {
    return this.engines[i].activeKvTokens;
  }
  kvUtilization(i: number): number {
    return Math.min(1, this.engines[i].activeKvTokens / this.kvCapacity);
  }
}
