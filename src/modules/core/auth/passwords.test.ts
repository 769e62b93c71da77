// Password hashes at the production cost (the route tests run at a low one, test/helpers/test-app.ts):
// the stored form, verification across costs, the decoy, and what a malformed row gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_PASSWORD_SCRYPT_COST } from '../../../config.js';
import { passwordHasher } from './passwords.js';

test('the default cost is N = 16384, r = 8, p = 1; the right password verifies, another does not', async () => {
  const hasher = passwordHasher();
  assert.equal(DEFAULT_PASSWORD_SCRYPT_COST, 14);
  const stored = await hasher.hash('correct horse battery');
  assert.match(stored, /^scrypt\$16384\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  assert.notEqual(await hasher.hash('correct horse battery'), stored, 'a salt of its own per hash');
  assert.equal(await hasher.verify('correct horse battery', stored), true);
  assert.equal(await hasher.verify('correct horse batterY', stored), false);
  assert.equal(hasher.needsRehash(stored), false);
});

test('a hash verifies whatever the cost it was made at; one of another cost needs re-hashing', async () => {
  const low = passwordHasher(4);
  const standard = passwordHasher(14);
  const stored = await low.hash('pw');
  assert.match(stored, /^scrypt\$16\$8\$1\$/);
  assert.equal(await standard.verify('pw', stored), true, 'the parameters come from the stored hash');
  assert.equal(standard.needsRehash(stored), true);
  assert.equal(low.needsRehash(stored), false);
  // 2^15 needs more memory than Node's 32 MiB default allows scrypt.
  const raised = await passwordHasher(15).hash('pw');
  assert.match(raised, /^scrypt\$32768\$/);
  assert.equal(await standard.verify('pw', raised), true);
});

test("the decoy carries the hasher's cost and matches no password", async () => {
  for (const cost of [4, 14]) {
    const hasher = passwordHasher(cost);
    assert.ok(hasher.decoy.startsWith(`scrypt$${2 ** cost}$8$1$`));
    assert.equal(await hasher.verify('', hasher.decoy), false);
    assert.equal(await hasher.verify('AAAA', hasher.decoy), false);
  }
});

test('a malformed or unknown stored hash verifies nothing; a cost out of range is refused', async () => {
  const hasher = passwordHasher(4);
  for (const stored of [
    '',
    'bcrypt$2b$10$abc',
    'scrypt$16$8$1$',
    'scrypt$x$8$1$AAAA$AAAA',
    'scrypt$17$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'scrypt$1$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'scrypt$16$0$1$AAAA$AAAA',
    `scrypt$${2 ** 19}$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    `scrypt$${2 ** 14}$256$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
  ])
    assert.equal(await hasher.verify('pw', stored), false, stored);
  for (const cost of [0, 21, 1.5, Number.NaN]) assert.throws(() => passwordHasher(cost), RangeError);
});
