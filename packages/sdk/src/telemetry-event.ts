// The version-1 telemetry event the SDK sends to POST /api/v1/events/batch (docs/telemetry.md).

export interface TelemetryEvent {
  /** Unique per environment; a retry sends the same id, so the server stores it once. */
  readonly id: string;
  readonly kind: 'decision' | 'exposure' | 'outcome';
  readonly timestamp: string;
  readonly targetingKey?: string;
  readonly flagKey?: string;
  readonly variant?: string;
  readonly reason?: string;
  readonly experimentId?: string;
  readonly iterationId?: string;
  readonly iterationRevision?: number;
  readonly metricKey?: string;
  readonly metricValue?: number;
}

const HEX = '0123456789abcdef';

/** 128 random bits as 32 hex digits (getRandomValues works outside secure contexts too, unlike
 * randomUUID). */
export function eventId(): string {
  const bytes = new Uint8Array(16);
  const crypto = (globalThis as { crypto?: { getRandomValues(a: Uint8Array): Uint8Array } }).crypto;
  if (crypto !== undefined) crypto.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  let id = '';
  for (const byte of bytes) id += HEX[byte >> 4]! + HEX[byte & 15]!;
  return id;
}
