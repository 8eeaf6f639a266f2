// 代码 0 (overview): the paper GPU's prefill and decode times that every cluster simulation builds on.
import { checkInteger, checkNonEmpty } from "../../core/errors";
import { resolveGpu, resolveModel, GPU_IDS, MODEL_IDS } from "../../hardware/specs";
import { kvCapacityTokens, StepModel } from "../../hardware/step-model";
import { defineDemo } from "../registry";
import { f, need, needParam, pct } from "../claims";

const HARDWARE_DOCS = {
  model: { meaning: "模型（data/hardware.json 里的编号）", range: `${MODEL_IDS.join("、")} 之一` },
  gpu: { meaning: "GPU（data/hardware.json 里的编号）", range: `${GPU_IDS.join("、")} 之一` },
  tp: { meaning: "张量并行的 GPU 数", range: "≥ 1 的整数（权重放得下才行）" },
};

function stepModelOf(p: { model: string; gpu: string; tp: number }) {
  const model = resolveModel(p.model);
  const gpu = resolveGpu(p.gpu);
  checkInteger("tp", p.tp, { min: 1 });
  return { model, gpu, step: new StepModel(model, gpu, { tp: p.tp }), hardware: `${model.name} / ${gpu.name}${p.tp > 1 ? ` × TP${p.tp}` : ""}` };
}

const tokens = (n: number) => n.toLocaleString("en-US");

export const stepModelPrefill = defineDemo({
  id: "00.1",
  section: "§0.5",
  title: "纸上 GPU：一个请求的 prefill 时间",
  // Size: no simulation: the step model's closed-form times at six prompt lengths spanning the lecture's 2,100 and 21,000 tokens.
  defaults: { model: "MISTRAL_7B", gpu: "A6000", tp: 1, promptTokens: [1000, 2000, 4000, 8000, 16000, 32000] },
  describe: { ...HARDWARE_DOCS, promptTokens: { meaning: "要计时的提示长度（token）", range: "非空数组，每项为 ≥ 1 的整数" } },
  run(p) {
    const { model, gpu, step, hardware } = stepModelOf(p);
    const rows = checkNonEmpty("promptTokens", p.promptTokens).map((raw, i) => {
      const n = checkInteger(`promptTokens[${i}]`, raw, { min: 1 });
      const b = step.breakdown({ prefillTokens: [{ tokens: n, cached: 0 }] });
      return { promptTokens: n, prefillSeconds: b.seconds, msPerToken: (b.seconds / n) * 1000, attentionShare: b.prefillAttention / b.seconds };
    });
    return {
      title: `prefill 时间：${hardware}`,
      columns: [
        { key: "promptTokens", label: "提示长度", unit: "token", format: "int" },
        { key: "prefillSeconds", label: "prefill 时间", unit: "秒", format: "fixed3" },
        { key: "msPerToken", label: "每 token", unit: "毫秒", format: "fixed3" },
        { key: "attentionShare", label: "注意力所占比例", format: "percent1" },
      ],
      rows,
      notes: [
        `roofline：每组算子取"算力时间"与"访存时间"中较大的一个。显存的 90% 减去权重后可放 ${tokens(kvCapacityTokens(model, gpu, 0.9, p.tp))} 个 token 的 KV。`,
      ],
    };
  },
  claims: [
    {
      id: "capacity",
      says: "一块 A6000 上的 Mistral-7B，显存的 90% 减去权重后能放下约 21.9 万个 token 的 KV（练习 4）",
      lecture: "219,089 token",
      judge: (_t, p) => {
        needParam(p.model === "MISTRAL_7B" && p.gpu === "A6000" && p.tp === 1, "讲义的数字是 Mistral-7B / A6000、tp = 1 的，这组参数换了硬件");
        const c = kvCapacityTokens(resolveModel(p.model), resolveGpu(p.gpu), 0.9, p.tp);
        return { holds: c === 219089, ours: `${tokens(c)} token` };
      },
    },
    {
      id: "miss-cost",
      says: "没命中的代价：2,100 token 的 prefill 约 0.28 秒，21,000 token（长文档问答的一份文档）约 3.8 秒",
      lecture: "0.2817 秒与 3.77 秒",
      judge: (_t, p) => {
        needParam(p.model === "MISTRAL_7B" && p.gpu === "A6000" && p.tp === 1, "讲义的数字是 Mistral-7B / A6000、tp = 1 的，这组参数换了硬件");
        const step = new StepModel(resolveModel(p.model), resolveGpu(p.gpu));
        const a = step.prefill(2100);
        const b = step.prefill(21000);
        return { holds: Math.abs(a / 0.2817 - 1) < 0.02 && Math.abs(b / 3.77 - 1) < 0.03, ours: `${f(a, 3)} 秒与 ${f(b, 2)} 秒` };
      },
    },
    {
      id: "attention-grows",
      says: "prefill 时间大体随提示长度线性增长，越长注意力所占的比例越大",
      judge: (t) => {
        needParam(t.rows.length >= 2, "需要至少两个提示长度才能比较增长");
        const first = t.rows[0];
        const last = t.rows[t.rows.length - 1];
        const a0 = need(t, { promptTokens: first.promptTokens }, "attentionShare");
        const a1 = need(t, { promptTokens: last.promptTokens }, "attentionShare");
        const increasing = t.rows.every((r, i) => i === 0 || (r.prefillSeconds as number) > (t.rows[i - 1].prefillSeconds as number));
        const longer = (last.promptTokens as number) > (first.promptTokens as number);
        return {
          holds: increasing && (!longer || a1 > a0),
          ours: `${tokens(first.promptTokens as number)} token 时注意力占 ${pct(a0, 1)}，${tokens(last.promptTokens as number)} token 时占 ${pct(a1, 1)}`,
        };
      },
    },
  ],
});

