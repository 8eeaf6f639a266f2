// The algorithms on the page, as the tests see them: the code cells of a notebook tagged `algorithm`, compiled and
// evaluated here with the library's exports in scope, exactly as the reader's kernel runs them (tslab shares a
// cell's top-level declarations with the cells after it). A test compares what these functions decide with the
// library's fast implementation, so the page cannot drift from what runs; `edits` replaces text in a cell first,
// the way a student edits it, so a test can show that an edit changes the run.
import * as fs from "node:fs";
import * as path from "node:path";
import ts from "typescript";
import * as lib from "../../lib/index";

export const NOTEBOOKS = path.join(__dirname, "..", "..", "notebooks");

interface NotebookCell {
  cell_type: string;
  source: string | string[];
  metadata?: { tags?: string[] };
}

export interface PageCell {
  index: number;
  source: string;
  tags: string[];
}

const textOf = (s: string | string[]): string => (Array.isArray(s) ? s.join("") : s);

/** The code cells of a notebook (file name under notebooks/) with their tags. */
export function codeCells(notebook: string): PageCell[] {
  const nb = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS, notebook), "utf8")) as { cells: NotebookCell[] };
  return nb.cells
    .map((c, index) => ({ index, cell: c }))
    .filter(({ cell }) => cell.cell_type === "code")
    .map(({ index, cell }) => ({ index, source: textOf(cell.source), tags: cell.metadata?.tags ?? [] }));
}

/** The notebook's algorithm cells (tag `algorithm`), in page order. */
export function algorithmCells(notebook: string): PageCell[] {
  return codeCells(notebook).filter((c) => c.tags.includes("algorithm"));
}

/** Top-level names a cell declares (functions, classes, const/let/var), which later cells may use. */
export function declaredNames(source: string): string[] {
  const file = ts.createSourceFile("cell.ts", source, ts.ScriptTarget.ES2020, true, ts.ScriptKind.TS);
  const names: string[] = [];
  for (const s of file.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) names.push(s.name.text);
    else if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) names.push(d.name.text);
    }
  }
  return names;
}

/** A text replacement a student makes in a cell; `from` must occur in the algorithm cells exactly once. */
export interface Edit {
  from: string;
  to: string;
}

/** Evaluates the notebook's algorithm cells (after the edits) with lib/index's exports in scope and returns every
 * top-level name they declare. An import of "./lib/index" in a cell is dropped: the library is already in scope. */
export function loadPageCode(notebook: string, edits: readonly Edit[] = []): Record<string, any> {
  let source = algorithmCells(notebook).map((c) => c.source).join("\n;\n");
  if (source.trim() === "") throw new Error(`${notebook} has no cell tagged "algorithm"`);
  for (const e of edits) {
    const count = source.split(e.from).length - 1;
    if (count !== 1) throw new Error(`edit: "${e.from}" occurs ${count} times in ${notebook}'s algorithm cells (need exactly once)`);
    source = source.replace(e.from, e.to);
  }
  return evaluateSource(source);
}

/** Runs one code cell of a notebook (by its cell id) as the reader's kernel would, with lib/index's exports in scope
 * and `scope` in place of some of them (e.g. a runDemo that returns a stored table, a plot that only records), and
 * returns the top-level names it declares. */
export function runPageCell(notebook: string, cellId: string, scope: Record<string, unknown> = {}): Record<string, any> {
  const nb = JSON.parse(fs.readFileSync(path.join(NOTEBOOKS, notebook), "utf8")) as { cells: Array<NotebookCell & { id?: string }> };
  const cell = nb.cells.find((c) => c.id === cellId && c.cell_type === "code");
  if (!cell) throw new Error(`${notebook} has no code cell with id ${cellId}`);
  return evaluateSource(textOf(cell.source), scope);
}

/** `source` (TypeScript, a cell or several) evaluated with lib/index's exports and `scope` in scope; an import of
 * "./lib/index" is dropped: the library is already in scope. Returns every top-level name it declares. */
function evaluateSource(typescript: string, scope: Record<string, unknown> = {}): Record<string, any> {
  const source = typescript.replace(/^\s*import\s+[^;]*from\s+["']\.\/lib\/index["'];?\s*$/gm, "");
  const names = declaredNames(source);
  const js = ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.None, strict: false } }).outputText;
  const inScope: Record<string, unknown> = { ...lib, ...scope };
  const scopeNames = Object.keys(inScope).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && !names.includes(k));
  const body = `"use strict";\nconst { ${scopeNames.join(", ")} } = lib;\n${js}\nreturn { ${names.join(", ")} };`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval
  return new Function("lib", body)(inScope) as Record<string, any>;
}
