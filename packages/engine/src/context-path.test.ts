import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { attributePathProblem, compileAttributePath } from './context-path.js';

describe('compileAttributePath', () => {
  test('reads top-level and nested attributes', () => {
    const context = { targetingKey: 'u1', plan: 'pro', user: { address: { country: 'FR' } } };
    assert.equal(compileAttributePath('targetingKey')(context), 'u1');
    assert.equal(compileAttributePath('plan')(context), 'pro');
    assert.equal(compileAttributePath('user.address.country')(context), 'FR');
    assert.deepEqual(compileAttributePath('user.address')(context), { country: 'FR' });
  });

  test('missing segments and non-object intermediates give undefined', () => {
    const context = { plan: 'pro', user: null, list: [1, 2] };
    assert.equal(compileAttributePath('nope')(context), undefined);
    assert.equal(compileAttributePath('plan.length')(context), undefined);
    assert.equal(compileAttributePath('user.id')(context), undefined);
    assert.equal(compileAttributePath('a.b.c')(context), undefined);
  });

  test('array elements are reachable by index', () => {
    assert.equal(compileAttributePath('list.1')({ list: ['a', 'b'] }), 'b');
  });

  test('inherited properties are never read', () => {
    const context = { user: {} };
    assert.equal(compileAttributePath('constructor')(context), undefined);
    assert.equal(compileAttributePath('__proto__')(context), undefined);
    assert.equal(compileAttributePath('toString')(context), undefined);
    assert.equal(compileAttributePath('user.constructor')(context), undefined);
    assert.equal(compileAttributePath('user.hasOwnProperty')(context), undefined);
  });

  test('a flat key spelled like the dotted path wins over nesting', () => {
    const context = { 'app.version': '2.0.0', app: { version: '1.0.0' } };
    assert.equal(compileAttributePath('app.version')(context), '2.0.0');
    assert.equal(compileAttributePath('app.version')({ app: { version: '1.0.0' } }), '1.0.0');
  });
});

describe('attributePathProblem', () => {
  test('accepts dotted paths', () => {
    for (const path of ['plan', 'user.address.country', 'targetingKey', 'a-b.c_d', 'list.0']) {
      assert.equal(attributePathProblem(path), null, path);
    }
  });

  test('explains what is wrong', () => {
    assert.equal(attributePathProblem(''), 'must be a non-empty string');
    assert.equal(attributePathProblem(3), 'must be a non-empty string');
    assert.equal(attributePathProblem('a..b'), 'must be a dotted path without empty segments (like "user.country")');
    assert.equal(attributePathProblem('.a'), 'must be a dotted path without empty segments (like "user.country")');
    assert.equal(attributePathProblem('x'.repeat(257)), 'must be at most 256 characters');
  });
});
