// versions list / show / diff: GET /api/v1/config-versions, /{version} and /diff (CONTRACT section 5).
import type { Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { parseInteger } from '../input.js';
import { emit, printJson, printLine, printPairs, printTable, show } from '../output.js';

interface VersionEntry {
  version: number;
  createdAt: string;
  changeId: string | null;
  operation: string;
  authority: unknown;
}

interface DiffChange {
  op: string;
  resourceType: string;
  key: string;
  path: string;
  before?: unknown;
  after?: unknown;
}

type Scope = { app: string; env: string };

const scoped = (command: Command) => scopeOptions(command);

const authorityText = (a: unknown) => {
  if (!a || typeof a !== 'object') return show(a);
  const o = a as { type?: string; userId?: string; keyFingerprint?: string };
  return [o.type, o.userId ?? o.keyFingerprint].filter(Boolean).join(':');
};

export function registerVersionsCommands(program: Command): void {
  const versions = program
    .command('versions')
    .description('read the retained configuration versions of an environment');

  scoped(versions.command('list').description('list retained versions, newest first'))
    .option('--limit <n>', '1 to 100 (default 20)')
    .option('--cursor <cursor>', 'the next page: the nextCursor a previous list printed')
    .action(
      action(async (ctx, o: Scope & { limit?: string; cursor?: string }) => {
        const limit = o.limit === undefined ? undefined : parseInteger('--limit', o.limit, 1);
        const res = await ctx.client.get<{
          versions: VersionEntry[];
          nextCursor?: string | null;
          current: { version: number };
        }>('/api/v1/config-versions', { query: { appId: o.app, env: o.env, limit, cursor: o.cursor } });
        emit(ctx.json, res.body, () => {
          printTable(
            ['VERSION', 'CREATED', 'OPERATION', 'CHANGE', 'AUTHORITY'],
            res.body.versions.map((v) => [v.version, v.createdAt, v.operation, v.changeId, authorityText(v.authority)]),
            'No versions retained yet.',
          );
          printLine(`\ncurrent version ${res.body.current?.version}`);
          if (res.body.nextCursor) printLine(`older versions: --cursor ${res.body.nextCursor}`);
        });
      }),
    );

  scoped(versions.command('show <version>').description('show the full snapshot retained for a version')).action(
    action(async (ctx, version: string, o: Scope) => {
      const n = parseInteger('version', version);
      const res = await ctx.client.get<{ version: number; createdAt: string; changeId: string | null; state: unknown }>(
        `/api/v1/config-versions/${n}`,
        { query: { appId: o.app, env: o.env } },
      );
      emit(ctx.json, res.body, () => {
        printPairs([
          ['version', res.body.version],
          ['created', res.body.createdAt],
          ['change', res.body.changeId],
        ]);
        printLine('state:');
        printJson(res.body.state);
      });
    }),
  );

  scoped(versions.command('diff <from> <to>').description('structured diff between two retained versions')).action(
    action(async (ctx, from: string, to: string, o: Scope) => {
      const query = { appId: o.app, env: o.env, from: parseInteger('from', from), to: parseInteger('to', to) };
      const res = await ctx.client.get<{
        from: number;
        to: number;
        changes: DiffChange[];
        dependencies?: unknown[];
        visibility?: unknown[];
      }>('/api/v1/config-versions/diff', { query });
      emit(ctx.json, res.body, () => {
        printLine(`version ${res.body.from} → ${res.body.to}`);
        printTable(
          ['OP', 'RESOURCE', 'KEY', 'PATH', 'BEFORE', 'AFTER'],
          res.body.changes.map((c) => [
            c.op,
            c.resourceType,
            c.key,
            c.path,
            'before' in c ? show(c.before) : '',
            'after' in c ? show(c.after) : '',
          ]),
          'No differences.',
        );
        if (res.body.dependencies?.length) printLine(`dependencies: ${show(res.body.dependencies)}`);
        if (res.body.visibility?.length) printLine(`visibility: ${show(res.body.visibility)}`);
      });
    }),
  );
}
