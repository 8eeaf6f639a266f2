// §4.4 the toy world: models with a general level and per-skill expertise, questions with a difficulty. Whether a
// model succeeds at a skill on a question is drawn once (precomputed), so running a system is table lookups.
import { checkInteger, checkNonEmpty, checkNumber, checkProbability, ParameterError } from "../core/errors";
import { readDataJson } from "../core/data";
import { rng, Rng } from "../core/rng";

export const SKILLS = ["locate", "solve", "answer", "critique", "refine"] as const;
export type Skill = (typeof SKILLS)[number];

export interface SelectorModel {
  name: string;
  /** ability shared by all skills (probit scale: 0 ≈ a question of average difficulty is a coin flip) */
  general: number;
  /** per-skill offset added to `general`; missing skills count as 0 */
  expertise: Partial<Record<Skill, number>>;
  /** 0…1: how strongly the model's skills succeed or fail together on the same question */
  consistency: number;
}

export interface WorldOptions {
  models: SelectorModel[];
  train: number;
  test: number;
  seed: number | string;
  /** standard deviation of question difficulty (shared by every model) */
  difficultySpread?: number;
  /** standard deviation of a model's own per-question luck */
  noiseScale?: number;
  /** how many distinct wrong answers a question has (a wrong model picks one, always the same) */
  wrongAnswers?: number;
}

/** One split of questions with every outcome precomputed. */
export interface QuestionSet {
  split: "train" | "test";
  size: number;
  difficulty: Float64Array;
  /** success[model][skillIndex][question] ∈ {0, 1} */
  success: Uint8Array[][];
  /** wrongAnswer[model][question] ∈ 1…wrongAnswers: the answer this model gives whenever it is wrong (0 = correct) */
  wrongAnswer: Uint8Array[];
  /** selfCheck[model][question] uniform on [0, 1): decides whether a self-blind critic still sees its own error */
  selfCheck: Float64Array[];
}

export interface World {
  models: SelectorModel[];
  names: string[];
  train: QuestionSet;
  test: QuestionSet;
  seed: number | string;
  difficultySpread: number;
  noiseScale: number;
  wrongAnswers: number;
}

export function skillIndex(skill: Skill): number {
  const i = SKILLS.indexOf(skill);
  if (i < 0) throw new ParameterError("skill", `应为以下之一：${SKILLS.join("、")}，实际是 ${String(skill)}`);
  return i;
}

/** The model's latent ability at a skill (success probability = Φ(ability / √(spread² + noise²))). */
export function ability(model: SelectorModel, skill: Skill): number {
  return model.general + (model.expertise[skill] ?? 0);
}

function checkModel(m: SelectorModel, i: number): void {
  if (!m || typeof m.name !== "string" || m.name === "") throw new ParameterError(`models[${i}].name`, "应为非空字符串");
  checkNumber(`models[${i}].general`, m.general);
  checkProbability(`models[${i}].consistency`, m.consistency);
  for (const [skill, value] of Object.entries(m.expertise ?? {})) {
    if (!(SKILLS as readonly string[]).includes(skill)) throw new ParameterError(`models[${i}].expertise`, `没有技能 ${JSON.stringify(skill)}；可选：${SKILLS.join("、")}`);
    checkNumber(`models[${i}].expertise.${skill}`, value);
  }
}

function drawSet(split: "train" | "test", size: number, models: SelectorModel[], base: Rng, spread: number, noise: number, wrongAnswers: number): QuestionSet {
  const r = base.fork(split);
  const dr = r.fork("difficulty");
  const difficulty = new Float64Array(size);
  for (let z = 0; z < size; z++) difficulty[z] = spread * dr.normal();
  const success: Uint8Array[][] = [];
  const wrongAnswer: Uint8Array[] = [];
  const selfCheck: Float64Array[] = [];
  for (const m of models) {
    // streams named by model, so adding a model to a pool leaves the others' outcomes unchanged
    const luck = r.fork(`luck/${m.name}`);
    const shared = new Float64Array(size);
    for (let z = 0; z < size; z++) shared[z] = luck.normal();
    const a = Math.sqrt(m.consistency);
    const b = Math.sqrt(1 - m.consistency);
    success.push(
      SKILLS.map((skill) => {
        const own = r.fork(`skill/${m.name}/${skill}`);
        const out = new Uint8Array(size);
        const level = ability(m, skill);
        for (let z = 0; z < size; z++) {
          const latent = level - difficulty[z] + noise * (a * shared[z] + b * own.normal());
          out[z] = latent > 0 ? 1 : 0;
        }
        return out;
      }),
    );
    const wr = r.fork(`wrong/${m.name}`);
    const w = new Uint8Array(size);
    for (let z = 0; z < size; z++) w[z] = 1 + wr.int(wrongAnswers);
    wrongAnswer.push(w);
    const sr = r.fork(`self/${m.name}`);
    const s = new Float64Array(size);
    for (let z = 0; z < size; z++) s[z] = sr.uniform();
    selfCheck.push(s);
  }
  return { split, size, difficulty, success, wrongAnswer, selfCheck };
}

