// The console is served by the Ensign server at /console (src/platform/console-static.ts): assets
// under /console/assets/ with content hashes in their names (cached immutably), no inline script
// (the server's Content-Security-Policy allows scripts from 'self' only).
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';

export default defineConfig({
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // Keeps every script an external file: nothing the CSP would refuse.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  // `npm run dev --workspace console`: the console with hot reload on :5173, the API of a server
  // started with `npm start` (same origin for the browser, through this proxy).
  server: { proxy: { '/api': 'http://127.0.0.1:8080', '/openapi.json': 'http://127.0.0.1:8080' } },
  test: {
    include: ['src/**/*.test.{ts,tsx}'],
    environment: 'node',
  },
});
