import { jestConfig } from "../jest.config.base.js";

// The slow checks of what ships: the images replayed and run, docker-compose.yml validated.
// `pnpm test` runs them after every other suite (scripts/platform.mjs).
export default jestConfig({ testMatch: ["<rootDir>/system/**/*.test.ts"], testTimeout: 120_000 });
