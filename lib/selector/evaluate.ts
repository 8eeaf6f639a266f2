// Running a system under an allocation on a split, with caches: every optimizer asks the same Evaluator, so an
// allocation's runs are computed once however many methods (and rounds) look at it.
import { checkInteger, ParameterError } from "../core/errors";
import type { CompoundSystem } from "./systems";
import type { QuestionSet, World } from "./world";

export type Split = "train" | "test";

export interface RunRecord {
  /** per question: 1 if the final answer is right */
  correct: Uint8Array;
  /** per question: bitmask of the modules at fault (0 when right) */
  fault: Uint8Array;
  accuracy: number;
}

/** An allocation is one model index per module; it may also be written with names ("C+C", ["A", "B"]). */
export type AllocationInput = readonly number[] | readonly string[] | string;

export class Evaluator {
  /** number of models K */
  readonly modelCount: number;
  /** number of modules with a model L */
  readonly moduleCount: number;
  private readonly runs = { train: new Map<string, RunRecord>(), test: new Map<string, RunRecord>() };
  private readonly accuracies = { train: new Map<string, number>(), test: new Map<string, number>() };
  private readonly scratch: Record<Split, { correct: Uint8Array; fault: Uint8Array }>;

  constructor(readonly world: World, readonly system: CompoundSystem) {
    this.modelCount = world.models.length;
    this.moduleCount = system.modules.length;
    if (this.modelCount === 0) throw new ParameterError("models", "模型池不能为空");
    if (this.moduleCount > 8) throw new ParameterError("system", "最多 8 个模块（出错模块的掩码只有 8 位）");
    this.scratch = {
      train: { correct: new Uint8Array(world.train.size), fault: new Uint8Array(world.train.size) },
      test: { correct: new Uint8Array(world.test.size), fault: new Uint8Array(world.test.size) },
    };
  }

  private set(split: Split): QuestionSet {
    if (split !== "train" && split !== "test") throw new ParameterError("split", `应为 "train" 或 "test"，实际是 ${JSON.stringify(split)}`);
    return split === "train" ? this.world.train : this.world.test;
  }

  /** Validates an allocation (indices or names) and returns model indices. */
  allocation(input: AllocationInput): number[] {
    const parts: Array<number | string> = typeof input === "string" ? input.split(/[\s+/]+/).filter((s) => s !== "") : [...input];
    if (parts.length !== this.moduleCount) {
      throw new ParameterError("allocation", `${this.system.name} 有 ${this.moduleCount} 个模块，分配要给出 ${this.moduleCount} 个模型，实际是 ${parts.length} 个：${JSON.stringify(input)}`);
    }
    return parts.map((p, j) => {
      if (typeof p === "number") {
        checkInteger(`allocation[${j}]`, p, { min: 0, max: this.modelCount - 1 });
        return p;
      }
      const k = this.world.names.indexOf(p);
      if (k < 0) throw new ParameterError(`allocation[${j}]`, `没有模型 ${JSON.stringify(p)}；可选：${this.world.names.join("、")}`);
      return k;
    });
  }

  /** "A+B", "A+B+C / D+D+E" … */
  label(allocation: readonly number[]): string {
    return this.system.label(allocation.map((k) => this.world.names[k]));
  }

  /** The run of `allocation` on every question of the split (cached per exact allocation). */
  run(allocation: readonly number[], split: Split = "train"): RunRecord {
    const key = allocation.join(",");
    const cache = this.runs[split];
    let record = cache.get(key);
    if (!record) {
      const set = this.set(split);
      const correct = new Uint8Array(set.size);
      const fault = new Uint8Array(set.size);
      this.system.run(set, allocation, correct, fault);
      let right = 0;
      for (let z = 0; z < set.size; z++) right += correct[z];
      record = { correct, fault, accuracy: right / set.size };
      cache.set(key, record);
      this.accuracies[split].set(this.system.accuracyKey(allocation), record.accuracy);
    }
    return record;
  }

  /** End-to-end accuracy (cached per accuracy key, so permuted identical roles are computed once). */
  accuracy(allocation: readonly number[], split: Split = "train"): number {
    const key = this.system.accuracyKey(allocation);
    const cache = this.accuracies[split];
    const hit = cache.get(key);
    if (hit !== undefined) return hit;
    const set = this.set(split);
    const s = this.scratch[split];
    this.system.run(set, allocation, s.correct, s.fault);
    let right = 0;
    for (let z = 0; z < set.size; z++) right += s.correct[z];
    const acc = right / set.size;
    cache.set(key, acc);
    return acc;
  }

  /** Distinct allocations whose accuracy has been computed (cache size), per split. */
  cacheSize(split: Split = "train"): number {
    return this.accuracies[split].size;
  }
}

/** For a two-module system: matrix[i][j] = accuracy of allocation (model i, model j) (rows = first module). */
export function accuracyMatrix(ev: Evaluator, split: Split = "train"): number[][] {
  if (ev.moduleCount !== 2) throw new ParameterError("system", `准确率矩阵只适用于两个模块的系统，${ev.system.name} 有 ${ev.moduleCount} 个`);
  return Array.from({ length: ev.modelCount }, (_, i) => Array.from({ length: ev.modelCount }, (_, j) => ev.accuracy([i, j], split)));
}
