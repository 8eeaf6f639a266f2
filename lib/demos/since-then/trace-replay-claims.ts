// The conclusions of demo 06.4 (real traffic): does cache-aware routing pay on the Mooncake trace, and how much of
// the infinite-cache bound does each router reach? Judged on the demo's own rows (each row also carries the
// window's bound, the pooled-LRU reference and the share of requests opening with the same block).
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { Claim, cannotJudge, f, needParam, needRows, pct, times } from "../claims";

/** Kept here (not imported from trace-replay.ts) so the two files do not import each other. */
const LOAD_ONLY = ["random", "roundRobin", "leastLoad", "powerOfTwo", "baseline"];

const num = (r: Row, key: string): number => {
  const v = r[key];
  if (typeof v !== "number" || Number.isNaN(v)) cannotJudge(`${displayName(r.policy)} 这一行没有 ${key} 的数值`);
  return v;
};

function firstRow(t: Table): Row {
  if (t.rows.length === 0) cannotJudge("表里没有行");
  return t.rows[0];
}

function topLoad(t: Table): number {
  return Math.max(...t.rows.map((r) => r.load as number));
}

const cacheAware = (r: Row) => !LOAD_ONLY.includes(String(r.policy));
const loadShown = (x: number) => String(Number(x.toFixed(2)));

