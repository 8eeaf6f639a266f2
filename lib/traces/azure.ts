// The Azure LLM inference traces 2023 (conv, code): where the CSVs are (shipped gzip-compressed in
// data/azure-llm-2023/) and loading them; a missing file is an error naming the file. The figures derived from them
// are in azure-summary.ts, the arrival processes for simulations in azure-arrivals.ts.
//
// Data: Azure Public Dataset (github.com/Azure/AzurePublicDataset), CC BY 4.0 (data/azure-llm-2023/LICENSE-CC-BY-4.0.txt).
// Cite Patel et al., "Splitwise: Efficient generative LLM inference using phase splitting", ISCA 2024.
import * as fs from "fs";
import * as path from "path";
import { dataDir } from "../core/data";
import { checkOneOf } from "../core/errors";
import { loadTraceSync, Trace } from "./csv-trace";
import { TraceFileMissingError } from "./read-text";

export const AZURE_TRACE_KINDS = ["conv", "code"] as const;
export type AzureTraceKind = (typeof AZURE_TRACE_KINDS)[number];

export const AZURE_TRACE_FILES: Record<AzureTraceKind, string> = {
  conv: "AzureLLMInferenceTrace_conv.csv",
  code: "AzureLLMInferenceTrace_code.csv",
};

export const AZURE_TRACE_ATTRIBUTION = {
  dataset: "Azure LLM inference trace 2023: AzureLLMInferenceTrace_conv.csv and AzureLLMInferenceTrace_code.csv (Azure Public Dataset, https://github.com/Azure/AzurePublicDataset)",
  license: "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
  cite: "Pratyush Patel, Esha Choukse, Chaojie Zhang, Aashaka Shah, Íñigo Goiri, Saeed Maleki, Ricardo Bianchini. Splitwise: Efficient generative LLM inference using phase splitting. ISCA 2024.",
  derived: "Figures below are derived from the CSVs (counts, quantiles, rates, fitted parameters); the CSVs themselves are shipped gzip-compressed in data/azure-llm-2023/ (see data/README.md).",
};

/** The environment variable naming another folder that holds the two CSVs (plain or .gz). */
export const AZURE_TRACE_DIR_VARIABLE = "AZURE_TRACE_DIR";

/** The project's own copy: data/azure-llm-2023 (gzip-compressed CSVs, the licence beside them). */
export function azureDataDir(): string {
  return path.join(dataDir(), "azure-llm-2023");
}

export interface AzureTraceLocation {
  /** the folder looked in (absolute) */
  dir: string;
  /** where the folder came from: the `dir` option, the AZURE_TRACE_DIR variable, or the project's data/ copy */
  origin: "option" | "environment" | "default";
  /** both CSVs are present */
  available: boolean;
  /** the file found for each kind (NAME.csv, else NAME.csv.gz), or the .csv.gz path looked for when neither is there */
  files: Record<AzureTraceKind, string>;
  /** one line for errors and notes */
  message: string;
}

/** NAME.csv when present, else NAME.csv.gz (present or not: the name an error reports). */
function traceFile(dir: string, name: string): string {
  const plain = path.join(dir, name);
  return isReadableFile(plain) ? plain : `${plain}.gz`;
}

/**
 * Where the Azure CSVs are, and whether both are there: the `dir` option, else $AZURE_TRACE_DIR, else the project's
 * data/azure-llm-2023 (shipped with the project). In each folder NAME.csv is read if present, else NAME.csv.gz.
 * Never throws: loadAzureTrace and azureArrivals turn a missing file into an error naming it.
 */
export function locateAzureTraces(options: { dir?: string } = {}): AzureTraceLocation {
  const fromEnv = process.env[AZURE_TRACE_DIR_VARIABLE];
  const origin: AzureTraceLocation["origin"] = options.dir ? "option" : fromEnv ? "environment" : "default";
  const dir = path.resolve(options.dir || fromEnv || azureDataDir());
  const files = { conv: traceFile(dir, AZURE_TRACE_FILES.conv), code: traceFile(dir, AZURE_TRACE_FILES.code) };
  const missing = AZURE_TRACE_KINDS.filter((k) => !isReadableFile(files[k]));
  const available = missing.length === 0;
  const how = origin === "option" ? "from the dir option" : origin === "environment" ? `from $${AZURE_TRACE_DIR_VARIABLE}` : "the project's data/ copy";
  const message = available
    ? `Azure traces found in ${dir} (${how})`
    : `Azure traces not found in ${dir} (${how}): missing ${missing.map((k) => `${path.basename(files[k])} (or ${AZURE_TRACE_FILES[k]})`).join(", ")}`;
  return { dir, origin, available, files, message };
}

function isReadableFile(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.R_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Loads one of the two traces (synchronously, in chunks; plain or gzip); throws naming the file if absent. */
export function loadAzureTrace(kind: AzureTraceKind, options: { dir?: string; skipBadRows?: boolean } = {}): Trace {
  checkOneOf("kind", kind, AZURE_TRACE_KINDS);
  const where = locateAzureTraces(options);
  const file = where.files[kind];
  if (!isReadableFile(file)) {
    throw new TraceFileMissingError(file, `Azure trace file ${file} not found (${where.message}). The project ships it in data/azure-llm-2023/; set ${AZURE_TRACE_DIR_VARIABLE} or the dir option to read another copy.`);
  }
  return loadTraceSync(file, { name: `Azure ${kind}`, skipBadRows: options.skipBadRows });
}
