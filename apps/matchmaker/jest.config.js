import { jestConfig } from "../../jest.config.base.js";

export default jestConfig({ globalSetup: "<rootDir>/test/build-license-service.js" });
