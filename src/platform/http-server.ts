// The Fastify instance every subsystem registers on, with the platform's plugins: request ids,
// request metrics, validation, errors, body limits, the OpenAPI document and the fast lane. No module
// is known here; authentication is installed once core supplies its credential resolver.
import Fastify, { type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AppSettings } from '../config.js';
import { registerAuthentication } from './authenticate.js';
import { registerBodyLimits } from './body-limit.js';
import { ErrorBody, LegacyErrorBody } from './error-schemas.js';
import {
  clientErrorHandler,
  frameworkErrorHandler,
  registerErrorHandling,
  type ErrorRenderer,
} from './error-handler.js';
import { createFastLane } from './fast-lane.js';
import type { FastLaneRouteInfo, FastLaneStats } from './fast-lane-state.js';
import { loggerOptions } from './logging.js';
import type { CredentialResolver } from './principal.js';
import { createMetrics, registerRequestMetrics, type Metrics } from './prometheus-metrics.js';
import { registerOpenApi } from './openapi.js';
import { PUBLIC_CORS_RESPONSE_HEADERS } from './public-cors.js';
import { buildSerializersOnFirstUse } from './response-serializers.js';
import { registerRequestIds, requestIdOf } from './request-id.js';
import { createValidatorCompiler, registerValidation, validatorFor } from './validation.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What the fast lane (platform/fast-lane.ts) serves and has answered. */
    fastLane: { stats: FastLaneStats; routes(): readonly FastLaneRouteInfo[] };
  }
}

export interface HttpServerOptions {
  settings: Pick<AppSettings, 'http' | 'fastLane' | 'logLevel' | 'bodyLimit' | 'maxParamLength'>;
  /** Where logs go (tests capture them); defaults to stdout. */
  logStream?: NodeJS.WritableStream;
  /** The pool statistics /metrics reports. */
  database: Parameters<typeof createMetrics>[0];
  /** A path prefix whose framework errors are answered in its own shape (OFREP), with its CORS headers. */
  publicPrefix: { prefix: string; frameworkErrors: ErrorRenderer };
}

export interface HttpServer {
  app: FastifyInstance;
  metrics: Metrics;
  /** Installs authentication with core's resolver; before any route is registered (the fast lane collects routes from then on). */
  authenticate(resolver: CredentialResolver): void;
}

export async function createHttpServer(options: HttpServerOptions): Promise<HttpServer> {
  const { settings } = options;
  const lane = createFastLane({ maxParamLength: settings.maxParamLength, enabled: settings.fastLane });
  const timeouts = settings.http;
  const compile = createValidatorCompiler();
  const app = Fastify({
    // Slow clients are cut off: a request (headers and body) must arrive within requestTimeout.
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    http: {
      requestTimeout: timeouts.requestTimeoutMs,
      headersTimeout: timeouts.headersTimeoutMs,
      // Node checks those timeouts on this interval (30 s by default, which would double a short timeout).
      connectionsCheckingInterval: Math.min(1000, timeouts.headersTimeoutMs),
    },
    logger: loggerOptions(settings.logLevel, options.logStream),
    genReqId: requestIdOf,
    bodyLimit: settings.bodyLimit,
    routerOptions: { maxParamLength: settings.maxParamLength },
    serverFactory: lane.serverFactory,
    trustProxy: false,
    schemaController: {
      compilersFactory: {
        buildSerializer: buildSerializersOnFirstUse,
        // Every context validates with this compiler (validation.ts's rules). Given only through
        // setValidatorCompiler, a plugin that adds a shared schema (telemetry's EventItem) made
        // Fastify build its default Ajv for that plugin's routes (coercing "1" to 1 in a body), and a
        // new Ajv instance per app.
        // (Typed for @fastify/ajv-compiler's pools; Fastify calls what it returns as any validator compiler.)
        buildValidator: (() => validatorFor(compile)) as never,
      },
    },
    frameworkErrors: frameworkErrorHandler({
      [`${options.publicPrefix.prefix}/`]: options.publicPrefix.frameworkErrors,
    }),
    clientErrorHandler: clientErrorHandler({ [`${options.publicPrefix.prefix}/`]: PUBLIC_CORS_RESPONSE_HEADERS }),
  }).withTypeProvider<TypeBoxTypeProvider>();
  lane.watch(app);

  registerRequestIds(app);
  const metrics = createMetrics(options.database);
  registerRequestMetrics(app, metrics.requests);
  registerValidation(app, compile);
  registerErrorHandling(app);
  registerBodyLimits(app);
  app.addSchema(ErrorBody);
  app.addSchema(LegacyErrorBody);
  await registerOpenApi(app);

  return {
    app,
    metrics,
    authenticate(resolver) {
      registerAuthentication(app, resolver);
      lane.attach(app, { resolver, compile });
      app.decorate('fastLane', { stats: lane.stats, routes: lane.routes });
    },
  };
}
