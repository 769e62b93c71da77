// Resolves `Authorization: Bearer <token>` (and `X-API-Key` where a route allows it) to
// request.principal and enforces which credential types a route accepts — in one place.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { ERROR_CATALOGUE, type LegacyCode } from './error-catalogue.js';
import { AppError } from './errors.js';
import { implementedByLane } from './lane-hooks.js';
import type { CredentialResolution, CredentialResolver, Principal } from './principal.js';
import { tokenTypeOf, type TokenType } from './tokens.js';

export interface RouteAuth<T extends TokenType = TokenType> {
  /** Credential types this route accepts: the handler's principal is of one of these types. */
  allow: readonly T[];
  /** Accept `cli_` only when unscoped (app creation). */
  unscopedCliOnly?: boolean;
  /** Also read the key from `X-API-Key` (OFREP). */
  apiKeyHeader?: boolean;
  /** Status and codes for an accepted-format credential of a type the route refuses. */
  wrongType?: { code: CredentialCode; legacyCode: LegacyCode; message: string };
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

/** The codes of a credential the route refuses. */
type CredentialCode = 'unauthorized' | 'forbidden' | 'server_key_required';

function credentialError(code: CredentialCode, legacyCode: LegacyCode, message: string) {
  const status = ERROR_CATALOGUE[code].status;
  return new AppError<CredentialCode>(status, code, message, {
    legacyCode,
    resolution:
      status === 401
        ? 'Send a valid, unrevoked credential of the right type as Authorization: Bearer <token>.'
        : 'Use a credential of a type this route accepts.',
    headers: status === 401 ? { 'www-authenticate': 'Bearer' } : undefined,
  });
}

/** Whether `text` from `start` on is one or more printable ASCII characters other than space: the
 * usual `Bearer <token>`, which the regular expression below would read the same way, found
 * without running it on every request. */
function isPrintableAscii(text: string, start: number): boolean {
  if (text.length <= start) return false;
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code >= 0x7f) return false;
  }
  return true;
}

function bearerOf(headers: IncomingHttpHeaders, auth: RouteAuth): string | null {
  const header = headers.authorization;
  if (typeof header === 'string') {
    if (header.startsWith('Bearer ') && isPrintableAscii(header, 7)) return header.slice(7);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    return match ? match[1]! : '';
  }
  if (auth.apiKeyHeader) {
    const key = headers['x-api-key'];
    if (typeof key === 'string' && key.length > 0) return key.trim();
  }
  return null;
}

/** The credential of the request and whether the route accepts its type (throws the 401s of a
 * missing or malformed credential). */
function credentialOf(
  headers: IncomingHttpHeaders,
  auth: RouteAuth,
): { token: string; type: TokenType; accepted: boolean } {
  const token = bearerOf(headers, auth);
  if (token === null) throw credentialError('unauthorized', 'MISSING_CREDENTIAL', 'No credential was sent.');
  const type = tokenTypeOf(token);
  if (!type) throw credentialError('unauthorized', 'INVALID_CREDENTIAL', 'The credential is not valid.');
  return { token, type, accepted: (auth.allow as readonly TokenType[]).includes(type) };
}

function wrongTypeError(auth: RouteAuth, type: TokenType) {
  const w = auth.wrongType;
  if (w) return credentialError(w.code, w.legacyCode, w.message);
  return credentialError('unauthorized', 'WRONG_KEY_TYPE', `This route does not accept ${type}_ credentials.`);
}

/**
 * The principal, or the error of a credential that is none: an unknown, revoked or expired one is
 * refused as such (401) before the route's type rules apply, since it is no credential of any type
 * (a revoked pub_ key on evaluate is KEY_REVOKED, not SERVER_KEY_REQUIRED).
 */
function principalFrom(result: CredentialResolution, auth: RouteAuth, type: TokenType, accepted: boolean): Principal {
  if (!result.ok) {
    if (result.reason === 'revoked')
      throw credentialError('unauthorized', 'KEY_REVOKED', 'The credential has been revoked.');
    if (result.reason === 'expired')
      throw credentialError('unauthorized', 'INVALID_CREDENTIAL', 'The credential has expired.');
    throw credentialError('unauthorized', 'INVALID_CREDENTIAL', 'The credential is not valid.');
  }
  if (!accepted) throw wrongTypeError(auth, type);
  const principal = result.principal;
  if (auth.unscopedCliOnly && principal.type === 'cli' && principal.scoped) {
    throw credentialError(
      'unauthorized',
      'WRONG_KEY_TYPE',
      'A scoped capability token cannot do this; use a login token.',
    );
  }
  return principal;
}

export function registerAuthentication(app: FastifyInstance, resolver: CredentialResolver) {
  app.decorateRequest('principal', null);
  // A callback hook that stays synchronous when the resolver answers from memory: the delivery
  // routes authenticate every request, and a promise per hook costs them measurable throughput.
  app.addHook(
    'preValidation',
    implementedByLane(
      function authenticate(request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) {
        const auth = request.routeOptions.config?.auth;
        if (!auth) return done();
        let credential: ReturnType<typeof credentialOf>;
        let resolved: CredentialResolution | Promise<CredentialResolution>;
        try {
          credential = credentialOf(request.headers, auth);
          resolved = resolver.resolve(credential.token, credential.type);
        } catch (err) {
          return done(err as Error);
        }
        const accept = (result: CredentialResolution) => {
          try {
            request.principal = principalFrom(result, auth, credential.type, credential.accepted);
          } catch (err) {
            return done(err as Error);
          }
          done();
        };
        if (resolved instanceof Promise) resolved.then(accept, done);
        else accept(resolved);
      },
      { name: 'authentication' },
    ),
  );
}

/**
 * The principal of a request when the route accepts its credential; null in every other case (no
 * credential, a refused, unknown or revoked one, a failed read), which the authentication hook above then
 * answers. Synchronous when the resolver knows the credential from memory (the hot path); a read
 * fills the resolver's cache, so the authentication hook finds the answer there. For the fast lane.
 */
export function acceptedPrincipal(
  headers: IncomingHttpHeaders,
  auth: RouteAuth,
  resolver: CredentialResolver,
): Principal | null | Promise<Principal | null> {
  let credential: ReturnType<typeof credentialOf>;
  let resolved: CredentialResolution | Promise<CredentialResolution>;
  try {
    credential = credentialOf(headers, auth);
    // A type the route refuses is answered by the authentication hook (after checking revocation).
    if (!credential.accepted) return null;
    resolved = resolver.resolve(credential.token, credential.type);
  } catch {
    return null;
  }
  const { type, accepted } = credential;
  if (resolved instanceof Promise)
    return resolved.then(
      (resolution) => acceptedOf(resolution, auth, type, accepted),
      () => null,
    );
  return acceptedOf(resolved, auth, type, accepted);
}

function acceptedOf(
  resolution: CredentialResolution,
  auth: RouteAuth,
  type: TokenType,
  accepted: boolean,
): Principal | null {
  try {
    return principalFrom(resolution, auth, type, accepted);
  } catch {
    return null;
  }
}

/** The principal of an authenticated route (the authentication hook guarantees it is set). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw credentialError('unauthorized', 'MISSING_CREDENTIAL', 'No credential was sent.');
  return request.principal;
}
