export * from "./balls-into-bins";
export * from "./job-sizes";
export * from "./policies";
export * from "./servers";
