// The one Table type every demo returns: plain data that the notebook renders, the CLI prints and tests assert.

/** How a column's numbers are written: fixed decimals, integer with separators, percent, or a function (demos use
 * the named ones: a table with a function cannot be kept by the result cache, lib/demos/result-cache.ts). */
export type Format =
  | "int"
  | "fixed0"
  | "fixed1"
  | "fixed2"
  | "fixed3"
  | "fixed4"
  | "percent0"
  | "percent1"
  | "sig3"
  /** a whole number with separators, else one decimal (a count, or a mean of counts) */
  | "countOrMean"
  | "text"
  /** an identifier shown by its glossary name (lib/core/glossary.ts): "jsq" → "最短队列 (JSQ)" */
  | "name"
  | ((value: unknown) => string);

export interface Column {
  /** property name in each row (stable: tests and JSON use it) */
  key: string;
  /** header shown to the reader */
  label: string;
  /** unit shown in the header, e.g. "s", "req/s", "× service time" */
  unit?: string;
  format?: Format;
  /** a column of mixed measures (each row its own unit): the key of the row cell naming the named Format of this
   * column's cell in that row (e.g. "percent1" for a hit rate beside a latency); rows without it use `format` */
  formatFrom?: string;
  /** what a chart's legend calls a series drawn from this column, when the header alone does not say what it is
   * (e.g. "M + P（淘汰代价 + 本请求的 prefill）" for "M + P 比最低的多"); charts only, the table shows the header */
  legend?: string;
}

export type Cell = string | number | boolean | null | undefined;
export type Row = Record<string, Cell>;

export interface Table {
  id?: string;
  title: string;
  columns: Column[];
  rows: Row[];
  notes?: string[];
  /** the lecture's conclusions about this table, judged on its numbers (set by runDemo) */
  claims?: ClaimResult[];
  /** the parameters the demo ran with: its defaults merged with the caller's overrides (set by runDemo) */
  params?: Record<string, unknown>;
}

/** holds: the numbers support the conclusion; fails: they contradict it; unjudged: these parameters do not give
 * the rows or values the conclusion needs (`reason` says which). */
export type Verdict = "holds" | "fails" | "unjudged";

/** One judged conclusion (lib/demos/claims.ts evaluates a demo's claims into these). */
export interface ClaimResult {
  id: string;
  /** the conclusion in our own Chinese words */
  says: string;
  /** the lecture's figure, where the lecture gives one */
  lecture?: string;
  verdict: Verdict;
  /** our figure(s), computed from the table */
  ours: string;
  /** why it cannot be judged (verdict "unjudged"), or a remark on the judgement */
  reason?: string;
  /** when the verdict is not "holds": one or two Chinese sentences computed from the run saying why (for "unjudged",
   * the same as `reason`) */
  why?: string;
  /** a narrower statement of ours beside the lecture's claims (not the lecture's conclusion) */
  ourStatement?: boolean;
  /** on how many seeds the claim holds (seed by seed), where it rests on a ranking or a ratio over seeds */
  seeds?: { agree: number; total: number };
  /** where the lecture's reading and the released code differ: the verdict under each (the first is the default) */
  readings?: Array<{ reading: string; verdict: Verdict; ours: string; reason?: string; why?: string; seeds?: { agree: number; total: number } }>;
  /** set when the judge failed with an unexpected error (a bug, caught so that a notebook never throws) */
  error?: string;
}

/** Selects rows matching all given key/value pairs. */
export function rowsWhere(table: Table, match: Record<string, Cell>): Row[] {
  return table.rows.filter((r) => Object.entries(match).every(([k, v]) => r[k] === v));
}

/** The single row matching `match`; throws when none or several match (tests and prose rely on this). */
export function rowWhere(table: Table, match: Record<string, Cell>): Row {
  const rows = rowsWhere(table, match);
  if (rows.length !== 1) throw new Error(`expected one row matching ${JSON.stringify(match)} in "${table.title}", found ${rows.length}`);
  return rows[0];
}

/** The numeric cell `key` of the single row matching `match`. */
export function cell(table: Table, match: Record<string, Cell>, key: string): number {
  const v = rowWhere(table, match)[key];
  if (typeof v !== "number") throw new Error(`cell ${key} of ${JSON.stringify(match)} is not a number`);
  return v;
}
