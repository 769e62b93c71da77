// The operator's environment variables as loadConfig reads them: ENSIGN_TELEMETRY_WRITE_LANES
// (decision 0060) with its default, its range and a value that is not a number.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_TELEMETRY_WRITE_LANES, loadConfig } from './config.js';

const base = { ENSIGN_SECRET: 'config-test-secret-config-test-secret-01', ENSIGN_DATA_DIR: '/tmp' };

test('ENSIGN_TELEMETRY_WRITE_LANES: 1 by default, 1–8 accepted, anything else refused at start by name', () => {
  assert.equal(DEFAULT_TELEMETRY_WRITE_LANES, 1);
  assert.equal(loadConfig(base).telemetryWriteLanes, 1);
  assert.equal(loadConfig({ ...base, ENSIGN_TELEMETRY_WRITE_LANES: '2' }).telemetryWriteLanes, 2);
  assert.equal(loadConfig({ ...base, ENSIGN_TELEMETRY_WRITE_LANES: '8' }).telemetryWriteLanes, 8);
  assert.throws(
    () => loadConfig({ ...base, ENSIGN_TELEMETRY_WRITE_LANES: '0' }),
    /telemetryWriteLanes: Expected integer to be greater or equal to 1/,
  );
  assert.throws(
    () => loadConfig({ ...base, ENSIGN_TELEMETRY_WRITE_LANES: '9' }),
    /telemetryWriteLanes: Expected integer to be less or equal to 8/,
  );
  assert.throws(
    () => loadConfig({ ...base, ENSIGN_TELEMETRY_WRITE_LANES: 'two' }),
    /ENSIGN_TELEMETRY_WRITE_LANES must be an integer, got "two"/,
  );
});
