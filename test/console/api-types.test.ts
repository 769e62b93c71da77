// The console's API types are generated from the served OpenAPI document; a route whose schemas
// changed without regenerating them fails here (run `npm run generate:console-api`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONSOLE_API_TYPES, consoleApiTypes } from '../../scripts/console-api-types.js';

test('console/src/api/api-types.ts is what the served OpenAPI document generates', async () => {
  const generated = await consoleApiTypes();
  const committed = readFileSync(CONSOLE_API_TYPES, 'utf8');
  if (committed !== generated) {
    const a = committed.split('\n');
    const b = generated.split('\n');
    const line = a.findIndex((text, i) => text !== b[i]);
    assert.fail(`console/src/api/api-types.ts is stale (first difference at line ${line + 1}: committed ${JSON.stringify(a[line])}, generated ${JSON.stringify(b[line])}). Run \`npm run generate:console-api\` and commit the result.`);
  }
  assert.match(generated, /"\/api\/v1\/flags": \{/);
});
