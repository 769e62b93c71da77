// flags list / get / set / toggle / delete: GET, PATCH and DELETE /api/v1/flags (CONTRACT section 4),
// typed from the served OpenAPI document (api.ts).
import { Option, type Command } from 'commander';
import { ok, type RequestBody, type ResponseBody } from '../api.js';
import { action, scopeOptions, type CliContext } from '../context.js';
import { CliError, EXIT_API } from '../errors.js';
import { parseBoolean, parseFlagValue, parseInteger, parseJsonOption } from '../input.js';
import { emit, printLine, printPairs, printTable, show } from '../output.js';
import { registerFlagsBulkCommand } from './flags-bulk.js';

export type FlagRecord = ResponseBody<'listFlags'>['flags'][number];
/** The body of PATCH /api/v1/flags. */
export type FlagPatch = RequestBody<'patchFlag'>;
/** What a change answers: the flag after it (absent after a delete), the version and the change id. */
type Mutation = Pick<ResponseBody<'patchFlag'>, 'changeId' | 'version'> & { flag?: ResponseBody<'patchFlag'>['flag'] };

interface Scope {
  app: string;
  env: string;
}

const scoped = (command: Command) => scopeOptions(command);

const serving = (f: FlagRecord) =>
  f.variants ? `variants(${f.variants.length})` : f.rollout ? `rollout ${f.rollout.percentage}%` : '';

async function listFlags(ctx: CliContext, scope: Scope) {
  return ok(ctx.client.api.GET('/api/v1/flags', { params: { query: { appId: scope.app, env: scope.env } } }));
}

function printMutation(verb: string, key: string, body: Mutation) {
  if (body.changeId === null) printLine(`Flag ${key}: nothing changed (version ${body.version}).`);
  else printLine(`Flag ${key} ${verb}: version ${body.version}, change ${body.changeId}.`);
  if (body.flag) printLine(`value: ${show(body.flag.value)}`);
  if (body.flag?.enabled === false) printLine(`switched off: serves ${show(body.flag.offValue)} (reason DISABLED)`);
}

/** The flag's fields as options: what `flags set` takes, and `propose set` with it (flagFieldOptions). */
export interface FlagFieldOptions {
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
}

export interface SetOptions extends Scope, FlagFieldOptions {
  expectedVersion?: string;
}

/**
 * Adds an option for every field of PATCH /api/v1/flags a person sets. `flags set` and `propose set`
 * both take them from here, so a field added for one is there for the other (a test checks it).
 */
export function flagFieldOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--type <type>', 'value type; required with --value when creating').choices([
        'bool',
        'string',
        'number',
        'json',
      ]),
    )
    .option('--value <value>', 'default value: JSON (true, 42, {"a":1}) or plain text for strings')
    .option('--enabled <bool>', 'false switches the flag off: every route serves --off-value (reason DISABLED)')
    .option(
      '--off-value <value>',
      'served while the flag is off; same syntax as --value (default: the value at creation)',
    )
    .option('--client-enabled <bool>', 'true to serve the flag to pub_ keys')
    .option('--description <text>', 'free text')
    .option('--rollout <json>', '{"percentage":25,"value":true} or null')
    .option('--variants <json>', '[{"key":"a","value":…,"weight":50},…] or null')
    .option('--rules <json>', '[{"id":"beta","conditions":[…],"serve":{…}}]')
    .option('--overrides <json>', '{"<targetingKey>": <value>}')
    .option('--dependencies <json>', '[{"flag":"<key>","value":<value>}]: prerequisite flags ([] removes them)')
    .option('--metadata <json>', 'free JSON object (never sent to pub_ keys)')
    .addOption(
      new Option('--op <op>', 'upsert (default); create fails if the flag exists, update if it does not').choices([
        'create',
        'update',
        'upsert',
      ]),
    );
}

type FlagFields = Omit<FlagPatch, 'appId' | 'env' | 'expectedVersion'>;

/** The flag's fields from the options; JSON options are sent as parsed (the server validates them). */
export function flagFields(key: string, o: FlagFieldOptions): FlagFields {
  const body: FlagFields = { key };
  if (o.op) body.op = o.op as FlagFields['op'];
  if (o.type) body.type = o.type as FlagFields['type'];
  if (o.value !== undefined) body.value = parseFlagValue(o.value, o.type);
  if (o.enabled !== undefined) body.enabled = parseBoolean('--enabled', o.enabled);
  if (o.offValue !== undefined) body.offValue = parseFlagValue(o.offValue, o.type);
  if (o.clientEnabled !== undefined) body.clientEnabled = parseBoolean('--client-enabled', o.clientEnabled);
  if (o.description !== undefined) body.description = o.description;
  if (o.rollout !== undefined) body.rollout = parseJsonOption('--rollout', o.rollout) as FlagFields['rollout'];
  if (o.variants !== undefined) body.variants = parseJsonOption('--variants', o.variants) as FlagFields['variants'];
  if (o.rules !== undefined) body.rules = parseJsonOption('--rules', o.rules) as FlagFields['rules'];
  if (o.overrides !== undefined)
    body.overrides = parseJsonOption('--overrides', o.overrides) as FlagFields['overrides'];
  if (o.dependencies !== undefined)
    body.dependencies = parseJsonOption('--dependencies', o.dependencies) as FlagFields['dependencies'];
  if (o.metadata !== undefined) body.metadata = parseJsonOption('--metadata', o.metadata) as FlagFields['metadata'];
  return body;
}

