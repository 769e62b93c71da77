// The moves of an experiment once it is more than a draft's definition: start, pause, resume, ramp,
// iterate, complete and archive. What a started experiment serves lives in the environment's config
// state, written through the config mutator in the same transaction (docs/decisions/0018): each move
// raises the config version and is journaled as a config change. In a protected environment
// (decision 0029) the moves that only reduce exposure (pause, complete without a winner) are direct
// with a reason, journaled with source emergency; the others need a clearance from an executed
// proposal (the change kinds of experiment-change-kinds.ts), else 403.
import { randomBytes } from 'node:crypto';
import type { Executor } from '../../../db/transaction.js';
import { conflict, validationError } from '../../../platform/errors.js';
import type { Principal } from '../../../platform/principal.js';
import type { JournalSource } from '../../core/journal/index.js';
import {
  clearDirectMove,
  clearedId,
  clearedPermission,
  clearedSalt,
  clearedSource,
  proposalHint,
  type Clearance,
} from '../../core/config/index.js';
import { bucketsOf, checkAllocation, checkServedFields } from './experiment-checks.js';
import type { EnvInput, ExperimentRevisions, ExperimentsDeps, ServedChange } from './experiment-revisions.js';
import { TRANSITIONS, type ExperimentState, type Iteration } from './experiments.model.js';
import * as repo from './experiments.repository.js';
import { servedOnFlag } from './served-state.js';

export interface TransitionInput extends EnvInput {
  revision: number;
  to: ExperimentState;
  reason?: string;
  winner?: string;
}
export interface RampInput extends EnvInput {
  revision: number;
  allocation: number;
}
export interface IterateInput extends EnvInput {
  revision: number;
}

