// An event's digest is the one digestOf gave before (stored digests are compared with it), for every
// shape of event the schema admits and for client JSON in value and attributes at its edges.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { digestOf } from '../../../platform/canonical-json.js';
import { eventDigest } from './event-digest.js';
import type { TelemetryEvent } from './telemetry.model.js';

const keys = fc.oneof(fc.string({ unit: 'binary' }), fc.constantFrom('__proto__', '0', '2', '10', '01', 'constructor'));
const json = fc.jsonValue({ maxDepth: 4 });
const label = fc.string({ minLength: 1, maxLength: 8, unit: 'binary' });
const event = fc.record(
  {
    id: label,
    kind: fc.constantFrom('decision', 'assignment', 'exposure', 'outcome'),
    ts: fc.integer({ min: 0, max: 2 ** 45 }),
    targetingKey: label,
    flagKey: label,
    variant: label,
    value: json,
    reason: fc.constantFrom('TARGETING_MATCH', 'SPLIT', 'DEFAULT'),
    experimentId: label,
    iterationId: label,
    iterationRevision: fc.integer({ min: 1, max: 1000 }),
    metricKey: label,
    metricValue: fc.double({ noNaN: true, noDefaultInfinity: true }),
    attributes: fc.dictionary(keys, json, { maxKeys: 20 }),
  },
  { requiredKeys: ['id', 'kind', 'ts'] },
) as fc.Arbitrary<TelemetryEvent>;

describe('eventDigest', () => {
  test('equals digestOf for any event, also after a JSON round trip (prototype and index keys included)', () => {
    fc.assert(
      fc.property(event, (e) => {
        assert.equal(eventDigest(e), digestOf(e));
        // As ingestion sees it: parsed from a body, fields in the client's order.
        const parsed = JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(e).reverse()))) as TelemetryEvent;
        assert.equal(eventDigest(parsed), digestOf(parsed));
      }),
      { numRuns: 5000 },
    );
  });

  test('a field outside the schema, or one set to undefined, is digested as digestOf does', () => {
    const base = { id: 'e1', kind: 'exposure', ts: 1, flagKey: 'f' } as TelemetryEvent;
    const extra = { ...base, unexpected: { b: 1, a: 2 } } as unknown as TelemetryEvent;
    assert.equal(eventDigest(extra), digestOf(extra));
    assert.notEqual(eventDigest(extra), eventDigest(base));
    const undefinedField = { ...base, variant: undefined } as TelemetryEvent;
    assert.equal(eventDigest(undefinedField), digestOf(base));
  });
});
