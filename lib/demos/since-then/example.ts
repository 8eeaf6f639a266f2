// 代码 06 演示 0: one request, three replicas, every production router's choice computed by the routers themselves
// (their released rules, lib/cluster/routers-production) on a hand-built cluster state: a 12,000-token video QA
// request whose video A and C hold; A is the busiest; B is idle and holds nothing of it. The numbers are small enough
// to check by hand (the notebook walks through them).
import { checkInteger, checkNumber } from "../../core/errors";
import { displayName } from "../../core/glossary";
import { rng } from "../../core/rng";
import type { Row, Table } from "../../core/table";
import { RequestRecord } from "../../cluster/record";
import type { ClusterView } from "../../cluster/routers";
import { DynamoKvRouter } from "../../cluster/routers-production/dynamo";
import { GatewayPrefixScorer } from "../../cluster/routers-production/gateway";
import { SGLANG_LATE_2025, SGLANG_ROUTER_DEFAULTS, SglangRouter } from "../../cluster/routers-production/sglang";
import type { ClusterRequest, Segment } from "../../cluster/workloads";
import { kvCapacityTokens, StepModel } from "../../hardware/step-model";
import { Claim, f, needParam, needRows } from "../claims";
import { SECTION2_GPU, SECTION2_MODEL } from "../cache-balance/cache-vs-balance";
import { defineDemo } from "../registry";

const NAMES = ["A", "B", "C"];
const SYSTEM: Segment = { id: 1, tokens: 60 };
const VIDEO: Segment = { id: 2, tokens: 11740 };
const OTHER_VIDEO: Segment = { id: 3, tokens: 10000 };
const doc = (k: number): Segment => ({ id: 10 + k, tokens: 20000 });
let nextQuestion = 100;
const question = (): Segment => ({ id: nextQuestion++, tokens: 200 });

function req(segments: Segment[], outputTokens: number): ClusterRequest {
  return { id: nextQuestion++, arrival: 0, segments, promptTokens: segments.reduce((s, x) => s + x.tokens, 0), outputTokens, outputSegment: { id: 100000 + nextQuestion, tokens: outputTokens }, key: 0, keySegment: segments[0].id };
}

interface InFlight {
  request: ClusterRequest;
  running: boolean;
}

/** The cluster as the story has it: who runs and queues what, and what each replica's cache holds. */
function scenario(): { inFlight: InFlight[][]; cached: Segment[][][]; request: ClusterRequest } {
  nextQuestion = 100;
  const onVideo = (): ClusterRequest => req([SYSTEM, VIDEO, question()], 4);
  return {
    inFlight: [
      // A: four requests on the video and two long documents running, two more documents queued
      [...[0, 1, 2, 3].map(() => ({ request: onVideo(), running: true })), { request: req([doc(1)], 45), running: true }, { request: req([doc(2)], 45), running: true }, { request: req([doc(3)], 45), running: false }, { request: req([doc(4)], 45), running: false }],
      // B: one request on another video
      [{ request: req([OTHER_VIDEO], 4), running: true }],
      // C: four requests on the video
      [0, 1, 2, 3].map(() => ({ request: onVideo(), running: true })),
    ],
    cached: [[[SYSTEM, VIDEO], [doc(1)], [doc(2)]], [[OTHER_VIDEO]], [[SYSTEM, VIDEO]]],
    request: req([SYSTEM, VIDEO, question()], 4),
  };
}

/** A replica's state seen through the router's view, from the story. */
function viewOf(inFlight: InFlight[][], capacity: number): ClusterView {
  const running = (i: number) => inFlight[i].filter((x) => x.running);
  const queued = (i: number) => inFlight[i].filter((x) => !x.running);
  const kv = (i: number) => running(i).reduce((s, x) => s + x.request.promptTokens + x.request.outputTokens, 0);
  return {
    replicaCount: 3,
    now: 1,
    kvCapacity: capacity,
    step: new StepModel(SECTION2_MODEL, SECTION2_GPU),
    outstandingRequests: (i: number) => inFlight[i].length,
    outstandingTokens: (i: number) => inFlight[i].reduce((s, x) => s + x.request.promptTokens, 0),
    dispatchedCount: (i: number) => inFlight[i].length,
    viewMatch: () => 0,
    cachedMatch: () => 0,
    queueLength: (i: number) => queued(i).length,
    pendingPrefillTokens: (i: number) => queued(i).reduce((s, x) => s + x.request.promptTokens, 0),
    activeKvTokens: kv,
    kvUtilization: (i: number) => Math.min(1, kv(i) / capacity),
    history: [],
  };
}

export interface ExampleParams extends Record<string, unknown> {
  overlapWeight: number;
  prefixWeight: number;
  balanceAbs: number;
}

function picked(t: Table, key: string): string {
  const rows = needRows(t, { [key]: true });
  return String(rows[0].replica);
}

function costText(t: Table, key: string): string {
  return t.rows.map((r) => `${r.replica} ${f(r[key] as number, 1)}`).join("、");
}

