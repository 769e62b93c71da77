// Response serializers compiled once per process. Fastify compiles every route's response schemas
// (~500) with fast-json-stringify when an app is made ready, which is most of the cost of building an
// app; a process that builds many (the tests build one per test file and database) reuses what an
// earlier app compiled for the same schema.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const compiled = new Map<string, Serializer>();
/** The same schema object seen again (most are module constants): found without writing its text. */
const seen = new Map<string, WeakMap<object, Serializer>>();
const defaultFactory = SerializerSelector();

/**
 * Fastify's own serializer factory (`schemaController.compilersFactory.buildSerializer`), keyed by
 * the schema's text together with the shared schemas and options it is compiled with: errorResponses()
 * makes new `$ref` objects for every app, so identity would miss. The HTTP status, method and URL
 * play no part in the compiled function (fast-json-stringify-compiler ignores them).
 */
export const buildSerializerOnce: SerializerFactory = (externalSchemas, serializerOpts) => {
  const compile = defaultFactory(externalSchemas, serializerOpts);
  const context = JSON.stringify([externalSchemas ?? null, serializerOpts ?? null]);
  let known = seen.get(context);
  if (!known) seen.set(context, (known = new WeakMap()));
  return (route) => {
    const schema = route.schema as object;
    let serializer = known.get(schema);
    if (serializer) return serializer;
    const key = `${context}:${JSON.stringify(schema)}`;
    serializer = compiled.get(key);
    if (!serializer) {
      serializer = compile(route);
      compiled.set(key, serializer);
    }
    known.set(schema, serializer);
    return serializer;
  };
};
