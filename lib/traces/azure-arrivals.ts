// Azure arrivals for simulations: the real trace's timing (default; a missing file is an error naming it), or —
// only when the caller asks for it — the two-state process fitted to it (data/azure-2023-summary.json).
import * as path from "path";
import { ArrivalProcess, mmppProcess, timeScaled, traceReplay } from "../core/arrivals";
import { checkNumber, checkOneOf } from "../core/errors";
import { AZURE_TRACE_DIR_VARIABLE, AZURE_TRACE_FILES, AZURE_TRACE_KINDS, AzureTraceKind, loadAzureTrace, locateAzureTraces } from "./azure";
import { AzureSummary, azureSummary } from "./azure-summary";

export interface AzureArrivalOptions {
  /** folder with the CSVs (default: $AZURE_TRACE_DIR, then the project's data/azure-llm-2023) */
  dir?: string;
  /** multiplies every gap (Preble: 0.7); > 0, default 1 */
  timeScale?: number;
  /** "trace" (default): replay the real file — an error naming it if it is missing; "synthetic": the two-state
   * process fitted to it (data/azure-2023-summary.json), only when asked for */
  source?: "trace" | "synthetic";
  /** replay only: repeat the trace when more arrivals are asked for than it holds (default false) */
  wrap?: boolean;
}

export type AzureArrivalProcess = ArrivalProcess & { source: "trace" | "synthetic"; description: string; file?: string };

/** The fitted synthetic process for one trace, from the committed summary (no CSVs needed). */
export function azureSyntheticProcess(kind: AzureTraceKind, summary: AzureSummary = azureSummary()): ArrivalProcess {
  checkOneOf("kind", kind, AZURE_TRACE_KINDS);
  const b = summary.traces[kind].bursty;
  return mmppProcess({ rates: [b.rates.burst, b.rates.quiet], switchRates: [b.switchRates.burstToQuiet, b.switchRates.quietToBurst] }, `Azure ${kind} synthetic`);
}

/**
 * Azure arrivals for a simulation: the real trace's timing (default; a missing file is an error naming it, never a
 * silent substitute), or with `source: "synthetic"` the two-state MMPP fitted to it. `timeScale` multiplies every gap.
 */
export function azureArrivals(kind: AzureTraceKind, options: AzureArrivalOptions = {}): AzureArrivalProcess {
  checkOneOf("kind", kind, AZURE_TRACE_KINDS);
  const source = checkOneOf("source", options.source ?? "trace", ["trace", "synthetic"] as const);
  const timeScale = checkNumber("timeScale", options.timeScale ?? 1, { above: 0 });
  const scaled = timeScale !== 1 ? `, gaps ×${timeScale}` : "";
  if (source === "trace") {
    const where = locateAzureTraces(options);
    const replay = traceReplay(loadAzureTrace(kind, options), { timeScale, wrap: options.wrap });
    const origin = where.origin === "option" ? "the dir option" : where.origin === "environment" ? `$${AZURE_TRACE_DIR_VARIABLE}` : "the project's data/ copy";
    return { ...replay, source: "trace", file: where.files[kind], description: `replay of ${path.basename(where.files[kind])} (${origin})${scaled}` };
  }
  const synthetic = timeScaled(azureSyntheticProcess(kind), timeScale);
  return { ...synthetic, source: "synthetic", description: `two-state MMPP fitted to ${AZURE_TRACE_FILES[kind]} (data/azure-2023-summary.json; asked for)${scaled}` };
}
