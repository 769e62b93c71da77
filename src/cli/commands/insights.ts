// insights: POST /api/v1/insights/query (aggregates) and POST /api/v1/insights/events (redacted
// events), with --format json|csv|ndjson. csv and ndjson go to stdout as the server sent them; the
// next cursor goes to stderr so the output stays a clean file.
import type { Command } from 'commander';
import { action, scopeOptions } from '../context.js';
import { UsageError } from '../errors.js';
import { parseInteger } from '../input.js';
import { emit, note, printLine, printRaw, printTable, show } from '../output.js';

const FORMATS = ['json', 'csv', 'ndjson'];
const DAY_MS = 86_400_000;

interface WindowOptions {
  app: string;
  env: string;
  from?: string;
  to?: string;
  filter?: string[];
  format?: string;
  cursor?: string;
  deadline?: string;
}

const collect = (value: string, previous: string[] = []) => [...previous, value];
const list = (value: string) =>
  value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** `--filter flagKey=checkout --filter variant=on,off` → { flagKey: 'checkout', variant: ['on', 'off'] }. */
function filtersOf(pairs: string[] = []): Record<string, string | string[]> | undefined {
  if (pairs.length === 0) return undefined;
  const out: Record<string, string[]> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1)
      throw new UsageError(
        `--filter must be name=value, got "${pair}"`,
        'e.g. --filter flagKey=checkout --filter variant=on,off',
      );
    (out[pair.slice(0, eq)] ??= []).push(...list(pair.slice(eq + 1)));
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.length === 1 ? v[0]! : v]));
}

function windowBody(o: WindowOptions, defaultSpanMs: number) {
  const format = o.format ?? 'json';
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be json, csv or ndjson, got "${format}"`);
  const to = o.to ?? new Date().toISOString();
  const from = o.from ?? new Date(Date.parse(to) - defaultSpanMs).toISOString();
  return {
    appId: o.app,
    env: o.env,
    from,
    to,
    filters: filtersOf(o.filter),
    format,
    cursor: o.cursor,
    deadlineAt: o.deadline === undefined ? undefined : Date.now() + parseInteger('--deadline', o.deadline, 1),
  };
}

const withWindowOptions = (command: Command) =>
  scopeOptions(command)
    .option('--from <time>', 'RFC 3339 start (default: 24 hours before --to)')
    .option('--to <time>', 'RFC 3339 end (default: now)')
    .option(
      '--filter <name=values>',
      'flagKey, variant, kind, reason, experimentId, iterationId or metricKey = one value or a comma list; repeatable',
      collect,
    )
    .option('--format <format>', 'json (tables, or --json), csv or ndjson (printed as sent)', 'json')
    .option('--cursor <cursor>', 'the next cursor of a previous page (same query, same credential, within 15 minutes)')
    .option('--deadline <ms>', 'give up after this many milliseconds (at most 10,000 apply)');

/** Prints csv or ndjson as the server sent it; true when it did. */
function printFormatted(format: string, res: { text: string; headers: Headers }): boolean {
  if (format !== 'csv' && format !== 'ndjson') return false;
  printRaw(format, res.text);
  const next = res.headers.get('x-insights-next-cursor');
  if (next) note(`more: add --cursor ${next}`);
  return true;
}

export function registerInsightsCommands(program: Command): void {
  const insights = program
    .command('insights')
    .description('privacy-safe telemetry insights: aggregates and redacted events');

  withWindowOptions(
    insights.command('query').description('aggregate events over hourly rollups (cells under 20 subjects show null)'),
  )
    .option('--grain <grain>', 'hour or day', 'hour')
    .option(
      '--dimensions <list>',
      'up to 3 of flagKey, variant, kind, reason, experimentId, iterationId, metricKey (comma list)',
      list,
    )
    .option(
      '--measures <list>',
      'events, subjects, decisions, assignments, exposures, outcomes, metricSum, metricMean (comma list)',
      list,
      ['events', 'subjects'],
    )
    .action(
      action(async (ctx, o: WindowOptions & { grain: string; dimensions?: string[]; measures: string[] }) => {
        const body = { ...windowBody(o, DAY_MS), grain: o.grain, dimensions: o.dimensions, measures: o.measures };
        const res = await ctx.client.post<any>('/api/v1/insights/query', body);
        if (printFormatted(body.format, res)) return;
        emit(ctx.json, res.body, () => {
          const dims: string[] = o.dimensions ?? [];
          printTable(
            ['BUCKET', ...dims.map((d) => d.toUpperCase()), ...o.measures.map((m) => m.toUpperCase())],
            res.body.rows.map((r: any) => [
              r.bucketStart,
              ...dims.map((d) => show(r.dimensions[d])),
              ...o.measures.map((m) => show(r.measures[m])),
            ]),
            'No rows.',
          );
          printLine(
            `suppressed cells (under ${res.body.suppression.minimumSubjects} subjects): ${res.body.suppression.suppressedCells}; small parts left out of totals: ${res.body.suppression.excludedParts}; scanned buckets: ${res.body.queryCost.scannedBuckets}; watermark: ${res.body.watermark?.receivedAt ?? 'none'}`,
          );
          if (res.body.nextCursor) note(`more: add --cursor ${res.body.nextCursor}`);
        });
      }),
    );

  withWindowOptions(
    insights.command('events').description('redacted raw events, newest first (at most 7 days, 100 a page)'),
  )
    .option('--kinds <list>', 'decision, assignment, exposure, outcome (comma list)', list, [
      'decision',
      'assignment',
      'exposure',
      'outcome',
    ])
    .option('--limit <n>', '1 to 100 events a page')
    .action(
      action(async (ctx, o: WindowOptions & { kinds: string[]; limit?: string }) => {
        const body = {
          ...windowBody(o, DAY_MS),
          kinds: o.kinds,
          limit: o.limit === undefined ? undefined : parseInteger('--limit', o.limit, 1),
        };
        const res = await ctx.client.post<any>('/api/v1/insights/events', body);
        if (printFormatted(body.format, res)) return;
        emit(ctx.json, res.body, () => {
          printTable(
            ['TIMESTAMP', 'KIND', 'ID', 'FLAG', 'VARIANT', 'REASON', 'METRIC', 'VALUE'],
            res.body.events.map((e: any) => [
              e.timestamp,
              e.kind,
              e.id,
              show(e.flagKey),
              show(e.variant),
              show(e.reason),
              show(e.metricKey),
              show(e.metricValue),
            ]),
            'No events.',
          );
          if (res.body.nextCursor) note(`more: add --cursor ${res.body.nextCursor}`);
        });
      }),
    );
}