export const TRACE_REPLAY_CLAIMS: readonly Claim[] = [
  {
    id: "far-from-bound",
    says: "在真实流量上，没有一个路由器接近无限缓存的命中上界",
    judge: (t) => {
      const bound = num(firstRow(t), "bound");
      needParam(bound > 0, "这段窗口里没有可复用的块，上界为 0");
      const sorted = [...t.rows].sort((a, b) => num(b, "hitRate") - num(a, "hitRate"));
      const best = sorted[0];
      const worst = sorted[sorted.length - 1];
      const share = num(best, "hitRate") / bound;
      return {
        holds: share < 0.5,
        why: `最高的${displayName(best.policy)}命中 ${pct(num(best, "hitRate"), 1)}，已达到上界 ${pct(bound, 1)} 的 ${pct(share)}`,
        ours: `上界 ${pct(bound, 1)}；最高的是${displayName(best.policy)}（ρ = ${loadShown(best.load as number)}）${pct(num(best, "hitRate"), 1)}，达到上界的 ${pct(share)}；最低的是${displayName(worst.policy)} ${pct(num(worst, "hitRate"), 1)}`,
      };
    },
  },
  {
    id: "memory-not-routing",
    ourStatement: true,
    says: "缺的是显存而不是更聪明的路由：把整个集群的 KV 显存合成一个 LRU 缓存（一个参考值），命中率同样远低于上界，最好的路由器也只在它附近（讲义 §6 由此提到第 9 讲 Mooncake 的分布式 KV 池）",
    judge: (t) => {
      const r0 = firstRow(t);
      const bound = num(r0, "bound");
      const pooled = num(r0, "pooledLru");
      const best = Math.max(...t.rows.map((r) => num(r, "hitRate")));
      needParam(bound > 0, "这段窗口里没有可复用的块，上界为 0");
      return {
        holds: pooled < 0.5 * bound && best < 2 * pooled,
        why:
          pooled >= 0.5 * bound
            ? `集群总显存当作一个 LRU 缓存时命中 ${pct(pooled, 1)}，已到上界 ${pct(bound, 1)} 的 ${pct(pooled / bound)}：这组参数下显存够用了，这一条说的“缺显存”的前提不在了（显存更少的设置下再看，命中率随显存上升，正说明限制在显存）`
            : `最好的路由器命中 ${pct(best, 1)}，是合成的 LRU 缓存的 ${times(best / pooled)}：路由比把显存合成一个缓存还好得多`,
        ours: `集群总显存当作一个 LRU 缓存：${pct(pooled, 1)}；无限缓存：${pct(bound, 1)}；最好的路由器：${pct(best, 1)}`,
        remark: best > pooled ? `最好的路由器的命中率是合成的 LRU 缓存的 ${times(best / pooled)}。一种解释（这里没有单独验证）：LRU 不是最优的淘汰策略，按前缀把请求分到各副本，等于换了一种淘汰——同一前缀的请求挤在一处，彼此保住对方的块` : undefined,
      };
    },
  },
  {
    id: "cache-aware-hits-more",
    says: "看缓存的路由器命中率明显高于只看负载的",
    judge: (t) => {
      const ok = t.rows.filter((r) => !r.overloaded);
      const ca = ok.filter(cacheAware);
      const lo = ok.filter((r) => !cacheAware(r));
      needParam(ca.length > 0, "需要至少一个没有过载的缓存感知路由器");
      needParam(lo.length > 0, "需要至少一个没有过载的只看负载的路由器（如 leastLoad、roundRobin）");
      const mean = (rs: Row[]) => rs.reduce((s, r) => s + num(r, "hitRate"), 0) / rs.length;
      const a = mean(ca);
      const b = mean(lo);
      return {
        holds: a >= 1.3 * b,
        why: `看缓存的路由器平均命中 ${pct(a, 1)}，只是只看负载的 ${times(a / b)}，不到 1.3 倍`,
        ours: `看缓存的 ${new Set(ca.map((r) => r.policy)).size} 个路由器平均 ${pct(a, 1)}，只看负载的 ${new Set(lo.map((r) => r.policy)).size} 个平均 ${pct(b, 1)}（${times(a / b)}）；过载的运行不计`,
      };
    },
  },
  {
    id: "pays-little",
    says: "缓存感知路由在真实流量上有回报但很小：在最少负载还不过载的最高 ρ 下，最好的缓存感知路由器只比它快一点，不到合成负载上的倍数（讲义 §2.3：1.4–2.3 倍）",
    lecture: "§2.3（合成负载）：命中过半才亲和比最好的只看负载的路由平均延迟低 1.8 倍，三种负载上低 1.4–2.3 倍",
    judge: (t) => {
      const steady = needRows(t, { policy: "leastLoad" }).filter((r) => !r.overloaded);
      needParam(steady.length > 0, "最少负载在每个 ρ 下都过载：没有可比较的 ρ");
      const load = Math.max(...steady.map((r) => r.load as number));
      const ll = needRows(t, { load, policy: "leastLoad" })[0];
      const ca = needRows(t, { load }).filter((r) => cacheAware(r) && !r.overloaded);
      needParam(ca.length > 0, `ρ = ${loadShown(load)} 下需要至少一个没有过载的缓存感知路由器`);
      const best = ca.reduce((b, r) => (num(r, "meanLatency") < num(b, "meanLatency") ? r : b));
      const ratio = num(ll, "meanLatency") / num(best, "meanLatency");
      return {
        holds: ratio > 1 && ratio < 1.4,
        why: ratio <= 1 ? `最好的缓存感知路由器（${f(num(best, "meanLatency"), 1)} 秒）不比最少负载（${f(num(ll, "meanLatency"), 1)} 秒）快` : `最好的缓存感知路由器快了 ${times(ratio)}，已在合成负载上的 1.4–2.3 倍之内，不算“一点”`,
        ours: `ρ = ${loadShown(load)}（最少负载不过载的最高一档）：最少负载 ${f(num(ll, "meanLatency"), 1)} 秒，最好的${displayName(best.policy)} ${f(num(best, "meanLatency"), 1)} 秒（${times(ratio)}）`,
      };
    },
  },
  {
    id: "affinity-collapses",
    says: "每个请求都以同一个块开头（共享的系统提示），纯前缀亲和因此把所有请求派给同一个副本，队列越排越长",
    lecture: "§2：只追求命中，流量会被吸到同一个副本",
    judge: (t) => {
      const rows = needRows(t, { policy: "prefixAffinity" });
      const shared = num(rows[0], "sharedFirstBlock");
      const shares = rows.map((r) => num(r, "maxShare"));
      return {
        holds: shared >= 0.99 && shares.every((s) => s >= 0.99) && rows.every((r) => r.overloaded === true),
        why: `纯前缀亲和下最忙副本的份额 ${shares.map((s) => pct(s)).join("、")}${rows.every((r) => r.overloaded === true) ? "" : "，并非全部过载"}`,
        ours: `窗口里 ${pct(shared)} 的请求以同一块开头；纯前缀亲和下最忙副本的份额 ${shares.map((s) => pct(s)).join("、")}，${rows.every((r) => r.overloaded === true) ? "全部过载" : "并非全部过载"}`,
      };
    },
  },
  {
    id: "balance-matters",
    says: "真实的提示长度是重尾的：利用率 ρ 高时，看负载派发比轮转快得多",
    lecture: "§1：请求大小重尾时，只数请求的轮转失效",
    judge: (t) => {
      const load = topLoad(t);
      const rr = needRows(t, { load, policy: "roundRobin" })[0];
      const ll = needRows(t, { load, policy: "leastLoad" })[0];
      const ratio = num(rr, "meanLatency") / num(ll, "meanLatency");
      return { holds: ratio >= 1.3, why: `ρ = ${loadShown(load)} 时最少负载只比轮转快 ${times(ratio)}，不到 1.3 倍`, ours: `ρ = ${loadShown(load)}：轮转 ${f(num(rr, "meanLatency"), 1)} 秒，最少负载 ${f(num(ll, "meanLatency"), 1)} 秒（${times(ratio)}）` };
    },
  },
];
