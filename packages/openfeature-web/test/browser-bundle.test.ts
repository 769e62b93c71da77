// The web bundle: @ensign/sdk, @ensign/engine (core, without re2js) and this provider, minified for
// the browser with esbuild (the application brings @openfeature/web-sdk; re2js is a separate chunk
// loaded only for `matches`). The bar is 15 KB gzipped, and the bound here is that bar: the
// SDK compiles what the server serves without the engine's validation (decision 0056), which keeps
// validation out of the bundle. The SDK's bundle also runs where only a browser's globals exist (a
// node:vm context: no Buffer, process, require), and evaluates the conformance vectors there,
// fetched through the page's fetch.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { build } from 'esbuild';
import { conformanceMismatches } from '@ensign/engine/conformance';
import { FakeServer, vectors, vectorsDocument } from '../../sdk/test/fixtures.js';

const root = fileURLToPath(new URL('../../..', import.meta.url));
export const WEB_BUNDLE_LIMIT = 15 * 1024;

async function bundle(contents: string, format: 'esm' | 'iife') {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: 'ts', sourcefile: 'page.ts' },
    // The root tsconfig maps the workspace packages to their sources.
    tsconfig: `${root}tsconfig.json`,
    bundle: true,
    minify: true,
    format,
    globalName: 'page',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external: ['@openfeature/web-sdk', '@ensign/engine/re2'],
  });
  const output = Object.values(result.metafile.outputs)[0]!;
  return { code: result.outputFiles[0]!.text, inputs: Object.keys(output.inputs) };
}

describe('the web bundle', () => {
  test(`SDK + engine core + web provider: at most ${WEB_BUNDLE_LIMIT / 1024} KB minified and gzipped, without re2js`, async (t) => {
    const { code, inputs } = await bundle(
      `export { createClient } from '@ensign/sdk'; export { EnsignWebProvider } from '@ensign/openfeature-web';`,
      'esm',
    );
    const gzipped = gzipSync(code, { level: 9 }).length;
    t.diagnostic(`web bundle: ${code.length} bytes minified, ${gzipped} bytes gzipped`);
    assert.ok(!inputs.some((i) => i.includes('re2js')), 're2js stays out (lazy chunk)');
    assert.ok(
      !inputs.some((i) => /node_modules\/(murmurhash|semver)\//.test(i)),
      'no runtime dependency but the engine',
    );
    assert.ok(
      inputs.some((i) => i.includes('packages/engine/src/compile')),
      'the engine is in',
    );
    assert.ok(
      !inputs.some((i) => /packages\/engine\/src\/(validate|dependency-graph)/.test(i)),
      'validation stays out (the server validated what it serves)',
    );
    assert.ok(gzipped <= WEB_BUNDLE_LIMIT, `${gzipped} bytes gzipped`);
  });

  test("the SDK runs with a browser's globals only and evaluates the conformance vectors", async () => {
    const { code } = await bundle(
      `
      import { createClient } from '@ensign/sdk';
      import { installRegexEngine } from '@ensign/engine/core';
      export async function run(fetch, regexEngine) {
        const client = createClient({ url: 'https://flags.test', key: 'pub_page', fetch, store: null, stream: false, events: false, regexEngine: async () => regexEngine });
        const source = await client.ready({ timeoutMs: 2000 });
        const out = { source, results: {} };
        return { client, out };
      }`,
      'iife',
    );
    const server = new FakeServer(vectorsDocument());
    const { re2RegexEngine } = await import('@ensign/engine/re2');
    const context = vm.createContext({
      TextEncoder,
      TextDecoder,
      AbortController,
      URL,
      queueMicrotask,
      setTimeout,
      clearTimeout,
      crypto: { getRandomValues: (a: Uint8Array) => a },
    });
    for (const name of ['Buffer', 'process', 'require', 'module', 'global', 'structuredClone', 'setImmediate']) {
      assert.equal(vm.runInContext(`typeof ${name}`, context), 'undefined', `${name} is not in the sandbox`);
    }
    vm.runInContext(code, context);
    const { client, out } = await (
      vm.runInContext('page.run', context) as (
        f: typeof fetch,
        r: unknown,
      ) => Promise<{ client: any; out: { source: string } }>
    )(server.fetch, re2RegexEngine);
    assert.equal(out.source, 'network');
    let cases = 0;
    for (const suite of vectors.suites) {
      for (const c of suite.cases) {
        assert.deepEqual(
          conformanceMismatches(c.expect, client.evaluate(c.flag, c.context, c.expectedType)),
          [],
          `${suite.name} / ${c.name}`,
        );
        cases++;
      }
    }
    assert.ok(cases > 130);
    await client.close();
  });
});
