// Serves the built web console (console/dist, made by `npm run build`) at /console, in a prefix scope
// of its own: its hooks and routes reach nothing else, so the API and the fast lane are untouched.
// - hashed assets (/console/assets/*) are cached for a year, immutable;
// - every other path under /console is a client route: the console's index.html, never cached;
// - every answer carries a strict Content-Security-Policy (scripts and connections to this origin
//   only, no inline script) and the usual hardening headers;
// - a server built without the console answers /console with a 404 that says how to build it.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.js';
import { sendError } from './error-handler.js';

export const CONSOLE_PREFIX = '/console';

/** Where `npm run build` puts the console: console/dist at the repository root (from src/ and dist/ alike). */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../../console/dist', import.meta.url));

/**
 * Scripts, styles, images and fetches from this origin only; no inline script, no plugin, no framing.
 * `style-src` also allows style attributes and the style elements the accessible primitives (Radix)
 * add for positioning and scroll locking: they carry no script (docs/console.md).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
};

const hidden = { schema: { hide: true } };

/** Registers /console: the built files of `dir`, or (when it holds no build) a 404 that explains. */
export async function registerConsole(app: FastifyInstance, dir: string | null = DEFAULT_CONSOLE_DIR): Promise<void> {
  const indexFile = dir === null ? null : join(dir, 'index.html');
  if (indexFile === null || !existsSync(indexFile)) {
    await app.register(
      async (scope) => {
        const notBuilt = (request: FastifyRequest, reply: FastifyReply) =>
          sendError(
            request,
            reply,
            new AppError(404, 'not_found', 'The web console is not part of this build of Ensign.', {
              resolution:
                'Build it with `npm run build` (which builds the console with the server; `npm start` does it too) and restart the server.',
            }),
          );
        scope.get('/', hidden, notBuilt);
        scope.get('/*', hidden, notBuilt);
      },
      { prefix: CONSOLE_PREFIX },
    );
    return;
  }
  // Read once: the page is small and changes only with a new build (and a restart).
  const index = readFileSync(indexFile);
  await app.register(
    async (scope) => {
      scope.addHook('onSend', async (_request, reply, payload) => {
        reply.headers(SECURITY_HEADERS);
        return payload;
      });
      await scope.register(fastifyStatic, {
        root: join(dir!, 'assets'),
        prefix: '/assets/',
        index: false,
        list: false,
        dotfiles: 'deny',
        // Every file name carries a hash of its content: a new build is a new name.
        maxAge: '365d',
        immutable: true,
        cacheControl: true,
        etag: true,
        lastModified: false,
      });
      const page = (_request: FastifyRequest, reply: FastifyReply) => {
        reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(index);
      };
      scope.get('/', hidden, page);
      // Client routes (/console/apps/…): the page, which routes in the browser.
      scope.get('/*', hidden, page);
      scope.setNotFoundHandler((request, reply) =>
        sendError(
          request,
          reply,
          new AppError(404, 'not_found', `No console file ${request.url.split('?')[0]}.`, {
            resolution: 'The console may have been rebuilt since this page was loaded: reload it.',
          }),
        ),
      );
    },
    { prefix: CONSOLE_PREFIX },
  );
}
