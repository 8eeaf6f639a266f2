// The cluster routers' rules (lib/cluster/routers.ts) on hand-made views: each test states the rule and checks it
// decision by decision, not through a simulation's averages. Killing the mutants of `npm run mutation` (issue 30).
import { describe, expect, it } from "vitest";
import { ClusterRequest, ClusterView, createRouter, fewestRequests, leastLoaded, longestMatch, Router, routerDescription, thresholdAffinityRouter } from "../lib/cluster/index";
import { ParameterError } from "../lib/core/errors";
import { rng } from "../lib/core/rng";

const request = (promptTokens: number): ClusterRequest => ({ id: 0, arrival: 0, segments: [{ id: 1, tokens: promptTokens }], promptTokens, outputTokens: 1, outputSegment: { id: 2, tokens: 1 }, key: 0, keySegment: 1 });

function view(o: { match?: number[]; requests?: number[]; tokens?: number[]; n?: number }): ClusterView {
  const n = o.n ?? (o.match ?? o.requests ?? o.tokens ?? []).length;
  const zero = new Array(n).fill(0);
  const match = o.match ?? zero;
  const requests = o.requests ?? zero;
  const tokens = o.tokens ?? zero;
  // like the simulator's view, a replica index out of 0 … n−1 is an error (not a silent undefined)
  const at = (xs: number[], i: number) => {
    if (!(Number.isInteger(i) && i >= 0 && i < n)) throw new Error(`replica ${i} out of 0 … ${n - 1}`);
    return xs[i];
  };
  return { replicaCount: n, viewMatch: (_r: ClusterRequest, i: number) => at(match, i), outstandingRequests: (i: number) => at(requests, i), outstandingTokens: (i: number) => at(tokens, i) } as unknown as ClusterView;
}

/** An rng whose int(n) returns the scripted values in turn (each checked to lie in 0 … n−1). */
function scripted(values: number[]) {
  let k = 0;
  const asked: number[] = [];
  return {
    asked,
    int(n: number) {
      asked.push(n);
      const v = values[k++];
      if (!(v >= 0 && v < n)) throw new Error(`scripted int(${n}) = ${v}`);
      return v;
    },
    uniform: () => 0.5,
  };
}

const ctx = (replicas: number, r: unknown = rng(1)) => ({ replicas, rng: r as never, step: null as never, kvCapacity: 1000 });

describe("powerOfTwo samples two distinct replicas and takes the one with fewer outstanding tokens", () => {
  it("on every sampled pair of 4 replicas, for every ordering of their loads (ties → the lower index)", () => {
    const loads = [
      [10, 20, 30, 40],
      [40, 30, 20, 10],
      [5, 5, 7, 7],
      [3, 9, 3, 9],
      [0, 0, 0, 0],
    ];
    for (const tokens of loads) {
      for (let a = 0; a < 4; a++) {
        for (let b0 = 0; b0 < 3; b0++) {
          const b = b0 >= a ? b0 + 1 : b0;
          const r = scripted([a, b0]);
          const router = createRouter("powerOfTwo", ctx(4, r));
          const picked = router.route(request(10), view({ tokens }));
          expect(r.asked, "draws: int(N) then int(N − 1)").toEqual([4, 3]);
          const expected = tokens[a] < tokens[b] || (tokens[a] === tokens[b] && a < b) ? a : b;
          expect(picked, `tokens ${tokens}, pair (${a}, ${b})`).toBe(expected);
          // never the busier of the two
          expect(tokens[picked]).toBeLessThanOrEqual(Math.min(tokens[a], tokens[b]));
        }
      }
    }
  });

  it("the two samples are never the same replica, and every ordered pair can be drawn", () => {
    const seen = new Set<string>();
    for (let a = 0; a < 5; a++) {
      for (let b0 = 0; b0 < 4; b0++) {
        const b = b0 >= a ? b0 + 1 : b0;
        expect(b).not.toBe(a);
        seen.add(`${a},${b}`);
      }
    }
    expect(seen.size).toBe(5 * 4);
  });

  it("with a real stream: the pick is never the busier of its pair (1,000 random views of 6 replicas)", () => {
    const load = rng("loads");
    const draws = rng("p2");
    // the same stream, read twice: once by the router, once here to know the pair it drew
    const shadow = rng("p2");
    const router = createRouter("powerOfTwo", ctx(6, draws));
    for (let k = 0; k < 1000; k++) {
      const tokens = Array.from({ length: 6 }, () => load.int(5) * 100);
      const a = shadow.int(6);
      let b = shadow.int(5);
      if (b >= a) b++;
      const picked = router.route(request(10), view({ tokens }));
      expect([a, b]).toContain(picked);
      const other = picked === a ? b : a;
      expect(tokens[picked]).toBeLessThanOrEqual(tokens[other]);
      if (tokens[picked] === tokens[other]) expect(picked).toBeLessThan(other);
    }
  });

  it("one replica: always 0, without drawing", () => {
    const r = scripted([]);
    expect(createRouter("powerOfTwo", ctx(1, r)).route(request(10), view({ n: 1 }))).toBe(0);
    expect(r.asked).toEqual([]);
  });
});

