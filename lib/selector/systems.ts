// §4.1 compound AI systems as small DAGs of modules (LLMSelector paper, Fig. 2 and 5). A run over a question set
// fills, per question, whether the final answer is correct and which modules are at fault (a bitmask).
import { checkNumber, checkOneOf, ParameterError } from "../core/errors";
import { selectorWorldData, Skill, skillIndex, type QuestionSet } from "./world";

export const SYSTEM_NAMES = ["locateSolve", "selfRefine", "debate"] as const;
export type SystemName = (typeof SYSTEM_NAMES)[number];

export interface ModuleSpec {
  /** module name, e.g. "locate", "generator 2" */
  name: string;
  /** the skill its model needs */
  skill: Skill;
  /** upstream nodes (modules or the question) */
  inputs: string[];
}

export interface SystemOptions {
  /** self-refine: a critic that is the generator's own model detects errors with probability × this factor
   * (1 = no self-blindness; the lecture's violation uses 0.3) */
  sameModelCriticFactor?: number;
  /** debate: a debater who knows the answer may give it even if no generator proposed it (the lecture's
   * first, unfaithful version); default false = debaters only choose among the initial answers */
  debatersOwnKnowledge?: boolean;
}

export interface CompoundSystem {
  name: SystemName;
  title: string;
  /** modules that get a model, in nomination order */
  modules: ModuleSpec[];
  /** nodes without a model (e.g. the majority vote), for drawing the DAG */
  otherNodes: Array<{ name: string; inputs: string[] }>;
  options: Required<SystemOptions>;
  /** runs the system on every question of `set`: correct[z] ∈ {0,1}, fault[z] = bitmask of modules at fault */
  run(set: QuestionSet, allocation: readonly number[], correct: Uint8Array, fault: Uint8Array): void;
  /** a key shared by allocations that give the same accuracy on every question (permuted identical roles) */
  accuracyKey(allocation: readonly number[]): string;
  /** systems with interchangeable roles: whether an allocation is the first of its class in lexicographic order
   * (so exhaustive search may skip the rest), and how many allocations its class holds */
  symmetry?: { canonical(allocation: readonly number[]): boolean; multiplicity(allocation: readonly number[]): number };
  /** human-readable allocation from model names, e.g. "A+B" or "A+B+C / D+D+E" */
  label(names: readonly string[]): string;
}

const LOCATE = skillIndex("locate");
const SOLVE = skillIndex("solve");
const ANSWER = skillIndex("answer");
const CRITIQUE = skillIndex("critique");
const REFINE = skillIndex("refine");

function fullOptions(options: SystemOptions): Required<SystemOptions> {
  const factor = checkNumber("sameModelCriticFactor", options.sameModelCriticFactor ?? 1, { min: 0, max: 1 });
  const own = options.debatersOwnKnowledge ?? false;
  if (typeof own !== "boolean") throw new ParameterError("debatersOwnKnowledge", `应为 true 或 false，实际是 ${JSON.stringify(own)}`);
  return { sameModelCriticFactor: factor, debatersOwnKnowledge: own };
}

/** Locate-solve (TableArithmetic): the first call finds the question in a long table, the second solves it. */
export function locateSolve(options: SystemOptions = {}): CompoundSystem {
  return {
    name: "locateSolve",
    title: "Locate–solve",
    modules: [
      { name: "locate", skill: "locate", inputs: ["question"] },
      { name: "solve", skill: "solve", inputs: ["locate"] },
    ],
    otherNodes: [],
    options: fullOptions(options),
    run(set, a, correct, fault) {
      const located = set.success[a[0]][LOCATE];
      const solved = set.success[a[1]][SOLVE];
      for (let z = 0; z < set.size; z++) {
        if (!located[z]) {
          correct[z] = 0;
          fault[z] = 1; // the solver got the wrong question: the locator is at fault
        } else if (!solved[z]) {
          correct[z] = 0;
          fault[z] = 2;
        } else {
          correct[z] = 1;
          fault[z] = 0;
        }
      }
    },
    accuracyKey: (a) => a.join(","),
    label: (names) => names.join("+"),
  };
}

/** Self-refine: generator → critic → refiner. A correct draft passes; a wrong one is fixed only if the critic
 * notices and the refiner then gets it right. */
export function selfRefine(options: SystemOptions = {}): CompoundSystem {
  const opts = fullOptions(options);
  return {
    name: "selfRefine",
    title: "Self-refine",
    modules: [
      { name: "generator", skill: "answer", inputs: ["question"] },
      { name: "critic", skill: "critique", inputs: ["question", "generator"] },
      { name: "refiner", skill: "refine", inputs: ["question", "generator", "critic"] },
    ],
    otherNodes: [],
    options: opts,
    run(set, a, correct, fault) {
      const drafted = set.success[a[0]][ANSWER];
      const criticOk = set.success[a[1]][CRITIQUE];
      const refined = set.success[a[2]][REFINE];
      const sameModel = a[0] === a[1];
      const selfCheck = set.selfCheck[a[1]];
      const factor = opts.sameModelCriticFactor;
      for (let z = 0; z < set.size; z++) {
        if (drafted[z]) {
          correct[z] = 1;
          fault[z] = 0;
          continue;
        }
        // §4.5: a model tends to agree with its own answer
        const detected = criticOk[z] === 1 && (!sameModel || selfCheck[z] < factor);
        if (!detected) {
          correct[z] = 0;
          fault[z] = 1 | 2; // wrong draft, missed by the critic
        } else if (refined[z]) {
          correct[z] = 1;
          fault[z] = 0;
        } else {
          correct[z] = 0;
          fault[z] = 4;
        }
      }
    },
    accuracyKey: (a) => a.join(","),
    label: (names) => names.join("+"),
  };
}

