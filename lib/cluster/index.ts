// §2–§3: the LLM cluster simulator — workloads, segment radix tree, replica engine, routers, simulation.
export * from "./workloads";
export * from "./radix-tree";
export * from "./record";
export * from "./local/policy";
export * from "./replica";
export * from "./routers";
export * from "./simulate";
export * from "./timeline";
export * from "./preble/index";
export * from "./local/prefix-and-priority";
export * from "./preble/configs";
export * from "./routers-production/index";
export * from "./burst";
export * from "./preble/runs";
export * from "./preble/cases";
export * from "./mix";
export * from "./sweep";
