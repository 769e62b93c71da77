import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../app.js';
import { buildTestApp, dialects, TEST_PASSWORD_SCRYPT_COST, testConfig } from '../../../../test/helpers/test-app.js';
import {
  assertContainsNone,
  call,
  createApp,
  expectError,
  expectValidation,
  insertCliToken,
  MINUTE,
  signUp,
} from '../../../../test/helpers/fixtures.js';
import { testClock } from '../../../../test/helpers/clock.js';

const PASSWORD = 'correct horse battery';
const login = (app: FastifyInstance, payload: unknown, headers: Record<string, string> = {}) =>
  call(app, 'POST', '/api/v1/cli-token', { payload, headers });
const withoutRequestId = (body: any) => ({ ...body, error: { ...body.error, requestId: undefined } });

for (const dialect of dialects) {
  describe(`login on ${dialect}`, () => {
    test('signUp answers 200 with a cli_ token, no-store and no cookie', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const res = await login(app, { flow: 'signUp', email: 'Ada@Example.com', password: PASSWORD });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers['set-cookie'], undefined);
      assert.ok(res.headers['x-request-id']);
      const body = res.json();
      assert.deepEqual(Object.keys(body).sort(), ['apiVersion', 'expiresAt', 'token', 'user']);
      assert.equal(body.apiVersion, 1);
      assert.match(body.token, /^cli_[A-Za-z0-9_-]{43}$/);
      assert.match(body.user.id, /^usr_[0-9A-HJKMNP-TV-Z]{26}$/);
      assert.equal(body.user.email, 'ada@example.com');
      const days = (Date.parse(body.expiresAt) - Date.now()) / 86_400_000;
      assert.ok(days > 89.9 && days <= 90, `expires in ${days} days`);
      assert.match(body.expiresAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      const apps = await call(app, 'GET', '/api/v1/apps', { token: body.token });
      assert.equal(apps.statusCode, 200, apps.body);
    });

    test('signIn issues a new token for the same user; signUp of an existing e-mail behaves as signIn', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app, 'bo@example.com');
      const signIn = await login(app, { flow: 'signIn', email: 'BO@example.com', password: PASSWORD });
      assert.equal(signIn.statusCode, 200, signIn.body);
      assert.equal(signIn.json().user.id, user.userId);
      assert.notEqual(signIn.json().token, user.token);
      const again = await login(app, { flow: 'signUp', email: 'bo@example.com', password: PASSWORD });
      assert.equal(again.statusCode, 200, again.body);
      assert.equal(again.json().user.id, user.userId);
      const wrong = await login(app, { flow: 'signUp', email: 'bo@example.com', password: 'another password' });
      expectError(wrong, 401, 'invalid_credentials');
      assert.equal(wrong.headers['cache-control'], 'no-store');
    });

    test('concurrent signUps of one e-mail make one user', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => login(app, { flow: 'signUp', email: 'twin@example.com', password: PASSWORD })),
      );
      for (const r of responses) assert.equal(r.statusCode, 200, r.body);
      assert.equal(new Set(responses.map((r) => r.json().user.id)).size, 1);
      assert.equal(new Set(responses.map((r) => r.json().token)).size, 5);
    });

    test('wrong password and unknown e-mail give the same 401 body', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      await signUp(app, 'cy@example.com');
      const wrongPassword = await login(app, { flow: 'signIn', email: 'cy@example.com', password: 'not the password' });
      const unknownEmail = await login(app, {
        flow: 'signIn',
        email: 'nobody@example.com',
        password: 'not the password',
      });
      const unknownSignUpAsIn = await login(app, { flow: 'signIn', email: 'nobody2@example.com', password: PASSWORD });
      for (const res of [wrongPassword, unknownEmail, unknownSignUpAsIn]) {
        expectError(res, 401, 'invalid_credentials');
        assert.equal(res.headers['set-cookie'], undefined);
      }
      assert.deepEqual(withoutRequestId(wrongPassword.json()), withoutRequestId(unknownEmail.json()));
      assert.deepEqual(withoutRequestId(wrongPassword.json()), withoutRequestId(unknownSignUpAsIn.json()));
    });

    test('a cross-origin login is refused with 403 before anything else', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const payload = { flow: 'signUp', email: 'dee@example.com', password: PASSWORD };
      const crossOrigin: Record<string, string>[] = [
        { origin: 'https://evil.example' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'http://localhost:8081' },
      ];
      for (const headers of crossOrigin) {
        const res = await login(app, payload, headers);
        expectError(res, 403, 'cross_origin_rejected');
        assert.equal(res.headers['cache-control'], 'no-store');
      }
      expectError(await login(app, { flow: 'nope' }, { origin: 'https://evil.example' }), 403, 'cross_origin_rejected');
      // Nothing was created: the e-mail is still free to sign up (and the first signUp creates the user).
      expectError(
        await login(app, { flow: 'signIn', email: 'dee@example.com', password: PASSWORD }),
        401,
        'invalid_credentials',
      );
      // The request's own origin (default port written out or not) and same-site fetches are fine.
      assert.equal((await login(app, payload, { origin: 'http://localhost:80' })).statusCode, 200);
      assert.equal((await login(app, payload, { origin: 'http://localhost', host: 'localhost' })).statusCode, 200);
      assert.equal((await login(app, payload, { 'sec-fetch-site': 'same-origin' })).statusCode, 200);
      assert.equal((await login(app, payload, { 'sec-fetch-site': 'none' })).statusCode, 200);
    });

    test('repeated failures for one e-mail answer 429 rate_limited with Retry-After', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      await signUp(app, 'eve@example.com');
      for (let i = 0; i < 5; i++)
        expectError(
          await login(app, { flow: 'signIn', email: 'eve@example.com', password: `wrong-${i}-password` }),
          401,
          'invalid_credentials',
        );
      for (const password of ['wrong again!', PASSWORD]) {
        const res = await login(app, { flow: 'signIn', email: 'eve@example.com', password });
        expectError(res, 429, 'rate_limited');
        const retryAfter = Number(res.headers['retry-after']);
        assert.ok(
          Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 900,
          `Retry-After ${res.headers['retry-after']}`,
        );
        assert.equal(res.headers['cache-control'], 'no-store');
      }
      // Another e-mail from the same address is not locked yet.
      assert.equal(
        (await login(app, { flow: 'signUp', email: 'fay@example.com', password: PASSWORD })).statusCode,
        200,
      );
    });

    test('two app instances on one database share the limit (the counts live in the database), and it ends with its window', async (t) => {
      const clock = testClock(Date.now());
      const { app, database } = await buildTestApp(t, { dialect, now: clock.now });
      const otherHandle = database.open();
      const other = await buildApp({
        db: otherHandle.db,
        dbHandle: otherHandle,
        notifyChannel: database.pgSchema,
        config: testConfig(),
        now: clock.now,
      });
      t.after(async () => {
        await other.close();
        await otherHandle.close();
      });
      await signUp(app, 'ivy@example.com');
      for (let i = 0; i < 5; i++) {
        const instance = i % 2 === 0 ? app : other;
        expectError(
          await login(instance, { flow: 'signIn', email: 'ivy@example.com', password: `wrong-${i}-password` }),
          401,
          'invalid_credentials',
        );
      }
      for (const instance of [app, other])
        expectError(
          await login(instance, { flow: 'signIn', email: 'ivy@example.com', password: PASSWORD }),
          429,
          'rate_limited',
        );
      const rows = await database.handle.db.selectFrom('login_failures').selectAll().execute();
      assert.ok(rows.length > 0 && rows.every((r) => !r.key.includes('ivy')), 'the table keeps hashes, not e-mails');
      clock.advance(15 * MINUTE);
      assert.equal(
        (await login(other, { flow: 'signIn', email: 'ivy@example.com', password: PASSWORD })).statusCode,
        200,
        'the window has ended',
      );
      // Success clears the e-mail's count: a new failure does not lock again at once.
      expectError(
        await login(app, { flow: 'signIn', email: 'ivy@example.com', password: 'wrong password!' }),
        401,
        'invalid_credentials',
      );
      assert.equal(
        (await login(app, { flow: 'signIn', email: 'ivy@example.com', password: PASSWORD })).statusCode,
        200,
      );
    });

    test('a sign-in re-hashes a password stored at another cost than the configured one', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      await signUp(app, 'oda@example.com', PASSWORD);
      const storedHash = async () =>
        (
          await database.handle.db
            .selectFrom('users')
            .select('password_hash')
            .where('email', '=', 'oda@example.com')
            .executeTakeFirstOrThrow()
        ).password_hash;
      const before = await storedHash();
      assert.match(before, new RegExp(`^scrypt\\$${2 ** TEST_PASSWORD_SCRYPT_COST}\\$8\\$1\\$`));
      const otherHandle = database.open();
      const raised = await buildApp({
        db: otherHandle.db,
        dbHandle: otherHandle,
        notifyChannel: database.pgSchema,
        config: testConfig({ passwordScryptCost: TEST_PASSWORD_SCRYPT_COST + 1 }),
      });
      t.after(async () => {
        await raised.close();
        await otherHandle.close();
      });
      expectError(
        await login(raised, { flow: 'signIn', email: 'oda@example.com', password: 'wrong password!' }),
        401,
        'invalid_credentials',
      );
      assert.equal(await storedHash(), before, 'a failed sign-in changes nothing');
      assert.equal(
        (await login(raised, { flow: 'signIn', email: 'oda@example.com', password: PASSWORD })).statusCode,
        200,
      );
      const after = await storedHash();
      assert.match(after, new RegExp(`^scrypt\\$${2 ** (TEST_PASSWORD_SCRYPT_COST + 1)}\\$8\\$1\\$`));
      assert.equal(
        (await login(raised, { flow: 'signIn', email: 'oda@example.com', password: PASSWORD })).statusCode,
        200,
      );
      assert.equal(await storedHash(), after, 'a hash at the configured cost is kept');
    });

    test('repeated failures from one client address answer 429 for every e-mail', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      for (let i = 0; i < 20; i++)
        expectError(
          await login(app, { flow: 'signIn', email: `nobody-${i}@example.com`, password: 'wrong password' }),
          401,
          'invalid_credentials',
        );
      const res = await login(app, { flow: 'signUp', email: 'new@example.com', password: PASSWORD });
      expectError(res, 429, 'rate_limited');
      assert.ok(Number(res.headers['retry-after']) > 0);
    });

    test('invalid login bodies are 400 validation_error and create nobody', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const email = 'gil@example.com';
      const cases: [unknown, string][] = [
        [{ flow: 'signUp', email: 'not-an-email', password: PASSWORD }, '/email'],
        [{ flow: 'signUp', email: `${'a'.repeat(245)}@example.com`, password: PASSWORD }, '/email'],
        [{ flow: 'signUp', email, password: 'x'.repeat(7) }, '/password'],
        [{ flow: 'signUp', email, password: 'x'.repeat(257) }, '/password'],
        [{ flow: 'signUp', email, password: 12345678 }, '/password'],
        [{ flow: 'signUp', email, password: PASSWORD, name: 'Gil' }, '/name'],
        [{ flow: 'register', email, password: PASSWORD }, '/flow'],
        [{ email, password: PASSWORD }, '/flow'],
        [{ flow: 'signUp', password: PASSWORD }, '/email'],
        [{ flow: 'signUp', email }, '/password'],
        [[], '/'],
      ];
      for (const [payload, path] of cases) {
        const res = await login(app, payload);
        expectValidation(res, path);
        assert.equal(res.headers['cache-control'], 'no-store');
      }
      expectValidation(
        await call(app, 'POST', '/api/v1/cli-token', {
          payload: '{"flow":',
          headers: { 'content-type': 'application/json' },
        }),
      );
      expectError(await login(app, { flow: 'signIn', email, password: PASSWORD }), 401, 'invalid_credentials');
      // The edges are accepted: 8 and 256 characters.
      assert.equal(
        (await login(app, { flow: 'signUp', email: 'h8@example.com', password: 'x'.repeat(8) })).statusCode,
        200,
      );
      assert.equal(
        (await login(app, { flow: 'signUp', email: 'h256@example.com', password: 'x'.repeat(256) })).statusCode,
        200,
      );
    });
  });

  describe(`login tokens on ${dialect}`, () => {
    test('logout answers 204, then the token is 401 everywhere', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const other = await login(app, { flow: 'signIn', email: user.email, password: user.password });
      const res = await call(app, 'DELETE', '/api/v1/cli-token', {
        token: user.token,
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(res.statusCode, 204, res.body);
      assert.equal(res.body, '');
      expectError(await call(app, 'GET', '/api/v1/apps', { token: user.token }), 401, 'unauthorized');
      expectError(await call(app, 'DELETE', '/api/v1/cli-token', { token: user.token }), 401, 'unauthorized');
      // Only the presented token is revoked.
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: other.json().token })).statusCode, 200);
    });

    test('logout needs a cli_ token', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const created = await createApp(app, user.token);
      expectError(await call(app, 'DELETE', '/api/v1/cli-token'), 401, 'unauthorized');
      expectError(await call(app, 'DELETE', '/api/v1/cli-token', { token: created.admin }), 401, 'unauthorized');
      expectError(await call(app, 'DELETE', '/api/v1/cli-token', { token: created.sdk.dev! }), 401, 'unauthorized');
      expectError(await call(app, 'DELETE', '/api/v1/cli-token', { token: 'cli_unknown' }), 401, 'unauthorized');
    });

    test('an expired login token is 401', async (t) => {
      const { app, database } = await buildTestApp(t, { dialect });
      const user = await signUp(app);
      const expired = await insertCliToken(database.handle.db, user.userId, {
        expiresAt: new Date(Date.now() - 1000).toISOString(),
      });
      const live = await insertCliToken(database.handle.db, user.userId);
      expectError(await call(app, 'GET', '/api/v1/apps', { token: expired }), 401, 'unauthorized');
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token: live })).statusCode, 200);
    });

    test('neither the token nor the password ever reaches the logs', async (t) => {
      const { app, logs } = await buildTestApp(t, { dialect, captureLogs: true });
      const password = 'very-secret-password-42';
      const res = await login(app, { flow: 'signUp', email: 'ivy@example.com', password });
      assert.equal(res.statusCode, 200);
      const token = res.json().token as string;
      await login(app, { flow: 'signIn', email: 'ivy@example.com', password: 'wrong-password-99' });
      const created = await createApp(app, token);
      assert.equal((await call(app, 'GET', '/api/v1/apps', { token })).statusCode, 200);
      assert.equal(
        (await call(app, 'GET', `/api/v1/keys?appId=${created.appId}`, { token: created.admin })).statusCode,
        200,
      );
      await call(app, 'GET', '/api/v1/apps', { token: `${token}x` });
      // Credentials in a URL (the OFREP event stream's token travels there: platform/logging.test.ts).
      await call(app, 'GET', `/api/v1/apps?token=${token}`);
      await call(app, 'GET', `/api/v1/keys?appId=${created.appId}&apiKey=${created.admin}`);
      const text = logs();
      assert.ok(text.includes('/api/v1/cli-token') && text.includes('/api/v1/apps'), 'requests are logged');
      assertContainsNone(text, [token, password, 'wrong-password-99', ...created.tokens], 'the log');
      assertContainsNone(text, [token.slice(4, 30), created.admin.slice(6, 30)], 'the log');
    });
  });
}
