// The environment's change stream (server-sent events, the stream OFREP providers use too) read
// over fetch: Node 18+ has no EventSource, and fetch lets close() abort the socket. Each
// `refetchEvaluation` message means "the configuration changed, ask again".

export interface StreamHandlers {
  /** The stream answered 200 and is open. */
  onOpen(): void;
  /** A message's data. */
  onMessage(data: string): void;
  /** The server's `retry:` advice, in milliseconds. */
  onRetry(ms: number): void;
}

/** Reads the stream until it ends (resolves) or fails (rejects). */
export async function readChangeStream(
  fetchImpl: typeof fetch,
  url: string,
  signal: AbortSignal,
  handlers: StreamHandlers,
): Promise<void> {
  const response = await fetchImpl(url, { headers: { accept: 'text/event-stream' }, signal });
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel().catch(() => undefined);
    throw new Error(`the change stream answered ${response.status}`);
  }
  handlers.onOpen();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(buffer[end] === '\r' && buffer[end + 1] === '\n' ? end + 2 : end + 1);
      if (line === '') {
        if (data.length > 0) handlers.onMessage(data.join('\n'));
        data = [];
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1);
      if (field === 'data') data.push(value);
      else if (field === 'retry' && /^\d+$/.test(value)) handlers.onRetry(Number(value));
    }
  }
}
