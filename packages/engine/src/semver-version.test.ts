// The engine's semantic-version parser and precedence against node-semver's strict parse and
// compare, which they were written out from (semver-version.ts): the same answers on generated
// versions, near-versions and the edge cases of each component.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import semver from 'semver';
import { parseSemver } from './semver-version.js';

const identifier = fc.oneof(
  fc.constantFrom(
    '0',
    '1',
    '01',
    '9007199254740991',
    '9007199254740992',
    '99999999999999999999',
    'alpha',
    'beta',
    'rc',
    'x-y',
    '-',
    '1a',
    'a1',
    '0a',
    '00',
    '',
  ),
  fc.stringMatching(/^[0-9A-Za-z-]{1,6}$/),
);
const number = fc.oneof(
  fc.constantFrom('0', '1', '01', '10', '9007199254740991', '9007199254740992', '99999999999999999'),
  fc.nat({ max: 30 }).map(String),
);
const version = fc
  .tuple(
    number,
    number,
    number,
    fc.option(fc.array(identifier, { minLength: 1, maxLength: 4 })),
    fc.option(fc.array(identifier, { minLength: 1, maxLength: 2 })),
  )
  .map(
    ([a, b, c, pre, build]) => `${a}.${b}.${c}${pre ? `-${pre.join('.')}` : ''}${build ? `+${build.join('.')}` : ''}`,
  );

/** node-semver's strict reading, after the engine's own (no surrounding blanks, one optional v). */
function reference(text: string) {
  if (text.trim() !== text || text.length === 0 || text.length > 256) return null;
  const stripped = /^[vV]/.test(text) ? text.slice(1) : text;
  if (/^[vV]/.test(stripped)) return null;
  const partial = /^(0|[1-9]\d{0,15})(?:\.(0|[1-9]\d{0,15}))?$/.exec(stripped);
  return semver.parse(partial ? `${partial[1]}.${partial[2] ?? '0'}.0` : stripped, { loose: false });
}

describe('semantic versions as node-semver reads them', () => {
  test('parse: the same versions accepted, with the same components', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          version,
          fc.string({ maxLength: 12 }),
          version.map((v) => `v${v}`),
          version.map((v) => ` ${v}`),
        ),
        (text) => {
          const ours = parseSemver(text);
          const theirs = reference(text);
          assert.equal(ours === null, theirs === null, text);
          if (ours !== null && theirs !== null) {
            assert.deepEqual(
              [ours.major, ours.minor, ours.patch, [...ours.prerelease]],
              [theirs.major, theirs.minor, theirs.patch, theirs.prerelease],
              text,
            );
          }
        },
      ),
      { numRuns: 4000 },
    );
  });

  test('compare: the same precedence for every pair', () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const x = parseSemver(a);
        const y = parseSemver(b);
        fc.pre(x !== null && y !== null);
        assert.equal(x!.compare(y!), semver.compare(a, b), `${a} vs ${b}`);
      }),
      { numRuns: 4000 },
    );
    const ordered = [
      '1.0.0-alpha',
      '1.0.0-alpha.1',
      '1.0.0-alpha.beta',
      '1.0.0-beta',
      '1.0.0-beta.2',
      '1.0.0-beta.11',
      '1.0.0-rc.1',
      '1.0.0',
    ];
    for (let i = 1; i < ordered.length; i++)
      assert.equal(parseSemver(ordered[i - 1])!.compare(parseSemver(ordered[i])!), -1, ordered[i]);
    assert.equal(parseSemver('1.0.0+a')!.compare(parseSemver('1.0.0+b')!), 0);
  });

  test('the edges: components past 2^53, leading zeros, the v prefix', () => {
    assert.equal(parseSemver('9007199254740992.0.0'), null);
    assert.notEqual(parseSemver('9007199254740991.0.0'), null);
    assert.equal(parseSemver('01.0.0'), null);
    assert.equal(parseSemver('1.0.0-01'), null);
    assert.equal(parseSemver('vv1.0.0'), null);
    assert.deepEqual(parseSemver('V1.2')!.prerelease, []);
    assert.deepEqual([...parseSemver('1.0.0-9007199254740991')!.prerelease], ['9007199254740991']);
  });
});
