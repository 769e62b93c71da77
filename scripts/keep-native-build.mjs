#!/usr/bin/env node
// `.ci/run`, after `npm ci`: keeps the better-sqlite3 addon that npm ci compiled, as a prebuilt
// binary in the folder that prebuild-install looks in first (npm_config_better_sqlite3_local_prebuilds),
// so the next install on this machine unpacks it instead of compiling SQLite again. Its download of a
// prebuilt binary comes from GitHub, which this machine cannot reach, so every `npm ci` compiles: about
// 75 s of one core of CI's run. The file is named as prebuild-install names a release's binary
// (version, Node ABI, platform, architecture), so another version or Node never picks it up, and
// prebuild-install loads the unpacked addon before using it (a broken one falls back to compiling).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const folder = process.env.npm_config_better_sqlite3_local_prebuilds;
if (!folder) {
  console.error('keep-native-build: npm_config_better_sqlite3_local_prebuilds is not set; nothing kept');
  process.exit(0);
}

const require = createRequire(import.meta.url);
const packageDir = dirname(require.resolve('better-sqlite3/package.json'));
const { version } = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const libc = process.platform === 'linux' && process.report?.getReport().header.glibcVersionRuntime ? '' : 'musl';
const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}${libc}-${process.arch}.tar.gz`;
const target = join(folder, name);
const addon = 'build/Release/better_sqlite3.node';

if (existsSync(target)) process.exit(0);
if (!existsSync(join(packageDir, addon))) {
  console.error(`keep-native-build: ${addon} is missing from ${packageDir}; nothing kept`);
  process.exit(0);
}
mkdirSync(folder, { recursive: true });
// Written beside the target and renamed, so a concurrent install never unpacks half a file.
const partial = `${target}.${process.pid}.tmp`;
try {
  execFileSync('tar', ['-czf', partial, '-C', packageDir, addon]);
  renameSync(partial, target);
  console.log(`keep-native-build: kept ${addon} as ${target}`);
} finally {
  rmSync(partial, { force: true });
}
