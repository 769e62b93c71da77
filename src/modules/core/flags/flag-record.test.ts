// The flag record is found from the flags module (decision 0008): the same definitions as the
// configuration state's, not a copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as flags from './index.js';
import * as versions from '../config/index.js';

test('the flags module exports the flag record schemas, identical to those of the configuration state', () => {
  assert.equal(flags.FlagRecordSchema, versions.FlagRecordSchema);
  assert.equal(flags.flagFieldSchemas, versions.flagFieldSchemas);
  assert.deepEqual(Object.values(versions.ConfigStateSchema.properties.flags.patternProperties), [
    flags.FlagRecordSchema,
  ]);
});
