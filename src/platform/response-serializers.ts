// Response serializers compiled the first time a route answers with them (decision 0050), and once
// per process. Fastify compiles a fast-json-stringify function for every response schema of every
// route when the app starts: generated source and code for a few hundred (route, status) pairs, most
// of which a given process never sends. Here the compiler Fastify would use is kept and called on
// first use, with the same external schemas and options, so every answer is serialized exactly as
// before; a process that builds many apps (the tests build one per test file and database) reuses
// what an earlier app compiled for the same schema.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const compiled = new Map<string, Serializer>();
const defaultFactory = SerializerSelector();

/**
 * Fastify's `schemaController.compilersFactory.buildSerializer`. The cache key is the schema's text
 * together with the shared schemas and options it is compiled with: errorResponses() makes new `$ref`
 * objects for every app, so identity would miss. The HTTP status, method and URL play no part in the
 * compiled function (fast-json-stringify-compiler ignores them).
 */
export const buildSerializersOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compile = defaultFactory(externalSchemas, options);
  let context: string | undefined;
  const compileOnce = (route: Parameters<typeof compile>[0]): Serializer => {
    context ??= JSON.stringify([externalSchemas ?? null, options ?? null]);
    const key = `${context}:${JSON.stringify(route.schema)}`;
    let serializer = compiled.get(key);
    if (!serializer) {
      serializer = compile(route);
      compiled.set(key, serializer);
    }
    return serializer;
  };
  return (route) => {
    let serialize: Serializer | undefined;
    return (doc) => (serialize ??= compileOnce(route))(doc);
  };
};
