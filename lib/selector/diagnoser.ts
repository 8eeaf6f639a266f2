// §4.3 the LLM diagnoser, simulated: reading a failed run, it names the module(s) at fault correctly with
// probability q, otherwise it blames one module that is not at fault; a successful run is always judged "no error".
// Every call is a fresh judgment (a new LLM call), so a noisy diagnoser can judge the same run differently in
// different rounds.
import { checkInteger, checkProbability } from "../core/errors";
import type { Rng } from "../core/rng";

export class Diagnoser {
  readonly accuracy: number;
  constructor(accuracy: number, private readonly random: Rng, readonly moduleCount: number) {
    this.accuracy = checkProbability("q", accuracy);
    checkInteger("moduleCount", moduleCount, { min: 1, max: 8 });
  }

  /** The modules blamed for a run, as a bitmask (0 = "no error"). `faultMask` has bit j set when module j is at
   * fault. Right (probability q): exactly the faulty modules; wrong: one module that is not at fault. */
  blame(faultMask: number): number {
    if (faultMask === 0) return 0;
    const all = (1 << this.moduleCount) - 1;
    const outside = all & ~faultMask;
    if (outside === 0 || this.random.uniform() < this.accuracy) return faultMask & all;
    return 1 << pickBit(outside, this.random.int(popcount(outside)));
  }

  /** Module j's diagnoser score for one run: 1 if the diagnoser does not blame module j, else 0. */
  judge(faultMask: number, module: number): number {
    return this.blame(faultMask) & (1 << module) ? 0 : 1;
  }
}

function popcount(x: number): number {
  let n = 0;
  for (let v = x; v !== 0; v &= v - 1) n++;
  return n;
}

/** The index of the n-th set bit of x (n from 0). */
function pickBit(x: number, n: number): number {
  let seen = 0;
  for (let j = 0; j < 8; j++) {
    if (x & (1 << j)) {
      if (seen === n) return j;
      seen++;
    }
  }
  return -1;
}