describe("the load-only routers", () => {
  it("random draws int(replicas) and returns it", () => {
    const r = scripted([2, 0, 1]);
    const router = createRouter("random", ctx(3, r));
    expect([0, 1, 2].map(() => router.route(request(1), view({ n: 3 })))).toEqual([2, 0, 1]);
    expect(r.asked).toEqual([3, 3, 3]);
  });

  it("roundRobin: 0, 1, 2, 0, 1 …", () => {
    const router = createRouter("roundRobin", ctx(3));
    expect(Array.from({ length: 7 }, () => router.route(request(1), view({ n: 3 })))).toEqual([0, 1, 2, 0, 1, 2, 0]);
  });

  it("leastLoaded: fewest tokens; ties → fewer requests; then the lowest index", () => {
    expect(leastLoaded(view({ tokens: [30, 10, 20], requests: [0, 9, 0] }))).toBe(1);
    expect(leastLoaded(view({ tokens: [10, 10, 10], requests: [3, 2, 2] }))).toBe(1);
    expect(leastLoaded(view({ tokens: [10, 10, 10], requests: [2, 2, 2] }))).toBe(0);
    expect(leastLoaded(view({ tokens: [10, 10, 9], requests: [0, 0, 5] }))).toBe(2);
    expect(leastLoaded(view({ tokens: [5, 10, 5], requests: [1, 0, 0] }))).toBe(2);
  });

  it("fewestRequests: fewest requests; ties → fewer tokens; then the lowest index", () => {
    expect(fewestRequests(view({ requests: [3, 1, 2], tokens: [0, 900, 0] }))).toBe(1);
    expect(fewestRequests(view({ requests: [1, 1, 1], tokens: [30, 20, 20] }))).toBe(1);
    expect(fewestRequests(view({ requests: [1, 1, 1], tokens: [5, 5, 5] }))).toBe(0);
    expect(fewestRequests(view({ requests: [2, 2, 1], tokens: [0, 0, 50] }))).toBe(2);
    expect(fewestRequests(view({ requests: [1, 2, 1], tokens: [9, 0, 3] }))).toBe(2);
  });
});

