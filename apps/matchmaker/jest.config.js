import { jestConfig } from "../../jest.config.base.js";

export default jestConfig({ globalSetup: "<rootDir>/test/build-for-tests.js" });
