// The API's types, generated from the server's OpenAPI document into src/api-types/ (one file per
// subsystem) and shared with the CLI: `npm run generate:api-types` after changing a route's schemas.
export type { paths } from '../../../src/api-types/index.js';