describe("longestMatch and the threshold", () => {
  it("the longest view match and its tokens; ties → lowest index, or → least loaded (tokens, requests, index)", () => {
    expect(longestMatch(request(100), view({ match: [10, 40, 40] }))).toEqual({ replica: 1, tokens: 40 });
    expect(longestMatch(request(100), view({ match: [0, 0, 0] }))).toEqual({ replica: 0, tokens: 0 });
    const tied = view({ match: [40, 40, 40, 10], tokens: [300, 200, 200, 0], requests: [0, 3, 2, 0] });
    expect(longestMatch(request(100), tied)).toEqual({ replica: 0, tokens: 40 });
    expect(longestMatch(request(100), tied, "leastLoad")).toEqual({ replica: 2, tokens: 40 });
    expect(longestMatch(request(100), view({ match: [7, 7], tokens: [5, 5], requests: [1, 1] }), "leastLoad")).toEqual({ replica: 0, tokens: 7 });
    expect(longestMatch(request(100), view({ match: [7, 7], tokens: [6, 5], requests: [0, 9] }), "leastLoad")).toEqual({ replica: 1, tokens: 7 });
    // more tokens loses even with fewer requests
    expect(longestMatch(request(100), view({ match: [7, 7], tokens: [200, 300], requests: [5, 1] }), "leastLoad")).toEqual({ replica: 0, tokens: 7 });
  });

  it("thresholdAffinity(θ) at θ·prompt ± 1 token: affinity at and above, least load below", () => {
    for (const [theta, prompt] of [
      [0.5, 100],
      [0.3, 1000],
      [0.25, 4000],
      [1, 64],
    ] as const) {
      const at = theta * prompt;
      const router = thresholdAffinityRouter(theta);
      const loads = { tokens: [0, 500, 900], requests: [0, 5, 9] };
      expect(router.route(request(prompt), view({ match: [0, 0, at + (theta < 1 ? 1 : 0)], ...loads })), `θ=${theta} +1`).toBe(2);
      expect(router.route(request(prompt), view({ match: [0, 0, at], ...loads })), `θ=${theta} exact`).toBe(2);
      expect(router.route(request(prompt), view({ match: [0, 0, at - 1], ...loads })), `θ=${theta} −1`).toBe(0);
      expect(router.stats?.()).toEqual({ affinity: 2, load: 1 });
    }
  });

  it("θ = 0 still needs a match of at least one token (no match → least load, not replica 0)", () => {
    const router = thresholdAffinityRouter(0);
    expect(router.route(request(100), view({ match: [0, 0, 0], tokens: [9, 9, 1] }))).toBe(2);
    expect(router.route(request(100), view({ match: [0, 1, 0], tokens: [9, 9, 1] }))).toBe(1);
    expect(router.stats?.()).toEqual({ affinity: 1, load: 1 });
  });

  it("the registered router reads `threshold` (default 0.5) and names itself", () => {
    const half = createRouter("thresholdAffinity", ctx(2));
    expect(half.route(request(100), view({ match: [0, 50], tokens: [0, 99] }))).toBe(1);
    expect(half.route(request(100), view({ match: [0, 49], tokens: [0, 99] }))).toBe(0);
    const strict = createRouter("thresholdAffinity", ctx(2), { threshold: 0.9 });
    expect(strict.route(request(100), view({ match: [0, 89], tokens: [0, 99] }))).toBe(0);
    expect(strict.route(request(100), view({ match: [0, 90], tokens: [0, 99] }))).toBe(1);
    expect(thresholdAffinityRouter(0.7).name).toBe("thresholdAffinity(0.7)");
  });
});

describe("cacheAwareGuarded: the guard fires iff max − min > balanceAbs AND max > balanceRel × min", () => {
  const route = (r: Router, requests: number[], match = [100, 0, 0]) => r.route(request(100), view({ match, requests, tokens: [0, 0, 0] }));

  it("defaults 8 and 1.5, each threshold at ± 1", () => {
    const r = createRouter("cacheAwareGuarded", ctx(3));
    expect(route(r, [12, 3, 4]), "12 − 3 = 9 > 8, 12 > 4.5").toBe(1);
    expect(route(r, [11, 3, 4]), "11 − 3 = 8, not > 8").toBe(0);
    expect(route(r, [27, 18, 19]), "27 − 18 = 9 > 8, 27 = 1.5 × 18: not >").toBe(0);
    expect(route(r, [28, 18, 19]), "28 − 18 = 10 > 8, 28 > 27").toBe(1);
    expect(route(r, [9, 0, 5]), "9 − 0 > 8, 9 > 0").toBe(1);
    expect(r.stats?.()).toEqual({ guard: 3, affinity: 2 });
  });

  it("custom thresholds, each at ± 1 (and the guard's pick is the fewest requests, not the fewest tokens)", () => {
    const r = createRouter("cacheAwareGuarded", ctx(3), { balanceAbs: 2, balanceRel: 2 });
    expect(route(r, [5, 2, 9]), "9 − 2 = 7 > 2, 9 > 4").toBe(1);
    expect(route(r, [4, 2, 3]), "4 − 2 = 2, not > 2").toBe(0);
    expect(route(r, [8, 4, 5]), "8 − 4 > 2, 8 = 2 × 4: not >").toBe(0);
    expect(route(r, [9, 5, 4]), "9 − 4 > 2, 9 > 8").toBe(2);
    const byRequests = r.route(request(100), view({ match: [100, 0, 0], requests: [9, 1, 2], tokens: [0, 900, 0] }));
    expect(byRequests).toBe(1);
  });

  it("without the guard: θ-affinity with ties among equal matches → the least loaded", () => {
    const r = createRouter("cacheAwareGuarded", ctx(3), { threshold: 0.5 });
    expect(r.route(request(100), view({ match: [60, 60, 0], requests: [3, 2, 1], tokens: [300, 200, 0] }))).toBe(1);
    expect(r.route(request(100), view({ match: [40, 40, 0], requests: [3, 2, 1], tokens: [300, 200, 50] }))).toBe(2);
    expect(r.stats?.()).toEqual({ guard: 0, affinity: 1, load: 1 });
  });

  it("min and max are taken over all replicas (not only the first or last)", () => {
    const r = createRouter("cacheAwareGuarded", ctx(4));
    expect(r.route(request(100), view({ match: [100, 0, 0, 0], requests: [5, 20, 6, 7], tokens: [0, 0, 0, 0] }))).toBe(0);
    expect(r.route(request(100), view({ match: [0, 0, 0, 100], requests: [5, 6, 7, 20], tokens: [0, 0, 0, 0] }))).toBe(0);
    expect(r.route(request(100), view({ match: [0, 0, 0, 100], requests: [20, 6, 7, 5], tokens: [0, 0, 0, 0] }))).toBe(3);
  });
});

