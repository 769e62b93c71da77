// Request logging for hot routes (a route's `childLoggerFactory`). Fastify gives every request a
// pino child logger and writes two info lines per request; at delivery's request rates that was the
// largest cost after the socket write. Here the per-request logger is a small object: Fastify's
// request lines (info) are written at debug, so they appear only when the operator asks for debug,
// and the real child logger (with the request id) is made only when something is logged.
import type { FastifyBaseLogger } from 'fastify';

type Args = Parameters<FastifyBaseLogger['info']>;
/** Fastify's loggers are pino loggers, which can say whether a level is on. */
type ParentLogger = FastifyBaseLogger & { isLevelEnabled(level: string): boolean };

class QuietRequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: ParentLogger,
    private readonly bindings: Record<string, unknown>,
    private readonly options: object,
  ) {}

  get level(): string {
    return this.parent.level;
  }

  private get real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }

  info(...args: Args) {
    if (this.parent.isLevelEnabled('debug')) this.real.debug(...args);
  }
  debug(...args: Args) {
    if (this.parent.isLevelEnabled('debug')) this.real.debug(...args);
  }
  trace(...args: Args) {
    if (this.parent.isLevelEnabled('trace')) this.real.trace(...args);
  }
  warn(...args: Args) {
    this.real.warn(...args);
  }
  error(...args: Args) {
    this.real.error(...args);
  }
  fatal(...args: Args) {
    this.real.fatal(...args);
  }
  silent() {}
  child(bindings: Record<string, unknown>, options?: object) {
    return this.real.child(bindings, options);
  }
  isLevelEnabled(level: string) {
    return this.parent.isLevelEnabled(level);
  }
}

/** Use as a route's `childLoggerFactory`. */
export function quietRequestLogging(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  options: object,
): FastifyBaseLogger {
  return new QuietRequestLogger(logger as ParentLogger, bindings, options) as unknown as FastifyBaseLogger;
}
