// §4.3 the LLM diagnoser, simulated: reading a failed run, it names the module(s) at fault correctly with
// probability q, otherwise it blames one module that is not at fault; a successful run is always judged "no error".
// Two ways its verdicts can behave across rounds:
// - "fresh": every call is a new judgment (a new LLM call, sampled), so a noisy diagnoser can judge the same run
//   differently in different rounds (our default, the lecture's reading);
// - "cached": the answer to "is module j at fault on question z under allocation f?" is drawn once and then reused,
//   as the authors' code does by putting every LLM call behind a response cache keyed by the prompt
//   (llmselector/compoundai/llm.py; the prompt holds the question, every module's output and the module asked about).
import { checkInteger, checkOneOf, checkProbability } from "../core/errors";
import type { Rng } from "../core/rng";

export const VERDICT_MODES = ["fresh", "cached"] as const;
export type VerdictMode = (typeof VERDICT_MODES)[number];

export class Diagnoser {
  readonly accuracy: number;
  readonly mode: VerdictMode;
  /** cached mode: per "allocation|module", the verdict per question (-1 = not asked yet, 0 = blamed, 1 = not blamed) */
  private readonly cache = new Map<string, Int8Array>();

  constructor(accuracy: number, private readonly random: Rng, readonly moduleCount: number, mode: VerdictMode = "fresh", private readonly questions = 0) {
    this.accuracy = checkProbability("q", accuracy);
    checkInteger("moduleCount", moduleCount, { min: 1, max: 8 });
    this.mode = checkOneOf("verdicts", mode, VERDICT_MODES);
    if (this.mode === "cached") checkInteger("questions", questions, { min: 1 });
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

  /** Module j's diagnoser score for one run on question `question` under the allocation `allocationKey`: 1 if the
   * diagnoser does not blame module j, else 0. Fresh mode ignores the key and the question (a new call each time). */
  judge(faultMask: number, module: number, allocationKey = "", question = 0): number {
    return this.judgeIn(this.mode === "fresh" ? null : this.prompt(allocationKey, module), faultMask, module, question);
  }

  /** Cached mode: the verdicts of the prompt "is module `module` at fault under `allocationKey`?", one per question
   * (-1 = not asked yet), created on first use. */
  prompt(allocationKey: string, module: number): Int8Array {
    const key = `${allocationKey}|${module}`;
    let verdicts = this.cache.get(key);
    if (!verdicts) {
      verdicts = new Int8Array(this.questions).fill(-1);
      this.cache.set(key, verdicts);
    }
    return verdicts;
  }

  /** judge() with the prompt's verdicts already looked up (`prompt(...)`; null in fresh mode): a caller judging many
   * questions of one prompt looks it up once. */
  judgeIn(verdicts: Int8Array | null, faultMask: number, module: number, question: number): number {
    if (verdicts === null) return this.blame(faultMask) & (1 << module) ? 0 : 1;
    if (verdicts[question] < 0) verdicts[question] = this.blame(faultMask) & (1 << module) ? 0 : 1;
    return verdicts[question];
  }

  /** Cached mode: the distinct (allocation, module) prompts answered so far (each covers every question). */
  cachedPrompts(): number {
    return this.cache.size;
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
