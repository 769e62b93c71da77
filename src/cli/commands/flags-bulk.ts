// flags bulk: PATCH /api/v1/flags/bulk with the flags / advanced / privacy fields of a JSON file, all or
// nothing. The default idempotency key is derived from the file, the app, the environment and the
// expected version, so running the same command twice replays the first answer instead of applying
// twice, while a different --expected-version is a new request.
import { createHash } from 'node:crypto';
import type { Command } from 'commander';
import { action } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger, readJsonFile } from '../input.js';
import { emit, note, printLine } from '../output.js';
import { idempotencyKey } from './idempotency.js';

interface BulkResponse {
  version: number;
  changeId: string | null;
  updated: string[];
  replay?: { idempotencyKey: string; replayed: boolean; firstAppliedAt?: string };
}

const RESERVED = ['appId', 'env', 'expectedVersion', 'idempotencyKey'];

/** Covers everything the request sends besides the key itself, so a different request never replays an earlier answer. */
export function bulkIdempotencyKey(fileText: string, app: string, env: string, expectedVersion?: number): string {
  const hash = createHash('sha256').update(fileText).update('\0').update(app).update('\0').update(env);
  if (expectedVersion !== undefined) hash.update('\0').update(`expectedVersion=${expectedVersion}`);
  return `cli-bulk-${hash.digest('hex')}`;
}

export function registerFlagsBulkCommand(flags: Command, scoped: (c: Command) => Command): void {
  scoped(
    flags
      .command('bulk')
      .description('apply flag values, advanced configuration and privacy settings from a file in one version'),
  )
    .requiredOption('--file <path>', 'JSON object with any of: flags ({"<key>": <value>}), advanced, privacy')
    .option(
      '--idempotency-key <key>',
      'default: sha256 of the file, app, environment and expected version (reruns replay)',
    )
    .option('--expected-version <n>', 'apply only if the environment is at this version')
    .action(
      action(
        async (
          ctx,
          o: { app: string; env: string; file: string; idempotencyKey?: string; expectedVersion?: string },
        ) => {
          const { text, value } = readJsonFile(o.file);
          if (!value || typeof value !== 'object' || Array.isArray(value))
            throw new UsageError(`${o.file} must hold a JSON object with flags, advanced and/or privacy`);
          const fields = value as Record<string, unknown>;
          const clash = RESERVED.filter((f) => f in fields);
          if (clash.length)
            throw new UsageError(
              `${o.file} must not set ${clash.join(', ')}`,
              'Give them as --app, --env, --expected-version and --idempotency-key.',
            );
          const expectedVersion =
            o.expectedVersion === undefined ? undefined : parseInteger('--expected-version', o.expectedVersion);
          const key =
            o.idempotencyKey !== undefined
              ? idempotencyKey(o.idempotencyKey)
              : bulkIdempotencyKey(text, o.app, o.env, expectedVersion);
          const body: Record<string, unknown> = { appId: o.app, env: o.env, ...fields, idempotencyKey: key };
          if (expectedVersion !== undefined) body.expectedVersion = expectedVersion;
          const res = await ctx.client.patch<BulkResponse>('/api/v1/flags/bulk', body, {
            headers: { 'idempotency-key': key },
          });
          const replayed = res.body.replay?.replayed || res.headers.get('idempotent-replayed') === 'true';
          emit(ctx.json, res.body, () => {
            if (res.body.changeId === null) printLine(`Nothing changed (version ${res.body.version}).`);
            else printLine(`Applied: version ${res.body.version}, change ${res.body.changeId}.`);
            printLine(`updated: ${res.body.updated.length ? res.body.updated.join(', ') : '(none)'}`);
          });
          if (replayed)
            note(
              `replayed: this file was already applied${res.body.replay?.firstAppliedAt ? ` at ${res.body.replay.firstAppliedAt}` : ''} (idempotency key ${key}).`,
            );
        },
      ),
    );
}
