// The answers a proposal gives when it cannot go on, shared by approval and execution.
import { conflict, notFound } from '../../../platform/errors.js';

export const proposalNotFound = (id: string) => notFound(`Proposal ${id}`);

export const staleProposal = (baseVersion: number, currentVersion: number) =>
  conflict(
    'stale_proposal',
    `The environment moved from version ${baseVersion} to ${currentVersion} since the proposal.`,
    {
      metadata: { baseVersion, currentVersion },
      resolution: 'Propose the change again against the current version.',
    },
  );

export const readbackMismatch = (expectedVersion: number, observedVersion: number | null) =>
  conflict('readback_mismatch', 'The applied state differs from the previewed result; nothing was applied.', {
    metadata: { expectedVersion, observedVersion },
    resolution: 'Read the proposal and the current configuration; propose the change again.',
  });

export const digestMismatch = (digest: string) =>
  conflict('digest_mismatch', 'The digest does not match the proposal.', {
    metadata: { digest },
    resolution: 'Read the proposal (GET /api/v1/authority/proposals/{id}), review it, and send its digest.',
  });
