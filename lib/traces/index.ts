// Recorded request traces: the CSV loader and the Azure LLM inference traces 2023 (issue 9).
export * from "./csv-trace";
export * from "./azure";
