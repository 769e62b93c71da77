// flags list / get / set / toggle / delete: GET, PATCH and DELETE /api/v1/flags (CONTRACT section 4).
import { Option, type Command } from 'commander';
import { action, scopeOptions, type CliContext } from '../context.js';
import { CliError, EXIT_API } from '../errors.js';
import { parseBoolean, parseFlagValue, parseInteger, parseJsonOption } from '../input.js';
import { emit, printLine, printPairs, printTable, show } from '../output.js';
import { registerFlagsBulkCommand } from './flags-bulk.js';

export interface FlagRecord {
  key: string;
  type: string;
  value: unknown;
  enabled: boolean;
  offValue: unknown;
  clientEnabled: boolean;
  description?: string;
  rollout: unknown;
  variants: unknown[] | null;
  rules: unknown[];
  overrides: Record<string, unknown>;
  dependencies: unknown[];
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

interface Scope {
  app: string;
  env: string;
}

interface MutationResponse {
  flag?: FlagRecord;
  version: number;
  changeId: string | null;
}

const scoped = (command: Command) => scopeOptions(command);

const serving = (f: FlagRecord) => (f.variants ? `variants(${f.variants.length})` : f.rollout ? `rollout ${(f.rollout as { percentage?: number }).percentage}%` : '');

async function listFlags(ctx: CliContext, scope: Scope) {
  return ctx.client.get<{ flags: FlagRecord[]; version: number }>('/api/v1/flags', { query: { appId: scope.app, env: scope.env } });
}

function printMutation(verb: string, key: string, body: MutationResponse) {
  if (body.changeId === null) printLine(`Flag ${key}: nothing changed (version ${body.version}).`);
  else printLine(`Flag ${key} ${verb}: version ${body.version}, change ${body.changeId}.`);
  if (body.flag) printLine(`value: ${show(body.flag.value)}`);
  if (body.flag?.enabled === false) printLine(`switched off: serves ${show(body.flag.offValue)} (reason DISABLED)`);
}

export interface SetOptions extends Scope {
  type?: string;
  value?: string;
  enabled?: string;
  offValue?: string;
  clientEnabled?: string;
  description?: string;
  rollout?: string;
  variants?: string;
  rules?: string;
  overrides?: string;
  dependencies?: string;
  metadata?: string;
  op?: string;
  expectedVersion?: string;
}

export function setBody(key: string, o: SetOptions): Record<string, unknown> {
  const body: Record<string, unknown> = { appId: o.app, env: o.env, key };
  if (o.op) body.op = o.op;
  if (o.expectedVersion !== undefined) body.expectedVersion = parseInteger('--expected-version', o.expectedVersion);
  if (o.type) body.type = o.type;
  if (o.value !== undefined) body.value = parseFlagValue(o.value, o.type);
  if (o.enabled !== undefined) body.enabled = parseBoolean('--enabled', o.enabled);
  if (o.offValue !== undefined) body.offValue = parseFlagValue(o.offValue, o.type);
  if (o.clientEnabled !== undefined) body.clientEnabled = parseBoolean('--client-enabled', o.clientEnabled);
  if (o.description !== undefined) body.description = o.description;
  for (const field of ['rollout', 'variants', 'rules', 'overrides', 'dependencies', 'metadata'] as const) {
    const text = o[field];
    if (text !== undefined) body[field] = parseJsonOption(`--${field}`, text);
  }
  return body;
}

export function registerFlagsCommands(program: Command): void {
  const flags = program.command('flags').description('list, read and change the flags of an environment');

  scoped(flags.command('list').description('list the flags of an environment and its current version')).action(
    action(async (ctx, o: Scope) => {
      const res = await listFlags(ctx, o);
      emit(ctx.json, res.body, () => {
        printTable(
          ['KEY', 'TYPE', 'VALUE', 'CLIENT', 'ENABLED', 'SERVING', 'RULES', 'OVERRIDES', 'UPDATED'],
          res.body.flags.map((f) => [f.key, f.type, show(f.value), f.clientEnabled ? 'yes' : 'no', f.enabled === false ? `no (serves ${show(f.offValue)})` : 'yes', serving(f), f.rules.length, Object.keys(f.overrides ?? {}).length, f.updatedAt]),
          'No flags yet: create one with `ensign flags set <key> --type bool --value false`.',
        );
        printLine(`\nversion ${res.body.version}`);
      });
    }),
  );

  scoped(flags.command('get <key>').description('show one flag with every field')).action(
    action(async (ctx, key: string, o: Scope) => {
      const res = await listFlags(ctx, o);
      const flag = res.body.flags.find((f) => f.key === key);
      if (!flag) throw new CliError(`no flag "${key}" in ${o.app}/${o.env}`, EXIT_API, 'List the flags with `ensign flags list`.');
      emit(ctx.json, { flag, version: res.body.version }, () =>
        printPairs([
          ['key', flag.key], ['type', flag.type], ['value', show(flag.value)], ['enabled', flag.enabled], ['offValue', show(flag.offValue)],
          ['clientEnabled', flag.clientEnabled], ['description', flag.description],
          ['rollout', show(flag.rollout)], ['variants', show(flag.variants)], ['rules', show(flag.rules)], ['overrides', show(flag.overrides)],
          ['dependencies', show(flag.dependencies ?? [])],
          ['metadata', show(flag.metadata)], ['created', flag.createdAt], ['updated', flag.updatedAt], ['env version', res.body.version],
        ]),
      );
    }),
  );

  scoped(flags.command('set <key>').description('create or change a flag (PATCH /api/v1/flags); only the given fields change'))
    .addOption(new Option('--type <type>', 'value type; required with --value when creating').choices(['bool', 'string', 'number', 'json']))
    .option('--value <value>', 'default value: JSON (true, 42, {"a":1}) or plain text for strings')
    .option('--enabled <bool>', 'false switches the flag off: every route serves --off-value (reason DISABLED)')
    .option('--off-value <value>', 'served while the flag is off; same syntax as --value (default: the value at creation)')
    .option('--client-enabled <bool>', 'true to serve the flag to pub_ keys')
    .option('--description <text>', 'free text')
    .option('--rollout <json>', '{"percentage":25,"value":true} or null')
    .option('--variants <json>', '[{"key":"a","value":…,"weight":50},…] or null')
    .option('--rules <json>', '[{"id":"beta","conditions":[…],"serve":{…}}]')
    .option('--overrides <json>', '{"<targetingKey>": <value>}')
    .option('--dependencies <json>', '[{"flag":"<key>","value":<value>}]: prerequisite flags ([] removes them)')
    .option('--metadata <json>', 'free JSON object (never sent to pub_ keys)')
    .addOption(new Option('--op <op>', 'upsert (default); create fails if the flag exists, update if it does not').choices(['create', 'update', 'upsert']))
    .option('--expected-version <n>', 'apply only if the environment is at this version')
    .action(action(async (ctx, key: string, o: SetOptions) => {
      const res = await ctx.client.patch<MutationResponse>('/api/v1/flags', setBody(key, o));
      emit(ctx.json, res.body, () => printMutation('saved', key, res.body));
    }));

  scoped(flags.command('toggle <key>').description('flip the value of a bool flag'))
    .option('--expected-version <n>', 'apply only if the environment is at this version')
    .action(action(async (ctx, key: string, o: Scope & { expectedVersion?: string }) => {
      const body: Record<string, unknown> = { appId: o.app, env: o.env, key, op: 'toggle' };
      if (o.expectedVersion !== undefined) body.expectedVersion = parseInteger('--expected-version', o.expectedVersion);
      const res = await ctx.client.patch<MutationResponse>('/api/v1/flags', body);
      emit(ctx.json, res.body, () => printMutation('toggled', key, res.body));
    }));

  for (const [name, enabled] of [['enable', true], ['disable', false]] as const) {
    const description = enabled ? 'switch a flag on: its targeting applies again' : 'switch a flag off: every route serves its offValue with reason DISABLED';
    scoped(flags.command(`${name} <key>`).description(description))
      .option('--expected-version <n>', 'apply only if the environment is at this version')
      .action(action(async (ctx, key: string, o: Scope & { expectedVersion?: string }) => {
        const body: Record<string, unknown> = { appId: o.app, env: o.env, key, op: 'update', enabled };
        if (o.expectedVersion !== undefined) body.expectedVersion = parseInteger('--expected-version', o.expectedVersion);
        const res = await ctx.client.patch<MutationResponse>('/api/v1/flags', body);
        emit(ctx.json, res.body, () => printMutation(enabled ? 'enabled' : 'disabled', key, res.body));
      }));
  }

  scoped(flags.command('delete <key>').description('delete a flag from the environment'))
    .option('--expected-version <n>', 'apply only if the environment is at this version')
    .action(action(async (ctx, key: string, o: Scope & { expectedVersion?: string }) => {
      const expectedVersion = o.expectedVersion === undefined ? undefined : parseInteger('--expected-version', o.expectedVersion);
      const res = await ctx.client.delete<MutationResponse>('/api/v1/flags', { query: { appId: o.app, env: o.env, key, expectedVersion } });
      emit(ctx.json, res.body, () => printMutation('deleted', key, res.body));
    }));

  registerFlagsBulkCommand(flags, scoped);
}
