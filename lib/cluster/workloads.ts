// The five workloads of Preble's study (§2.1), as synthetic generators shaped like the paper's Table 1.
// Every parameter lives in data/workloads.json with its source ("paper" or "assumed"). A prompt is a list of
// segments (id, tokens); the same content has the same id in every request, so prefix caches can share it.
import { readDataJson } from "../core/data";
import { checkInteger, checkNumber, checkOneOf, ParameterError } from "../core/errors";
import { Rng, rng, Zipf } from "../core/rng";

export interface Segment {
  readonly id: number;
  readonly tokens: number;
}

export interface ClusterRequest {
  /** index in arrival order, 0 … n−1 */
  readonly id: number;
  /** seconds */
  readonly arrival: number;
  readonly segments: readonly Segment[];
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** the generated text as a segment: it enters the cache when the request finishes (multi-turn reuse) */
  readonly outputSegment: Segment;
  /** index of the key portion (§2.1): document, video, tool, problem or environment */
  readonly key: number;
  /** segment id of the key portion */
  readonly keySegment: number;
  /** workload-specific tags (agent: episode and turn; programming: problem and sample) */
  readonly tags?: Readonly<Record<string, number>>;
}

export interface Workload {
  name: string;
  label: string;
  keyPortion: string;
  rate: number;
  seed: number | string;
  requests: ClusterRequest[];
  /** segment ids that are key portions (to count distinct cached documents, tools, videos…) */
  keySegments: Set<number>;
  params: Record<string, number>;
}

export interface WorkloadParameter {
  value: number;
  source: string;
}

interface WorkloadEntry {
  label: string;
  keyPortion: string;
  generator?: string;
  base?: string;
  params: Record<string, WorkloadParameter>;
}

interface WorkloadsFile {
  workloads: Record<string, WorkloadEntry>;
}

const file = readDataJson<WorkloadsFile>("workloads.json");

export const WORKLOAD_NAMES: readonly string[] = Object.keys(file.workloads);

export interface WorkloadDefinition {
  name: string;
  label: string;
  keyPortion: string;
  generator: string;
  params: Record<string, WorkloadParameter>;
}

/** The workload's definition with its parameters and their sources (a variant's base filled in). */
export function workloadDefinition(name: string): WorkloadDefinition {
  checkOneOf("workload", name, WORKLOAD_NAMES as string[]);
  const entry = file.workloads[name];
  if (entry.base) {
    const base = workloadDefinition(entry.base);
    return { name, label: entry.label, keyPortion: entry.keyPortion, generator: base.generator, params: { ...base.params, ...entry.params } };
  }
  return { name, label: entry.label, keyPortion: entry.keyPortion, generator: entry.generator as string, params: { ...entry.params } };
}

export interface WorkloadOptions {
  /** requests per second (Poisson) */
  rate: number;
  seed?: number | string;
  /** generate exactly this many requests … */
  requestCount?: number;
  /** … or every request arriving before this time (seconds) */
  horizon?: number;
  /** parameter overrides, e.g. { items: 100, hotShare: 0.4 } */
  overrides?: Record<string, number>;
  /** first segment id (to mix several workloads in one run); default 0 */
  segmentIdBase?: number;
}

/** Lognormal with the given mean and coefficient of variation, rounded and clamped. */
function lengthSampler(r: Rng, mean: number, cv: number, min: number, max: number): () => number {
  if (mean <= 0) return () => 0;
  if (cv <= 0) return () => Math.min(max, Math.max(min, Math.round(mean)));
  const sigma = Math.sqrt(Math.log(1 + cv * cv));
  const mu = Math.log(mean) - (sigma * sigma) / 2;
  return () => Math.min(max, Math.max(min, Math.round(r.lognormal(mu, sigma))));
}

interface Draft {
  arrival: number;
  segments: Segment[];
  outputTokens: number;
  key: number;
  keySegment: number;
  tags?: Record<string, number>;
  /** output segment fixed by the generator (multi-turn: later turns refer to it) */
  output?: Segment;
}

class IdCounter {
  constructor(public next: number) {}
  take(): number {
    return this.next++;
  }
}

