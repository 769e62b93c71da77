#!/usr/bin/env node
// `npm run typecheck-and-lint`: `npm run typecheck:src` and `npm run lint` in one process, as
// `npm test`'s checks run them. Both need the TypeScript program of the root project (src, test,
// bench, scripts and the packages' sources), and the lint's rules ask that program's type checker
// about types the typecheck has already worked out; run apart, each builds the program and computes
// the types itself (24 s and 67 s on CI's machine, 123 s of CPU), together 48 s (69 s of CPU). The
// lint is the same ESLint configuration (eslint.config.mjs), given the programs instead of finding
// them (typescript-eslint's `programs` in place of its project service): the root's and the console's.
import { ESLint } from 'eslint';
import ts from 'typescript';

/** The program of a tsconfig file, as `tsc -p` builds it. */
function programOf(configPath) {
  const host = {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  };
  const config = ts.getParsedCommandLineOfConfigFile(configPath, {}, host);
  return ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    projectReferences: config.projectReferences,
    configFileParsingDiagnostics: config.errors,
  });
}

const root = programOf('tsconfig.json');
// tsc --noEmit's diagnostics: the configuration's, the options', syntax, global and semantic.
const diagnostics = ts.getPreEmitDiagnostics(root);
if (diagnostics.length > 0) {
  process.stdout.write(
    ts.formatDiagnosticsWithColorAndContext(diagnostics, {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: ts.sys.getCurrentDirectory,
      getNewLine: () => ts.sys.newLine,
    }),
  );
  console.error(`typecheck: ${diagnostics.length} error(s) in tsconfig.json's project`);
}

const eslint = new ESLint({
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false, programs: [root, programOf('console/tsconfig.json')] } },
  },
});
const results = await eslint.lintFiles(['.']);
const output = await (await eslint.loadFormatter('stylish')).format(results);
if (output) process.stdout.write(output);
const lintErrors = results.reduce((n, r) => n + r.errorCount, 0);
process.exit(diagnostics.length > 0 || lintErrors > 0 ? 1 : 0);
