import path from 'node:path';

/** The repository root, whether running from src/ (tests, tsx) or from the compiled dist/src/. */
export const PROJECT_ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? '../..' : '..');
