// Evaluation routes answer thousands of requests a second per process: logging two lines per
// request at info (Fastify's request log) would cost more than evaluating. They log warnings and
// errors only, unless the operator asked for debug or trace, which then applies to them too.
import type { LogLevel } from 'fastify';

const DETAILED = new Set(['trace', 'debug']);
const QUIETER_THAN_WARN = new Set(['error', 'fatal', 'silent']);

export function hotPathLogLevel(serverLevel: string): LogLevel {
  return (DETAILED.has(serverLevel) || QUIETER_THAN_WARN.has(serverLevel) ? serverLevel : 'warn') as LogLevel;
}
