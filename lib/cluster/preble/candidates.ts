// An opt-in record of what E2's explore argmin sees (option recordCandidates): every GPU's L, M, P at each of the
// first N explore decisions and the GPU that won. Exploit (an argmin over the holders of the match only), rebalance
// and pairing decisions (no argmin over every GPU) are not recorded. Bounded: at most N × GPUs numbers per term.

/** The record in stats().candidates: decision k's GPU g term is L[k × replicas + g] (seconds). */
export interface CandidateRecord {
  replicas: number;
  /** explore decisions seen in the run (the first `decision.length` of them are recorded) */
  explores: number;
  /** index of the decision among all the router's decisions (0-based, in dispatch order) */
  decision: number[];
  /** simulated time of the decision (seconds) */
  time: number[];
  /** the GPU the argmin chose */
  chosen: number[];
  /** the GPU with the fewest requests dispatched within the window ("派得最少") */
  fewest: number[];
  L: number[];
  M: number[];
  P: number[];
}

export class CandidateRecorder {
  private explores = 0;
  private readonly decision: number[] = [];
  private readonly time: number[] = [];
  private readonly chosen: number[] = [];
  private readonly fewest: number[] = [];
  private readonly L: number[] = [];
  private readonly M: number[] = [];
  private readonly P: number[] = [];

  constructor(
    private readonly replicas: number,
    private readonly limit: number,
  ) {}

  /** One explore decision: the cost terms of every GPU as the argmin saw them. */
  add(decision: number, time: number, chosen: number, L: Float64Array, M: Float64Array, P: Float64Array, fewest = -1): void {
    this.explores++;
    if (this.decision.length >= this.limit) return;
    this.decision.push(decision);
    this.time.push(time);
    this.chosen.push(chosen);
    this.fewest.push(fewest);
    for (let g = 0; g < this.replicas; g++) {
      this.L.push(L[g]);
      this.M.push(M[g]);
      this.P.push(P[g]);
    }
  }

  record(): CandidateRecord {
    return { replicas: this.replicas, explores: this.explores, decision: this.decision.slice(), time: this.time.slice(), chosen: this.chosen.slice(), fewest: this.fewest.slice(), L: this.L.slice(), M: this.M.slice(), P: this.P.slice() };
  }
}