/** The moves of ExperimentsService (experiments.service.ts), each taking the clearance it documents. */
export interface ExperimentLifecycle {
  transition(
    trx: Executor,
    principal: Principal,
    id: string,
    input: TransitionInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<ServedChange>;
  ramp(
    trx: Executor,
    principal: Principal,
    id: string,
    input: RampInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<ServedChange>;
  iterate(
    trx: Executor,
    principal: Principal,
    id: string,
    input: IterateInput,
    source: JournalSource,
    clearance?: Clearance,
  ): Promise<ServedChange>;
}

const newSalt = () => randomBytes(12).toString('base64url');

export function experimentLifecycle(deps: ExperimentsDeps, revisions: ExperimentRevisions): ExperimentLifecycle {
  const { layers } = deps;
  const { nowIso, target, view, held, save, served, applyServed } = revisions;

  return {
    async transition(trx, principal, id, input, sourceGiven, clearanceGiven) {
      const envTarget = await target(
        principal,
        input.appId,
        input.env,
        clearedPermission(clearanceGiven, 'change'),
        trx,
      );
      const row = await held(trx, envTarget, id, input.revision);
      const from = row.state;
      const to = input.to;
      // Any state name is accepted; no move leads back to draft, and that is refused like every move not allowed.
      if (to === 'draft' || !TRANSITIONS[from].includes(to)) {
        throw conflict('invalid_transition', `An experiment cannot move from ${from} to ${to}.`, {
          resolution: `From ${from} it can move to: ${TRANSITIONS[from].join(', ') || 'nothing (archived is final)'}.`,
          metadata: { from, to, allowed: TRANSITIONS[from] },
        });
      }
      if (input.winner !== undefined) {
        if (to !== 'completed')
          throw validationError('winner is given only when completing an experiment.', [
            { path: '/winner', message: 'is allowed only with to: completed' },
          ]);
        if (!row.definition.variants.some((v) => v.key === input.winner)) {
          throw validationError(`winner "${input.winner}" is not a variant of this experiment.`, [
            { path: '/winner', message: `must be one of ${row.definition.variants.map((v) => v.key).join(', ')}` },
          ]);
        }
      }
      // Pausing and completing without a winner only take subjects out: the stops of a protected environment.
      const stop = to === 'paused' || (to === 'completed' && input.winner === undefined);
      const clearance = clearDirectMove(
        envTarget,
        {
          stop,
          reason: input.reason,
          proposal: proposalHint(
            'experiment.transition',
            envTarget,
            [id],
            {
              experimentId: id,
              revision: input.revision,
              to: to,
              ...(input.winner !== undefined ? { winner: input.winner } : {}),
            },
            [
              ['to', to],
              ['winner', input.winner],
              ['revision', input.revision],
            ],
          ),
        },
        clearanceGiven,
      );
      const source = clearedSource(clearance, sourceGiven);
      const operation = {
        running: from === 'draft' ? 'experiment.start' : 'experiment.resume',
        paused: 'experiment.pause',
        completed: 'experiment.complete',
        archived: 'experiment.archive',
      }[to];
      return applyServed(trx, principal, envTarget, id, operation, source, clearance, async (state) => {
        let iteration = await repo.currentIteration(trx, id);
        if (from === 'draft') {
          checkServedFields(state, row.definition);
          const other = servedOnFlag(state, row.definition.flagKey, id);
          if (other) {
            throw conflict(
              'flag_in_experiment',
              `Flag "${row.definition.flagKey}" already runs experiment ${other.key} (${other.id}).`,
              {
                resolution: 'Complete that experiment first; a flag runs one experiment at a time.',
                metadata: { experimentId: other.id },
              },
            );
          }
          iteration = {
            id: clearedId(clearance, 'itr'),
            number: 1,
            revision: 1,
            salt: clearedSalt(clearance, 'iteration', newSalt),
            allocation: row.definition.allocation,
            startedAt: nowIso(),
            state: 'running',
          };
          await repo.insertIteration(trx, id, iteration, iteration.startedAt);
        } else if (iteration && to !== 'archived') {
          iteration = { ...iteration, state: to === 'completed' ? 'completed' : to };
          await repo.setIterationState(trx, iteration, iteration.state);
        }
        if (to === 'archived' && row.definition.layerId)
          await layers.release(trx, envTarget, row.definition.layerId, id);
        const lastTransition = { from, to: to, reason: input.reason ?? null, at: nowIso() };
        const definition = {
          ...row.definition,
          lastTransition,
          ...(to === 'completed' ? { winner: input.winner ?? null } : {}),
        };
        const saved = await save(trx, row, { state: to, definition }, principal);
        const serves = to === 'running' || to === 'paused';
        return { row: saved, before: row, served: serves ? await served(trx, envTarget, saved, iteration!) : null };
      });
    },

    async ramp(trx, principal, id, input, sourceGiven, clearanceGiven) {
      const envTarget = await target(
        principal,
        input.appId,
        input.env,
        clearedPermission(clearanceGiven, 'change'),
        trx,
      );
      const row = await held(trx, envTarget, id, input.revision);
      if (row.state !== 'running' && row.state !== 'paused') {
        throw conflict(
          'invalid_state',
          `Only a running or paused experiment can be ramped; this one is ${row.state}.`,
          {
            resolution:
              row.state === 'draft' ? 'Change the allocation of a draft with PATCH.' : 'Create a new experiment.',
            metadata: { state: row.state },
          },
        );
      }
      checkAllocation(input.allocation);
      if (input.allocation === row.definition.allocation) {
        return {
          experiment: await view(trx, envTarget, row),
          version: (await deps.store.lock(trx, envTarget)).version,
          changeId: null,
        };
      }
      // Either way a ramp changes who is measured mid-iteration: never a stop.
      const clearance = clearDirectMove(
        envTarget,
        {
          stop: false,
          proposal: proposalHint(
            'experiment.ramp',
            envTarget,
            [id],
            { experimentId: id, revision: input.revision, allocation: input.allocation },
            [
              ['allocation', input.allocation],
              ['revision', input.revision],
            ],
          ),
        },
        clearanceGiven,
      );
      return applyServed(
        trx,
        principal,
        envTarget,
        id,
        'experiment.ramp',
        clearedSource(clearance, sourceGiven),
        clearance,
        async () => {
          const current = (await repo.currentIteration(trx, id))!;
          // In a layer the range is the allocation: it grows or shrinks at its end (409 layer_full).
          if (row.definition.layerId)
            await layers.place(trx, envTarget, row.definition.layerId, id, bucketsOf(input.allocation));
          const iteration: Iteration = { ...current, revision: current.revision + 1, allocation: input.allocation };
          await repo.insertIteration(trx, id, iteration, nowIso());
          const saved = await save(
            trx,
            row,
            { state: row.state, definition: { ...row.definition, allocation: input.allocation } },
            principal,
          );
          return { row: saved, before: row, served: await served(trx, envTarget, saved, iteration) };
        },
      );
    },

    async iterate(trx, principal, id, input, sourceGiven, clearanceGiven) {
      const envTarget = await target(
        principal,
        input.appId,
        input.env,
        clearedPermission(clearanceGiven, 'change'),
        trx,
      );
      const row = await held(trx, envTarget, id, input.revision);
      if (row.state !== 'paused') {
        throw conflict('invalid_state', `Only a paused experiment can be iterated; this one is ${row.state}.`, {
          resolution:
            row.state === 'running' ? 'Pause it first, then iterate.' : 'Iterate applies to paused experiments only.',
          metadata: { state: row.state },
        });
      }
      const clearance = clearDirectMove(
        envTarget,
        {
          stop: false,
          proposal: proposalHint(
            'experiment.iterate',
            envTarget,
            [id],
            { experimentId: id, revision: input.revision },
            [['revision', input.revision]],
          ),
        },
        clearanceGiven,
      );
      return applyServed(
        trx,
        principal,
        envTarget,
        id,
        'experiment.iterate',
        clearedSource(clearance, sourceGiven),
        clearance,
        async () => {
          const previous = (await repo.currentIteration(trx, id))!;
          await repo.setIterationState(trx, previous, 'completed');
          const at = nowIso();
          const iteration: Iteration = {
            id: clearedId(clearance, 'itr'),
            number: previous.number + 1,
            revision: 1,
            salt: clearedSalt(clearance, 'iteration', newSalt),
            allocation: previous.allocation,
            startedAt: at,
            state: 'running',
          };
          await repo.insertIteration(trx, id, iteration, at);
          const saved = await save(trx, row, { state: 'running', definition: row.definition }, principal);
          return { row: saved, before: row, served: await served(trx, envTarget, saved, iteration) };
        },
      );
    },
  };
}
