// The server's API as the CLI sees it: types generated from the served OpenAPI document
// (api-types.ts, `npm run generate:api-types`), named by operationId, and ok() to read a typed
// call's answer. A command that sends `RequestBody<'patchFlag'>` cannot name a field the route does
// not take, and a route that drops or renames one fails the CLI's typecheck.
//
//   const { flag } = await ok(ctx.client.api.PATCH('/api/v1/flags', { body }));
//   const { metrics } = await ok(ctx.client.api.GET('/api/v1/metrics', { params: { query: { appId, env } } }));
import type { operations } from '../api-types/index.js';

export type { operations };
export type OperationId = keyof operations;

type JsonContent<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation takes. */
export type RequestBody<O extends OperationId> = operations[O] extends { requestBody?: infer R }
  ? JsonContent<NonNullable<R>>
  : never;

/** A value as openapi-fetch types what it read: tuples become arrays ([number, number] → number[]). */
type AsRead<T> = T extends (infer E)[] ? AsRead<E>[] : T extends object ? { [K in keyof T]: AsRead<T[K]> } : T;

/** The JSON answer of an operation with `status` (by default whichever 2xx it declares), as a typed call returns it. */
export type ResponseBody<O extends OperationId, Status extends number = 200 | 201 | 202> = AsRead<
  {
    [S in Status & keyof operations[O]['responses']]: JsonContent<operations[O]['responses'][S]>;
  }[Status & keyof operations[O]['responses']]
>;

/**
 * The answer of a typed call. The client throws ApiError for a status outside 2xx before the call
 * returns, so an answer without `data` is one with no body (204) where the command wanted one.
 */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined) throw new Error(`${response.url} answered ${response.status} without a body`);
  return data;
}
