// The CLI's pure pieces: table rendering, both error shapes, value parsing, the credentials path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bulkIdempotencyKey } from '../../src/cli/commands/flags-bulk.js';
import { credentialsPath } from '../../src/cli/credentials.js';
import { apiErrorFrom } from '../../src/cli/errors.js';
import { parseBoolean, parseFlagValue } from '../../src/cli/input.js';
import { renderPairs, renderTable } from '../../src/cli/table.js';

test('renderTable aligns columns, right-aligns numbers, marks empty cells and cuts long ones', () => {
  const out = renderTable(
    ['KEY', 'N', 'NOTE'],
    [
      ['a', 1, null],
      ['longer-key', 100, 'x'.repeat(80)],
    ],
  );
  assert.equal(out.split('\n')[0], 'KEY           N  NOTE');
  assert.equal(out.split('\n')[1], 'a             1  -');
  assert.equal(
    renderTable(
      ['A', 'B'],
      [
        ['x', 1],
        ['y', 'two'],
      ],
    ),
    'A  B\nx  1\ny  two',
  );
  assert.match(out.split('\n')[2], /^longer-key  100  x{59}…$/);
  assert.ok(out.split('\n').every((l) => l === l.trimEnd()));
  assert.equal(
    renderPairs([
      ['id', 'x'],
      ['name', undefined],
    ]),
    'id:    x\nname:  -',
  );
});

test('apiErrorFrom reads the current and the legacy error shapes', () => {
  const current = apiErrorFrom(
    400,
    {
      error: {
        code: 'validation_error',
        message: 'bad',
        resolution: 'fix it',
        requestId: 'req_1',
        details: [{ path: '/slug', message: 'nope' }],
      },
    },
    '',
  );
  assert.deepEqual(
    [current.code, current.message, current.resolution, current.requestId, current.details],
    ['validation_error', 'bad', 'fix it', 'req_1', [{ path: '/slug', message: 'nope' }]],
  );
  const legacy = apiErrorFrom(
    401,
    { error: 'Unauthorized', code: 'KEY_REVOKED', message: 'revoked', resolution: 'new key' },
    '',
    'req_2',
  );
  assert.deepEqual(
    [legacy.code, legacy.message, legacy.resolution, legacy.requestId],
    ['KEY_REVOKED', 'revoked', 'new key', 'req_2'],
  );
  const bare = apiErrorFrom(502, null, '<html>Bad gateway</html>');
  assert.equal(bare.message, 'HTTP 502: <html>Bad gateway</html>');
  assert.equal(apiErrorFrom(403, { error: 'Forbidden' }, '').message, 'Forbidden');
});

test('flag values: JSON when it parses, text otherwise, text for string flags', () => {
  assert.equal(parseFlagValue('true'), true);
  assert.equal(parseFlagValue('42'), 42);
  assert.deepEqual(parseFlagValue('{"a":1}', 'json'), { a: 1 });
  assert.equal(parseFlagValue('hello'), 'hello');
  assert.equal(parseFlagValue('42', 'string'), '42');
  assert.equal(parseFlagValue('"quoted"', 'string'), 'quoted');
  assert.equal(parseBoolean('--x', 'false'), false);
  assert.throws(() => parseBoolean('--x', 'maybe'), /must be true or false/);
});

test('bulk idempotency key: same file, app and env give the same key', () => {
  assert.equal(bulkIdempotencyKey('{}', 'app_1', 'prod'), bulkIdempotencyKey('{}', 'app_1', 'prod'));
  assert.notEqual(bulkIdempotencyKey('{}', 'app_1', 'prod'), bulkIdempotencyKey('{}', 'app_1', 'dev'));
  assert.notEqual(bulkIdempotencyKey('{}', 'app_1', 'prod'), bulkIdempotencyKey('{ }', 'app_1', 'prod'));
  assert.notEqual(bulkIdempotencyKey('{}', 'app_1', 'prod'), bulkIdempotencyKey('{}', 'app_1', 'prod', 3));
  assert.notEqual(bulkIdempotencyKey('{}', 'app_1', 'prod', 3), bulkIdempotencyKey('{}', 'app_1', 'prod', 4));
});

test('credentials live under XDG_CONFIG_HOME, else ~/.config', () => {
  assert.equal(credentialsPath({ XDG_CONFIG_HOME: '/x/cfg', HOME: '/home/u' }), '/x/cfg/ensign/credentials.json');
  assert.equal(credentialsPath({ HOME: '/home/u' }), '/home/u/.config/ensign/credentials.json');
  assert.equal(
    credentialsPath({ XDG_CONFIG_HOME: 'relative', HOME: '/home/u' }),
    '/home/u/.config/ensign/credentials.json',
  );
});
