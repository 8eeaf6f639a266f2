// The house's rules (docs/design.md, "The parts"), checked on the sources: no import cycle in lib/ (type-only
// imports count: a reader follows them too), no folder with more than 20 .ts files, no file over 450 lines, and
// simulateCluster short enough to read. Each rule is also tested on a hand-made graph so that it can fail.
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, expect, it } from "vitest";

const LIB = path.join(__dirname, "..", "lib");

function tsFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? tsFiles(p) : e.name.endsWith(".ts") ? [p] : [];
  });
}

/** The lib files a source imports (static, type-only, re-exports, `import("…")` types). */
export function importsOf(file: string, source: string): string[] {
  const out: string[] = [];
  const pattern = /(?:from\s*|import\s*\(\s*|import\s+|require\(\s*)["'](\.{1,2}\/[^"']+)["']/g;
  for (const m of source.matchAll(pattern)) {
    const base = path.resolve(path.dirname(file), m[1]);
    const hit = [base + ".ts", path.join(base, "index.ts")].find((c) => fs.existsSync(c));
    if (hit) out.push(hit);
  }
  return out;
}

/** One cycle of the graph (a list of nodes, first = last), or null. Iterative DFS with colours. */
export function findCycle(graph: Map<string, string[]>): string[] | null {
  const colour = new Map<string, 1 | 2>();
  for (const start of graph.keys()) {
    if (colour.has(start)) continue;
    const stack: { node: string; next: number }[] = [{ node: start, next: 0 }];
    colour.set(start, 1);
    while (stack.length > 0) {
      const top = stack[stack.length - 1];
      const edges = graph.get(top.node) ?? [];
      if (top.next >= edges.length) {
        colour.set(top.node, 2);
        stack.pop();
        continue;
      }
      const to = edges[top.next++];
      if (colour.get(to) === 1) {
        const from = stack.findIndex((s) => s.node === to);
        return [...stack.slice(from).map((s) => s.node), to];
      }
      if (!colour.has(to)) {
        colour.set(to, 1);
        stack.push({ node: to, next: 0 });
      }
    }
  }
  return null;
}

const files = tsFiles(LIB);
const rel = (f: string) => path.relative(path.join(LIB, ".."), f);

describe("the library's layout", () => {
  it("findCycle finds a cycle in a hand-made graph and none in a chain", () => {
    expect(findCycle(new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]]]))).toEqual(["a", "b", "c", "a"]);
    expect(findCycle(new Map([["a", ["b"]], ["b", ["c"]], ["c", []]]))).toBeNull();
    expect(findCycle(new Map([["a", ["a"]]]))).toEqual(["a", "a"]);
  });

  it("has no import cycle in lib/", () => {
    const graph = new Map(files.map((f) => [f, importsOf(f, fs.readFileSync(f, "utf8"))]));
    expect(graph.size).toBeGreaterThan(100);
    const cycle = findCycle(graph);
    expect(cycle?.map(rel) ?? null).toBeNull();
  });

  it("has no folder with more than 20 .ts files and no file over 450 lines", () => {
    const perFolder = new Map<string, number>();
    for (const f of files) perFolder.set(path.dirname(f), (perFolder.get(path.dirname(f)) ?? 0) + 1);
    const crowded = [...perFolder].filter(([, n]) => n > 20).map(([d, n]) => `${rel(d)}: ${n}`);
    expect(crowded).toEqual([]);
    const long = files.map((f) => [rel(f), fs.readFileSync(f, "utf8").split("\n").length] as const).filter(([, n]) => n > 450);
    expect(long).toEqual([]);
  });

  it("keeps simulateCluster within 80 lines", () => {
    const source = fs.readFileSync(path.join(LIB, "cluster", "simulate.ts"), "utf8").split("\n");
    const start = source.findIndex((l) => /^export function simulateCluster\(/.test(l));
    expect(start).toBeGreaterThanOrEqual(0);
    const end = source.findIndex((l, i) => i > start && l === "}");
    expect(end - start + 1).toBeLessThanOrEqual(80);
  });

  it("keeps no working notes at the repository root", () => {
    const root = fs.readdirSync(path.join(LIB, ".."));
    expect(root.filter((n) => /\.md$/.test(n) && n !== "README.md")).toEqual([]);
  });
});
