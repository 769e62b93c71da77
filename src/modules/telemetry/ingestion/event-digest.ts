// The digest of a validated event (duplicate or conflict, decision 0047): the SHA-256 of its
// canonical JSON, byte for byte what digestOf(event) gives (digests stored by every earlier version
// are compared with it). Its top-level fields are the schema's, so instead of copying the event with
// its keys sorted (a new object shape for nearly every event, which JSON.stringify then writes on
// its slow path), one object literal of one shape lists them in sorted order; JSON.stringify leaves
// out the undefined ones as the copy did. Only `value` and `attributes` hold client JSON, sorted as
// canonicalJson sorts it. event-digest.test.ts holds the two side by side.
import { hash } from 'node:crypto';
import { digestOf, sortKeys } from '../../../platform/canonical-json.js';
import type { TelemetryEvent } from './telemetry.model.js';

export function eventDigest(event: TelemetryEvent): string {
  let present = 0;
  for (const _ in event) present++;
  // Every field an event can have, in code-unit order (as canonicalJson sorts them).
  const known = {
    attributes: event.attributes === undefined ? undefined : sortKeys(event.attributes),
    experimentId: event.experimentId,
    flagKey: event.flagKey,
    id: event.id,
    iterationId: event.iterationId,
    iterationRevision: event.iterationRevision,
    kind: event.kind,
    metricKey: event.metricKey,
    metricValue: event.metricValue,
    reason: event.reason,
    targetingKey: event.targetingKey,
    ts: event.ts,
    value: event.value === undefined ? undefined : sortKeys(event.value),
    variant: event.variant,
  };
  // A field outside the list (none passes the schema) or a key inherited: the general way.
  let listed = 0;
  for (const name in known) if (Object.hasOwn(event, name)) listed++;
  if (listed !== present) return digestOf(event);
  return hash('sha256', JSON.stringify(known), 'hex');
}
