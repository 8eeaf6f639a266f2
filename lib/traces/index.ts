// Recorded request traces: the CSV loader and the Azure LLM inference traces 2023 (issue 9); the Mooncake / aiperf
// block-trace loader, its statistics and the Mooncake conversation trace as simulator requests (issue 18).
export * from "./read-text";
export * from "./csv-trace";
export * from "./azure";
export * from "./azure-summary";
export * from "./azure-arrivals";
export * from "./mooncake";
export * from "./block-stats";
export * from "./mooncake-conversation";
