// Written by scripts/build-package.mjs from package.json at every build: do not edit.
export const VERSION = '0.1.0';
