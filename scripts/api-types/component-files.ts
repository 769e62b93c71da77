// components/<domain>.ts: the component schemas only one route group uses, under that group's name,
// and those several groups use in components/shared.ts; components.ts puts them together with the
// shared error answers (decision 0059). A domain file refers to other domains' schemas through
// their own types (SharedSchemas["Flag"]), not through `components`, so no import goes in a circle.
import { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import {
  HEADER,
  lineCount,
  MAX_LINES,
  membersOf,
  nameOf,
  propertyMembers,
  refsIn,
  tagOf,
  typeAlias,
  typeName,
} from './syntax.js';

const SCHEMA_PREFIX = '#/components/schemas/';
const SCHEMA_REFERENCE = /components\["schemas"\]\["([^"]+)"\]/g;

/**
 * Each schema's domain: the one route group whose operations use it (directly or through other
 * components), or `shared`. A schema only group A uses refers only to schemas A uses, so a group's
 * domain refers to itself and to shared, and shared only to itself.
 */
function domainsOf(document: OpenAPI3, names: string[]): Map<string, string> {
  const components = document.components ?? {};
  const direct = (ref: string): Set<string> => {
    const [kind, name] = ref.replace('#/components/', '').split('/');
    return refsIn((components as Record<string, Record<string, unknown> | undefined>)[kind!]?.[name!]);
  };
  const groups = new Map<string, Set<string>>();
  for (const path of Object.keys(document.paths ?? {})) {
    const queue = [...refsIn(document.paths![path])];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const ref = queue.pop()!;
      if (seen.has(ref)) continue;
      seen.add(ref);
      queue.push(...direct(ref));
      if (ref.startsWith(SCHEMA_PREFIX)) {
        const name = ref.slice(SCHEMA_PREFIX.length);
        groups.set(name, (groups.get(name) ?? new Set()).add(tagOf(document, path)));
      }
    }
  }
  return new Map(
    names.map((name) => {
      const users = [...(groups.get(name) ?? [])];
      return [name, users.length === 1 ? users[0]! : 'shared'];
    }),
  );
}

/** `names` with the schemas each refers to before it, so a domain cut into parts refers only backwards. */
function dependenciesFirst(document: OpenAPI3, names: string[]): string[] {
  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>;
  const wanted = new Set(names);
  const ordered: string[] = [];
  const visited = new Set<string>();
  const visit = (name: string) => {
    if (visited.has(name) || !wanted.has(name)) return;
    visited.add(name);
    for (const ref of [...refsIn(schemas[name])].sort()) {
      if (ref.startsWith(SCHEMA_PREFIX)) visit(ref.slice(SCHEMA_PREFIX.length));
    }
    ordered.push(name);
  };
  for (const name of [...names].sort()) visit(name);
  return ordered;
}

/** The component files of the rendering `nodes` of `document`, by path relative to src/api-types/. */
export function componentFiles(document: OpenAPI3, nodes: readonly ts.Node[]): Map<string, string> {
  const componentMembers = membersOf(nodes, 'components');
  const schemaMembers = new Map(propertyMembers(componentMembers, 'schemas').map((m) => [nameOf(m), m]));
  const domains = domainsOf(document, [...schemaMembers.keys()]);
  /** Schema name → the file key (components/<key>.ts) it went to. */
  const fileOf = new Map<string, string>();

  const schemaFile = (key: string, names: string[]) => {
    const own = new Set(names);
    const others = new Set<string>();
    const body = astToString([
      typeAlias(
        typeName(key, 'Schemas'),
        names.map((n) => schemaMembers.get(n)!),
      ),
    ]).replace(SCHEMA_REFERENCE, (_match, name: string) => {
      const file = own.has(name) ? key : fileOf.get(name);
      if (file === undefined) throw new Error(`${name} is referred to before its file is known`);
      if (file !== key) others.add(file);
      return `${typeName(file, 'Schemas')}["${name}"]`;
    });
    const imports = [...others]
      .sort()
      .map((file) => `import type { ${typeName(file, 'Schemas')} } from './${file}.js';\n`)
      .join('');
    return HEADER + imports + body;
  };

  // Shared first: the groups' files refer to it. A domain over MAX_LINES is cut into parts (shared-2, …).
  const byDomain = new Map<string, string[]>();
  for (const name of dependenciesFirst(document, [...schemaMembers.keys()])) {
    const domain = domains.get(name)!;
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), name]);
  }
  const order = [...byDomain.keys()].sort(
    (a, b) => Number(b === 'shared') - Number(a === 'shared') || a.localeCompare(b),
  );
  const files = new Map<string, string>();
  for (const domain of order) {
    let part: string[] = [];
    let index = 1;
    const flush = () => {
      const key = index === 1 ? domain : `${domain}-${index}`;
      for (const name of part) fileOf.set(name, key);
      // In order of dependencies to cut; alphabetical to read.
      files.set(key, schemaFile(key, [...part].sort()));
      index++;
      part = [];
    };
    for (const name of byDomain.get(domain)!) {
      if (part.length > 0 && lineCount(schemaFile('part', [...part, name])) > MAX_LINES) flush();
      part.push(name);
    }
    if (part.length > 0) flush();
  }

  const keys = [...files.keys()].sort();
  const componentsType = componentMembers.map((member) =>
    nameOf(member) === 'schemas'
      ? ts.factory.createPropertySignature(
          undefined,
          'schemas',
          undefined,
          ts.factory.createIntersectionTypeNode(
            keys.map((key) => ts.factory.createTypeReferenceNode(typeName(key, 'Schemas'))),
          ),
        )
      : member,
  );
  const out = new Map(
    [...files].sort(([a], [b]) => a.localeCompare(b)).map(([key, text]) => [`components/${key}.ts`, text]),
  );
  out.set(
    'components.ts',
    HEADER +
      keys.map((key) => `import type { ${typeName(key, 'Schemas')} } from './components/${key}.js';\n`).join('') +
      astToString([typeAlias('components', componentsType)]),
  );
  return out;
}
