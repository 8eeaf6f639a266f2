export * from "./specs";
export * from "./step-model";
