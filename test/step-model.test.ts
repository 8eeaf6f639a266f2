import { describe, expect, it } from "vitest";
import { A100, A6000, H100, kvCapacityTokens, LLAMA3_70B, LLAMA3_8B, MISTRAL_7B, StepModel, kvBytesPerToken, weightBytes } from "../lib/hardware";
import { runDemo } from "../lib/demos";

const mistral = new StepModel(MISTRAL_7B, A6000);

describe("step model reproduces the lecture's figures", () => {
  it("KV capacity of Mistral-7B on an A6000 is 219,089 tokens", () => {
    expect(kvCapacityTokens(MISTRAL_7B, A6000)).toBe(219089);
    // the same figure from first principles: 48 GB × 0.9 − 2 bytes × parameters, over 128 KiB per token
    expect(kvBytesPerToken(MISTRAL_7B)).toBe(128 * 1024);
    expect(Math.floor((48e9 * 0.9 - 2 * 7241732096) / 131072)).toBe(kvCapacityTokens(MISTRAL_7B, A6000));
  });
  it("prefill(2100) within 2% of 0.2817 s and prefill(21000) within 3% of 3.77 s", () => {
    expect(Math.abs(mistral.prefill(2100) / 0.2817 - 1)).toBeLessThan(0.02);
    expect(Math.abs(mistral.prefill(21000) / 3.77 - 1)).toBeLessThan(0.03);
  });
  it("a single short-context decode step is within 10% of 24 ms", () => {
    expect(Math.abs(mistral.decodeStep(1, 200) / 0.024 - 1)).toBeLessThan(0.1);
  });
});

describe("step model shape", () => {
  it("prefill is increasing, about linear for short prompts, and superlinear (attention) for long ones", () => {
    let last = 0;
    for (let n = 250; n <= 32000; n += 250) {
      const t = mistral.prefill(n);
      expect(t).toBeGreaterThan(last);
      last = t;
    }
    const perToken1k = mistral.prefill(1000) / 1000;
    const perToken2k = mistral.prefill(2000) / 2000;
    const perToken32k = mistral.prefill(32000) / 32000;
    expect(perToken2k / perToken1k).toBeLessThan(1.05);
    expect(perToken32k / perToken1k).toBeGreaterThan(1.3);
  });
  it("cached prefix makes prefill cheaper than computing it, but attention over it still costs", () => {
    const withCache = mistral.prefill(2000, 21000);
    expect(withCache).toBeLessThan(mistral.prefill(23000) / 5);
    expect(withCache).toBeGreaterThan(mistral.prefill(2000, 0));
  });
  it("decode is nearly flat in batch size at short context and grows with total context", () => {
    expect(mistral.decodeStep(32, 32 * 100) / mistral.decodeStep(1, 100)).toBeLessThan(1.3);
    expect(mistral.decodeStep(8, 8 * 16000)).toBeGreaterThan(1.5 * mistral.decodeStep(8, 8 * 100));
    let last = 0;
    for (const ctx of [0, 1000, 10000, 100000]) {
      const t = mistral.decodeStep(16, ctx);
      expect(t).toBeGreaterThan(last);
      last = t;
    }
  });
  it("a mixed step costs less than its prefill and decode parts run separately (one weight read)", () => {
    const mixed = mistral.step({ prefillTokens: [{ tokens: 512, cached: 0 }], decodeContexts: [1000, 2000] });
    const separate = mistral.prefill(512) + mistral.decodeStep(2, 3000);
    expect(mixed).toBeLessThan(separate);
    expect(mixed).toBeGreaterThan(mistral.prefill(512));
  });
  it("faster GPUs are faster; bigger models slower", () => {
    expect(new StepModel(MISTRAL_7B, H100).prefill(4000)).toBeLessThan(new StepModel(MISTRAL_7B, A100).prefill(4000));
    expect(new StepModel(MISTRAL_7B, A100).prefill(4000)).toBeLessThan(mistral.prefill(4000));
    expect(new StepModel(LLAMA3_8B, A6000).decodeStep(1, 100)).toBeGreaterThan(mistral.decodeStep(1, 100));
  });
});

