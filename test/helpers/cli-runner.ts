// Runs the `ensign` CLI and collects what it printed: in this process (runCommand with streams and an
// environment of the test's own, as a user's shell would give it), or as a child process (spawnCli)
// where the process itself is under test (exit statuses in cli.test.ts, `serve` and the operator
// commands that read the server's configuration from the environment in cli-operator.test.ts; a closed
// pipe in cli-pipe.test.ts starts its own).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { runCommand } from '../../src/cli/run.js';
import { entryArgs, ROOT } from './entry-points.js';

export { ROOT };
export const CLI = join(ROOT, 'src/cli/main.ts');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

type Env = NodeJS.ProcessEnv | Record<string, string | undefined>;

function collector() {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** One command in this process; `env` is the whole environment the command sees. */
export async function runCli(args: string[], env: Env, stdin = ''): Promise<CliRun> {
  const stdout = collector();
  const stderr = collector();
  const code = await runCommand(args, {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from([Buffer.from(stdin)]),
    env: { ...env },
  });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

/** One command as a child process, the way a user would start it. */
export function spawnCli(args: string[], env: Env, stdin = ''): Promise<CliRun> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [...entryArgs(CLI), ...args], {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
    });
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
  const env = {
    ...process.env,
    ENSIGN_URL: address,
    ENSIGN_TOKEN: token,
    HOME: join(dir, 'home'),
    XDG_CONFIG_HOME: join(dir, 'xdg'),
  };
  const run = (args: string[]) => runCli(args, env);
  const ok = async (args: string[]) => {
    const r = await run(args);
    if (r.code !== 0) throw new Error(`ensign ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
    return r.stdout;
  };
  return { env, run, ok };
}