const claims: Claim<ExampleParams>[] = [
  {
    id: "dynamo-released-picks-c",
    says: "发布版 Dynamo 的 decode 项只数在途请求的不同提示块：C 上正跑着同一段视频的请求，这个请求的块几乎都已在其中，于是它选 C",
    judge: (t) => ({ holds: picked(t, "dynamoPick") === "C", ours: `选 ${picked(t, "dynamoPick")}（代价 ${costText(t, "dynamoCost")}）` }),
  },
  {
    id: "first-version-picked-b",
    says: "我们第一版的 decode 项（运行中请求的提示加全部输出，不含排队的请求和这个请求本身）会选空闲的 B：发布版的规则把选择从 B 翻到了 C",
    judge: (t) => ({ holds: picked(t, "dynamoOldPick") === "B" && picked(t, "dynamoPick") !== "B", ours: `第一版选 ${picked(t, "dynamoOldPick")}（代价 ${costText(t, "dynamoOldCost")}）` }),
  },
  {
    id: "sglang-follows-the-tree",
    says: "负载差距没超过阈值时，SGLang 路由器只看树：匹配率高于 0.3，请求去视频节点的创建者 A，哪怕 A 最忙",
    judge: (t, params) => {
      // the claim's premise: the gap in in-flight requests does not trip SGLang's imbalance rule (both conditions)
      const counts = t.rows.map((r) => r.inFlight as number);
      const max = Math.max(...counts);
      const min = Math.min(...counts);
      const rel = SGLANG_ROUTER_DEFAULTS.balanceRel;
      needParam(!(max - min > params.balanceAbs && max > rel * min), `在途请求最多 ${max}、最少 ${min}，差 ${max - min} 已超过阈值 balanceAbs = ${params.balanceAbs}，且超过 ${rel} 倍：这一条说的是没超过阈值时，这组参数下路由器按负载派，无从判断`);
      const p = picked(t, "sglangPick");
      const busiest = t.rows.reduce((b, r) => ((r.inFlight as number) > (b.inFlight as number) ? r : b), t.rows[0]);
      return { holds: p === "A" && busiest.replica === "A", ours: `选 ${p}；在途请求 ${t.rows.map((r) => `${r.replica} ${r.inFlight}`).join("、")}` };
    },
  },
  {
    id: "gateway-weighs-three-scores",
    says: "网关把队列、KV 利用率和前缀三项加权：A、C 的前缀分一样，C 的队列短、KV 空，于是选 C",
    judge: (t) => ({ holds: picked(t, "gatewayPick") === "C", ours: `选 ${picked(t, "gatewayPick")}（得分 ${costText(t, "gatewayScore")}）` }),
  },
];

