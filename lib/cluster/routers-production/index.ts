// §6: production cache-aware routers as policies of the cluster simulator (registered by name on import).
export * from "./tenant-tree";
export * from "./sglang";
export * from "./approximate-tree";
export * from "./dynamo";
export * from "./gateway";
