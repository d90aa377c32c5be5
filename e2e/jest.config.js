import { jestConfig } from "../jest.config.base.js";

// The apps run as built processes; their start-up, not a test's logic, sets the pace.
export default jestConfig({ testTimeout: 120_000 });
