// Runs the `ensign` CLI as a child process, the way a user would, and collects what it printed.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
const CLI = join(ROOT, 'src/cli/main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: NodeJS.ProcessEnv | Record<string, string | undefined>, stdin = ''): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: ROOT, env: env as NodeJS.ProcessEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

/**
 * A user of the CLI against one server: their token, and a home of their own under `dir` (so saved
 * logins and `ensign use` defaults stay in the test). `ok` runs a command and asserts it succeeded.
 */
export function cliUser(address: string, token: string, dir: string) {
  const env = { ...process.env, ENSIGN_URL: address, ENSIGN_TOKEN: token, HOME: join(dir, 'home'), XDG_CONFIG_HOME: join(dir, 'xdg') };
  const run = (args: string[]) => runCli(args, env);
  const ok = async (args: string[]) => {
    const r = await run(args);
    if (r.code !== 0) throw new Error(`ensign ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
    return r.stdout;
  };
  return { env, run, ok };
}
