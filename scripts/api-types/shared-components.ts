// The served OpenAPI document inlines every route schema where it is used (TypeBox schemas without
// an $id, decision 0059), so the same flag, experiment or error answer appears in dozens of
// operations. For the generated types only, shapes used more than once become named components
// here, before openapi-typescript renders them: one `components["schemas"]["Flag"]` instead of a
// copy per operation. The served document itself is left as it is.
import { STATUS_CODES } from 'node:http';
import type { OpenAPI3 } from 'openapi-typescript';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** Keywords whose values are data, not schemas: never walked, never hoisted. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'example', 'examples', 'x-error-codes']);

/**
 * An untitled object schema shorter than this (serialised) stays inline even when it repeats: a
 * wrapper like `{ experiment: Experiment }` reads better in place than under a made-up name.
 */
const MIN_HOISTED_LENGTH = 200;

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with sorted keys: equal schemas have equal text whatever the order of their keys. */
const canonical = (value: Json): string =>
  JSON.stringify(value, (_key, v: Json) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]!]),
        )
      : v,
  );

const schemaRef = (name: string) => `#/components/schemas/${name}`;
const pascal = (word: string) =>
  word.replace(/(^|[^A-Za-z0-9]+)([A-Za-z0-9])/g, (_m, _sep, c: string) => c.toUpperCase());
const singular = (word: string) => (word.endsWith('ies') ? `${word.slice(0, -3)}y` : word.replace(/([^s])s$/, '$1'));

/** The components being collected: name → schema, and name → canonical text, to tell equal shapes from clashes. */
class SchemaRegistry {
  readonly texts = new Map<string, string>();
  constructor(readonly schemas: JsonObject) {
    for (const [name, schema] of Object.entries(schemas)) this.texts.set(name, canonical(withoutDescription(schema)));
  }
  /** Registers `schema` under `name`; false when another shape holds the name. */
  claim(name: string, schema: JsonObject): boolean {
    const text = canonical(withoutDescription(schema));
    const held = this.texts.get(name);
    if (held !== undefined) return held === text;
    this.texts.set(name, text);
    this.schemas[name] = schema;
    return true;
  }
}

/** A schema's own description belongs to where it is used (a response, a property), not to the shape. */
function withoutDescription(schema: Json): Json {
  if (!isObject(schema)) return schema;
  const { description: _description, ...rest } = schema;
  return rest;
}

/** A reference to `name` where `schema` was, keeping the description said there. */
function referenceFor(name: string, schema: JsonObject): JsonObject {
  return typeof schema.description === 'string'
    ? { $ref: schemaRef(name), description: schema.description }
    : { $ref: schemaRef(name) };
}

/**
 * Whether the object at `at` is a `properties` map (property name → schema) rather than a schema:
 * an odd run of `properties` ends its path (a property may itself be named `properties`).
 */
function isPropertyMap(at: string[]): boolean {
  let run = 0;
  while (at[at.length - 1 - run] === 'properties') run++;
  return run % 2 === 1;
}

/** Rebuilds `value` bottom-up, letting `visit` replace each schema-like object (children first). */
function rebuild(value: Json, visit: (node: JsonObject, at: string[]) => Json, at: string[] = []): Json {
  if (Array.isArray(value)) return value.map((item, i) => rebuild(item, visit, [...at, String(i)]));
  if (!isObject(value)) return value;
  const propertyMap = isPropertyMap(at);
  const out: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    out[key] = DATA_KEYWORDS.has(key) && !propertyMap ? child : rebuild(child, visit, [...at, key]);
  }
  return propertyMap ? out : visit(out, at);
}

/**
 * Every schema with a `title` (the name its TypeBox definition gives it: Flag, Rule, Experiment, …)
 * becomes the component of that name. Two different shapes under one title are a mistake in the
 * route schemas, which this reports rather than guessing which one the name means.
 */
function hoistTitled(document: JsonObject, registry: SchemaRegistry): void {
  const visit = (node: JsonObject, at: string[]): Json => {
    if (typeof node.title !== 'string' || '$ref' in node) return node;
    const { description: _description, ...shape } = node;
    if (!registry.claim(node.title, shape)) {
      throw new Error(
        `two different schemas are titled ${node.title} (one at ${at.join('/')}): give one another title`,
      );
    }
    return referenceFor(node.title, node);
  };
  document.paths = rebuild(document.paths!, visit);
  for (const [name, schema] of Object.entries(registry.schemas)) {
    // A component's own title stays on it; the schemas inside it become references.
    registry.schemas[name] = rebuild(schema, (node, at) => (at.length === 0 ? node : visit(node, at)));
  }
}

/**
 * The name of an untitled shape found at `at`: where it is (the component, or the route's resource)
 * and the properties leading to it, e.g. RolloutPlan's `history` items → RolloutPlanHistoryItem.
 */
function nameAt(at: string[]): string {
  const [root, first, ...rest] = at;
  const owner =
    root === 'components'
      ? rest[0]!
      : first!
          .split('/')
          .filter((segment) => segment && !segment.startsWith('{') && !/^(api|v\d+)$/.test(segment))
          .map(pascal)
          .join('') || 'Api';
  const inside = root === 'components' ? rest.slice(1) : rest;
  const words: string[] = [];
  for (const [i, key] of inside.entries()) {
    if (isPropertyMap(inside.slice(0, i))) words.push(pascal(key));
    else if (key === 'items') {
      // `plans` items → Plan; `history` items → HistoryItem.
      const last = words.pop();
      words.push(...(last === undefined ? ['Item'] : singular(last) === last ? [last, 'Item'] : [singular(last)]));
    } else if (key === 'additionalProperties') words.push('Entry');
  }
  if (root !== 'components' && words.length === 0) words.push(inside.includes('requestBody') ? 'Request' : 'Response');
  return owner + words.join('');
}

