// 代码 01 演示 2 (§1.2): five dispatch policies on N FCFS servers, exponential and heavy-tailed job sizes, each
// simulated value beside the exact queueing result where theory gives one (M/M/1, E_N/M/1, M/M/N, M/G/1).
import { checkInteger, checkEachOneOf } from "../../core/errors";
import { displayName } from "../../core/glossary";
import type { Row, Table } from "../../core/table";
import { boundedParetoTopWorkShare, boundedParetoUpperQuantile, JOB_SIZE_DISTRIBUTIONS, JobSizeDistribution, jobSizeMoments } from "../../dispatch/job-sizes";
import { BLIND_POLICIES, DISPATCH_POLICIES, DispatchPolicy, LOAD_AWARE_POLICIES } from "../../dispatch/policies";
import { dispatchAcrossSeeds } from "../../dispatch/servers";
import { erlangArrivalsM1, mg1Mean, mm1, mmc, powerOfDMeanField } from "../../dispatch/theory";
import { defineDemo } from "../registry";
import { cannotJudge, f, needParam, needRow, pct, seedsAgreeing, times } from "../claims";
import { checkDistinct, checkPolicyEntries, checkQueueParams, COLUMNS, int, ownPoliciesNote, parsePerSeed, perSeedCell, policyNames, QUEUE_DOCS, seedsText, seedStats, TIME_UNIT } from "./shared";

/** The exact result for one policy where queueing theory gives one (mean service time 1, utilization ρ). */
export function policyTheory(sizes: JobSizeDistribution, policy: DispatchPolicy, servers: number, rho: number): { mean: number | null; p99: number | null; model: string } {
  if (sizes === "exponential") {
    if (policy === "random") return { ...pick(mm1(rho)), model: "M/M/1（每台独立）" };
    if (policy === "roundRobin") return { ...pick(erlangArrivalsM1(servers, rho)), model: `E${servers}/M/1（每台的到达间隔是 Erlang-${servers}）` };
    if (policy === "leastWorkLeft") return { ...pick(mmc(servers, rho)), model: `M/M/${servers}（等于一条共享队列）` };
    if (policy === "jsq") return { mean: null, p99: null, model: "无闭式解" };
    return { mean: null, p99: null, model: `无闭式解（N → ∞ 的极限是 ${f(powerOfDMeanField(2, rho), 2)}）` };
  }
  if (policy === "random") return { mean: mg1Mean(rho, jobSizeMoments(sizes).secondMoment), p99: null, model: "M/G/1（Pollaczek–Khinchine，只给均值）" };
  if (policy === "leastWorkLeft") return { mean: null, p99: null, model: `M/G/${servers}：无闭式解` };
  return { mean: null, p99: null, model: "无闭式解" };
}

function pick(r: { mean: number; quantile: number }): { mean: number; p99: number } {
  return { mean: r.mean, p99: r.quantile };
}

type PoliciesParams = {
  servers: number;
  utilization: number;
  policies: unknown[];
  sizes: string[];
  jobs: number;
  exponentialSeeds: number;
  heavyTailJobs: number;
  heavyTailSeeds: number;
  warmupFraction: number;
  seed: number | string;
};

const SIZE_RUNS = (p: PoliciesParams) => ({
  exponential: { jobs: checkInteger("jobs", p.jobs, { min: 100 }), seeds: checkInteger("exponentialSeeds", p.exponentialSeeds, { min: 1 }) },
  boundedPareto: { jobs: checkInteger("heavyTailJobs", p.heavyTailJobs, { min: 100 }), seeds: checkInteger("heavyTailSeeds", p.heavyTailSeeds, { min: 1 }) },
});

