// A static web server for browser tests: fixed files on a free loopback port, so a page has an
// origin of its own (requests from it to Ensign are cross-origin). Closed when the test ends.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from './test-app.js';

export interface StaticFile {
  type: string;
  body: string;
}

/** Serves `files` by path ('/' for the page); anything else is 404. Returns the site's base URL. */
export async function serveStaticSite(t: TestContext, files: Record<string, StaticFile>): Promise<string> {
  const server = createServer((req, res) => {
    const file = files[new URL(req.url ?? '/', 'http://site').pathname];
    if (file === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}
