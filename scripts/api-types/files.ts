// Splits openapi-typescript's one rendering of the API into files of at most MAX_LINES lines
// (decision 0059): routes/ by route group (route-files.ts), components/ by the route groups that
// use them (component-files.ts), and an index that puts the routes back together.
import openapiTS, { type OpenAPI3 } from 'openapi-typescript';
import { componentFiles } from './component-files.js';
import { routeFiles } from './route-files.js';
import { HEADER, lineCount, MAX_LINES, typeName } from './syntax.js';

/** index.ts: `paths` and `operations`, the intersections of the route files, and `components`. */
function indexFile(routeKeys: string[]): string {
  const names = (suffix: string) => routeKeys.map((key) => typeName(key, suffix)).join(' & ');
  return (
    HEADER +
    [
      ...routeKeys.map(
        (key) =>
          `import type { operations as ${typeName(key, 'Operations')}, paths as ${typeName(key, 'Paths')} } from './routes/${key}.js';`,
      ),
      "export type { components } from './components.js';",
      '',
      '/** Every route of the API, by path. */',
      `export type paths = ${names('Paths')};`,
      '/** Every operation of the API, by operationId. */',
      `export type operations = ${names('Operations')};`,
      '',
    ].join('\n')
  );
}

/** The files of src/api-types/ for `document`, by path relative to it. */
export async function renderFiles(document: OpenAPI3): Promise<Map<string, string>> {
  const nodes = await openapiTS(document, {
    alphabetize: true,
    exportType: true,
    // Defaults are made explicit before (shared-components.ts): a request may leave a defaulted field out.
    defaultNonNullable: false,
  });
  const routes = routeFiles(document, nodes);
  const files = new Map([...routes].map(([key, text]) => [`routes/${key}.ts`, text]));
  for (const [name, text] of componentFiles(document, nodes)) files.set(name, text);
  files.set('index.ts', indexFile([...routes.keys()]));
  for (const [name, text] of files) {
    if (lineCount(text) > MAX_LINES) {
      throw new Error(`${name} would have ${lineCount(text)} lines (at most ${MAX_LINES})`);
    }
  }
  return files;
}