export function setBody(key: string, o: SetOptions): FlagPatch {
  const body: FlagPatch = { appId: o.app, env: o.env, ...flagFields(key, o) };
  if (o.expectedVersion !== undefined) body.expectedVersion = parseInteger('--expected-version', o.expectedVersion);
  return body;
}

/** PATCH /api/v1/flags with `fields` and the optional --expected-version. */
async function patchFlag(
  ctx: CliContext,
  o: Scope & { expectedVersion?: string },
  fields: Omit<FlagPatch, 'appId' | 'env'>,
) {
  const body: FlagPatch = { appId: o.app, env: o.env, ...fields };
  if (o.expectedVersion !== undefined) body.expectedVersion = parseInteger('--expected-version', o.expectedVersion);
  return ok(ctx.client.api.PATCH('/api/v1/flags', { body }));
}

export function registerFlagsCommands(program: Command): void {
  const flags = program.command('flags').description('list, read and change the flags of an environment');

  scoped(flags.command('list').description('list the flags of an environment and its current version')).action(
    action(async (ctx, o: Scope) => {
      const list = await listFlags(ctx, o);
      emit(ctx.json, list, () => {
        printTable(
          ['KEY', 'TYPE', 'VALUE', 'CLIENT', 'ENABLED', 'SERVING', 'RULES', 'OVERRIDES', 'UPDATED'],
          list.flags.map((f) => [
            f.key,
            f.type,
            show(f.value),
            f.clientEnabled ? 'yes' : 'no',
            f.enabled === false ? `no (serves ${show(f.offValue)})` : 'yes',
            serving(f),
            f.rules.length,
            Object.keys(f.overrides ?? {}).length,
            f.updatedAt,
          ]),
          'No flags yet: create one with `ensign flags set <key> --type bool --value false`.',
        );
        printLine(`\nversion ${list.version}`);
      });
    }),
  );

  scoped(flags.command('get <key>').description('show one flag with every field')).action(
    action(async (ctx, key: string, o: Scope) => {
      const list = await listFlags(ctx, o);
      const flag = list.flags.find((f) => f.key === key);
      if (!flag)
        throw new CliError(
          `no flag "${key}" in ${o.app}/${o.env}`,
          EXIT_API,
          'List the flags with `ensign flags list`.',
        );
      emit(ctx.json, { flag, version: list.version }, () =>
        printPairs([
          ['key', flag.key],
          ['type', flag.type],
          ['value', show(flag.value)],
          ['enabled', flag.enabled],
          ['offValue', show(flag.offValue)],
          ['clientEnabled', flag.clientEnabled],
          ['description', flag.description],
          ['rollout', show(flag.rollout)],
          ['variants', show(flag.variants)],
          ['rules', show(flag.rules)],
          ['overrides', show(flag.overrides)],
          ['dependencies', show(flag.dependencies ?? [])],
          ['metadata', show(flag.metadata)],
          ['created', flag.createdAt],
          ['updated', flag.updatedAt],
          ['env version', list.version],
        ]),
      );
    }),
  );

  flagFieldOptions(
    scoped(
      flags
        .command('set <key>')
        .description('create or change a flag (PATCH /api/v1/flags); only the given fields change'),
    ),
  )
    .option('--expected-version <n>', 'apply only if the environment is at this version')
    .action(
      action(async (ctx, key: string, o: SetOptions) => {
        const body = await ok(ctx.client.api.PATCH('/api/v1/flags', { body: setBody(key, o) }));
        emit(ctx.json, body, () => printMutation('saved', key, body));
      }),
    );

  scoped(flags.command('toggle <key>').description('flip the value of a bool flag'))
    .option('--expected-version <n>', 'apply only if the environment is at this version')
    .action(
      action(async (ctx, key: string, o: Scope & { expectedVersion?: string }) => {
        const body = await patchFlag(ctx, o, { key, op: 'toggle' });
        emit(ctx.json, body, () => printMutation('toggled', key, body));
      }),
    );

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    const description = enabled
      ? 'switch a flag on: its targeting applies again'
      : 'switch a flag off: every route serves its offValue with reason DISABLED';
    scoped(flags.command(`${name} <key>`).description(description))
      .option('--expected-version <n>', 'apply only if the environment is at this version')
      .action(
        action(async (ctx, key: string, o: Scope & { expectedVersion?: string }) => {
          const body = await patchFlag(ctx, o, { key, op: 'update', enabled });
          emit(ctx.json, body, () => printMutation(enabled ? 'enabled' : 'disabled', key, body));
        }),
      );
  }

  scoped(flags.command('delete <key>').description('delete a flag from the environment'))
    .option('--expected-version <n>', 'apply only if the environment is at this version')
    .action(
      action(async (ctx, key: string, o: Scope & { expectedVersion?: string }) => {
        const expectedVersion =
          o.expectedVersion === undefined ? undefined : parseInteger('--expected-version', o.expectedVersion);
        const body = await ok(
          ctx.client.api.DELETE('/api/v1/flags', {
            params: { query: { appId: o.app, env: o.env, key, expectedVersion } },
          }),
        );
        emit(ctx.json, body, () => printMutation('deleted', key, body));
      }),
    );

  registerFlagsBulkCommand(flags, scoped);
}
