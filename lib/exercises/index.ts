export * from "./registry";
export * from "./check";
import "./answers";
