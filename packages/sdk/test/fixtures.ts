// Test support for the SDK and the providers: the engine's conformance vectors as one core/v1
// document, and a scripted stand-in for the server behind an injected fetch (documents with ETags,
// the change stream, the events batch route), which records every request.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { withFlagDefaults, type CoreDocument, type CoreFlag } from '@ensign/engine';
import type { ConformanceVectors } from '@ensign/engine/conformance';

export const vectors: ConformanceVectors = JSON.parse(
  readFileSync(createRequire(import.meta.url).resolve('@ensign/engine/conformance.json'), 'utf8'),
);

/** Every suite's flags and experiments in one server-audience document (flag keys are unique across suites). */
export function vectorsDocument(version = 1): CoreDocument {
  const flags: Record<string, CoreFlag> = {};
  for (const suite of vectors.suites) {
    for (const flag of suite.flags) {
      const { key, description: _description, clientEnabled, ...fields } = withFlagDefaults(flag);
      flags[key] = { ...fields, clientVisible: clientEnabled } as CoreFlag;
    }
  }
  return document({ flags, experiments: vectors.suites.flatMap((s) => s.experiments ?? []) }, version);
}

export function document(fields: Partial<CoreDocument>, version = 1): CoreDocument {
  return {
    schemaVersion: 'core/v1',
    appId: 'app_test',
    env: 'prod',
    version,
    audience: 'server',
    delivery: {
      ttlSeconds: 60,
      etag: `"v${version}"`,
      generatedAt: '2026-01-01T00:00:00.000Z',
      pollIntervalSeconds: 60,
    },
    privacy: { privateAttributes: [], clientMetadataKeys: [] },
    flags: {},
    experiments: [],
    ...fields,
  };
}

export function flag(type: CoreFlag['type'], value: unknown, fields: Partial<CoreFlag> = {}): CoreFlag {
  return {
    type,
    value,
    enabled: true,
    offValue: value,
    clientVisible: true,
    rollout: null,
    variants: null,
    rules: [],
    overrides: {},
    dependencies: [],
    metadata: {},
    ...fields,
  } as CoreFlag;
}

export interface Exchange {
  method: string;
  path: string;
  ifNoneMatch: string | null;
  /** Date.now() when the request arrived. */
  at: number;
  /** The status of a scripted answer (documentAnswers). */
  scripted?: number;
  body?: any;
}

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A scripted server. `document` is served with its delivery.etag; `documentAnswer` overrides it
 * once per call; `eventsAnswer` decides each events batch (default: every item accepted). */
export class FakeServer {
  exchanges: Exchange[] = [];
  current: CoreDocument;
  documentAnswers: Answer[] = [];
  eventsAnswers: ((events: any[]) => Answer)[] = [];
  streamAvailable = true;
  private streams = new Set<ReadableStreamDefaultController<Uint8Array>>();
  readonly url = 'https://flags.test';

  constructor(initial: CoreDocument) {
    this.current = initial;
  }

  get events(): any[] {
    return this.exchanges.filter((e) => e.path === '/api/v1/events/batch').flatMap((e) => e.body.events);
  }

  /** A new version of the document, announced on every open stream. */
  publish(next: CoreDocument): void {
    this.current = next;
    for (const stream of this.streams)
      stream.enqueue(
        new TextEncoder().encode(
          `id: ${next.version}\ndata: {"type":"refetchEvaluation","etag":"${next.version}"}\n\n`,
        ),
      );
  }

  /** Ends every open stream, as the server does when a token expires. */
  endStreams(): void {
    for (const stream of this.streams) stream.close();
    this.streams.clear();
  }

  get openStreams(): number {
    return this.streams.size;
  }

  fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const headers = new Headers(init.headers);
    const exchange: Exchange = {
      method: init.method ?? 'GET',
      path: url.pathname,
      ifNoneMatch: headers.get('if-none-match'),
      at: Date.now(),
    };
    if (typeof init.body === 'string') exchange.body = JSON.parse(init.body);
    this.exchanges.push(exchange);
    init.signal?.throwIfAborted();
    if (url.pathname === '/api/v1/advanced-config') {
      const scripted = this.documentAnswers.shift();
      if (scripted) {
        exchange.scripted = scripted.status;
        return json(scripted.status, scripted.body, scripted.headers);
      }
      const stream = { 'x-ensign-event-stream': '/api/ofrep/v1/events?token=t0k' };
      if (exchange.ifNoneMatch === this.current.delivery.etag)
        return new Response(null, { status: 304, headers: stream });
      return json(200, this.current, { etag: this.current.delivery.etag, ...stream });
    }
    if (url.pathname === '/api/ofrep/v1/events') {
      if (!this.streamAvailable) return json(404, { error: { code: 'not_found' } });
      let controller!: ReadableStreamDefaultController<Uint8Array>;
      const body = new ReadableStream<Uint8Array>({
        start: (c) => {
          controller = c;
        },
        cancel: () => {
          this.streams.delete(controller);
        },
      });
      init.signal?.addEventListener('abort', () => {
        this.streams.delete(controller);
        try {
          controller.error(new DOMException('aborted', 'AbortError'));
        } catch {
          /* already closed */
        }
      });
      this.streams.add(controller);
      controller.enqueue(new TextEncoder().encode(`retry: 2000\nid: ${this.current.version}\n\n`));
      return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    }
    if (url.pathname === '/api/v1/events/batch') {
      const decide = this.eventsAnswers.shift();
      if (decide) {
        const answer = decide(exchange.body.events);
        return json(answer.status, answer.body, answer.headers);
      }
      return json(200, accepted(exchange.body.events));
    }
    return json(404, { error: { code: 'not_found' } });
  };
}

export function accepted(events: { id: string }[]) {
  return {
    results: events.map((e, index) => ({ index, id: e.id, status: 'accepted' })),
    accepted: events.length,
    duplicates: 0,
    rejected: 0,
  };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** Polls until `check` holds (fails after 10 s: a cap for a loaded machine, not a timing assertion). */
export async function until(check: () => boolean, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
