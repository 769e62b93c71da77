// The PostgreSQL side of the ingestion phase: a fresh database per measurement, and the share of
// active queries waiting for a lock while the load runs.
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * Samples, every 20 ms until stopped, how many of the database's backends are running a query and
 * how many of those wait for a lock held by another transaction (row or tuple locks: batches taking
 * turns on shared rows). The share of lock waits shows contention whatever the machine's load,
 * which on a shared 2-core machine caps throughput long before contention does.
 */
export function lockWaits(url: string) {
  const client = new pg.Client({ connectionString: url });
  let active = 0;
  let waiting = 0;
  let running = true;
  const done = (async () => {
    await client.connect();
    const name = new URL(url).pathname.slice(1);
    while (running) {
      const { rows } = await client.query(
        "SELECT count(*) FILTER (WHERE state = 'active')::int AS active, count(*) FILTER (WHERE state = 'active' AND wait_event_type = 'Lock')::int AS waiting FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
        [name],
      );
      active += rows[0].active;
      waiting += rows[0].waiting;
      await new Promise((r) => setTimeout(r, 20));
    }
    await client.end();
  })();
  return async () => {
    running = false;
    await done;
    return active === 0 ? 0 : waiting / active;
  };
}

/** A new, empty PostgreSQL database on the server of `url`, dropped by the returned function. */
export async function freshPostgres(url: string, suffix = '') {
  const name = `ensign_bench_${process.pid}${suffix}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const target = new URL(url);
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

/**
 * CPU time (µs, user + system) of every PostgreSQL process on this machine so far: its backends,
 * WAL writer and checkpointer. What the database spends per event, which the load generator and the
 * machine's noise move far less than the rates. Linux only (/proc), ticks of 10 ms.
 */
export function postgresCpu(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const close = stat.lastIndexOf(')');
    if (!stat.slice(stat.indexOf('(') + 1, close).startsWith('postgres')) continue;
    const fields = stat.slice(close + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10_000;
}