/** Arrival times until `count` arrivals or `horizon` seconds, whichever is given. */
function arrivalsUntil(r: Rng, rate: number, count: number | undefined, horizon: number | undefined): number[] {
  const times: number[] = [];
  let t = 0;
  for (;;) {
    t += r.exponential(1 / rate);
    if (count !== undefined ? times.length >= count : t > (horizon as number)) break;
    times.push(t);
  }
  return times;
}

/** [system prompt] + [key item chosen by popularity] + [unique question]: long documents, videos, tools. */
function keyedContext(p: Record<string, number>, o: WorkloadOptions, ids: IdCounter, base: Rng): { drafts: Draft[]; keySegments: Set<number> } {
  checkInteger("items", p.items, { min: 1 });
  checkProbability01("hotShare", p.hotShare);
  const lengths = base.fork("items");
  const itemLength = lengthSampler(lengths, p.itemTokensMean, p.itemTokensCv, p.itemTokensMin, p.itemTokensMax);
  const system: Segment | null = p.systemPromptTokens > 0 ? { id: ids.take(), tokens: p.systemPromptTokens } : null;
  const items: Segment[] = [];
  for (let i = 0; i < p.items; i++) items.push({ id: ids.take(), tokens: itemLength() });
  const keySegments = new Set(items.map((s) => s.id));
  const pick = base.fork("popularity");
  // With a hot spot, item 0 takes `hotShare` of the traffic and the rest follow Zipf over items 1 … n−1.
  const hot = p.hotShare > 0 && p.items > 1;
  const zipf = new Zipf(hot ? p.items - 1 : p.items, p.popularityZipf);
  const q = base.fork("questions");
  const outputs = base.fork("outputs");
  const outputLength = lengthSampler(outputs, p.outputTokensMean, p.outputTokensCv, 1, p.outputTokensMax);
  const noise = lengthSampler(q, 1000, p.questionTokensCv, 1, 1e9);
  const questionLength = lengthSampler(q, p.questionTokensMean, p.questionTokensCv, 1, 1e9);
  const drafts: Draft[] = [];
  for (const arrival of arrivalsUntil(base.fork("arrivals"), o.rate, o.requestCount, o.horizon)) {
    const k = hot ? (pick.uniform() < p.hotShare ? 0 : 1 + zipf.sample(pick)) : zipf.sample(pick);
    const item = items[k];
    const before = (system ? system.tokens : 0) + item.tokens;
    // questionFraction f of the prompt: q = f/(1−f) × (system + item), with lognormal noise (mean 1).
    const qTokens = p.questionFraction > 0 ? Math.max(1, Math.round(((p.questionFraction / (1 - p.questionFraction)) * before * noise()) / 1000)) : questionLength();
    const segments: Segment[] = system ? [system, item] : [item];
    if (qTokens > 0) segments.push({ id: ids.take(), tokens: qTokens });
    drafts.push({ arrival, segments, outputTokens: outputLength(), key: k, keySegment: item.id });
  }
  return { drafts, keySegments };
}

function checkProbability01(name: string, v: number): void {
  checkNumber(name, v, { min: 0, max: 1 });
}

/** [shared instruction prefix] + [problem]; each problem is sampled `samplesPerProblem` times at once. */
function programming(p: Record<string, number>, o: WorkloadOptions, ids: IdCounter, base: Rng): { drafts: Draft[]; keySegments: Set<number> } {
  checkInteger("samplesPerProblem", p.samplesPerProblem, { min: 1 });
  checkInteger("problems", p.problems, { min: 1 });
  const prefix: Segment = { id: ids.take(), tokens: p.prefixTokens };
  const problemLength = lengthSampler(base.fork("problems"), p.problemTokensMean, p.problemTokensCv, 16, 8000);
  const problems: Segment[] = [];
  for (let i = 0; i < p.problems; i++) problems.push({ id: ids.take(), tokens: problemLength() });
  const pick = base.fork("popularity");
  const jitter = base.fork("jitter");
  const outputLength = lengthSampler(base.fork("outputs"), p.outputTokensMean, p.outputTokensCv, 1, p.outputTokensMax);
  const drafts: Draft[] = [];
  const groupCount = o.requestCount !== undefined ? Math.ceil(o.requestCount / p.samplesPerProblem) : undefined;
  for (const start of arrivalsUntil(base.fork("arrivals"), o.rate / p.samplesPerProblem, groupCount, o.horizon)) {
    const k = pick.int(p.problems);
    for (let s = 0; s < p.samplesPerProblem; s++) {
      const arrival = start + (s === 0 ? 0 : jitter.exponential(p.sampleJitterSeconds));
      drafts.push({ arrival, segments: [prefix, problems[k]], outputTokens: outputLength(), key: k, keySegment: prefix.id, tags: { problem: k, sample: s } });
    }
  }
  return { drafts, keySegments: new Set([prefix.id]) };
}

