#!/usr/bin/env node
/**
 * Builds the console's pages (issue 37) into dist/console/: web/console/src/main.ts bundled and
 * minified by esbuild (with @simplewebauthn/browser and openapi-fetch), its stylesheet and page.
 * The service serves that folder under CONSOLE_BASE_PATH (src/console/console-pages.ts). `make
 * build` and the test suite's global setup run it; it takes well under a second.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'web', 'console');
const out = path.join(root, 'dist', 'console');

export async function buildConsole() {
  fs.mkdirSync(out, { recursive: true });
  await build({
    entryPoints: [path.join(source, 'src', 'main.ts')],
    outfile: path.join(out, 'app.js'),
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2022'],
    platform: 'browser',
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(source, 'app.css'), path.join(out, 'app.css'));
  fs.copyFileSync(path.join(source, 'index.html'), path.join(out, 'index.html'));
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = await buildConsole();
  const sizes = fs.readdirSync(dir).map((name) => `${name} ${fs.statSync(path.join(dir, name)).size} B`);
  console.log(`console built in ${path.relative(root, dir)}/: ${sizes.join(', ')}`);
}
