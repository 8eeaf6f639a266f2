// The lecture's demos ("代码 0X 演示 Y") by id: parameters in, a Table and its judged claims out. Shared by
// notebooks, the CLI and tests.
import { ParameterError, checkKnownKeys } from "../core/errors";
import type { Table } from "../core/table";
import { Claim, evaluateClaims } from "./claims";
import { resultCacheFromEnv } from "./result-cache";

export type DemoParams = Record<string, unknown>;

export interface DemoContext {
  /** called by long demos with a short status message (the notebook shows it as an updating line) */
  progress?: (message: string) => void;
}

/** One parameter's documentation for help(): what it means and the values it accepts, in Chinese. */
export interface ParamDoc {
  /** what the parameter means, e.g. "副本数" */
  meaning: string;
  /** the allowed values, e.g. "1–64 的整数"; the same words the ParameterError uses */
  range: string;
}

export interface Demo<P extends DemoParams = DemoParams> {
  id: string;
  /** lecture section, e.g. "§2.2" */
  section: string;
  /** the demo's name in lists (no parameter values: the table's title, computed by run, carries those) */
  title: string;
  /** every parameter the demo takes, with its default; anything else is rejected */
  defaults: P;
  /** every parameter's meaning and allowed range (help(), --help) */
  describe?: Partial<Record<keyof P, ParamDoc | string>>;
  /** returns the table; its title and notes are computed from `params` (the values actually used) */
  run(params: P, context: DemoContext): Table;
  /** the lecture's conclusions about this demo, judged on the table runDemo returns */
  claims?: readonly Claim<P>[];
  /** parameters (merged over `params`) under which the claims `ids` come out exactly as at `params` with less work —
   * e.g. only the workloads they read — or undefined when it cannot say (runDemoForClaims; 07 shows a few claims) */
  narrowForClaims?: (ids: readonly string[], params: P) => Partial<P> | undefined;
}

export function defineDemo<P extends DemoParams>(demo: Demo<P>): Demo<P> {
  return demo;
}

const registry = new Map<string, Demo>();

export function registerDemo(demo: Demo<any>): void {
  if (registry.has(demo.id)) throw new Error(`demo ${demo.id} registered twice`);
  registry.set(demo.id, demo as Demo);
}

export function listDemos(): Demo[] {
  return [...registry.values()].sort((a, b) => a.id.localeCompare(b.id, "en", { numeric: true }));
}

export function getDemo(id: string): Demo {
  const demo = registry.get(id);
  if (!demo) throw new ParameterError("id", `没有演示 ${JSON.stringify(id)}；已有的演示：${listDemos().map((d) => d.id).join("、")}`);
  return demo;
}

/** A parameter's documentation as a ParamDoc (a plain string is a meaning without a stated range). */
export function paramDoc(demo: Demo, key: string): ParamDoc | undefined {
  const d = demo.describe?.[key];
  if (d === undefined) return undefined;
  return typeof d === "string" ? { meaning: d, range: "" } : d;
}

/** A copy of a demo's default parameters (the object a notebook cell starts from). */
export function demoDefaults(id: string): DemoParams {
  return JSON.parse(JSON.stringify(getDemo(id).defaults)) as DemoParams;
}

/** Whether a value holds a function anywhere (a router object's route, a router factory). */
export function holdsFunction(value: unknown, depth = 0): boolean {
  if (typeof value === "function") return true;
  if (value === null || typeof value !== "object" || depth > 8) return false;
  if (typeof (value as { route?: unknown }).route === "function") return true; // a router, its route maybe inherited (a class)
  return Object.values(value as Record<string, unknown>).some((v) => holdsFunction(v, depth + 1));
}

const kind = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
const KIND_NAMES: Record<string, string> = { array: "数组", number: "数", string: "字符串", boolean: "布尔值", object: "对象", null: "null" };

/** Merges overrides into the defaults (rejecting unknown names and wrong types), runs the demo and judges its
 * claims. The table carries the parameters used (`params`) and the judged claims (`claims`). With
 * LECTURE_RESULT_CACHE set (the notebooks' kernels), a result this code already computed with these parameters is
 * read back from disk instead (lib/demos/result-cache.ts): the same numbers, without the simulation. */
export function runDemo(id: string, overrides: DemoParams = {}, context: DemoContext = {}): Table {
  const params = mergedParams(id, overrides);
  const cache = resultCacheFor(params);
  const cached = cache?.get(id, params);
  if (cached) return cached;
  const demo = getDemo(id);
  const table = demo.run(params, context);
  const claims = evaluateClaims(demo.claims ?? [], table, params);
  const result = { ...table, id, params, claims };
  cache?.set(id, params, result);
  return result;
}

/** For a caller that reads only part of a demo's table (05.x read a few rows of 01–04's demos; 07 a few claims):
 * the run at `overrides` when the result cache already holds it (a notebook before this one ran it), else the run at
 * `overrides` + `smaller` — parameters under which the rows the caller reads are the same numbers (each use is
 * checked against the full run in test/narrow-runs.test.ts). Opened alone, a notebook then computes only what it
 * shows. */
export function runDemoSmaller(id: string, overrides: DemoParams, smaller: DemoParams | undefined, context: DemoContext = {}): Table {
  if (smaller === undefined) return runDemo(id, overrides, context);
  const params = mergedParams(id, overrides);
  return resultCacheFor(params)?.get(id, params) ?? runDemo(id, { ...overrides, ...smaller }, context);
}

/** The result cache for a run at `params` (null when off). A router written in a cell is code: its source text would
 * not capture the cells it reads (an edited θ in another cell), so a result that ran code from the page is never
 * kept or read back. */
function resultCacheFor(params: DemoParams): ReturnType<typeof resultCacheFromEnv> {
  return holdsFunction(params) ? null : resultCacheFromEnv();
}

/** The demo's run as far as its claims `ids` need (its narrowForClaims), the full run when the cache holds it. */
export function runDemoForClaims(id: string, overrides: DemoParams, ids: readonly string[], context: DemoContext = {}): Table {
  const demo = getDemo(id);
  return runDemoSmaller(id, overrides, demo.narrowForClaims?.(ids, mergedParams(id, overrides)), context);
}

/** The defaults with `overrides` merged in, after rejecting unknown names and values of the wrong kind. */
function mergedParams(id: string, overrides: DemoParams): DemoParams {
  const demo = getDemo(id);
  const params: DemoParams = { ...demo.defaults };
  checkKnownKeys(`演示 ${id} `, overrides, Object.keys(demo.defaults), "parameter");
  for (const [key, value] of Object.entries(overrides)) {
    const expected = demo.defaults[key];
    if (expected !== undefined && expected !== null && value !== undefined && kind(expected) !== kind(value)) {
      throw new ParameterError(key, `应为${KIND_NAMES[kind(expected)] ?? kind(expected)}（默认 ${JSON.stringify(expected)}），实际是 ${JSON.stringify(value)}`);
    }
    if (value !== undefined) params[key] = value;
  }
  return params;
}