/** Multi-turn: [task-type examples] + [environment] + (observation, action)* + observation. Turn k's prompt
 * extends turn k−1's prompt and output; turns of an episode are spaced by `turnGapSeconds` (open loop). */
function agent(p: Record<string, number>, o: WorkloadOptions, ids: IdCounter, base: Rng): { drafts: Draft[]; keySegments: Set<number> } {
  checkInteger("taskTypes", p.taskTypes, { min: 1 });
  checkInteger("environments", p.environments, { min: 1 });
  checkInteger("turnsMin", p.turnsMin, { min: 1 });
  checkInteger("turnsMax", p.turnsMax, { min: p.turnsMin });
  const examples: Segment[] = [];
  for (let i = 0; i < p.taskTypes; i++) examples.push({ id: ids.take(), tokens: p.examplesTokens });
  const envLength = lengthSampler(base.fork("environments"), p.environmentTokensMean, p.environmentTokensCv, 8, 4000);
  const environments: Segment[] = [];
  for (let i = 0; i < p.environments; i++) environments.push({ id: ids.take(), tokens: envLength() });
  const pick = base.fork("episodes");
  const gaps = base.fork("gaps");
  const obsLength = lengthSampler(base.fork("observations"), p.observationTokensMean, p.observationTokensCv, 1, 2000);
  const outputLength = lengthSampler(base.fork("outputs"), p.outputTokensMean, p.outputTokensCv, 1, p.outputTokensMax);
  const meanTurns = (p.turnsMin + p.turnsMax) / 2;
  const drafts: Draft[] = [];
  // Episodes start as a Poisson process at rate / meanTurns; with a request count, episodes are added until there
  // are enough turns (episode lengths are random, so a fixed number of episodes could fall short).
  const episodeStarts = base.fork("arrivals");
  let episode = 0;
  let start = 0;
  for (;;) {
    start += episodeStarts.exponential(meanTurns / o.rate);
    if (o.requestCount !== undefined ? drafts.length >= o.requestCount : start > (o.horizon as number)) break;
    const env = pick.int(p.environments);
    const type = env % p.taskTypes;
    const turns = pick.intBetween(p.turnsMin, p.turnsMax);
    const history: Segment[] = [examples[type], environments[env]];
    let t = start;
    for (let turn = 0; turn < turns; turn++) {
      if (turn > 0) t += gaps.exponential(p.turnGapSeconds);
      const segments = history.slice();
      segments.push({ id: ids.take(), tokens: obsLength() });
      const outputTokens = outputLength();
      const output: Segment = { id: ids.take(), tokens: outputTokens };
      drafts.push({ arrival: t, segments, outputTokens, output, key: type, keySegment: examples[type].id, tags: { episode, turn, environment: env } });
      // The next turn sees this observation and this turn's output.
      history.push(segments[segments.length - 1]);
      history.push(output);
    }
    episode++;
  }
  return { drafts, keySegments: new Set(examples.map((s) => s.id)) };
}

const GENERATORS: Record<string, typeof keyedContext> = { keyedContext, programming, agent };

// The last few generated workloads, by their arguments: sweeps run several configurations on the same workload
// (03.1 runs four per rate), and generation is a pure function of the arguments. Callers get a fresh Workload
// (own requests array, key set and params) sharing the read-only request objects.
const recentWorkloads = new Map<string, Workload>();
const RECENT_WORKLOADS = 8;

