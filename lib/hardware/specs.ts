// GPU and model specs, read from data/hardware.json (each number with its source there).
import { readDataJson } from "../core/data";
import { ParameterError } from "../core/errors";

export interface GpuSpec {
  id: string;
  name: string;
  bf16DenseFlops: number;
  memoryBandwidthBytesPerSec: number;
  memoryBytes: number;
  /** one-direction GPU-to-GPU bandwidth used for tensor-parallel all-reduce */
  interconnectBytesPerSec: number;
  source: string;
}

export interface ModelSpec {
  id: string;
  name: string;
  layers: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  ffn: number;
  vocab: number;
  parameters: number;
  bytesPerParameter: number;
  source: string;
}

interface HardwareFile {
  gpus: Record<string, Omit<GpuSpec, "id">>;
  models: Record<string, Omit<ModelSpec, "id">>;
}

const file = readDataJson<HardwareFile>("hardware.json");

export const GPUS: Readonly<Record<string, GpuSpec>> = Object.freeze(
  Object.fromEntries(Object.entries(file.gpus).map(([id, g]) => [id, Object.freeze({ id, ...g })])),
);
export const MODELS: Readonly<Record<string, ModelSpec>> = Object.freeze(
  Object.fromEntries(Object.entries(file.models).map(([id, m]) => [id, Object.freeze({ id, ...m })])),
);

export const A6000 = GPUS.A6000;
export const A100 = GPUS.A100;
export const H100 = GPUS.H100;
export const H200 = GPUS.H200;
export const MISTRAL_7B = MODELS.MISTRAL_7B;
export const LLAMA3_8B = MODELS.LLAMA3_8B;
export const LLAMA3_70B = MODELS.LLAMA3_70B;

/** The ids accepted by gpuById / modelById (help() lists them as the allowed values). */
export const GPU_IDS: readonly string[] = Object.keys(GPUS);
export const MODEL_IDS: readonly string[] = Object.keys(MODELS);

export function gpuById(id: string): GpuSpec {
  const g = GPUS[id];
  if (!g) throw new ParameterError("gpu", `没有 GPU ${JSON.stringify(id)}；可选：${GPU_IDS.join("、")}`);
  return g;
}

export function modelById(id: string): ModelSpec {
  const m = MODELS[id];
  if (!m) throw new ParameterError("model", `没有模型 ${JSON.stringify(id)}；可选：${MODEL_IDS.join("、")}`);
  return m;
}

/** Accepts a spec object or its id; checks that a spec object is one of the known ones or well formed. */
export function resolveModel(model: ModelSpec | string): ModelSpec {
  if (typeof model === "string") return modelById(model);
  if (!model || typeof model !== "object" || typeof model.layers !== "number") throw new ParameterError("model", "应为模型规格（如 MISTRAL_7B）或模型编号");
  return model;
}

export function resolveGpu(gpu: GpuSpec | string): GpuSpec {
  if (typeof gpu === "string") return gpuById(gpu);
  if (!gpu || typeof gpu !== "object" || typeof gpu.bf16DenseFlops !== "number") throw new ParameterError("gpu", "应为 GPU 规格（如 A6000）或 GPU 编号");
  return gpu;
}

/** KV-cache bytes per token for the whole model: K and V, every layer, every KV head. */
export function kvBytesPerToken(model: ModelSpec): number {
  return 2 * model.layers * model.kvHeads * model.headDim * model.bytesPerParameter;
}

export function weightBytes(model: ModelSpec): number {
  return model.parameters * model.bytesPerParameter;
}
