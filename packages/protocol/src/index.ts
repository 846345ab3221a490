export * from "./subjects.js";