/** Builds a world: every (model, skill, question) outcome is drawn once from the seed. */
export function buildWorld(options: WorldOptions): World {
  const models = checkNonEmpty("models", options.models) as SelectorModel[];
  models.forEach(checkModel);
  const names = models.map((m) => m.name);
  if (new Set(names).size !== names.length) throw new ParameterError("models", `模型的名字不能重复，实际是 ${names.join("、")}`);
  if (models.length > 250) throw new ParameterError("models", `最多 250 个模型，实际是 ${models.length} 个`);
  const train = checkInteger("train", options.train, { min: 1 });
  const test = checkInteger("test", options.test, { min: 1 });
  const spread = checkNumber("difficultySpread", options.difficultySpread ?? 1, { min: 0 });
  const noise = checkNumber("noiseScale", options.noiseScale ?? 1, { min: 0 });
  const wrongAnswers = checkInteger("wrongAnswers", options.wrongAnswers ?? 4, { min: 1, max: 250 });
  const base = rng(options.seed);
  return {
    models: models.map((m) => ({ ...m, expertise: { ...m.expertise } })),
    names,
    train: drawSet("train", train, models, base, spread, noise, wrongAnswers),
    test: drawSet("test", test, models, base, spread, noise, wrongAnswers),
    seed: options.seed,
    difficultySpread: spread,
    noiseScale: noise,
    wrongAnswers,
  };
}

// ---- the parameters in data/selector-world.json ----

export interface SelectorWorldData {
  skills: string[];
  caseStudy: { seed: number; train: number; test: number; difficultySpread: number; noiseScale: number; models: SelectorModel[]; prices: Record<string, number> };
  randomPools: {
    seed: number;
    models: number;
    train: number;
    test: number;
    generalMean: number;
    generalSd: number;
    expertiseSd: number;
    /** mean expertise per skill (e.g. checking an answer is easier than producing one); missing = 0 */
    skillMean: Partial<Record<Skill, number>>;
    consistencyMin: number;
    consistencyMax: number;
    difficultySpread: number;
    noiseScale: number;
  };
  systems: { wrongAnswers: number; sameModelCriticFactor: number };
}

let worldData: SelectorWorldData | undefined;

export function selectorWorldData(): SelectorWorldData {
  if (!worldData) worldData = readDataJson<SelectorWorldData>("selector-world.json");
  return worldData;
}

/** The lecture's case (代码 04 演示 1): models A–E of data/selector-world.json. */
export function caseStudyWorld(options: { seed?: number | string; train?: number; test?: number } = {}): World {
  const d = selectorWorldData();
  return buildWorld({
    models: d.caseStudy.models,
    train: options.train ?? d.caseStudy.train,
    test: options.test ?? d.caseStudy.test,
    seed: options.seed ?? d.caseStudy.seed,
    difficultySpread: d.caseStudy.difficultySpread,
    noiseScale: d.caseStudy.noiseScale,
    wrongAnswers: d.systems.wrongAnswers,
  });
}

/** Standard normal CDF (Abramowitz–Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + 0.3275911 * Math.abs(x) / Math.SQRT2);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp((-x * x) / 2);
  return 0.5 * (1 + (x >= 0 ? y : -y));
}

/** The probability that `model` succeeds at `skill` on a random question of `world`. */
export function successProbability(world: Pick<World, "difficultySpread" | "noiseScale">, model: SelectorModel, skill: Skill): number {
  const sd = Math.sqrt(world.difficultySpread ** 2 + world.noiseScale ** 2);
  return sd === 0 ? (ability(model, skill) > 0 ? 1 : 0) : normalCdf(ability(model, skill) / sd);
}

/** The case study's prices per call (exercise 7). */
export function caseStudyPrices(): Record<string, number> {
  return { ...selectorWorldData().caseStudy.prices };
}

/** A random pool of models: ability = general level + per-skill expertise, both normal. Names A, B, C, … */
export function randomPool(r: Rng, options: Partial<SelectorWorldData["randomPools"]> = {}): SelectorModel[] {
  const p = { ...selectorWorldData().randomPools, ...options };
  const count = checkInteger("models", p.models, { min: 1, max: 26 });
  checkNumber("generalSd", p.generalSd, { min: 0 });
  checkNumber("expertiseSd", p.expertiseSd, { min: 0 });
  checkProbability("consistencyMin", p.consistencyMin);
  checkProbability("consistencyMax", p.consistencyMax);
  const models: SelectorModel[] = [];
  for (let i = 0; i < count; i++) {
    const general = p.generalMean + p.generalSd * r.normal();
    const expertise: Partial<Record<Skill, number>> = {};
    for (const s of SKILLS) expertise[s] = (p.skillMean?.[s] ?? 0) + p.expertiseSd * r.normal();
    const consistency = p.consistencyMin + (p.consistencyMax - p.consistencyMin) * r.uniform();
    models.push({ name: String.fromCharCode(65 + i), general, expertise, consistency });
  }
  return models;
}

/** A world built on a random pool: `poolIndex` selects an independent pool from the seed. */
export function randomPoolWorld(options: {
  seed?: number | string;
  pool: number;
  train?: number;
  test?: number;
  /** overrides of data/selector-world.json's randomPools (e.g. { models: 3 }) */
  poolOptions?: Partial<SelectorWorldData["randomPools"]>;
}): World {
  const d = selectorWorldData();
  const pool = checkInteger("pool", options.pool, { min: 0 });
  const seed = options.seed ?? d.randomPools.seed;
  const base = rng(seed).fork(`pool/${pool}`);
  const models = randomPool(base.fork("models"), options.poolOptions ?? {});
  return buildWorld({
    models,
    train: options.train ?? d.randomPools.train,
    test: options.test ?? d.randomPools.test,
    seed: `${String(seed)}/pool/${pool}`,
    difficultySpread: d.randomPools.difficultySpread,
    noiseScale: d.randomPools.noiseScale,
    wrongAnswers: d.systems.wrongAnswers,
  });
}
