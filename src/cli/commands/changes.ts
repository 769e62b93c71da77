// changes: GET /api/v1/changes, the app's change journal newest first, with every filter of the route.
import type { Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { parseInteger } from '../input.js';
import { emit, note, printTable } from '../output.js';

interface JournalEntry {
  id: string;
  env: string | null;
  operation: string;
  source: string;
  resourceType: string;
  resourceId: string | null;
  authority: { type: string; userId?: string; keyFingerprint?: string };
  beforeVersion: number | null;
  afterVersion: number | null;
  diff: unknown[];
  createdAt: string;
}

interface ChangesOptions {
  app: string;
  id?: string;
  env?: string;
  operation?: string;
  source?: string;
  resourceType?: string;
  resourceId?: string;
  authorityType?: string;
  userId?: string;
  keyFingerprint?: string;
  from?: string;
  to?: string;
  limit?: string;
  cursor?: string;
}

const authorityText = (a: JournalEntry['authority']) =>
  [a.type, a.userId ?? a.keyFingerprint].filter(Boolean).join(':');
const versions = (e: JournalEntry) =>
  e.beforeVersion === null && e.afterVersion === null ? '' : `${e.beforeVersion ?? '-'}→${e.afterVersion ?? '-'}`;

export function registerChangesCommand(program: Command): void {
  scopeOptions(program.command('changes'), 'app')
    .description('read the change journal of an app, newest first')
    .option('--id <changeId>', 'one journal entry (chg_…)')
    .option('--env <env>', 'environment slug')
    .option('--operation <operation>', 'e.g. flag.update, key.revoke, app.create')
    .option('--source <source>', 'api, cli, bulk, rollback, authority or system')
    .option('--resource-type <type>', 'e.g. flag, key, app')
    .option('--resource-id <id>', 'the changed resource')
    .option('--authority-type <type>', 'user, admin_key or system')
    .option('--user-id <userId>', 'changes made by this user (usr_…)')
    .option('--key-fingerprint <hex>', 'changes made with this admin key (16 hex digits)')
    .option('--from <time>', 'not before this RFC 3339 time')
    .option('--to <time>', 'not after this RFC 3339 time')
    .option('--limit <n>', '1 to 200 entries per page')
    .option('--cursor <cursor>', 'the nextCursor of a previous page')
    .action(
      action(async (ctx, o: ChangesOptions) => {
        const query = {
          appId: o.app,
          id: o.id,
          env: o.env,
          operation: o.operation,
          source: o.source,
          resourceType: o.resourceType,
          resourceId: o.resourceId,
          authorityType: o.authorityType,
          userId: o.userId,
          keyFingerprint: o.keyFingerprint,
          from: o.from,
          to: o.to,
          limit: o.limit === undefined ? undefined : parseInteger('--limit', o.limit, 1),
          cursor: o.cursor,
        };
        const res = await ctx.client.get<{ changes: JournalEntry[]; nextCursor: string | null }>('/api/v1/changes', {
          query,
        });
        emit(ctx.json, res.body, () => {
          printTable(
            ['ID', 'CREATED', 'OPERATION', 'SOURCE', 'ENV', 'RESOURCE', 'AUTHORITY', 'VERSION', 'DIFF'],
            res.body.changes.map((c) => [
              c.id,
              c.createdAt,
              c.operation,
              c.source,
              c.env,
              [c.resourceType, c.resourceId].filter(Boolean).join(' '),
              authorityText(c.authority),
              versions(c),
              c.diff.length,
            ]),
            'No changes match.',
          );
          if (res.body.nextCursor) note(`more: add --cursor ${res.body.nextCursor}`);
        });
      }),
    );
}
