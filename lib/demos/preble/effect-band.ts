// One band for "helps" / "hurts" in §3's claims: a change of a latency smaller than EFFECT_BAND (10%) is of the size
// that moves between seeds (03.11's pairing step reverses its sign between 1 and 3 seeds), so it is called neither a
// win nor a loss. Prefill/decode pairing (03.2, 03.11) is judged with it whatever the number of seeds; 03.11's other
// steps use it for one seed; 03.5's "mainly the mean" asks the mean's gain to beat the P99's by more than it.
import { f, pct } from "../claims";

/** Changes smaller than this (10%) are inside the band: neither better nor worse. */
export const EFFECT_BAND = 0.1;

/** A speed-up ratio x = before ÷ after (> 1 = faster) as the change the words say: +0.12 = "快 12%" (x − 1),
 * −0.03 = "慢 3%" (−(1 ÷ x − 1)), so a slowdown and a speed-up of the same words are the same distance from the band. */
export function ratioChange(x: number): number {
  return x >= 1 ? x - 1 : -(1 / x - 1);
}

/** The change from latency `before` to `after` (lower is better), as ratioChange. */
export const speedChange = (before: number, after: number): number => ratioChange(before / after);

/** Whether a change (ratioChange) is inside the band. */
export const withinBand = (change: number): boolean => Math.abs(change) < EFFECT_BAND;

/** "快 8%" / "慢 2%", with one decimal where whole percents would read as the band's edge ("慢 9.6%", "快 10.4%"),
 * "慢 3.1 倍" from 50% on. */
export function changeWords(change: number): string {
  const word = change >= 0 ? "快" : "慢";
  const size = Math.abs(change);
  if (size >= 0.5) return `${word} ${f(1 + size, 1)} 倍`;
  return `${word} ${pct(size, pct(size) === pct(EFFECT_BAND) ? 1 : 0)}`;
}

/** Why changes inside the band are no verdict: "P99 慢 2.4%，在 ±10% 以内：不算变好或变差"; `all`: every change
 * the claim reads is inside, already shown in its figures ("变化都在 ±10% 以内：…"). */
export function insideBand(what: string, all = false): string {
  return `${all ? "变化都" : `${what}，`}在 ±${pct(EFFECT_BAND)} 以内：不算变好或变差`;
}

/** "种子 1（搭配关）、种子 3（搭配关、搭配开）过载，P99 随模拟时长变化" — the seeds where either side of a comparison
 * overloaded ("" when none); `sides` names the two sides (e.g. ["搭配关", "搭配开"]); `short`: without the tail (a
 * remark beside figures). */
export function overloadedSeedsWords(seeds: ReadonlyArray<number | string>, before: readonly boolean[], after: readonly boolean[], sides: readonly [string, string], short = false): string {
  const items = seeds.flatMap((seed, k) => (before[k] && after[k] ? [`种子 ${seed}（${sides[0]}、${sides[1]}）`] : before[k] ? [`种子 ${seed}（${sides[0]}）`] : after[k] ? [`种子 ${seed}（${sides[1]}）`] : []));
  return items.length ? `${items.join("、")}过载${short ? "" : "，P99 随模拟时长变化"}` : "";
}
