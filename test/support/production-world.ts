// Hand-made inputs for the production routers' decision tests (test/production-decisions.test.ts and its
// neighbours): a request built from [segment id, tokens] pairs and a cluster view whose per-replica figures are given
// as plain arrays. (Not a test file: vitest only collects *.test.ts.)
import type { ClusterRequest, ClusterView } from "../../lib/cluster/index";

let nextId = 0;
/** A request made of segments [id, tokens]. */
export function request(segments: Array<[number, number]>, outputTokens = 4): ClusterRequest {
  const segs = segments.map(([id, tokens]) => ({ id, tokens }));
  return {
    id: nextId++,
    arrival: 0,
    segments: segs,
    promptTokens: segs.reduce((s, x) => s + x.tokens, 0),
    outputTokens,
    outputSegment: { id: 100000 + nextId, tokens: outputTokens },
    key: 0,
    keySegment: segs[0].id,
  };
}

export interface FakeState {
  inFlight?: number[];
  queue?: number[];
  pendingPrefill?: number[];
  activeKv?: number[];
  kvUtil?: number[];
  /** per replica: the tokens of the request the router's view says are cached or on their way there */
  viewMatch?: number[];
  now?: number;
}
export const CAPACITY = 1000;
export function view(n: number, s: FakeState = {}): ClusterView {
  // a replica outside 0 … n − 1 is a caller's bug: the view refuses it (as the simulator's arrays would not)
  const at = (xs: number[] | undefined, i: number) => {
    if (!(Number.isInteger(i) && i >= 0 && i < n)) throw new RangeError(`view: replica ${i} outside 0 … ${n - 1}`);
    return xs ? xs[i] : 0;
  };
  return {
    replicaCount: n,
    now: s.now ?? 0,
    kvCapacity: CAPACITY,
    outstandingRequests: (i: number) => at(s.inFlight, i),
    outstandingTokens: (i: number) => at(s.inFlight, i) * 100,
    queueLength: (i: number) => at(s.queue, i),
    pendingPrefillTokens: (i: number) => at(s.pendingPrefill, i),
    activeKvTokens: (i: number) => at(s.activeKv, i),
    kvUtilization: (i: number) => at(s.kvUtil, i),
    viewMatch: (_r: ClusterRequest, i: number) => at(s.viewMatch, i),
    cachedMatch: () => 0,
  } as unknown as ClusterView;
}
