// The lecture's demos ("代码 0X 演示 Y") by id: parameters in, a Table out. Shared by notebooks, the CLI and tests.
import { ParameterError, checkKnownKeys } from "../core/errors";
import type { Table } from "../core/table";

export type DemoParams = Record<string, unknown>;

export interface DemoContext {
  /** called by long demos with a short status message (the notebook shows it as an updating line) */
  progress?: (message: string) => void;
}

export interface Demo<P extends DemoParams = DemoParams> {
  id: string;
  /** lecture section, e.g. "§2.2" */
  section: string;
  title: string;
  /** every parameter the demo takes, with its default; anything else is rejected */
  defaults: P;
  /** one line per parameter for --help and the notebook */
  describe?: Partial<Record<keyof P, string>>;
  run(params: P, context: DemoContext): Table;
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
  if (!demo) throw new ParameterError("id", `unknown demo ${JSON.stringify(id)}; known: ${listDemos().map((d) => d.id).join(", ")}`);
  return demo;
}

/** Merges overrides into the defaults (rejecting unknown names and wrong types) and runs the demo. */
export function runDemo(id: string, overrides: DemoParams = {}, context: DemoContext = {}): Table {
  const demo = getDemo(id);
  const params: DemoParams = { ...demo.defaults };
  checkKnownKeys(`demo ${id}`, overrides, Object.keys(demo.defaults), "parameter");
  for (const [key, value] of Object.entries(overrides)) {
    const expected = demo.defaults[key];
    const kind = (v: unknown) => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v);
    if (expected !== undefined && expected !== null && value !== undefined && kind(expected) !== kind(value)) {
      throw new ParameterError(key, `must be of type ${kind(expected)} (default ${JSON.stringify(expected)}), got ${JSON.stringify(value)}`);
    }
    if (value !== undefined) params[key] = value;
  }
  const table = demo.run(params, context);
  return { ...table, id };
}
