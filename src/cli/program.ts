// The `ensign` command tree: global options, then each command group from its own module.
import { Command } from 'commander';
import { registerAdvancedCommands } from './commands/advanced.js';
import { registerAppsCommands } from './commands/apps.js';
import { registerAuthCommands } from './commands/auth.js';
import { registerChangesCommand } from './commands/changes.js';
import { registerCleanupCommand } from './commands/cleanup.js';
import { registerDefinitionCommands } from './commands/definitions.js';
import { registerExportsCommands } from './commands/exports.js';
import { registerDeliveryCommands } from './commands/delivery.js';
import { registerEnvsCommands } from './commands/envs.js';
import { registerExperimentsCommands } from './commands/experiments.js';
import { registerRolloutsCommands } from './commands/rollouts.js';
import { registerFlagsCommands } from './commands/flags.js';
import { registerInsightsCommands } from './commands/insights.js';
import { registerKeysCommands } from './commands/keys.js';
import { registerServerCommands } from './commands/server.js';
import { registerUseCommand } from './commands/use.js';
import { registerVersionsCommands } from './commands/versions.js';
import { registerMembersCommands } from './commands/members.js';
import { registerInvitationsCommands } from './commands/invitations.js';
import { registerRollbackCommands } from './commands/rollback.js';
import { registerAuthorityCommands } from './commands/authority.js';
import { registerGuardedChangeCommands } from './commands/guarded-changes.js';
import { DEFAULT_URL } from './context.js';
import { CLI_VERSION } from './http-client.js';
import { cliIo } from './io.js';

export function buildProgram(): Command {
  const program = new Command('ensign')
    .description('Ensign feature flags from the command line. Log in first: ensign login --email you@example.com')
    .version(CLI_VERSION)
    .option('--json', 'print the raw JSON response instead of tables')
    .option('--url <url>', `server address (env ENSIGN_URL, else the saved login's, else ${DEFAULT_URL})`)
    .configureHelp({ showGlobalOptions: true })
    // Commander writes help and usage errors to the command's streams (io.ts), not the process's.
    .configureOutput({
      writeOut: (text) => cliIo().stdout.write(text),
      writeErr: (text) => cliIo().stderr.write(text),
    })
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();

  registerAuthCommands(program);
  registerAppsCommands(program);
  registerUseCommand(program);
  registerEnvsCommands(program);
  registerKeysCommands(program);
  registerFlagsCommands(program);
  registerVersionsCommands(program);
  registerMembersCommands(program);
  registerInvitationsCommands(program);
  registerRollbackCommands(program);
  registerAuthorityCommands(program);
  registerChangesCommand(program);
  registerCleanupCommand(program);
  registerExportsCommands(program);
  registerDeliveryCommands(program);
  registerAdvancedCommands(program);
  registerInsightsCommands(program);
  registerDefinitionCommands(program);
  registerExperimentsCommands(program);
  registerRolloutsCommands(program);
  registerGuardedChangeCommands(program);
  registerServerCommands(program);
  return program;
}
