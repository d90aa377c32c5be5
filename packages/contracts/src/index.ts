export * from "./error-codes.js";
export * from "./problem.js";
export * from "./validation.js";
export * from "./license.js";
export * from "./matchmaking.js";
export * from "./identity.js";
export * from "./statistics.js";
