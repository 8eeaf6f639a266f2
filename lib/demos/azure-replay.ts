// Real traffic (§2.1, §3.6; issue 9): Preble's "Azure arrivals, tool calling + video QA" experiment. The same mixed
// workload arrives either as Poisson or with the Azure 2023 trace's timing rescaled to the same mean rate: bursts
// hurt more, and the routers differ in how much.
import { poissonProcess, rescaledToRate, ArrivalProcess } from "../core/arrivals";
import { checkInteger, checkNonEmpty, checkNumber, checkOneOf } from "../core/errors";
import { configurationOptions, CONFIGURATION_NAMES } from "../cluster/preble-configs";
import { mixedWorkload } from "../cluster/mix";
import { simulateCluster } from "../cluster/simulate";
import { azureArrivals, AZURE_TRACE_KINDS, AzureTraceKind } from "../traces/azure";
import type { Row } from "../core/table";
import { defineDemo } from "./registry";
import { CLUSTER_COLUMNS, policyColumn } from "./columns";

export const azureReplay = defineDemo({
  id: "03.6",
  section: "§3.6",
  title: "Azure arrival timing vs Poisson at the same mean rate: tool calling + video QA mixed (4 replicas)",
  defaults: {
    trace: "code",
    source: "auto",
    rate: 6,
    requestCount: 3000,
    toolShare: 0.5,
    configurations: ["baseline", "cacheAwareGuarded", "preble"],
    replicas: 4,
    seed: 1,
  },
  describe: {
    trace: 'Azure trace whose timing is replayed: "code" (bursty, gap CV ≈ 13) or "conv" (gap CV ≈ 1.1)',
    source: '"auto" replays the CSV when ../shared/data/azure-llm-2023 (or $AZURE_TRACE_DIR) exists, else the fitted two-state process; "trace" or "synthetic" to force one',
    rate: "mean arrival rate both processes are scaled to (req/s)",
    requestCount: "requests per run (the first ones of the trace)",
    toolShare: "fraction of requests from tool calling (the rest video QA)",
    configurations: `named configurations: ${CONFIGURATION_NAMES.join(", ")}`,
  },
  run(p, context) {
    const kind = checkOneOf("trace", p.trace, AZURE_TRACE_KINDS) as AzureTraceKind;
    const source = checkOneOf("source", p.source, ["auto", "trace", "synthetic"] as const);
    const rate = checkNumber("rate", p.rate, { above: 0 });
    const requestCount = checkInteger("requestCount", p.requestCount, { min: 100 });
    const toolShare = checkNumber("toolShare", p.toolShare, { above: 0, below: 1 });
    const configurations = checkNonEmpty("configurations", p.configurations);
    const azure = azureArrivals(kind, { source });
    const processes: Array<[string, ArrivalProcess]> = [
      ["Poisson", poissonProcess(rate)],
      [`Azure ${kind}`, rescaledToRate(azure, rate)],
    ];
    const parts = [
      { workload: "toolCalling", share: toolShare },
      { workload: "videoQA", share: 1 - toolShare },
    ];
    const rows: Row[] = [];
    const realized: string[] = [];
    for (const [label, arrivals] of processes) {
      const workload = mixedWorkload({ parts, requestCount, arrivals, seed: p.seed });
      const last = workload.requests[workload.requests.length - 1].arrival;
      realized.push(`${label}: ${(requestCount / last).toFixed(2)} req/s over ${last.toFixed(0)} s`);
      for (const configuration of configurations) {
        context.progress?.(`03.6: ${label} arrivals, ${configuration}`);
        const m = simulateCluster({ requests: workload.requests, replicas: p.replicas, seed: p.seed, ...configurationOptions(configuration) }).metrics;
        rows.push({ arrivals: label, policy: configuration, meanLatency: m.meanLatency, p99Latency: m.p99Latency, meanTTFT: m.meanTTFT, meanTPOT: m.meanTPOT, hitRate: m.hitRate, overloaded: m.overloaded });
      }
    }
    return {
      title: this.title,
      columns: [
        { key: "arrivals", label: "arrivals" },
        policyColumn("configuration"),
        CLUSTER_COLUMNS.meanLatency,
        CLUSTER_COLUMNS.p99Latency,
        { key: "meanTTFT", label: "mean TTFT", unit: "s", format: "fixed2" },
        { key: "meanTPOT", label: "mean TPOT", unit: "s", format: "fixed3" },
        CLUSTER_COLUMNS.hitRate,
        CLUSTER_COLUMNS.overloaded,
      ],
      rows,
      notes: [
        `Azure timing: ${azure.description}; both processes scaled to a mean of ${rate} req/s over the whole trace. Realized over this run: ${realized.join("; ")}.`,
        `Workload: ${Math.round(toolShare * 100)}% tool calling + ${Math.round((1 - toolShare) * 100)}% video QA, interleaved at random (seed ${p.seed}); ${requestCount} requests, ${p.replicas} replicas of Mistral-7B on A6000, 20% warm-up.`,
        "Preble replayed the trace's timing ×0.7; we rescale it to a chosen mean rate instead, so Poisson and trace runs carry the same load.",
        'An "overloaded" run had queues still growing at its end: its numbers depend on the run length.',
      ],
    };
  },
});
