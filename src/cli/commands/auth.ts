// login and logout: POST /api/v1/cli-token saves a cli_ token; DELETE /api/v1/cli-token revokes it.
import type { Command } from 'commander';
import { action } from '../context.js';
import { removeCredentials, saveCredentials } from '../credentials.js';
import { ApiError, UsageError } from '../errors.js';
import { promptHidden, promptLine, readStdin } from '../input.js';
import { cliIo } from '../io.js';
import { emit, note, printLine } from '../output.js';

interface LoginResponse {
  apiVersion: 1;
  token: string;
  expiresAt: string;
  user: { id: string; email: string };
}

interface LoginOptions {
  email?: string;
  passwordStdin?: boolean;
  signUp?: boolean;
}

async function readPassword(options: LoginOptions): Promise<string> {
  if (options.passwordStdin) {
    const text = (await readStdin()).replace(/\r?\n$/, '');
    if (!text) throw new UsageError('--password-stdin was given but standard input is empty');
    return text;
  }
  return promptHidden('Password: ');
}

export function registerAuthCommands(program: Command): void {
  program
    .command('login')
    .description('sign in (or sign up with --sign-up) and save a cli_ token for the next commands')
    .option('--email <email>', 'account e-mail (asked for on a terminal when omitted)')
    .option('--password-stdin', 'read the password from standard input instead of prompting')
    .option('--sign-up', 'create the account (flow signUp) instead of signing in')
    .action(
      action(async (ctx, options: LoginOptions) => {
        let email = options.email?.trim();
        if (!email && cliIo().stdin.isTTY && !options.passwordStdin) email = await promptLine('E-mail: ');
        if (!email) throw new UsageError('--email is required', 'ensign login --email you@example.com');
        const password = await readPassword(options);
        const res = await ctx.client.post<LoginResponse>(
          '/api/v1/cli-token',
          { flow: options.signUp ? 'signUp' : 'signIn', email, password },
          { token: null },
        );
        const { token, expiresAt, user } = res.body;
        saveCredentials({ url: ctx.url, token, email: user.email, expiresAt }, ctx.credentialsFile);
        emit(ctx.json, res.body, () => {
          printLine(`Logged in to ${ctx.url} as ${user.email} (user ${user.id}).`);
          printLine(`Token expires ${expiresAt}; saved to ${ctx.credentialsFile}.`);
        });
        if (cliIo().env.ENSIGN_TOKEN) note('note: ENSIGN_TOKEN is set and takes precedence over the saved token.');
      }),
    );

  program
    .command('logout')
    .description('revoke the current cli_ token on the server and remove the saved credentials')
    .action(
      action(async (ctx) => {
        const token = ctx.client.token;
        const savedHere = ctx.saved !== null && ctx.saved.token === token;
        let revoked = false;
        if (!token) {
          note('not logged in to ' + ctx.url);
        } else {
          try {
            await ctx.client.delete('/api/v1/cli-token');
            revoked = true;
          } catch (err) {
            if (!(err instanceof ApiError && err.status === 401)) throw err;
            note('the server no longer accepts this token (already revoked or expired)');
          }
        }
        const removed = savedHere ? removeCredentials(ctx.credentialsFile) : false;
        emit(ctx.json, { revoked, credentialsRemoved: removed }, () => {
          if (revoked) printLine(`Token revoked on ${ctx.url}.`);
          if (removed) printLine(`Removed ${ctx.credentialsFile}.`);
          if (token && !savedHere) printLine('The token came from ENSIGN_TOKEN; unset it in your shell.');
        });
      }),
    );
}
