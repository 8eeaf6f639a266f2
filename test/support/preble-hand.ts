// What the hand-built Preble scenarios share (test/preble.test.ts, test/preble-argmin.test.ts): the step model and KV
// capacity of Mistral-7B on an A6000, the prefill and TPOT the router prices (integer nanoseconds, as it stores them),
// and a request made of given segments. (Not a test file: vitest only collects *.test.ts.)
import type { ClusterRequest, Segment } from "../../lib/cluster/index";
import { kvCapacityTokens, StepModel } from "../../lib/hardware/step-model";

export const step = new StepModel("MISTRAL_7B", "A6000");
export const capacity = kvCapacityTokens("MISTRAL_7B", "A6000");
const NS = 1e9;
/** What the router prices: integer nanoseconds, as it stores them. */
export const prefill = (tokens: number, cached: number) => (tokens <= 0 ? 0 : Math.round(step.mixed(tokens, tokens * cached + (tokens * (tokens + 1)) / 2, cached, 0, 0, 1).seconds * NS) / NS);
export const tpot = (context: number) => Math.round(step.mixed(0, 0, 0, 1, context, 0).seconds * NS) / NS;

let nextId = 0;
export function request(segments: Segment[], outputTokens = 10, arrival = 0): ClusterRequest {
  const id = nextId++;
  return { id, arrival, segments, promptTokens: segments.reduce((s, x) => s + x.tokens, 0), outputTokens, outputSegment: { id: 1_000_000 + id, tokens: outputTokens }, key: 0, keySegment: segments[0].id };
}