export const stepModelDecode = defineDemo({
  id: "00.2",
  section: "§0.5",
  title: "纸上 GPU：一步 decode 的时间",
  // Size: no simulation: the step model at five batch sizes and two context lengths, enough to show flat-then-KV-bound steps.
  defaults: { model: "MISTRAL_7B", gpu: "A6000", tp: 1, batchSizes: [1, 8, 32, 64, 128], contextTokens: [1000, 4000] },
  describe: {
    ...HARDWARE_DOCS,
    batchSizes: { meaning: "一起 decode 的请求数（批大小）", range: "非空数组，每项为 ≥ 1 的整数" },
    contextTokens: { meaning: "每个请求的上下文长度（token）", range: "非空数组，每项为 ≥ 1 的整数" },
  },
  run(p) {
    const { step, hardware } = stepModelOf(p);
    const batches = checkNonEmpty("batchSizes", p.batchSizes).map((b, i) => checkInteger(`batchSizes[${i}]`, b, { min: 1 }));
    const contexts = checkNonEmpty("contextTokens", p.contextTokens).map((c, i) => checkInteger(`contextTokens[${i}]`, c, { min: 1 }));
    const rows = [];
    for (const context of contexts) {
      for (const batch of batches) {
        const seconds = step.decodeStep(batch, batch * context);
        rows.push({ contextTokens: context, batch, stepMs: seconds * 1000, tokensPerSecond: batch / seconds });
      }
    }
    return {
      title: `一步 decode 的时间：${hardware}`,
      columns: [
        { key: "contextTokens", label: "每个请求的上下文", unit: "token", format: "int" },
        { key: "batch", label: "批大小", unit: "请求", format: "int" },
        { key: "stepMs", label: "一步的时间", unit: "毫秒", format: "fixed1" },
        { key: "tokensPerSecond", label: "吞吐", unit: "token/秒", format: "int" },
      ],
      rows,
      notes: ["每一步 decode 要把全部权重读一遍，再读批里每个请求的 KV：批小、上下文短时一步的时间几乎不随批大小变，直到读 KV（或计算）成为主角。"],
    };
  },
  claims: [
    {
      id: "single-step",
      says: "一个短上下文的请求单独 decode 一步约 24 毫秒，几乎全是把权重读一遍的时间",
      lecture: "约 24 毫秒",
      judge: (t, p) => {
        needParam(p.model === "MISTRAL_7B" && p.gpu === "A6000" && p.tp === 1, "讲义的数字是 Mistral-7B / A6000、tp = 1 的，这组参数换了硬件");
        // the table's row the reader sees: the shortest context, one request
        const ctx = Math.min(...t.rows.map((r) => r.contextTokens as number));
        const ms = need(t, { contextTokens: ctx, batch: 1 }, "stepMs");
        const b = new StepModel(resolveModel(p.model), resolveGpu(p.gpu)).breakdown({ decodeContexts: [ctx] });
        return { holds: Math.abs(ms / 24 - 1) < 0.1, ours: `上下文 ${tokens(ctx)} token、批 1 那一行：${f(ms, 1)} 毫秒，其中读权重占 ${pct(b.linear / b.seconds)}` };
      },
    },
    {
      id: "batching-pays",
      says: "上下文短时，批从 1 加到 8，一步几乎不变慢，吞吐随批大小近乎成比例地涨",
      judge: (t) => {
        const ctx = Math.min(...t.rows.map((r) => r.contextTokens as number));
        const s1 = need(t, { contextTokens: ctx, batch: 1 }, "stepMs");
        const s8 = need(t, { contextTokens: ctx, batch: 8 }, "stepMs");
        return { holds: s8 / s1 < 1.5, ours: `上下文 ${tokens(ctx)} token：${f(s1, 1)} → ${f(s8, 1)} 毫秒，吞吐涨 ${f((8 * s1) / s8, 1)} 倍` };
      },
    },
    {
      id: "kv-dominates",
      says: "批大、上下文长时读 KV 成了主角：一步的时间比单个请求时长好几倍",
      judge: (t) => {
        const ctx = Math.max(...t.rows.map((r) => r.contextTokens as number));
        const bMax = Math.max(...t.rows.map((r) => r.batch as number));
        needParam(bMax >= 32, "需要批大小 ≥ 32 的行");
        const s1 = need(t, { contextTokens: ctx, batch: 1 }, "stepMs");
        const sb = need(t, { contextTokens: ctx, batch: bMax }, "stepMs");
        return { holds: sb / s1 > 2, ours: `上下文 ${tokens(ctx)} token、批 ${bMax}：${f(sb, 1)} 毫秒，是单个请求的 ${f(sb / s1, 1)} 倍` };
      },
    },
  ],
});
