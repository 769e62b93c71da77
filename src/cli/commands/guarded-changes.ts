// Experiments and rollouts in protected environments (issue 20, decision 0029) from the command line:
//   ensign propose experiment-transition|experiment-ramp|experiment-iterate|experiment-patch <experimentId> …
//   ensign propose layer-patch <layerId> … | holdout-patch <holdoutId> …
//   ensign propose rollout-create <experimentId> … | rollout-transition|rollout-approve <experimentId> <planId> …
//   ensign experiments stop <experimentId> --reason … [--complete]
//   ensign rollouts stop <experimentId> <planId> --reason … [--cancel | --rollback]
// The propose commands read the target's current revision (or version, or plan version) and the
// environment's config version unless given; the 403 approval_required of a direct move names the
// command to run. The proposals are in guarded-proposals.ts, the stops in emergency-stops.ts.
import type { Command } from 'commander';
import { registerStops } from './emergency-stops.js';
import { registerProposals } from './guarded-proposals.js';

export function registerGuardedChangeCommands(program: Command): void {
  const group = (name: string) => {
    const found = program.commands.find((c) => c.name() === name);
    if (!found) throw new Error(`the ${name} command group is registered first`);
    return found;
  };
  registerProposals(group('propose'));
  registerStops(group('experiments'), group('rollouts'));
}
