// Shared Jest setup for every package: ESM TypeScript compiled by SWC (TypeScript 7 has no JS API,
// so ts-jest cannot be used), workspace packages resolved to their sources through the `source`
// export condition so tests never need a prior build.
export function jestConfig(overrides = {}) {
  return {
    testEnvironment: "node",
    extensionsToTreatAsEsm: [".ts"],
    transform: {
      "^.+\\.ts$": [
        "@swc/jest",
        {
          jsc: { target: "es2022", parser: { syntax: "typescript" } },
          module: { type: "es6" },
        },
      ],
    },
    moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
    testEnvironmentOptions: { customExportConditions: ["source", "node", "node-addons"] },
    testMatch: ["<rootDir>/src/**/*.test.ts", "<rootDir>/test/**/*.test.ts"],
    testTimeout: 30_000,
    ...overrides,
  };
}
