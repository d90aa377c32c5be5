import { parseArgs } from "node:util";
import {
  EDITIONS,
  type Edition,
  LICENSE_LIST_DEFAULT_LIMIT,
  LICENSE_LIST_MAX_LIMIT,
  toFieldErrors,
  validateCreateLicenseRequest,
} from "@arena/contracts";
import { createLogger, readConfigOrExit } from "@arena/service-kit";
import { SigningKeys } from "@arena/signing-keys";
import { systemClock } from "./clock.js";
import { loadCliSettings } from "./config.js";
import { createDatabaseClient } from "./db.js";
import { LicenseStore } from "./licenses/license-store.js";
import { decodeCursor } from "./licenses/list-cursor.js";
import { assertSchemaIsCurrent } from "./schema-version.js";
import {
  LEASE_SIGNING_ALGORITHM,
  LICENSE_SEALING_SALT,
  licenseSigningKeyStore,
} from "./signing/signing-key-store.js";

const USAGE = `Usage: node dist/cli.js <command> [options]   (DATABASE_URL selects the database)
  create-license --name <name> --email <email> [--edition community|advanced]
                               prints the new license as JSON, with its key (shown this once)
  list [--limit <n>] [--cursor <cursor>]
  show <licenseId>
  set-edition <licenseId> <community|advanced>
  revoke <licenseId>
  rotate-signing-key           needs SIGNING_KEY_SECRET (and LEASE_TTL_SECONDS if not the default)`;

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function edition(value: string | undefined): Edition {
  if (!EDITIONS.includes(value as Edition)) fail(`edition must be one of ${EDITIONS.join(", ")}`);
  return value as Edition;
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    name: { type: "string" },
    email: { type: "string" },
    edition: { type: "string", default: "community" },
    limit: { type: "string", default: String(LICENSE_LIST_DEFAULT_LIMIT) },
    cursor: { type: "string" },
  },
});
const [command, ...args] = positionals;
// The service's own rules and defaults for the settings the CLI uses.
const config = readConfigOrExit("license-cli", () => loadCliSettings());
const db = createDatabaseClient(config.DATABASE_URL);
const licenses = new LicenseStore(db, systemClock);
const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);

try {
  await assertSchemaIsCurrent(db);
  switch (command) {
    case "create-license": {
      if (!values.name || !values.email) fail("create-license needs --name and --email");
      const input = { name: values.name, email: values.email, edition: edition(values.edition) };
      // The same rules as POST /admin/licenses: no control characters in what reaches mails and PostgreSQL.
      if (!validateCreateLicenseRequest(input)) {
        const problems = toFieldErrors(validateCreateLicenseRequest.errors).map(
          (e) => `${e.pointer} ${e.detail}`,
        );
        fail(`create-license: ${problems.join("; ")}`);
      }
      const { license, licenseKey } = await licenses.create(input);
      print({ ...license, licenseKey });
      break;
    }
    case "list": {
      const cursor = values.cursor === undefined ? undefined : decodeCursor(values.cursor);
      if (values.cursor !== undefined && !cursor) fail("--cursor is not a cursor from a previous page");
      const limit = Number(values.limit) || LICENSE_LIST_DEFAULT_LIMIT;
      print(await licenses.list(Math.min(LICENSE_LIST_MAX_LIMIT, Math.max(1, limit)), cursor));
      break;
    }
    case "show":
      print(
        (await licenses.get(args[0] ?? fail("show needs a license id"))) ?? fail(`no license ${args[0]}`),
      );
      break;
    case "set-edition": {
      const updated = await licenses.updateEdition(
        args[0] ?? fail("set-edition needs a license id"),
        edition(args[1]),
      );
      if (updated === undefined) fail(`no license ${args[0]}`);
      if (updated === "revoked") fail(`license ${args[0]} is revoked`);
      print(updated);
      break;
    }
    case "revoke":
      if (!(await licenses.revoke(args[0] ?? fail("revoke needs a license id"))))
        fail(`no license ${args[0]}`);
      print(await licenses.get(args[0]!));
      break;
    case "rotate-signing-key": {
      const secret = config.SIGNING_KEY_SECRET ?? fail("SIGNING_KEY_SECRET is required");
      const keys = new SigningKeys({
        store: licenseSigningKeyStore(db),
        clock: systemClock,
        logger: createLogger({ name: "license-cli", level: "warn" }),
        algorithm: LEASE_SIGNING_ALGORITHM,
        secret,
        sealingSalt: LICENSE_SEALING_SALT,
        rotateAfterMs: Number.POSITIVE_INFINITY,
        signedTtlMs: config.LEASE_TTL_SECONDS * 1000,
      });
      const key = await keys.rotate();
      print({ kid: key.kid, createdAt: key.createdAt.toISOString() });
      break;
    }
    default:
      fail(command === undefined ? "a command is required" : `unknown command "${command}"`);
  }
} finally {
  await db.$disconnect();
}
