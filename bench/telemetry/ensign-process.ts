// Ensign under load runs in a process of its own (bench/telemetry-server.ts), seeded with an app and
// its keys, answering over IPC for its CPU time and its GC profile; and what it stored is counted in
// its database afterwards.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { compileEntries } from '../compiled-entries.js';
import { dir } from './fixture.js';

export interface ServerInfo {
  address: string;
  token: string;
  appId: string;
  envs: Record<string, string>;
  sdk: Record<string, string>;
}

let compiledServer: string | undefined;

export async function startEnsign(file: string, joining = false) {
  const profile = [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : []),
    ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? []),
  ];
  // Compiled, as `npm start` runs Ensign (bench/compiled-entries.ts), once per bench run.
  // The SQLite writer thread's entry is loaded by URL, not imported: it is compiled as an entry too.
  compiledServer ??= compileEntries('bench-telemetry', [
    'bench/telemetry-server.ts',
    'src/modules/telemetry/ingestion/group-store.worker.ts',
  ])[0]!;
  const child = fork(
    compiledServer,
    [file, join(dir, joining ? 'data-joined' : 'data'), ...(joining ? ['join'] : [])],
    {
      execArgv: profile,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    },
  );
  const info = await new Promise<ServerInfo>((resolve, reject) => {
    child.once('message', (m) => resolve(m as ServerInfo));
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  /** The server process's CPU time so far, all threads (user + system), in µs. */
  const cpu = () =>
    new Promise<number>((resolve) => {
      const listen = (m: { type: string; usage?: NodeJS.CpuUsage }) => {
        if (m.type !== 'cpu') return;
        child.off('message', listen);
        resolve(m.usage!.user + m.usage!.system);
      };
      child.on('message', listen);
      child.send({ type: 'cpu' });
    });
  /** Asks the server for a reply of a type (its answers to 'cpu', 'gc-start' and 'gc-stop'). */
  const ask = <T>(type: string, reply: string) =>
    new Promise<T>((resolve) => {
      const listen = (m: { type: string }) => {
        if (m.type !== reply) return;
        child.off('message', listen);
        resolve(m as T);
      };
      child.on('message', listen);
      child.send({ type });
    });
  const gc = {
    start: () => ask('gc-start', 'gc-started'),
    stop: () => ask<{ figures: GcFigures }>('gc-stop', 'gc').then((m) => m.figures),
  };
  return {
    info,
    cpu,
    gc,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.send({ type: 'stop' });
      }),
  };
}

/** Accepted events stored: counted in the SQLite file, or in the PostgreSQL database. */
export async function storedEvents(target: string): Promise<number> {
  if (target.startsWith('postgres')) {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    const { rows } = await client.query('SELECT count(*)::int AS n FROM telemetry_events');
    await client.end();
    return rows[0].n as number;
  }
  const db = new SQLite(target, { readonly: true });
  const n = (db.prepare('SELECT count(*) AS n FROM telemetry_events').get() as { n: number }).n;
  db.close();
  return n;
}

export interface GcFigures {
  allocated: number;
  promoted: number;
  byType: Record<string, { count: number; ms: number }>;
  /** The young generation's size (both semi-spaces) after collections: least and most, bytes. */
  young: number[];
}