// Judge helpers: a row by (sizes, policy), its mean, its per-seed means / P99s.
const rowOf = (t: Table, sizes: string, policy: string) => needRow(t, { sizes, policy });
const meanOf = (t: Table, sizes: string, policy: string) => rowOf(t, sizes, policy).mean as number;
const seedMeans = (t: Table, sizes: string, policy: string) => parsePerSeed(rowOf(t, sizes, policy).meanPerSeed, `${displayName(sizes)}、${displayName(policy)} 平均响应`);
const seedP99s = (t: Table, sizes: string, policy: string) => parsePerSeed(rowOf(t, sizes, policy).p99PerSeed, `${displayName(sizes)}、${displayName(policy)} P99`);
const has = (t: Table, sizes: string, policy: string) => t.rows.some((r) => r.sizes === sizes && r.policy === policy);
const sizeLabel = (s: string) => (s === "exponential" ? "指数分布" : "重尾");

/** Simulated mean against the theory: within 2 standard errors over seeds, or within `tolerance`. */
function againstTheory(t: Table, sizes: string, policy: string, tolerance: number) {
  const r = rowOf(t, sizes, policy);
  const theory = r.theoryMean;
  if (typeof theory !== "number") cannotJudge(`${displayName(sizes)}、${displayName(policy)} 这一行没有理论值`);
  const s = seedStats(seedMeans(t, sizes, policy));
  const gap = s.mean / theory - 1;
  return { theory, ...s, gap, ok: Math.abs(s.mean - theory) <= Math.max(2 * s.se, tolerance * theory) };
}

/** The lecture's exercise 2 quotes one run of its code 01 (random dispatch, exponential sizes): 11.56 service times. */
const LECTURE_RANDOM_RUN = 11.56;

/** Where the lecture's single run of random dispatch falls among this table's seeds (exercise 2(b) asks why it is not 10). */
function lectureRun(t: Table): string {
  if (!has(t, "exponential", "random")) return "";
  const xs = seedMeans(t, "exponential", "random");
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const where = LECTURE_RANDOM_RUN <= hi ? "在这个范围之内" : `比最大的还高 ${f(LECTURE_RANDOM_RUN - hi, 2)}`;
  return `。讲义练习 2 说代码 01 的一次模拟给出随机 ${LECTURE_RANDOM_RUN}：这里 ${xs.length} 个种子各自的平均是 ${f(lo, 2)} … ${f(hi, 2)}，${where}——单个种子离理论值一两个服务时间很平常（练习 2(b) 问为什么）`;
}

