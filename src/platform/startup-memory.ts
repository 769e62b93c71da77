// Gives the memory that starting the server used back to the system, once, before it listens
// (decision 0057). Loading about 1,600 modules and building 200 routes allocates fast and keeps
// nearly everything it allocates, so V8 grows its young generation to the maximum (two 16 MiB
// semi-spaces) on the way; once started, that space is empty but stays resident. V8's memory
// reducer would shrink it, and compact the old generation, by itself some 20 s later when it sees
// the allocation rate fall. This asks for the same collection now: a low-memory notification
// (`HeapProfiler.collectGarbage` of an in-process inspector session, the one way to reach it from
// JavaScript without V8 flags). It opens no port and costs one full collection or two
// (50–150 ms here) while nothing is served yet.

/** True when the collection ran; false on a Node built without the inspector (nothing else changes). */
export async function releaseStartupMemory(): Promise<boolean> {
  let inspector: typeof import('node:inspector');
  try {
    inspector = await import('node:inspector');
  } catch {
    return false;
  }
  const session = new inspector.Session();
  try {
    session.connect();
    await new Promise<void>((resolve, reject) =>
      session.post('HeapProfiler.collectGarbage', (err) => (err ? reject(err) : resolve())),
    );
    return true;
  } catch {
    return false;
  } finally {
    session.disconnect();
  }
}
