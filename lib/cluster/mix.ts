// Several workloads in one run on an arrival process of our choice (issue 9, Preble §5's "Azure arrivals, tool
// calling + video QA"): each part is generated on its own (its own segment ids, so nothing is shared across parts),
// then the requests are interleaved in a seeded random order and given the process's arrival times.
import type { ArrivalProcess } from "../core/arrivals";
import { checkInteger, checkNonEmpty, checkNumber } from "../core/errors";
import { rng } from "../core/rng";
import { ClusterRequest, generateWorkload, Workload } from "./workloads";

export interface MixPart {
  workload: string;
  /** share of the requests, > 0 (normalized over the parts) */
  share: number;
  overrides?: Record<string, number>;
}

/** Segment ids of part k start at k × this, far above any id a part of realistic size uses. */
const SEGMENT_ID_STRIDE = 100_000_000;

export function mixedWorkload(options: { parts: readonly MixPart[]; requestCount: number; arrivals: ArrivalProcess; seed?: number | string }): Workload {
  const parts = checkNonEmpty("parts", options.parts);
  const count = checkInteger("requestCount", options.requestCount, { min: parts.length });
  const totalShare = parts.reduce((s, p, i) => s + checkNumber(`parts[${i}].share`, p.share, { above: 0 }), 0);
  const seed = options.seed ?? 1;
  const r = rng(seed).fork("mix");
  const counts = parts.map((p) => Math.floor((count * p.share) / totalShare));
  counts[counts.length - 1] += count - counts.reduce((a, b) => a + b, 0);
  const generated = parts.map((p, k) =>
    generateWorkload(p.workload, { rate: (options.arrivals.meanRate * p.share) / totalShare, seed, requestCount: Math.max(1, counts[k]), overrides: p.overrides, segmentIdBase: k * SEGMENT_ID_STRIDE }),
  );
  // Which part each arrival slot takes: counts[k] slots for part k, in a seeded random order.
  const slots: number[] = [];
  counts.forEach((c, k) => {
    for (let i = 0; i < c; i++) slots.push(k);
  });
  r.fork("order").shuffle(slots);
  const times = options.arrivals.times(r.fork("arrivals"), count);
  const next = new Array(parts.length).fill(0);
  const requests: ClusterRequest[] = slots.map((k, i) => {
    const source = generated[k].requests[next[k]++];
    return { ...source, id: i, arrival: times[i] };
  });
  const keySegments = new Set<number>();
  for (const w of generated) for (const s of w.keySegments) keySegments.add(s);
  const params: Record<string, number> = {};
  generated.forEach((w, k) => {
    for (const [name, v] of Object.entries(w.params)) params[`${parts[k].workload}.${name}`] = v;
  });
  return {
    name: parts.map((p) => p.workload).join("+"),
    label: generated.map((w) => w.label).join(" + "),
    keyPortion: generated.map((w) => w.keyPortion).join(" / "),
    rate: options.arrivals.meanRate,
    seed,
    requests,
    keySegments,
    params,
  };
}
