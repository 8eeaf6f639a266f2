export * from "./errors";
export * from "./rng";
export * from "./stats";
export * from "./heap";
export * from "./data";
export * from "./table";
export * from "./arrivals";
export * from "./parallel";
