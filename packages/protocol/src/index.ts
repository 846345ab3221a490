export * from "./messages.js";
export * from "./subjects.js";
