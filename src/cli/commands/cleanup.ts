// cleanup: POST /api/v1/cleanup, the read-only stale-flag report (docs/cleanup.md).
import type { Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { parseInteger, readJsonFile } from '../input.js';
import { emit, printLine, printTable, show } from '../output.js';

interface CleanupReport {
  asOf: string;
  envs: string[];
  inventory: {
    flagKey: string;
    env: string;
    servingShape: string;
    servedValue: unknown;
    lastChange: { at: string } | null;
    evaluations: { count: number };
  }[];
  readiness: { flagKey: string; ready: boolean; blockers: { code: string; env?: string }[] }[];
  reconcile: {
    missingInService: { flagKey: string }[];
    unreferencedInCode: string[] | null;
    inconsistentAcrossEnvs: { flagKey: string }[];
  };
  plan: {
    stages: {
      stage: string;
      steps: {
        flagKey: string;
        env?: string;
        envs?: string[];
        value?: unknown;
        references?: { path?: string; line?: number }[];
      }[];
    }[];
    digest: string;
  };
}

interface CleanupOptions {
  app: string;
  env?: string[];
  staleAfterDays?: string;
  refs?: string;
  now?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];

function stepText(step: CleanupReport['plan']['stages'][number]['steps'][number]): string {
  if (step.env !== undefined) return `${step.env}: serve ${show(step.value)}`;
  if (step.envs) return step.envs.join(', ');
  const refs = step.references ?? [];
  return refs.length === 0
    ? '(no references sent)'
    : refs.map((r) => [r.path, r.line].filter((x) => x !== undefined).join(':')).join(', ');
}

export function registerCleanupCommand(program: Command): void {
  scopeOptions(program.command('cleanup'), 'app')
    .description('report stale flags: inventory, readiness and a staged removal plan (changes nothing)')
    .option('--env <env>', 'environment slug; repeat for several (default: every environment)', collect)
    .option('--stale-after-days <n>', 'days a flag must have served one value unchanged and unevaluated (default 30)')
    .option('--refs <file>', 'JSON file of code references: [{ "flagKey", "path"?, "line"? }]')
    .option('--now <time>', 'judge staleness as of this RFC 3339 instant')
    .action(
      action(async (ctx, o: CleanupOptions) => {
        const body = {
          appId: o.app,
          ...(o.env ? { envs: o.env } : {}),
          ...(o.staleAfterDays !== undefined
            ? { staleAfterDays: parseInteger('--stale-after-days', o.staleAfterDays, 1) }
            : {}),
          ...(o.refs !== undefined ? { codeReferences: readJsonFile(o.refs).value } : {}),
          ...(o.now !== undefined ? { now: o.now } : {}),
        };
        const res = await ctx.client.post<CleanupReport>('/api/v1/cleanup', body);
        const report = res.body;
        emit(ctx.json, report, () => {
          printLine(`as of ${report.asOf} in ${report.envs.join(', ')}`);
          printTable(
            ['FLAG', 'READY', 'BLOCKERS'],
            report.readiness.map((r) => [
              r.flagKey,
              r.ready ? 'yes' : 'no',
              r.blockers.map((b) => (b.env ? `${b.code}@${b.env}` : b.code)).join(', '),
            ]),
            'No flags.',
          );
          const { missingInService, unreferencedInCode, inconsistentAcrossEnvs } = report.reconcile;
          if (missingInService.length)
            printLine(`\nreferenced in code but missing: ${missingInService.map((m) => m.flagKey).join(', ')}`);
          if (unreferencedInCode?.length) printLine(`never referenced in code: ${unreferencedInCode.join(', ')}`);
          if (inconsistentAcrossEnvs.length)
            printLine(`environments disagree: ${inconsistentAcrossEnvs.map((m) => m.flagKey).join(', ')}`);
          printLine('\nplan:');
          printTable(
            ['STAGE', 'FLAG', 'WHERE'],
            report.plan.stages.flatMap((s) => s.steps.map((step) => [s.stage, step.flagKey, stepText(step)])),
            'Nothing is ready to remove.',
          );
          printLine(`\nplan digest ${report.plan.digest}`);
        });
      }),
    );
}
