// Transitions name any state: a move the lifecycle does not allow, back to draft included, is 409
// invalid_transition (CONTRACT: "any other move"), never a schema 400; a name that is no state is 400.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTestApp, dialects } from '../../../../test/helpers/test-app.js';
import { expectError, expectValidation } from '../../../../test/helpers/fixtures.js';
import { experimentsClient } from './experiments.test-client.js';

for (const dialect of dialects) {
  describe(`experiment transitions on ${dialect}`, () => {
    test('to draft from every state, and to the state it is in, are 409 invalid_transition with the allowed moves', async (t) => {
      const { app } = await buildTestApp(t, { dialect });
      const client = await experimentsClient(app);
      const exp = await client.create();
      const move = async (to: string) => {
        const current = (await client.get(`/api/v1/experiments/${exp.id}`)).json().experiment;
        return client.post(`/api/v1/experiments/${exp.id}/transition`, { revision: current.revision, to });
      };
      const refused = async (to: string, from: string, allowed: string[]) => {
        const error = expectError(await move(to), 409, 'invalid_transition');
        assert.deepEqual(error.metadata, { from, to, allowed });
      };
      await refused('draft', 'draft', ['running']);
      await client.served(exp.id, 'transition', { to: 'running' });
      await refused('draft', 'running', ['paused', 'completed']);
      await refused('running', 'running', ['paused', 'completed']);
      await client.served(exp.id, 'transition', { to: 'paused' });
      await refused('draft', 'paused', ['running', 'completed']);
      await client.served(exp.id, 'transition', { to: 'completed' });
      await refused('draft', 'completed', ['archived']);
      await client.served(exp.id, 'transition', { to: 'archived' });
      await refused('draft', 'archived', []);
      // Refusals change nothing.
      assert.equal((await client.get(`/api/v1/experiments/${exp.id}`)).json().experiment.state, 'archived');
      // A name that is no state at all is a validation error.
      expectValidation(await move('deleted'), '/to');
    });
  });
}
