// Server-sent event streams of configuration changes, per environment (OFREP eventStreams, type
// sse). A stream sends `refetchEvaluation` whenever the evaluation source learns of a newer version
// of its environment (change notifications, LISTEN/NOTIFY across processes on PostgreSQL, with
// polling behind them), comments as heartbeats so proxies keep it open, and ends when its token
// expires or its key is revoked.
import type { ServerResponse } from 'node:http';
import type { EvaluationSource } from '../evaluation/index.js';
import type { StreamGrant } from './stream-token.js';

export interface EventHubOptions {
  source: Pick<EvaluationSource, 'onChange'>;
  /** Whether the grant's key has been revoked since the token was issued. */
  keyRevoked: (grant: StreamGrant) => Promise<boolean>;
  heartbeatMs?: number;
  /** How often an open stream's key is checked for revocation. */
  recheckMs?: number;
  log: { warn(obj: object, msg: string): void };
}

export interface EventHub {
  /** Starts streaming on `raw` (headers included). `lastEventId` is the version the client saw last. */
  open(
    grant: StreamGrant,
    raw: ServerResponse,
    headers: Record<string, unknown>,
    currentVersion: number,
    lastEventId: number | undefined,
  ): void;
  /** Open streams (tests and metrics). */
  size(): number;
  /** Ends every stream: the server cannot close while they are open. */
  close(): void;
}

interface Stream {
  readonly grant: StreamGrant;
  readonly raw: ServerResponse;
  checkedAt: number;
  checking: boolean;
}

/** A client that connects this soon after a change may have fetched just before it: tell it. */
const RECENT_CHANGE_MS = 5000;
/** Reconnection delay suggested to EventSource. */
const RETRY_MS = 2000;

function refetchEvent(version: number): string {
  const data = JSON.stringify({
    type: 'refetchEvaluation',
    etag: String(version),
    lastModified: Math.floor(Date.now() / 1000),
  });
  return `id: ${version}\ndata: ${data}\n\n`;
}

export function createEventHub(options: EventHubOptions): EventHub {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const recheckMs = options.recheckMs ?? 60_000;
  const byEnv = new Map<string, Set<Stream>>();
  const changedAt = new Map<string, { at: number; version: number }>();

  function end(stream: Stream) {
    const streams = byEnv.get(stream.grant.envId);
    if (streams?.delete(stream) && streams.size === 0) byEnv.delete(stream.grant.envId);
    if (!stream.raw.writableEnded) stream.raw.end();
  }

  function write(stream: Stream, chunk: string) {
    if (stream.raw.writableEnded || stream.raw.destroyed) end(stream);
    else stream.raw.write(chunk);
  }

  const unsubscribe = options.source.onChange((envId, version) => {
    changedAt.set(envId, { at: Date.now(), version });
    const streams = byEnv.get(envId);
    if (!streams) return;
    const event = refetchEvent(version);
    for (const stream of streams) write(stream, event);
  });

  function recheck(stream: Stream, now: number) {
    stream.checking = true;
    options
      .keyRevoked(stream.grant)
      .then((revoked) => {
        stream.checkedAt = now;
        if (revoked) end(stream);
      })
      .catch((err) => options.log.warn({ err }, 'could not check an event stream key; checking again later'))
      .finally(() => (stream.checking = false));
  }

  const timer = setInterval(() => {
    const now = Date.now();
    for (const streams of byEnv.values()) {
      for (const stream of streams) {
        if (stream.grant.expiresAt * 1000 <= now) {
          end(stream);
          continue;
        }
        write(stream, ': heartbeat\n\n');
        if (!stream.checking && now - stream.checkedAt >= recheckMs) recheck(stream, now);
      }
    }
  }, heartbeatMs);
  timer.unref();

  return {
    open(grant, raw, headers, currentVersion, lastEventId) {
      const stream: Stream = { grant, raw, checkedAt: Date.now(), checking: false };
      raw.writeHead(200, {
        ...headers,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        // Reverse proxies (nginx) would otherwise hold events back in their buffers.
        'x-accel-buffering': 'no',
      });
      let streams = byEnv.get(grant.envId);
      if (!streams) byEnv.set(grant.envId, (streams = new Set()));
      streams.add(stream);
      raw.on('close', () => end(stream));

      const recent = changedAt.get(grant.envId);
      const missed =
        lastEventId !== undefined
          ? lastEventId < currentVersion
          : recent !== undefined && Date.now() - recent.at < RECENT_CHANGE_MS;
      // Without an event, the `id` line still sets the client's Last-Event-ID for its reconnects.
      write(
        stream,
        `retry: ${RETRY_MS}\n: connected\n` + (missed ? refetchEvent(currentVersion) : `id: ${currentVersion}\n\n`),
      );
    },
    size: () => [...byEnv.values()].reduce((n, streams) => n + streams.size, 0),
    close() {
      clearInterval(timer);
      unsubscribe();
      for (const streams of [...byEnv.values()]) for (const stream of [...streams]) end(stream);
    },
  };
}