export const policiesDemo = defineDemo({
  id: "01.2",
  section: "§1.2",
  title: "五种派发策略：N 台先来先服务的服务器",
  // Size: 4 exponential seeds × 50,000 jobs (the theory claims are judged within 2 standard errors over seeds); heavy tail 3 seeds × 250,000 jobs, because shorter heavy-tailed runs are biased low (round-robin-fragile and the P–K check read them).
  defaults: {
    servers: 16,
    utilization: 0.9,
    policies: ["random", "roundRobin", "jsq", "powerOfTwo", "leastWorkLeft"],
    sizes: ["exponential", "boundedPareto"],
    jobs: 50000,
    exponentialSeeds: 4,
    heavyTailJobs: 250000,
    heavyTailSeeds: 3,
    warmupFraction: 0.2,
    seed: 1,
  } as PoliciesParams,
  describe: {
    servers: QUEUE_DOCS.servers,
    utilization: QUEUE_DOCS.utilization,
    policies: QUEUE_DOCS.policies,
    sizes: { meaning: "请求大小的分布：指数分布，和有界 Pareto（重尾）", range: `非空数组，每项为 ${JOB_SIZE_DISTRIBUTIONS.map((s) => `"${s}"`).join("、")} 之一` },
    jobs: { meaning: "指数分布时每次运行的请求数（含预热）", range: "≥ 100 的整数" },
    exponentialSeeds: { meaning: "指数分布跑几个种子取平均", range: "≥ 1 的整数（排序和比值的结论需要 ≥ 3）" },
    heavyTailJobs: { meaning: "重尾时每次运行的请求数（含预热）：重尾队列的\"记忆\"很长，短跑会系统性地偏低", range: "≥ 100 的整数" },
    heavyTailSeeds: { meaning: "重尾跑几个种子取平均", range: "≥ 1 的整数（排序和比值的结论需要 ≥ 3）" },
    warmupFraction: QUEUE_DOCS.warmupFraction,
    seed: QUEUE_DOCS.seed,
  },
  run(p, { progress }) {
    checkQueueParams(p);
    const entries = checkPolicyEntries("policies", p.policies);
    const policies = entries.map((e) => e.id);
    const sizesList = checkDistinct("sizes", checkEachOneOf("sizes", p.sizes, JOB_SIZE_DISTRIBUTIONS));
    const runs = SIZE_RUNS(p);
    const rows: Row[] = [];
    for (const sizes of sizesList) {
      const { jobs, seeds } = runs[sizes];
      for (const { id: policy, input } of entries) {
        progress?.(`${displayName(sizes)}，${displayName(policy)}`);
        const r = dispatchAcrossSeeds({ servers: p.servers, utilization: p.utilization, jobs, policy: input, sizes, warmupFraction: p.warmupFraction }, p.seed, seeds);
        const th = (DISPATCH_POLICIES as readonly string[]).includes(policy) ? policyTheory(sizes, policy as DispatchPolicy, p.servers, p.utilization) : { mean: null, p99: null, model: "你写的策略：没有现成的理论值" };
        rows.push({
          sizes,
          policy,
          mean: r.mean,
          meanSd: r.meanSd,
          theoryMean: th.mean,
          p99: r.p99,
          p99Sd: r.p99Sd,
          theoryP99: th.p99,
          theory: th.model,
          meanPerSeed: perSeedCell(r.perSeed.map((x) => x.mean)),
          p99PerSeed: perSeedCell(r.perSeed.map((x) => x.p99)),
        });
      }
    }
    const notes = [
      `单位：响应时间（排队 + 服务）以平均服务时间计。${p.servers} 台先来先服务的服务器，泊松到达，每个平均服务时间到达 ${p.utilization}·${p.servers} 个请求；同一个种子下每种策略看到完全相同的到达和请求大小。`,
    ];
    if (sizesList.includes("exponential")) {
      notes.push(`指数分布：每次 ${int(runs.exponential.jobs)} 个请求，${seedsText(p.seed, runs.exponential.seeds)}。与演示 01.3（刷新间隔 0）、01.4 的默认设置用同一组种子、请求数和预热，所以三张表里随机派发、最短队列、二选一的数字一样（改了其中一张的参数就不再一样）。`);
    }
    if (sizesList.includes("boundedPareto")) {
      notes.push(`重尾：${jobSizeMoments("boundedPareto").description}。每次 ${int(runs.boundedPareto.jobs)} 个请求，${seedsText(p.seed, runs.boundedPareto.seeds)}：重尾、高利用率的队列要很久才进入稳态，短跑（例如从空系统开始只跑 5 万个）的均值会系统性地偏低。`);
    }
    const warm = sizesList.map((s) => `${sizeLabel(s)}每次 ${int(Math.floor(p.warmupFraction * runs[s].jobs))} 个`).join("，");
    notes.push(`预热：服务器从空开始；按到达顺序最先的 ${pct(p.warmupFraction)} 请求照常模拟，但不计入统计（${warm}）。`);
    notes.push(...ownPoliciesNote(entries));
    notes.push("理论值是无限长运行的精确期望（平均服务时间 1）：随机派发把泊松流随机分开，每台仍是泊松到达；轮转让每台每隔 N 个请求收到一个，到达间隔是 Erlang-N 分布；最少剩余工作等价于所有服务器共用一条先来先服务的队列。最短队列与二选一在有限台数下没有闭式解。");
    return {
      title: `五种派发策略：${p.servers} 台先来先服务的服务器，利用率 ρ = ${p.utilization}（${policyNames(policies)}）`,
      columns: [
        { key: "sizes", label: "请求大小", format: "name" },
        COLUMNS.policy,
        COLUMNS.mean,
        COLUMNS.meanSd,
        { key: "theoryMean", label: "理论平均", unit: TIME_UNIT, format: "fixed2" },
        COLUMNS.p99,
        COLUMNS.p99Sd,
        { key: "theoryP99", label: "理论 P99", unit: TIME_UNIT, format: "fixed1" },
        { key: "theory", label: "理论依据", format: "text" },
        COLUMNS.meanPerSeed,
        COLUMNS.p99PerSeed,
      ],
      rows,
      notes,
    };
  },
  claims: [
    {
      id: "load-aware-beats-blind",
      says: "看负载的策略远好于盲目的策略：最差的看负载策略也明显快过最好的盲目策略",
      lecture: "看负载的策略远好于盲目的策略",
      judge: (t) => {
        const parts: string[] = [];
        let holds = true;
        let agree = 0;
        let total = 0;
        let judged = 0;
        for (const sizes of ["exponential", "boundedPareto"]) {
          const blind = BLIND_POLICIES.filter((q) => has(t, sizes, q));
          const aware = LOAD_AWARE_POLICIES.filter((q) => has(t, sizes, q));
          if (!blind.length || !aware.length) continue;
          judged++;
          const bestBlind = blind.reduce((a, b) => (meanOf(t, sizes, a) <= meanOf(t, sizes, b) ? a : b));
          const worstAware = aware.reduce((a, b) => (meanOf(t, sizes, a) >= meanOf(t, sizes, b) ? a : b));
          holds = holds && meanOf(t, sizes, worstAware) < meanOf(t, sizes, bestBlind) / 1.5;
          const blindSeeds = blind.map((q) => seedMeans(t, sizes, q));
          const awareSeeds = aware.map((q) => seedMeans(t, sizes, q));
          for (let k = 0; k < blindSeeds[0].length; k++) {
            total++;
            if (Math.max(...awareSeeds.map((x) => x[k])) < Math.min(...blindSeeds.map((x) => x[k])) / 1.5) agree++;
          }
          parts.push(`${sizeLabel(sizes)}：看负载的最差是${displayName(worstAware)} ${f(meanOf(t, sizes, worstAware), 2)}，盲目的最好是${displayName(bestBlind)} ${f(meanOf(t, sizes, bestBlind), 2)}（${times(meanOf(t, sizes, bestBlind) / meanOf(t, sizes, worstAware), 1)}）`);
        }
        if (!judged) cannotJudge("需要至少一种盲目策略（随机、轮转）和一种看负载的策略（最短队列、二选一、最少剩余工作）");
        return { holds, ours: parts.join("；"), remark: judged > 1 ? "种子按两种分布分别数，一个种子一次" : undefined, seeds: { agree, total } };
      },
    },
    {
      id: "exponential-theory",
      says: "指数分布下模拟与精确的排队论相符：随机 = M/M/1，轮转 = Erlang-N/M/1，最少剩余工作 = 一条共享队列 M/M/N",
      lecture: "随机派发时每台是 M/M/1，平均响应 1/(1−ρ)，利用率 0.9 时约 10 个服务时间",
      judge: (t) => {
        const policies = (["random", "roundRobin", "leastWorkLeft"] as const).filter((q) => has(t, "exponential", q));
        needParam(policies.length > 0, "需要指数分布下随机、轮转或最少剩余工作的行");
        const checks = policies.map((q) => ({ q, ...againstTheory(t, "exponential", q, 0.03) }));
        const p99 = policies.map((q) => `${f(rowOf(t, "exponential", q).p99 as number, 1)} 对 ${f(rowOf(t, "exponential", q).theoryP99 as number, 1)}`);
        return {
          holds: checks.every((c) => c.ok),
          ours: checks.map((c) => `${displayName(c.q)} ${f(c.mean, 2)} ± ${f(c.se, 2)} 对理论 ${f(c.theory, 2)}（${c.gap >= 0 ? "+" : ""}${pct(c.gap, 1)}）`).join("；"),
          remark: `± 为 ${seedMeans(t, "exponential", policies[0]).length} 个种子平均值的标准误；P99 依次 ${p99.join("、")}${lectureRun(t)}`,
        };
      },
    },
    {
      id: "round-robin-exponential",
      says: "指数分布下轮转明显好于随机：每台服务器的到达变得整齐",
      lecture: "指数分布下它比随机好一倍",
      judge: (t) => {
        const r = seedMeans(t, "exponential", "random");
        const rr = seedMeans(t, "exponential", "roundRobin");
        const ratio = meanOf(t, "exponential", "random") / meanOf(t, "exponential", "roundRobin");
        const theory = (rowOf(t, "exponential", "random").theoryMean as number) / (rowOf(t, "exponential", "roundRobin").theoryMean as number);
        return {
          holds: ratio > 1.5,
          ours: `随机 ÷ 轮转 = ${times(ratio)}；精确值 M/M/1 ÷ Erlang-N/M/1 = ${times(theory)}`,
          remark: "\"一倍\"是约数",
          seeds: seedsAgreeing(r.map((x, k) => x / rr[k]), (x) => x > 1.5),
        };
      },
    },
    {
      id: "jsq-near-shared-queue",
      says: "最短队列几乎不排队：所有服务器像合用一条队伍，离 M/M/N 共享队列只差一点",
      lecture: "最短队列把 16 台服务器\"拼\"成了一个共享的队列，几乎不排队",
      judge: (t, p) => {
        const jsq = meanOf(t, "exponential", "jsq");
        const shared = mmc(p.servers, p.utilization).mean;
        const lwl = has(t, "exponential", "leastWorkLeft") ? `，最少剩余工作 ${f(meanOf(t, "exponential", "leastWorkLeft"), 2)}` : "";
        return {
          holds: jsq < 1.25 * shared,
          ours: `最短队列 ${f(jsq, 2)}（平均只等 ${f(jsq - 1, 2)} 个服务时间）${lwl}，M/M/${p.servers} 共享队列 ${f(shared, 2)}`,
          seeds: seedsAgreeing(seedMeans(t, "exponential", "jsq"), (x) => x < 1.25 * shared),
        };
      },
    },
    {
      id: "power-of-two-most-gain",
      says: "二选一只看两台，就拿走了从随机到最短队列这段改进的大部分",
      lecture: "二选一只看两台就拿到大部分好处",
      judge: (t) => {
        const captured = (sizes: string) => (meanOf(t, sizes, "random") - meanOf(t, sizes, "powerOfTwo")) / (meanOf(t, sizes, "random") - meanOf(t, sizes, "jsq"));
        const share = captured("exponential");
        const r = seedMeans(t, "exponential", "random");
        const two = seedMeans(t, "exponential", "powerOfTwo");
        const jsq = seedMeans(t, "exponential", "jsq");
        const heavy = has(t, "boundedPareto", "random") && has(t, "boundedPareto", "powerOfTwo") && has(t, "boundedPareto", "jsq") ? `；重尾 ${pct(captured("boundedPareto"))}` : "";
        return {
          holds: share >= 0.7,
          ours: `指数分布：随机 ${f(meanOf(t, "exponential", "random"), 2)} → 二选一 ${f(meanOf(t, "exponential", "powerOfTwo"), 2)} → 最短队列 ${f(meanOf(t, "exponential", "jsq"), 2)}，二选一拿走 ${pct(share)}${heavy}`,
          seeds: seedsAgreeing(r.map((x, k) => (x - two[k]) / (x - jsq[k])), (x) => x >= 0.7),
        };
      },
    },
    {
      id: "round-robin-fragile",
      says: "轮转的好处很脆弱：请求大小重尾时，换多个种子平均，轮转和随机相差在噪声以内",
      lecture: "重尾时换 8 个种子平均，两者相差在噪声以内（误区 1）",
      judge: (t, p) => {
        // Paired by seed: under one seed both policies see the same arrivals and sizes, so the noise of the comparison is
        // the spread of the per-seed differences; "within the noise" = the mean difference is within 2 of its standard errors.
        const r = seedMeans(t, "boundedPareto", "random");
        const rr = seedMeans(t, "boundedPareto", "roundRobin");
        if (r.length !== rr.length) cannotJudge("随机和轮转的种子数不一样，无法逐种子配对");
        if (r.length < 3) needParam(false, `重尾只跑了 ${r.length} 个种子：判断"相差在噪声以内"至少要 3 个种子（heavyTailSeeds ≥ 3）`);
        const d = seedStats(r.map((x, k) => x - rr[k]));
        const better = rr.filter((x, k) => x < r[k]).length;
        const ratio = d.se > 0 ? Math.abs(d.mean) / d.se : Infinity;
        const ratioText = ratio === Infinity ? "∞" : f(ratio, 1);
        const rel = d.mean / meanOf(t, "boundedPareto", "random");
        return {
          holds: Math.abs(d.mean) <= 2 * d.se,
          ours: `重尾时随机 ${f(meanOf(t, "boundedPareto", "random"), 1)}、轮转 ${f(meanOf(t, "boundedPareto", "roundRobin"), 1)}；逐种子配对，轮转平均${d.mean >= 0 ? "快" : "慢"} ${f(Math.abs(d.mean), 1)} ± ${f(d.se, 1)}（标准误），是标准误的 ${ratioText} 倍；${rr.length} 个种子里轮转有 ${better} 个更快`,
          remark: "噪声 = 同一种子下两者之差在种子之间的标准误；相差不到 2 个标准误算在噪声以内",
          why: `逐种子配对，轮转${d.mean > 0 ? "快" : "慢"} ${f(Math.abs(d.mean), 1)} 个服务时间（随机的 ${pct(Math.abs(rel))}），是配对差标准误 ${f(d.se, 1)} 的 ${ratioText} 倍，${rr.length} 个种子里 ${better} 个轮转更快：每次 ${int(p.heavyTailJobs)} 个请求的长运行把噪声压得很小，轮转剩下的一点好处就显出来了（它比指数分布时小得多，见下一条）。讲义用 8 个种子、每次更短的运行（heavyTailJobs: 50000、heavyTailSeeds: 8），噪声大得多，差别就落在噪声以内`,
        };
      },
    },
    {
      id: "round-robin-gain-shrinks",
      ourStatement: true,
      says: "重尾时轮转比随机省下的时间（按比例）不到指数分布时的一半",
      judge: (t) => {
        const expGain = 1 - meanOf(t, "exponential", "roundRobin") / meanOf(t, "exponential", "random");
        const heavyGain = 1 - meanOf(t, "boundedPareto", "roundRobin") / meanOf(t, "boundedPareto", "random");
        const r = seedMeans(t, "boundedPareto", "random");
        const rr = seedMeans(t, "boundedPareto", "roundRobin");
        return {
          holds: heavyGain < expGain / 2,
          ours: `轮转比随机快：指数分布 ${pct(expGain)}，重尾 ${pct(heavyGain)}`,
          remark: "排队主要来自少数超大请求挡在前面，到达得再整齐也帮不了多少",
          seeds: seedsAgreeing(rr.map((x, k) => 1 - x / r[k]), (g) => g < expGain / 2),
          why: `重尾时轮转仍快 ${pct(heavyGain)}，不比指数分布时的 ${pct(expGain)} 的一半小`,
        };
      },
    },
    {
      id: "work-beats-count",
      says: "\"排了几个\"不等于\"还剩多少活\"：请求大小重尾时，只数请求个数的最短队列 P99 明显变差，知道请求大小的最少剩余工作好得多",
      lecture: "请求大小相差悬殊时，最短队列的 P99 明显变差，最少剩余工作好得多",
      judge: (t) => {
        const jsq = rowOf(t, "boundedPareto", "jsq").p99 as number;
        const lwl = rowOf(t, "boundedPareto", "leastWorkLeft").p99 as number;
        const a = seedP99s(t, "boundedPareto", "jsq");
        const b = seedP99s(t, "boundedPareto", "leastWorkLeft");
        return {
          holds: jsq > 1.5 * lwl,
          ours: `重尾时 P99：最短队列 ${f(jsq, 1)}，最少剩余工作 ${f(lwl, 1)}（${times(jsq / lwl, 1)}）`,
          seeds: seedsAgreeing(a.map((x, k) => x / b[k]), (x) => x > 1.5),
        };
      },
    },
    {
      id: "heavy-tail-pollaczek-khinchine",
      says: "重尾时随机派发仍是每台一个 M/G/1 队列：模拟的平均响应与 Pollaczek–Khinchine 公式相符（在种子间的统计误差之内）",
      judge: (t, p) => {
        const c = againstTheory(t, "boundedPareto", "random", 0.05);
        const k = seedMeans(t, "boundedPareto", "random").length;
        return {
          holds: c.ok,
          why: `模拟比 P–K 公式${c.gap >= 0 ? "高" : "低"} ${pct(Math.abs(c.gap), 1)}，超出统计误差：每次运行的请求少时，很少抽到最大的那些请求，均值偏低`,
          ours: `模拟 ${f(c.mean, 1)} ± ${f(c.se, 1)} 对 P–K ${f(c.theory, 1)}（${c.gap >= 0 ? "+" : ""}${pct(c.gap, 1)}）`,
          remark: `± 为 ${k} 个种子平均值的标准误，每次 ${int(p.heavyTailJobs)} 个请求；单次运行之间相差 ${pct(c.sd / c.mean)}（多几个或少几个超大请求），剩下的差距就是这份噪声。只跑 5 万个请求、从空系统开始时，均值会系统性地偏低：试试 heavyTailJobs: 50000`,
        };
      },
    },
    {
      id: "few-giants",
      says: "这份重尾分布里少数超大请求占了大部分工作量，一半的请求却很小",
      judge: (_t, p) => {
        needParam(p.sizes.includes("boundedPareto"), "需要 sizes 里有 \"boundedPareto\"");
        const m = jobSizeMoments("boundedPareto");
        const top1 = boundedParetoTopWorkShare(0.01);
        const top10 = boundedParetoTopWorkShare(0.1);
        return {
          holds: top1 >= 0.25 && m.scv >= 10,
          ours: `最大的 1% 请求占总工作量的 ${pct(top1)}，最大的 10% 占 ${pct(top10)}；一半请求小于 ${f(boundedParetoUpperQuantile(0.5), 2)} 个平均服务时间；平方变异系数 ${f(m.scv, 1)}（指数分布是 1）`,
          remark: "由分布的密度精确算出",
        };
      },
    },
  ],
  // 07 shows round-robin-fragile alone: it reads the heavy-tailed rows of random and round robin, each policy's runs
  // being its own (same arrivals and sizes per seed whatever the other policies)
  narrowForClaims: (ids, p) =>
    ids.length > 0 && ids.every((id) => id === "round-robin-fragile") && p.sizes.includes("boundedPareto") && p.policies.includes("random") && p.policies.includes("roundRobin")
      ? { sizes: ["boundedPareto"], policies: ["random", "roundRobin"] }
      : undefined,
});
