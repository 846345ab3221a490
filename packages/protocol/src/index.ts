export * from "./messages.js";
export * from "./result-signature.js";
export * from "./subjects.js";