describe("prefixAffinity", () => {
  it("any match, however short; ties → the lowest index; no match at all → replica 0", () => {
    const r = createRouter("prefixAffinity", ctx(3));
    expect(r.route(request(100), view({ match: [0, 0, 1], tokens: [0, 0, 9999] }))).toBe(2);
    expect(r.route(request(100), view({ match: [0, 5, 5], tokens: [0, 100, 0] }))).toBe(1);
    expect(r.route(request(100), view({ match: [0, 0, 0], tokens: [9, 0, 0] }))).toBe(0);
  });
});

describe("the registry and the routers' options", () => {
  it("createRouter takes a name, { name, ...options }, a factory or a ready router", () => {
    const byName = createRouter("leastLoad", ctx(3));
    expect(byName.name).toBe("leastLoad");
    expect(byName.route(request(1), view({ tokens: [5, 1, 3] }))).toBe(1);
    const withOptions = createRouter({ name: "thresholdAffinity", threshold: 0.9 }, ctx(2));
    expect(withOptions.route(request(100), view({ match: [0, 89], tokens: [0, 99] }))).toBe(0);
    const ready: Router = { name: "ready", route: () => 1 };
    expect(createRouter(ready, ctx(2))).toBe(ready);
    let seen: unknown = null;
    const made = createRouter((c, o) => ((seen = [c.replicas, o]), ready), ctx(2), { x: 1 });
    expect(made).toBe(ready);
    expect(seen).toEqual([2, { x: 1 }]);
  });

  it("every router refuses an option it does not have, and each bound is checked", () => {
    for (const name of ["random", "roundRobin", "leastLoad", "powerOfTwo", "prefixAffinity", "thresholdAffinity", "cacheAwareGuarded"]) {
      expect(() => createRouter(name, ctx(2), { bogus: 1 }), name).toThrow(ParameterError);
    }
    expect(() => thresholdAffinityRouter(1.01)).toThrow(ParameterError);
    expect(() => thresholdAffinityRouter(-0.01)).toThrow(ParameterError);
    expect(() => createRouter("thresholdAffinity", ctx(2), { threshold: 1.5 })).toThrow(ParameterError);
    expect(() => createRouter("cacheAwareGuarded", ctx(2), { threshold: -1 })).toThrow(ParameterError);
    expect(() => createRouter("cacheAwareGuarded", ctx(2), { balanceAbs: -1 })).toThrow(ParameterError);
    expect(() => createRouter("cacheAwareGuarded", ctx(2), { balanceRel: 0.9 })).toThrow(ParameterError);
    expect(() => createRouter("cacheAwareGuarded", ctx(2), { balanceAbs: 0, balanceRel: 1, threshold: 1 })).not.toThrow();
  });

  it("routerDescription names what each router does", () => {
    expect(routerDescription("leastLoad")).toBe("fewest outstanding tokens");
    expect(() => routerDescription("best")).toThrow(ParameterError);
  });
});
