// The baseline: a bare node:http server answering the same precomputed bytes and ETag, with the same
// caching headers, and 304 when If-None-Match is that tag. No routing, auth or metering: the ceiling
// of what Node can do on this machine.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const [bodyFile, etag] = process.argv.slice(2);
if (!bodyFile || !etag) throw new Error('usage: bare-server.ts <body file> <etag>');
const body = readFileSync(bodyFile);

const server = createServer((req, res) => {
  res.setHeader('etag', etag);
  res.setHeader('cache-control', 'private, no-cache');
  if (req.headers['if-none-match'] === etag) {
    res.statusCode = 304;
    res.end();
    return;
  }
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', body.length);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send!({ type: 'listening', port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', (message: { type: string }) => {
  if (message.type === 'cpu') process.send!({ type: 'cpu', ...process.cpuUsage() });
  if (message.type === 'stop') server.close(() => process.exit(0));
});
