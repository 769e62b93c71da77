// exports and erasures: raw telemetry export destinations (docs/exports.md) and subject erasure
// (docs/erasure.md). HTTP only; every command takes --json.
import { Option, type Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../input.js';
import { emit, note, printLine, printPairs, printTable } from '../output.js';
import { idempotencyKey } from './idempotency.js';

interface Destination {
  id: string;
  name: string;
  url: string;
  kinds: string[];
  filters: { flagKeys?: string[]; experimentIds?: string[] };
  batchSize: number;
  status: string;
  version: number;
  secretVersion: number;
  updatedAt: string;
}
interface Delivery {
  id: string;
  status: string;
  attempts: number;
  eventCount: number;
  firstEventAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastError: { status: number | null; code: string } | null;
}
interface Receipt {
  id: string;
  status: string;
  requestedAt: string;
  completedAt: string | null;
  cutoff: string;
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const envOptions = (c: Command) => scopeOptions(c);

type FieldOptions = {
  kinds?: string;
  flagKeys?: string;
  experimentIds?: string;
  batchSize?: string;
  status?: string;
  name?: string;
  targetUrl?: string;
};

function fieldsOf(o: FieldOptions) {
  const filters = {
    ...(o.flagKeys !== undefined ? { flagKeys: list(o.flagKeys) } : {}),
    ...(o.experimentIds !== undefined ? { experimentIds: list(o.experimentIds) } : {}),
  };
  return {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.targetUrl !== undefined ? { url: o.targetUrl } : {}),
    ...(o.kinds !== undefined ? { kinds: list(o.kinds) } : {}),
    ...(Object.keys(filters).length ? { filters } : {}),
    ...(o.batchSize !== undefined ? { batchSize: parseInteger('--batch-size', o.batchSize, 1) } : {}),
    ...(o.status !== undefined ? { status: o.status } : {}),
  };
}

function printDestination(d: Destination) {
  printPairs([
    ['id', d.id],
    ['name', d.name],
    ['url', d.url],
    ['status', d.status],
    ['kinds', d.kinds.join(', ')],
    ['filters', JSON.stringify(d.filters)],
    ['batch size', d.batchSize],
    ['version', d.version],
    ['secret version', d.secretVersion],
  ]);
}

function printSecret(secret: string) {
  printLine('');
  printLine(`signing secret: ${secret}`);
  note('');
  note('WARNING: the signing secret is shown once and cannot be read again. Store it with your receiver now.');
}

const fieldOptions = (c: Command) =>
  c
    .option('--kinds <list>', 'event kinds, comma-separated (decision, assignment, exposure, outcome; default all)')
    .option('--flag-keys <list>', 'only events of these flags, comma-separated')
    .option('--experiment-ids <list>', 'only events of these experiments, comma-separated')
    .option('--batch-size <n>', 'events per delivery, 1..1000 (default 500)')
    .addOption(new Option('--status <status>', 'active or paused').choices(['active', 'paused']));

export function registerExportsCommands(program: Command): void {
  const exports = program.command('exports').description('raw telemetry export destinations (Standard Webhooks)');

  fieldOptions(
    envOptions(exports.command('create').description('create a destination; its signing secret is shown once')),
  )
    .requiredOption('--name <name>', 'unique in the environment')
    // Not --url: that global option is the Ensign server's address.
    .requiredOption('--target-url <url>', 'where deliveries go: https://<allowed host>/…')
    .option('--idempotency-key <key>', 'caller-stable key; repeat it to retry safely (default: random)')
    .action(
      action(async (ctx, o: FieldOptions & { app: string; env: string; idempotencyKey?: string }) => {
        const res = await ctx.client.post<{ destination: Destination; signingSecret: string }>(
          '/api/v1/telemetry/exports',
          { appId: o.app, env: o.env, ...fieldsOf(o) },
          { headers: { 'idempotency-key': idempotencyKey(o.idempotencyKey) } },
        );
        emit(ctx.json, res.body, () => {
          printDestination(res.body.destination);
          printSecret(res.body.signingSecret);
        });
      }),
    );

  envOptions(exports.command('list').description('list destinations'))
    .addOption(new Option('--status <status>').choices(['active', 'paused', 'disabled']))
    .option('--limit <n>', '1..100 (default 20)')
    .option('--cursor <cursor>', 'nextCursor of the previous page')
    .action(
      action(async (ctx, o: { app: string; env: string; status?: string; limit?: string; cursor?: string }) => {
        const res = await ctx.client.get<{ destinations: Destination[]; nextCursor: string | null }>(
          '/api/v1/telemetry/exports',
          { query: { appId: o.app, env: o.env, status: o.status, limit: o.limit, cursor: o.cursor } },
        );
        emit(ctx.json, res.body, () => {
          printTable(
            ['ID', 'NAME', 'STATUS', 'URL', 'VERSION'],
            res.body.destinations.map((d) => [d.id, d.name, d.status, d.url, d.version]),
            'No destinations.',
          );
          if (res.body.nextCursor) printLine(`\nnext page: --cursor ${res.body.nextCursor}`);
        });
      }),
    );

  envOptions(exports.command('show <id>').description('a destination and its delivery health')).action(
    action(async (ctx, id: string, o: { app: string; env: string }) => {
      const res = await ctx.client.get<{ destination: Destination; health: Record<string, unknown> }>(
        `/api/v1/telemetry/exports/${encodeURIComponent(id)}`,
        { query: { appId: o.app, env: o.env } },
      );
      emit(ctx.json, res.body, () => {
        printDestination(res.body.destination);
        printLine('');
        printPairs(
          Object.entries(res.body.health).map(([k, v]) => [
            k,
            typeof v === 'object' && v !== null ? JSON.stringify(v) : (v as string),
          ]),
        );
      });
    }),
  );

  fieldOptions(
    envOptions(exports.command('update <id>').description('change fields (compare-and-swap on --expected-version)')),
  )
    .requiredOption('--expected-version <n>', "the destination's current version (compare-and-swap)")
    .option('--name <name>')
    .option('--target-url <url>', 'where deliveries go: https://<allowed host>/…')
    .action(
      action(async (ctx, id: string, o: FieldOptions & { app: string; env: string; expectedVersion: string }) => {
        const res = await ctx.client.patch<{ destination: Destination }>(
          `/api/v1/telemetry/exports/${encodeURIComponent(id)}`,
          {
            appId: o.app,
            env: o.env,
            version: parseInteger('--expected-version', o.expectedVersion, 1),
            ...fieldsOf(o),
          },
        );
        emit(ctx.json, res.body, () => printDestination(res.body.destination));
      }),
    );

  envOptions(
    exports
      .command('rotate-secret <id>')
      .description('new signing secret (shown once); the old one keeps signing for 24 hours'),
  )
    .option('--expected-version <n>', 'rotate only if the destination is at this version (compare-and-swap)')
    .action(
      action(async (ctx, id: string, o: { app: string; env: string; expectedVersion?: string }) => {
        const version =
          o.expectedVersion === undefined ? {} : { version: parseInteger('--expected-version', o.expectedVersion, 1) };
        const res = await ctx.client.post<{ destination: Destination; signingSecret: string }>(
          `/api/v1/telemetry/exports/${encodeURIComponent(id)}/rotate-secret`,
          { appId: o.app, env: o.env, ...version },
        );
        emit(ctx.json, res.body, () => {
          printDestination(res.body.destination);
          printSecret(res.body.signingSecret);
        });
      }),
    );

  envOptions(exports.command('deliveries <id>').description('deliveries of a destination, newest first'))
    .addOption(new Option('--status <status>').choices(['pending', 'delivering', 'delivered', 'failed', 'expired']))
    .option('--from <time>')
    .option('--to <time>')
    .option('--limit <n>')
    .option('--cursor <cursor>')
    .action(
      action(
        async (
          ctx,
          id: string,
          o: { app: string; env: string; status?: string; from?: string; to?: string; limit?: string; cursor?: string },
        ) => {
          const res = await ctx.client.get<{ deliveries: Delivery[]; nextCursor: string | null }>(
            `/api/v1/telemetry/exports/${encodeURIComponent(id)}/deliveries`,
            {
              query: {
                appId: o.app,
                env: o.env,
                status: o.status,
                from: o.from,
                to: o.to,
                limit: o.limit,
                cursor: o.cursor,
              },
            },
          );
          emit(ctx.json, res.body, () => {
            printTable(
              ['ID', 'STATUS', 'ATTEMPTS', 'EVENTS', 'LAST ERROR', 'NEXT ATTEMPT'],
              res.body.deliveries.map((d) => [
                d.id,
                d.status,
                d.attempts,
                d.eventCount,
                d.lastError ? `${d.lastError.code}${d.lastError.status ? ` ${d.lastError.status}` : ''}` : '',
                d.nextAttemptAt ?? '',
              ]),
              'No deliveries.',
            );
            if (res.body.nextCursor) printLine(`\nnext page: --cursor ${res.body.nextCursor}`);
          });
        },
      ),
    );

  envOptions(
    exports.command('retry <id> <deliveryId>').description('schedule a failed or delivered delivery again'),
  ).action(
    action(async (ctx, id: string, deliveryId: string, o: { app: string; env: string }) => {
      const res = await ctx.client.post<{ delivery: Delivery }>(
        `/api/v1/telemetry/exports/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(deliveryId)}/retry`,
        { appId: o.app, env: o.env },
      );
      emit(ctx.json, res.body, () => printLine(`Delivery ${res.body.delivery.id} is ${res.body.delivery.status}.`));
    }),
  );

  envOptions(
    exports
      .command('backfill <id>')
      .description('queue a re-send of the retained events of a window (last 30 days at most)'),
  )
    .requiredOption('--from <time>', 'RFC 3339 start')
    .option('--to <time>', 'RFC 3339 end (default now)')
    .option('--idempotency-key <key>', 'at least 16 characters; repeat it to retry safely (default: random)')
    .option('--wait', 'wait until the backfill has completed (or failed)')
    .action(
      action(
        async (
          ctx,
          id: string,
          o: { app: string; env: string; from: string; to?: string; idempotencyKey?: string; wait?: boolean },
        ) => {
          const body = {
            appId: o.app,
            env: o.env,
            from: o.from,
            ...(o.to ? { to: o.to } : {}),
            idempotencyKey: idempotencyKey(o.idempotencyKey),
          };
          const res = await ctx.client.post<{ backfill: Backfill }>(
            `/api/v1/telemetry/exports/${encodeURIComponent(id)}/backfills`,
            body,
          );
          let backfill = res.body.backfill;
          for (let waited = 0; o.wait && (backfill.status === 'queued' || backfill.status === 'running'); waited++) {
            if (waited >= 600)
              throw new UsageError(
                `Backfill ${backfill.id} is still ${backfill.status} after 10 minutes; follow it with ensign exports backfills ${id} --backfill ${backfill.id}.`,
              );
            await new Promise((r) => setTimeout(r, 1000));
            backfill = (
              await ctx.client.get<{ backfill: Backfill }>(
                `/api/v1/telemetry/exports/${encodeURIComponent(id)}/backfills/${encodeURIComponent(backfill.id)}`,
                { query: { appId: o.app, env: o.env } },
              )
            ).body.backfill;
          }
          emit(ctx.json, { backfill }, () => printBackfill(backfill));
        },
      ),
    );
  envOptions(exports.command('backfills <id>').description("the destination's backfills and their progress"))
    .option('--backfill <bkf_id>', 'just this one')
    .action(
      action(async (ctx, id: string, o: { app: string; env: string; backfill?: string }) => {
        const base = `/api/v1/telemetry/exports/${encodeURIComponent(id)}/backfills`;
        if (o.backfill) {
          const one = await ctx.client.get<{ backfill: Backfill }>(`${base}/${encodeURIComponent(o.backfill)}`, {
            query: { appId: o.app, env: o.env },
          });
          emit(ctx.json, one.body, () => printBackfill(one.body.backfill));
          return;
        }
        const list = await ctx.client.get<{ backfills: Backfill[] }>(base, { query: { appId: o.app, env: o.env } });
        emit(ctx.json, list.body, () =>
          printTable(
            ['ID', 'STATUS', 'FROM', 'TO', 'DELIVERIES', 'EVENTS', 'CREATED'],
            list.body.backfills.map((b) => [
              b.id,
              b.status,
              b.from,
              b.to,
              String(b.deliveries),
              String(b.events),
              b.createdAt,
            ]),
            'No backfills.',
          ),
        );
      }),
    );

  const erasures = program.command('erasures').description("subject erasure: remove a subject's telemetry");
  envOptions(erasures.command('request').description('erase a subject (answers an opaque receipt)'))
    .requiredOption('--subject <targetingKey>', "the subject's targeting key")
    .action(
      action(async (ctx, o: { app: string; env: string; subject: string }) => {
        const res = await ctx.client.post<{ receipt: Receipt }>('/api/v1/telemetry/erasures', {
          appId: o.app,
          env: o.env,
          namespace: 'targetingKey',
          subjectId: o.subject,
        });
        emit(ctx.json, res.body, () => printPairs(Object.entries(res.body.receipt).map(([k, v]) => [k, v ?? ''])));
      }),
    );
  envOptions(erasures.command('show <id>').description('read a receipt')).action(
    action(async (ctx, id: string, o: { app: string; env: string }) => {
      const res = await ctx.client.get<{ receipt: Receipt }>('/api/v1/telemetry/erasures', {
        query: { appId: o.app, env: o.env, id },
      });
      emit(ctx.json, res.body, () => printPairs(Object.entries(res.body.receipt).map(([k, v]) => [k, v ?? ''])));
    }),
  );
}

interface Backfill {
  id: string;
  status: string;
  from: string;
  to: string;
  deliveries: number;
  events: number;
  createdAt: string;
  completedAt: string | null;
  lastError: string | null;
}

function printBackfill(b: Backfill): void {
  printLine(
    `Backfill ${b.id}: ${b.status}, ${b.deliveries} deliveries of ${b.events} events for ${b.from} .. ${b.to}.${b.lastError ? ` Last error: ${b.lastError}` : ''}`,
  );
}