/** Multi-agent debate: three generators answer, three debaters each pick one of the initial answers, majority vote.
 * A wrong model always gives the same wrong answer, so identical generators make identical mistakes. */
export function debate(options: SystemOptions = {}): CompoundSystem {
  const opts = fullOptions(options);
  return {
    name: "debate",
    title: "Multi-agent debate",
    modules: [
      { name: "generator 1", skill: "answer", inputs: ["question"] },
      { name: "generator 2", skill: "answer", inputs: ["question"] },
      { name: "generator 3", skill: "answer", inputs: ["question"] },
      { name: "debater 1", skill: "critique", inputs: ["generator 1", "generator 2", "generator 3"] },
      { name: "debater 2", skill: "critique", inputs: ["generator 1", "generator 2", "generator 3"] },
      { name: "debater 3", skill: "critique", inputs: ["generator 1", "generator 2", "generator 3"] },
    ],
    otherNodes: [{ name: "majority vote", inputs: ["debater 1", "debater 2", "debater 3"] }],
    options: opts,
    run(set, a, correct, fault) {
      // the three generators' and debaters' arrays in locals and the debaters unrolled: this loop is most of the
      // selector demos' time (04.3, 05.4)
      const g0 = set.success[a[0]][ANSWER];
      const g1 = set.success[a[1]][ANSWER];
      const g2 = set.success[a[2]][ANSWER];
      const w0 = set.wrongAnswer[a[0]];
      const w1 = set.wrongAnswer[a[1]];
      const w2 = set.wrongAnswer[a[2]];
      const d0 = set.success[a[3]][CRITIQUE];
      const d1 = set.success[a[4]][CRITIQUE];
      const d2 = set.success[a[5]][CRITIQUE];
      const own = opts.debatersOwnKnowledge;
      for (let z = 0; z < set.size; z++) {
        const present = g0[z] !== 0 || g1[z] !== 0 || g2[z] !== 0 || w0[z] === 0 || w1[z] === 0 || w2[z] === 0;
        const unanimousRight = (g0[z] !== 0 || w0[z] === 0) && (g1[z] !== 0 || w1[z] === 0) && (g2[z] !== 0 || w2[z] === 0);
        // a debater who does not see the truth is swayed by a wrong initial answer (all such debaters by the same one:
        // the most common wrong answer), so the vote is right exactly when at least two debaters pick the right answer.
        // A debater is right when all three answers are right, or when it sees the truth and can pick it (an initial
        // answer is right, or it may give its own); one that is wrong though it could have picked the right answer is
        // at fault (bit 3 + k).
        const canPick = present || own;
        const r0 = unanimousRight || (d0[z] === 1 && canPick);
        const r1 = unanimousRight || (d1[z] === 1 && canPick);
        const r2 = unanimousRight || (d2[z] === 1 && canPick);
        if ((r0 ? 1 : 0) + (r1 ? 1 : 0) + (r2 ? 1 : 0) >= 2) {
          correct[z] = 1;
          fault[z] = 0;
        } else {
          correct[z] = 0;
          fault[z] = (present ? 0 : 7) | (canPick ? (r0 ? 0 : 8) | (r1 ? 0 : 16) | (r2 ? 0 : 32) : 0);
        }
      }
    },
    accuracyKey: (a) => `${[a[0], a[1], a[2]].sort((x, y) => x - y).join(",")}|${[a[3], a[4], a[5]].sort((x, y) => x - y).join(",")}`,
    // the three generators are interchangeable, and so are the three debaters
    symmetry: {
      canonical: (a) => a[0] <= a[1] && a[1] <= a[2] && a[3] <= a[4] && a[4] <= a[5],
      multiplicity: (a) => arrangements(a[0], a[1], a[2]) * arrangements(a[3], a[4], a[5]),
    },
    label: (names) => `${names.slice(0, 3).join("+")} / ${names.slice(3).join("+")}`,
  };
}

/** The number of distinct orderings of three values (6, 3 or 1). */
function arrangements(x: number, y: number, z: number): number {
  if (x === y && y === z) return 1;
  return x === y || y === z || x === z ? 3 : 6;
}

/** A system by name: "locateSolve", "selfRefine" or "debate". */
export function getSystem(name: string, options: SystemOptions = {}): CompoundSystem {
  const n = checkOneOf("system", name, SYSTEM_NAMES);
  if (n === "locateSolve") return locateSolve(options);
  if (n === "selfRefine") return selfRefine(options);
  return debate(options);
}

/** The self-blind factor of the lecture's violation (data/selector-world.json). */
export function sameModelCriticFactor(): number {
  return selectorWorldData().systems.sameModelCriticFactor;
}
