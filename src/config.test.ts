// The operator's environment variables as loadConfig reads them, with their defaults, their ranges
// and a value that is not a number: ENSIGN_TELEMETRY_WRITE_LANES (decision 0060) and
// ENSIGN_PASSWORD_SCRYPT_COST.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PASSWORD_SCRYPT_COST, DEFAULT_TELEMETRY_WRITE_LANES, loadConfig } from './config.js';

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

test('ENSIGN_PASSWORD_SCRYPT_COST: 14 by default, raised up to 17, never lowered', () => {
  assert.equal(DEFAULT_PASSWORD_SCRYPT_COST, 14);
  assert.equal(loadConfig(base).passwordScryptCost, 14);
  assert.equal(loadConfig({ ...base, ENSIGN_PASSWORD_SCRYPT_COST: '17' }).passwordScryptCost, 17);
  assert.throws(
    () => loadConfig({ ...base, ENSIGN_PASSWORD_SCRYPT_COST: '13' }),
    /passwordScryptCost: Expected integer to be greater or equal to 14/,
  );
  assert.throws(
    () => loadConfig({ ...base, ENSIGN_PASSWORD_SCRYPT_COST: '18' }),
    /passwordScryptCost: Expected integer to be less or equal to 17/,
  );
});