describe("tensor parallelism", () => {
  it("TP4 Llama-3-70B on H100: compute and memory divide by 4, plus an all-reduce cost", () => {
    const tp4 = new StepModel(LLAMA3_70B, H100, { tp: 4 });
    const b = tp4.breakdown({ prefillTokens: [{ tokens: 4000, cached: 0 }] });
    expect(b.allReduce).toBeGreaterThan(0);
    const tp8 = new StepModel(LLAMA3_70B, H100, { tp: 8 });
    expect(tp8.prefill(4000)).toBeLessThan(tp4.prefill(4000));
    // the decode step is weight-read bound: about a quarter of the weights per GPU
    const weightSeconds = weightBytes(LLAMA3_70B) / 4 / (H100.memoryBandwidthBytesPerSec * 0.8);
    expect(tp4.decodeStep(1, 100)).toBeGreaterThan(weightSeconds);
    expect(tp4.decodeStep(1, 100)).toBeLessThan(weightSeconds * 1.5);
  });
  it("KV capacity per GPU under TP counts a shard of the weights and of the KV", () => {
    expect(() => kvCapacityTokens(LLAMA3_70B, H100)).toThrow(/放不进/);
    const perGpu = kvCapacityTokens(LLAMA3_70B, H100, 0.9, 4);
    expect(perGpu).toBe(Math.floor((80e9 * 0.9 - weightBytes(LLAMA3_70B) / 4) / (kvBytesPerToken(LLAMA3_70B) / 4)));
  });
});

describe("bad input names the parameter", () => {
  it.each([
    [() => mistral.prefill(-1), /newTokens/],
    [() => mistral.prefill(10.5), /newTokens.*整数/],
    [() => mistral.prefill(100, -3), /cachedTokens/],
    [() => mistral.decodeStep(0, 10), /batchSize/],
    [() => mistral.step({ prefillTokens: [{ tokens: 1.5, cached: 0 }] }), /prefillTokens\[\]\.tokens/],
    [() => new StepModel("GPT-9", A6000), /model：没有模型/],
    [() => new StepModel(MISTRAL_7B, "TPU"), /gpu：没有 GPU/],
    [() => new StepModel(MISTRAL_7B, A6000, { tp: 3 }), /tp：应能整除/],
    [() => kvCapacityTokens(MISTRAL_7B, A6000, 1.5), /memFraction/],
  ])("%#", (fn, message) => {
    expect(fn).toThrow(message);
  });
});

describe("demos 00.1 and 00.2", () => {
  it("00.1 rows follow the step model and the notes quote the computed capacity", () => {
    const t = runDemo("00.1");
    expect(t.rows.map((r) => r.promptTokens)).toEqual([1000, 2000, 4000, 8000, 16000, 32000]);
    for (const r of t.rows) expect(r.prefillSeconds).toBeCloseTo(mistral.prefill(r.promptTokens as number), 12);
    expect(t.notes?.join(" ")).toContain("219,089");
    expect(t.claims?.map((c) => [c.id, c.verdict])).toEqual([["capacity", "holds"], ["miss-cost", "holds"], ["attention-grows", "holds"]]);
  });
  it("00.1's title names the hardware actually used, and its capacity claim cannot be judged on other hardware", () => {
    const t = runDemo("00.1", { model: "LLAMA3_70B", gpu: "H100", tp: 4 });
    expect(t.title).toContain("Llama-3-70B");
    expect(t.title).toContain("TP4");
    expect(t.claims?.find((c) => c.id === "capacity")?.verdict).toBe("unjudged");
  });
  it("00.2 throughput grows with batch size", () => {
    const t = runDemo("00.2", { contextTokens: [1000] });
    const tps = t.rows.map((r) => r.tokensPerSecond as number);
    for (let i = 1; i < tps.length; i++) expect(tps[i]).toBeGreaterThan(tps[i - 1]);
  });
  it("00.2's claims hold at defaults; with batches up to 8 only, the KV claim says what it needs", () => {
    expect(runDemo("00.2").claims?.map((c) => c.verdict)).toEqual(["holds", "holds", "holds"]);
    const small = runDemo("00.2", { batchSizes: [1, 8] });
    expect(small.claims?.[2].verdict).toBe("unjudged");
    expect(small.claims?.[2].reason).toContain("批大小 ≥ 32");
  });
  it("unknown or mistyped demo parameters are rejected", () => {
    expect(() => runDemo("00.1", { gpus: "A100" })).toThrow(/参数 gpus：不是演示 00\.1 的参数/);
    expect(() => runDemo("00.1", { tp: "4" })).toThrow(/参数 tp：应为数/);
    expect(() => runDemo("00.1", { gpu: "B200" })).toThrow(/参数 gpu：没有 GPU "B200"；可选：A6000/);
    expect(() => runDemo("00.1", { promptTokens: [1000, -5] })).toThrow(/参数 promptTokens\[1\]：应为 ≥ 1 的整数，实际是 -5/);
    expect(() => runDemo("99.9")).toThrow(/没有演示 "99\.9"/);
  });
});
