// The house rules of ARCHITECTURE.md that an import graph can check, run by `npm test` (lint:deps).
// docs/decisions/0007-module-boundaries.md says what is checked, what is not, and the CLI exception.
const TEST_CODE = '(\\.test\\.ts$|^test/)';
/** Fixtures and test clients a module offers to the tests of others. */
const TEST_SUPPORT = '\\.(fixtures|test-client)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'module-through-index',
      comment: 'A module reaches another only through its index.ts, never deep inside it.',
      severity: 'error',
      from: { path: '^src/modules/([^/]+/[^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/[^/]+/index\\.ts$', TEST_SUPPORT],
      },
    },
    {
      name: 'outside-through-index',
      comment:
        'Code outside modules/ (app, platform, engine, tests) reaches a module through its index.ts too; db/database.ts alone assembles the tables.',
      severity: 'error',
      from: { path: '^(src|test)/', pathNot: ['^src/modules/', '^src/db/database\\.ts$'] },
      to: { path: '^src/modules/[^/]+/[^/]+/', pathNot: ['^src/modules/[^/]+/[^/]+/index\\.ts$', TEST_SUPPORT] },
    },
    {
      name: 'core-uses-no-subsystem',
      comment: 'The four subsystems stand in layers (docs/conventions.md): core uses none of the other three.',
      severity: 'error',
      from: { path: '^src/modules/core/', pathNot: TEST_CODE },
      to: { path: '^src/modules/(delivery|telemetry|experimentation)/' },
    },
    {
      name: 'planes-use-core-only',
      comment:
        'The delivery and telemetry planes use core, not each other and not experimentation (which stands above them).',
      severity: 'error',
      from: { path: '^src/modules/(delivery|telemetry)/', pathNot: TEST_CODE },
      to: { path: '^src/modules/(experimentation)/|^src/modules/(delivery|telemetry)/', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'test-support-in-tests-only',
      comment: "A module's fixtures and test clients serve other modules' tests, never running code.",
      severity: 'error',
      from: { pathNot: [TEST_CODE, TEST_SUPPORT] },
      to: { path: TEST_SUPPORT },
    },
    {
      name: 'no-circular',
      comment: 'No import cycles.',
      severity: 'error',
      from: { path: '^(src|packages)/' },
      to: { circular: true },
    },
    {
      name: 'cli-talks-http',
      comment:
        'The CLI talks HTTP only (typed by the generated src/api-types/, which is types only); the operator commands serve, migrate and admin (cli/commands/server.ts) run the server side in-process (decision 0007).',
      severity: 'error',
      from: { path: '^src/cli/', pathNot: ['^src/cli/commands/server\\.ts$'] },
      to: { path: '^src/', pathNot: ['^src/cli/', '^src/api-types/'] },
    },
    {
      name: 'dialect-only-in-db',
      comment:
        'Only db/ knows which database is in use: nothing else may ask (tests choose an engine, so they may name one).',
      severity: 'error',
      // The leased-jobs queue is built beside db/ (ARCHITECTURE.md): its lease statement (FOR UPDATE
      // SKIP LOCKED on PostgreSQL, one UPDATE on SQLite) is the one dialect branch outside db/.
      from: { path: '^src/', pathNot: ['^src/db/', '^src/jobs/jobs\\.repository\\.ts$', TEST_CODE] },
      to: { path: '^src/db/dialect\\.ts$' },
    },
    {
      name: 'engine-is-pure',
      comment:
        '@ensign/engine (packages/engine) is pure evaluation shared with the SDK and the providers: no server code, no I/O, and nothing of its own beyond its one runtime dependency (re2js).',
      severity: 'error',
      from: { path: '^packages/engine/src/', pathNot: TEST_CODE },
      to: { pathNot: ['^packages/engine/src/', '^node_modules/re2js/'] },
    },
    {
      name: 'engine-uses-no-node-builtins',
      comment:
        'The engine runs in browsers, Deno, Bun and edge runtimes: no Node built-in module (node:fs, crypto, buffer…). Node globals are kept out by its tsconfig (no Node types).',
      severity: 'error',
      from: { path: '^packages/engine/src/', pathNot: TEST_CODE },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'engine-tests-use-no-server',
      comment: "The engine's tests run without the server: the server's own tests run the shared vectors through HTTP.",
      severity: 'error',
      from: { path: '^packages/engine/' },
      to: { path: '^(src|test|bench)/' },
    },
    {
      name: 'engine-through-its-entries',
      comment:
        'Code outside the package imports @ensign/engine by name (its entries index, core, re2, conformance), never a file inside it.',
      severity: 'error',
      from: { pathNot: '^packages/engine/' },
      to: {
        path: '^packages/engine/',
        pathNot: '^packages/engine/(src/(index|core|re2|conformance)\\.ts|conformance/vectors\\.json)$',
      },
    },
    {
      name: 'sdk-uses-no-node-builtins',
      comment:
        'The SDK and the providers run in browsers and edge runtimes: no Node built-in module, except in the Node file store, its own entry (@ensign/sdk/file-store). Node globals are caught by test/browser-bundle.test.ts.',
      severity: 'error',
      from: {
        path: '^packages/(sdk|openfeature-server|openfeature-web)/src/',
        pathNot: ['^packages/sdk/src/file-store\\.ts$', TEST_CODE],
      },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'sdk-depends-on-the-engine-only',
      comment:
        "@ensign/sdk has no runtime dependency beyond @ensign/engine (the issue's rule); the providers add only their OpenFeature SDK.",
      severity: 'error',
      from: { path: '^packages/sdk/src/', pathNot: TEST_CODE },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-peer', 'npm-optional', 'npm-no-pkg', 'npm-unknown'],
        pathNot: '^(packages/engine/|node_modules/re2js/)',
      },
    },
    {
      name: 'sdk-through-its-entries',
      comment:
        "The providers, tests and benches import @ensign/sdk by name (its entries index and file-store), never a file inside it; the providers' tests share the SDK's test fixtures (the scripted server, the translated flagd scenarios).",
      severity: 'error',
      from: { pathNot: '^packages/sdk/' },
      to: {
        path: '^packages/sdk/',
        pathNot: ['^packages/sdk/src/(index|file-store)\\.ts$', '^packages/sdk/test/(fixtures|flagd-scenarios)\\.ts$'],
      },
    },
    {
      name: 'packages-use-no-server',
      comment:
        "The packages and their tests stand without the server's code (the end-to-end tests under test/ start a server).",
      severity: 'error',
      from: { path: '^packages/(sdk|openfeature-server|openfeature-web)/' },
      to: { path: '^(src|test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|packages/[^/]+/dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
