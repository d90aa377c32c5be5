import { openApiComponentSchemas, type SchemaName } from "@arena/contracts";

type Json = Record<string, unknown>;

/**
 * The request bodies of the document, as `components.requestBodies`, each with its schema inline.
 *
 * Why not a `$ref` to `components.schemas`: a request field with a `default` is optional (the
 * service fills it in), but type generators read a `default` in a shared schema as "always
 * present" — openapi-typescript makes such a property required unless the schema sits under a
 * request body. So what a client sends is described here, where every tool reads a default as
 * optional, and `components.schemas` keeps what the services answer, where a default may well mean
 * "always there". The contracts' schemas themselves stay as the services validate them.
 */
export class RequestBodies {
  private readonly bodies = new Map<string, { required: boolean; mediaType: string; schema: Json }>();
  private readonly schemas = openApiComponentSchemas();

  /** A reference to the request body `name` (a contract schema), registering it on first use. */
  ref(name: SchemaName, { required = true, mediaType = "application/json" } = {}): Json {
    return this.refTo(name, this.schemas[name], { required, mediaType });
  }

  /** A request body that is not one contract schema (several, selected by a header). */
  refTo(name: string, schema: Json, { required = true, mediaType = "application/json" } = {}): Json {
    const known = this.bodies.get(name);
    if (known && (known.required !== required || known.mediaType !== mediaType)) {
      throw new Error(`The request body ${name} is used both as required and as optional, or with two types`);
    }
    this.bodies.set(name, { required, mediaType, schema });
    return { $ref: `#/components/requestBodies/${name}` };
  }

  /** `components.requestBodies`. */
  components(): Json {
    return Object.fromEntries(
      [...this.bodies.entries()].map(([name, { required, mediaType, schema }]) => [
        name,
        { required, content: { [mediaType]: { schema } } },
      ]),
    );
  }
}