/**
 * Untitled object schemas that still appear more than once (in routes or inside components) become
 * components named by where they first appear, largest first, so a repeated shape's inner parts are
 * counted once it is a component.
 */
function hoistRepeated(document: JsonObject, registry: SchemaRegistry): void {
  for (;;) {
    const seen = new Map<string, { count: number; first: string[]; schema: JsonObject }>();
    const count = (node: JsonObject, at: string[]): Json => {
      if (node.properties && typeof node.title !== 'string') {
        const text = canonical(withoutDescription(node));
        const entry = seen.get(text);
        if (entry) entry.count++;
        else seen.set(text, { count: 1, first: at, schema: node });
      }
      return node;
    };
    rebuild({ paths: document.paths!, components: { schemas: registry.schemas } }, count);
    const repeated = [...seen]
      .filter(([text, entry]) => entry.count > 1 && text.length >= MIN_HOISTED_LENGTH)
      .sort(([a], [b]) => b.length - a.length);
    if (repeated.length === 0) return;
    const [text, { first, schema }] = repeated[0]!;
    const { description: _description, ...shape } = schema;
    // A derived name another shape holds already gets a number: Name2, Name3, …
    let name = nameAt(first);
    for (let n = 2; !registry.claim(name, shape); n++) name = `${nameAt(first)}${n}`;
    const replace = (node: JsonObject, at: string[]): Json =>
      typeof node.title !== 'string' && canonical(withoutDescription(node)) === text ? referenceFor(name, node) : node;
    document.paths = rebuild(document.paths!, replace);
    for (const [key, value] of Object.entries(registry.schemas)) {
      if (key !== name)
        registry.schemas[key] = rebuild(value, (node, at) => (at.length === 0 ? node : replace(node, at)));
    }
  }
}

/**
 * Error answers that several operations give alike (401 with the contract's error body, …) become
 * `components.responses`, named by status and body: UnauthorizedErrorBody. The codes each carries
 * (x-error-codes) differ per operation but are not part of the types.
 */
function hoistErrorResponses(document: JsonObject): void {
  const found = new Map<string, { count: number; name: string; response: JsonObject }>();
  const operations = Object.values(document.paths as JsonObject).flatMap((item) =>
    Object.values(item as JsonObject).filter(isObject),
  );
  const errorsOf = (operation: JsonObject) =>
    Object.entries(isObject(operation.responses) ? operation.responses : {}).filter(
      ([status, response]) => Number(status) >= 400 && isObject(response),
    ) as [string, JsonObject][];
  const keyOf = (status: string, response: JsonObject) => {
    const { 'x-error-codes': _codes, ...rest } = response;
    return `${status} ${canonical(rest)}`;
  };
  for (const operation of operations) {
    for (const [status, response] of errorsOf(operation)) {
      const body = (response.content as { 'application/json'?: { schema?: { $ref?: string } } })?.['application/json'];
      const schema = body?.schema?.$ref?.replace(schemaRef(''), '');
      if (!schema) continue;
      const key = keyOf(status, response);
      const entry = found.get(key);
      if (entry) entry.count++;
      else found.set(key, { count: 1, name: pascal(STATUS_CODES[Number(status)] ?? status) + schema, response });
    }
  }
  const responses: JsonObject = {};
  const nameOf = new Map<string, string>();
  for (const [key, { count, name, response }] of found) {
    // The first shape to claim a name has it; another one under the same name stays inline.
    if (count < 2 || name in responses) continue;
    const { 'x-error-codes': _codes, ...rest } = response;
    responses[name] = rest;
    nameOf.set(key, name);
  }
  for (const operation of operations) {
    for (const [status, response] of errorsOf(operation)) {
      const name = nameOf.get(keyOf(status, response));
      if (name) (operation.responses as JsonObject)[status] = { $ref: `#/components/responses/${name}` };
    }
  }
  (document.components as JsonObject).responses = responses;
}

/**
 * openapi-typescript makes a property with a `default` required, except under a request body or a
 * parameter, by where it finds the schema; a request body's schema moved into the components would
 * lose that exception. So the answers' defaulted properties are listed as required here (the
 * serializer writes a default the handler leaves out), and the types are rendered without the
 * rule (`defaultNonNullable: false`, files.ts): a request may still leave a defaulted field out.
 */
function answersWithDefaultsRequired(document: JsonObject): void {
  const visit = (node: JsonObject, at: string[]): Json => {
    // at: path, method, then requestBody, parameters or responses.
    if (at[2] !== 'responses' || !isObject(node.properties)) return node;
    const defaulted = Object.entries(node.properties)
      .filter(([, property]) => isObject(property) && 'default' in property)
      .map(([name]) => name);
    const required = Array.isArray(node.required) ? node.required : [];
    const missing = defaulted.filter((name) => !required.includes(name));
    return missing.length > 0 ? { ...node, required: [...required, ...missing] } : node;
  };
  document.paths = rebuild(document.paths!, visit);
}

/** A copy of `document` whose repeated shapes are named components (see above). */
export function withSharedComponents(document: OpenAPI3): OpenAPI3 {
  const copy = structuredClone(document) as unknown as JsonObject;
  const components = (copy.components ??= {}) as JsonObject;
  answersWithDefaultsRequired(copy);
  const registry = new SchemaRegistry((components.schemas ??= {}) as JsonObject);
  hoistTitled(copy, registry);
  hoistRepeated(copy, registry);
  hoistErrorResponses(copy);
  return copy as unknown as OpenAPI3;
}
