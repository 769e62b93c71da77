// Response serializers compiled the first time a route answers with them (decision 0050). Fastify
// compiles a fast-json-stringify function for every response schema of every route when the app
// starts: generated source and code for a few hundred (route, status) pairs, most of which a given
// process never sends. Here the compiler Fastify would use is kept and called on first use, with the
// same external schemas and options, so every answer is serialized exactly as before.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** Fastify's `schemaController.compilersFactory.buildSerializer`. */
export const buildSerializersOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compile = SerializerSelector()(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => (serialize ??= compile(route))(doc);
  };
};
