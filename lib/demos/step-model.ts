// 代码 0 (overview): the paper GPU's prefill and decode times that every cluster simulation builds on.
import { checkNonEmpty } from "../core/errors";
import { resolveGpu, resolveModel } from "../hardware/specs";
import { kvCapacityTokens, StepModel } from "../hardware/step-model";
import { defineDemo } from "./registry";

export const stepModelPrefill = defineDemo({
  id: "00.1",
  section: "§0.5",
  title: "Paper GPU: prefill time of one request",
  defaults: { model: "MISTRAL_7B", gpu: "A6000", tp: 1, promptTokens: [1000, 2000, 4000, 8000, 16000, 32000] },
  describe: { model: "model id from data/hardware.json", gpu: "GPU id", tp: "tensor-parallel degree", promptTokens: "prompt lengths to time" },
  run(p) {
    const model = resolveModel(p.model);
    const gpu = resolveGpu(p.gpu);
    const step = new StepModel(model, gpu, { tp: p.tp });
    const rows = checkNonEmpty("promptTokens", p.promptTokens).map((n) => {
      const b = step.breakdown({ prefillTokens: [{ tokens: n, cached: 0 }] });
      return { promptTokens: n, prefillSeconds: b.seconds, msPerToken: (b.seconds / n) * 1000, attentionShare: b.prefillAttention / b.seconds };
    });
    return {
      title: `Prefill time, ${model.name} on ${gpu.name}${p.tp > 1 ? ` × TP${p.tp}` : ""}`,
      columns: [
        { key: "promptTokens", label: "prompt", unit: "tokens", format: "int" },
        { key: "prefillSeconds", label: "prefill", unit: "s", format: "fixed3" },
        { key: "msPerToken", label: "per token", unit: "ms", format: "fixed3" },
        { key: "attentionShare", label: "attention share", format: "percent1" },
      ],
      rows,
      notes: [
        `Roofline: max(compute, memory) per operator group; KV capacity ${kvCapacityTokens(model, gpu, 0.9, p.tp).toLocaleString("en-US")} tokens at 90% of memory.`,
        `Time grows linearly (the linear layers) plus a quadratic attention term: ${(rows[0].attentionShare * 100).toFixed(1)}% of the time at ${rows[0].promptTokens.toLocaleString("en-US")} tokens, ${(rows[rows.length - 1].attentionShare * 100).toFixed(1)}% at ${rows[rows.length - 1].promptTokens.toLocaleString("en-US")}.`,
      ],
    };
  },
});

export const stepModelDecode = defineDemo({
  id: "00.2",
  section: "§0.5",
  title: "Paper GPU: one decode iteration",
  defaults: { model: "MISTRAL_7B", gpu: "A6000", tp: 1, batchSizes: [1, 8, 32, 64, 128], contextTokens: [1000, 4000] },
  describe: { batchSizes: "requests decoding together", contextTokens: "context length of each request" },
  run(p) {
    const model = resolveModel(p.model);
    const gpu = resolveGpu(p.gpu);
    const step = new StepModel(model, gpu, { tp: p.tp });
    const rows = [];
    for (const context of checkNonEmpty("contextTokens", p.contextTokens)) {
      for (const batch of checkNonEmpty("batchSizes", p.batchSizes)) {
        const seconds = step.decodeStep(batch, batch * context);
        rows.push({ contextTokens: context, batch, stepMs: seconds * 1000, tokensPerSecond: batch / seconds });
      }
    }
    return {
      title: `Decode iteration time, ${model.name} on ${gpu.name}${p.tp > 1 ? ` × TP${p.tp}` : ""}`,
      columns: [
        { key: "contextTokens", label: "context per request", unit: "tokens", format: "int" },
        { key: "batch", label: "batch", unit: "requests", format: "int" },
        { key: "stepMs", label: "step", unit: "ms", format: "fixed1" },
        { key: "tokensPerSecond", label: "throughput", unit: "tokens/s", format: "int" },
      ],
      rows,
      notes: ["A decode step reads all weights once plus every request's KV: nearly flat in batch size until the KV reads (or compute) dominate."],
    };
  },
});
