// pino through Fastify, with credentials, passwords and secrets redacted wherever they appear:
// headers and body fields by path, and URLs (a browser's EventSource can only send its stream token
// in the query string) by the request serializer below.
import type { FastifyRequest, FastifyServerOptions } from 'fastify';
import { TOKEN_TYPES } from './tokens.js';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.token',
  '*.secret',
  '*.signingSecret',
  'body.password',
  'body.token',
];

const CENSOR = '[redacted]';

/** Query parameters that carry a credential by their name (compared in lower case). */
const CREDENTIAL_NAMES = new Set([
  'token',
  'key',
  'apikey',
  'api_key',
  'api-key',
  'x-api-key',
  'secret',
  'password',
  'passwd',
  'pwd',
  'auth',
  'authorization',
  'bearer',
  'signature',
  'sig',
  'code',
  'credential',
  'credentials',
  'session',
  'sessionid',
  'jwt',
]);
const CREDENTIAL_SUFFIXES = ['token', 'secret', 'password', 'apikey', 'api_key', 'signature', 'credential'];
const TOKEN_PREFIXES = TOKEN_TYPES.map((type) => `${type}_`);

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function isCredentialName(name: string): boolean {
  const lower = decoded(name).toLowerCase();
  return CREDENTIAL_NAMES.has(lower) || CREDENTIAL_SUFFIXES.some((suffix) => lower.endsWith(suffix));
}

/** One of our own bearer tokens, wherever it was put. */
const looksLikeToken = (text: string) => {
  const value = decoded(text);
  return value.length >= 20 && TOKEN_PREFIXES.some((prefix) => value.startsWith(prefix));
};

/**
 * The URL with every credential replaced by [redacted]: query parameters named like one (token,
 * key, apiKey, …Token, …Secret, signature…) and any parameter value or path segment that is an
 * Ensign token (cli_, admin_, sdk_, pub_). Other parameters stay, so the log still says what was
 * asked. For request log lines, Fastify's and any other (the fast lane's).
 */
export function redactUrl(url: string): string {
  const question = url.indexOf('?');
  const path = question < 0 ? url : url.slice(0, question);
  const safePath = path
    .split('/')
    .map((segment) => (looksLikeToken(segment) ? CENSOR : segment))
    .join('/');
  if (question < 0) return safePath;
  const query = url
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      const value = equals < 0 ? '' : pair.slice(equals + 1);
      if (equals >= 0 && (isCredentialName(name) || looksLikeToken(value))) return `${name}=${CENSOR}`;
      return looksLikeToken(pair) ? CENSOR : pair;
    });
  return `${safePath}?${query.join('&')}`;
}

/** Fastify's request serializer with the URL redacted. */
function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

export function loggerOptions(level: string, stream?: NodeJS.WritableStream): FastifyServerOptions['logger'] {
  return {
    level,
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    serializers: { req: serializeRequest },
    ...(stream ? { stream } : {}),
  } as FastifyServerOptions['logger'];
}
