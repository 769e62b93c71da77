// The API's types, generated from the server's OpenAPI document into src/api-types/ (files by route
// group, shared shapes as named components: decision 0059) and shared with the CLI:
// `npm run generate:api-types` after changing a route's schemas.
export type { paths } from '../../../src/api-types/index.js';