export const workedExample = defineDemo<ExampleParams>({
  id: "06.0",
  section: "§6",
  title: "手搭的场景：同一个请求、三个副本，各个生产路由器分别选谁",
  // Size: a hand-built scenario (three replicas, one request), no size to choose.
  defaults: { overlapWeight: 1, prefixWeight: 3, balanceAbs: 64 },
  describe: {
    overlapWeight: { meaning: "Dynamo 代价里 prefill 块的权重（overlap_score_weight）", range: "≥ 0 的数" },
    prefixWeight: { meaning: "网关前缀分的权重（队列分、KV 分的权重各为 2）", range: "≥ 0 的数" },
    balanceAbs: { meaning: "SGLang 路由器判为不均衡所需的在途请求差（balance_abs_threshold）", range: "≥ 0 的整数" },
  },
  run(p) {
    const overlapWeight = checkNumber("overlapWeight", p.overlapWeight, { min: 0 });
    const prefixWeight = checkNumber("prefixWeight", p.prefixWeight, { min: 0 });
    const balanceAbs = checkInteger("balanceAbs", p.balanceAbs, { min: 0 });
    const capacity = kvCapacityTokens(SECTION2_MODEL, SECTION2_GPU);
    const s = scenario();
    const view = viewOf(s.inFlight, capacity);
    // Each router's own state, built from the story: the SGLang tree and the gateway index from what was routed
    // (A routed the video first), Dynamo's index from the KV events of what each replica holds.
    const sglang = new SglangRouter(3, { balanceAbs });
    const late = new SglangRouter(3, { ...SGLANG_LATE_2025, balanceAbs }, "sglangRouterLate2025");
    const dynamo = new DynamoKvRouter(3, rng(1), { overlapWeight });
    const firstVersion = new DynamoKvRouter(3, rng(1), { overlapWeight, decodeTerm: "runningKv", prefillTerm: "replica" });
    const gateway = new GatewayPrefixScorer(3, rng(1), capacity, { prefixWeight });
    let time = 0;
    for (const w of [0, 2, 1]) {
      for (const x of s.inFlight[w]) {
        for (const r of [sglang, late]) r.tree.insert(x.request.segments, w, time);
        gateway.index.add(gateway.index.blocks(x.request.segments), w);
        const record = Object.assign(new RequestRecord(x.request, 0), { replica: w, firstToken: x.running ? 0.5 : NaN, generated: x.running ? 2 : 0 });
        for (const d of [dynamo, firstVersion]) {
          d.index.learn(x.request);
          d.active[w].add(record, x.running ? 0 : x.request.promptTokens);
        }
        time++;
      }
    }
    for (const d of [dynamo, firstVersion]) {
      d.index.learn(s.request);
      s.cached.forEach((paths, w) => paths.forEach((path) => d.onStore({ replica: w, time: 0, path: path.map((x) => x.id), addedTokens: 0 })));
    }
    const picks = {
      sglangPick: sglang.route(s.request, view),
      sglangLate2025Pick: late.route(s.request, view),
      dynamoPick: dynamo.route(s.request, view),
      dynamoOldPick: firstVersion.route(s.request, view),
      gatewayPick: gateway.route(s.request, view),
    };
    const chooser: Record<keyof typeof picks, string> = { sglangPick: "sglangRouter", sglangLate2025Pick: "sglangRouterLate2025", dynamoPick: "dynamoKvRouter", dynamoOldPick: "dynamoKvRouterRunningKv", gatewayPick: "gatewayPrefixScorer" };
    const rows: Row[] = NAMES.map((name, i) => {
      const row: Row = {
        replica: name,
        cachedTokens: dynamo.lastCosts[i].overlapTokens,
        inFlight: view.outstandingRequests(i),
        queued: view.queueLength(i),
        kvUtilization: view.kvUtilization(i),
        dynamoPrefillBlocks: dynamo.lastCosts[i].prefillBlocks,
        dynamoDecodeBlocks: dynamo.lastCosts[i].decodeBlocks,
        dynamoCost: dynamo.lastCosts[i].cost,
        dynamoOldDecodeBlocks: firstVersion.lastCosts[i].decodeBlocks,
        dynamoOldCost: firstVersion.lastCosts[i].cost,
        gatewayPrefix: gateway.lastScores[i].prefix,
        gatewayScore: gateway.lastScores[i].total,
        chosenBy: (Object.keys(picks) as Array<keyof typeof picks>).filter((k) => picks[k] === i).map((k) => displayName(chooser[k])).join("、") || "—",
      };
      for (const k of Object.keys(picks) as Array<keyof typeof picks>) row[k] = picks[k] === i;
      return row;
    });
    return {
      title: `一个 12,000 token 的视频问答请求：三个副本上的代价与得分（Dynamo 权重 ${overlapWeight}，网关前缀权重 ${prefixWeight}，SGLang 不均衡阈值 ${balanceAbs}）`,
      columns: [
        { key: "replica", label: "副本", format: "text" },
        { key: "cachedTokens", label: "已缓存的前缀（整块）", unit: "token", format: "int" },
        { key: "inFlight", label: "在途请求", unit: "个", format: "int" },
        { key: "queued", label: "其中排队的", unit: "个", format: "int" },
        { key: "kvUtilization", label: "KV 利用率", format: "percent0" },
        { key: "dynamoPrefillBlocks", label: "Dynamo：prefill 块", format: "fixed1" },
        { key: "dynamoDecodeBlocks", label: "Dynamo：decode 块（发布版）", format: "fixed0" },
        { key: "dynamoCost", label: "Dynamo 代价（发布版，小者胜）", format: "fixed1" },
        { key: "dynamoOldDecodeBlocks", label: "decode 块（第一版）", format: "fixed1" },
        { key: "dynamoOldCost", label: "代价（第一版）", format: "fixed1" },
        { key: "gatewayPrefix", label: "网关：前缀分", format: "fixed2" },
        { key: "gatewayScore", label: "网关总分（大者胜）", format: "fixed2" },
        { key: "chosenBy", label: "选中它的路由器", format: "text" },
      ],
      rows,
      notes: [
        "场景：系统提示 60 + 视频 11,740 + 问题 200 = 12,000 个 token。A 正跑着这段视频的 4 个请求和 2 份 2 万 token 的长文档，还排着 2 份文档；B 只跑着另一段视频的 1 个请求；C 正跑着这段视频的 4 个请求。A、C 的缓存里有这段视频（A 先算的），B 没有。",
        "Dynamo（发布版）：prefill 块 = (请求里没缓存的 token + 在途请求还没出首 token 的 prefill) ÷ 16；decode 块 = 在途请求（排队的也算）的不同提示块 + 这个请求里不在其中的块。第一版：prefill 用副本自己还要算的量，decode 块 = 运行中请求的提示与全部输出占的 KV ÷ 16。块大小 16 个 token。",
        "网关：队列分 = (最长队列 − 本副本队列) ÷ (最长 − 最短)，KV 分 = 1 − 利用率，前缀分 = 提示前 256 块里按块匹配上的比例；总分 = 2 × 队列分 + 2 × KV 分 + 前缀权重 × 前缀分。",
        "SGLang 路由器：命中时今天的版本取节点的创建者，2025 年末版取节点哈希表里的第一个租户；在途请求数的差超过不均衡阈值、且最多者超过最少者的 1.5 倍时，两者都改派最闲的。",
      ],
    } as Table;
  },
  claims,
});