/** Generates a workload: requests sorted by arrival, ids 0 … n−1, output segments with fresh ids. */
export function generateWorkload(name: string, options: WorkloadOptions): Workload {
  const key = JSON.stringify([name, options.rate, options.seed ?? 1, options.requestCount ?? null, options.horizon ?? null, options.overrides ?? {}, options.segmentIdBase ?? 0]);
  let w = recentWorkloads.get(key);
  if (w === undefined) {
    w = generateWorkloadUncached(name, options);
    if (recentWorkloads.size >= RECENT_WORKLOADS) recentWorkloads.delete(recentWorkloads.keys().next().value as string);
  } else recentWorkloads.delete(key); // re-inserted below as the most recent
  recentWorkloads.set(key, w);
  return { ...w, requests: w.requests.slice(), keySegments: new Set(w.keySegments), params: { ...w.params } };
}

function generateWorkloadUncached(name: string, options: WorkloadOptions): Workload {
  const def = workloadDefinition(name);
  checkNumber("rate", options.rate, { above: 0 });
  if (options.requestCount === undefined && options.horizon === undefined) throw new ParameterError("requestCount", "give requestCount or horizon");
  if (options.requestCount !== undefined) checkInteger("requestCount", options.requestCount, { min: 1 });
  else checkNumber("horizon", options.horizon, { above: 0 });
  const params: Record<string, number> = {};
  for (const [k, v] of Object.entries(def.params)) params[k] = v.value;
  for (const [k, v] of Object.entries(options.overrides ?? {})) {
    if (!(k in params)) throw new ParameterError(k, `is not a parameter of workload ${name}; its parameters: ${Object.keys(params).join(", ")}`);
    params[k] = checkNumber(k, v, { min: 0 });
  }
  const seed = options.seed ?? 1;
  const base = rng(seed).fork(`workload/${name}`);
  const ids = new IdCounter(options.segmentIdBase ?? 0);
  const { drafts, keySegments } = GENERATORS[def.generator](params, options, ids, base);
  drafts.sort((a, b) => a.arrival - b.arrival);
  let kept = drafts;
  if (options.requestCount !== undefined) kept = drafts.slice(0, options.requestCount);
  else kept = drafts.filter((d) => d.arrival <= (options.horizon as number));
  // Output segments get fresh ids now unless the generator fixed them (an agent's later turns refer to them).
  const requests: ClusterRequest[] = kept.map((d, i) => ({
    id: i,
    arrival: d.arrival,
    segments: d.segments,
    promptTokens: d.segments.reduce((sum, x) => sum + x.tokens, 0),
    outputTokens: d.outputTokens,
    outputSegment: d.output ?? { id: ids.take(), tokens: d.outputTokens },
    key: d.key,
    keySegment: d.keySegment,
    tags: d.tags,
  }));
  return { name, label: def.label, keyPortion: def.keyPortion, rate: options.rate, seed, requests, keySegments, params };
}

/** Mean prompt and output tokens, shared fraction (tokens of segments seen in an earlier request) and
 * key-portion fraction, computed from a generated workload (the §2.1 table). */
export function describeWorkload(w: Workload): { requests: number; meanPromptTokens: number; meanOutputTokens: number; promptToOutput: number; sharedFraction: number; keyFraction: number; distinctKeys: number } {
  let prompt = 0;
  let output = 0;
  let shared = 0;
  let key = 0;
  const keys = new Set<number>();
  // A segment is shared when its content id appears in more than one request's prompt.
  const uses = new Map<number, number>();
  for (const r of w.requests) for (const s of r.segments) uses.set(s.id, (uses.get(s.id) ?? 0) + 1);
  for (const r of w.requests) {
    prompt += r.promptTokens;
    output += r.outputTokens;
    keys.add(r.key);
    for (const s of r.segments) {
      if ((uses.get(s.id) ?? 0) > 1) shared += s.tokens;
      if (s.id === r.keySegment) key += s.tokens;
    }
  }
  const n = w.requests.length;
  return { requests: n, meanPromptTokens: prompt / n, meanOutputTokens: output / n, promptToOutput: prompt / output, sharedFraction: shared / prompt, keyFraction: key / prompt, distinctKeys: keys.size };
}
