export * from "./balls-into-bins";
export * from "./job-sizes";
export * from "./observers";
export * from "./policies";
export * from "./traces";
export * from "./servers";
export * from "./theory";
export * from "./user-policy";
