// §4 LLMSelector: a toy world of compound AI systems, the diagnoser and the optimizers.
export * from "./world";
export * from "./systems";
export * from "./evaluate";
export * from "./diagnoser";
export * from "./budget";
export * from "./optimizers";
export * from "./cost";
export * from "./model-routing";
export * from "./tasks";
