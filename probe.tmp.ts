import { configurationRun } from "./lib/cluster/preble-runs";
import { simulateCluster } from "./lib/cluster/simulate";
for (const [workload, rate] of [["toolCalling", 32], ["longDocQA", 1], ["videoQA", 4], ["programming", 8], ["agent", 40]] as const)
for (const ro of [{}, { decodeEstimate: "released", evictionEstimate: "memoryFull" }]) {
  const t0 = Date.now();
  const res = simulateCluster(configurationRun({ workload, rate, replicas: 4, configuration: "e2+rebalance", routerOptions: { ...ro, recordCandidates: 100000 }, requestCount: 400, seed: 1 }));
  const c = res.routerStats.candidates as any;
  const R = c.replicas; const n = c.decision.length;
  let sameL = 0, pCould = 0; const lsp: number[] = [], psp: number[] = [];
  for (let k = 0; k < n; k++) {
    const L = c.L.slice(k*R, k*R+R), P = c.P.slice(k*R, k*R+R);
    const aL = L.indexOf(Math.min(...L)); if (aL === c.chosen[k]) sameL++;
    lsp.push(Math.max(...L) - Math.min(...L)); psp.push(Math.max(...P) - Math.min(...P));
  }
  lsp.sort((a,b)=>a-b); psp.sort((a,b)=>a-b);
  console.log(workload, JSON.stringify(ro).slice(0,30), Date.now()-t0, "ms explores", c.explores, "sameL", (sameL/n).toFixed(3), "medLspread", lsp[n>>1]?.toFixed(3), "medPspread", psp[n>>1]?.toFixed(4), "maxP", psp[n-1]?.toFixed(3));
}
