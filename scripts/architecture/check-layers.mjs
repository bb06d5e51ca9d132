#!/usr/bin/env node
/**
 * The layer check of `make check` (docs/architecture.md, "Layers"):
 *   node scripts/architecture/check-layers.mjs              check src/
 *   node scripts/architecture/check-layers.mjs --self-test  show that the rules refuse what they must
 *
 * The check fails when a unit of src/ (a folder, or a top-level file) has no layer in
 * scripts/architecture/layers.cjs, when the table names a unit that does not exist, and on every
 * violation dependency-cruiser reports with .dependency-cruiser.cjs (an import up or sideways, an
 * import cycle, src/ importing tests, scripts or benchmarks).
 *
 * The self-test builds a throwaway src/ in a temporary folder: one file per unit, each importing
 * every other unit, plus the five imports issue 36 found against the layers at their real paths,
 * plus a folder without a layer. It passes only when dependency-cruiser, with the same
 * configuration, reports exactly the imports that run up or sideways (every one of them, and no
 * downward one), a cycle, and the folder without a layer.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const configFile = path.join(root, '.dependency-cruiser.cjs');
const { LAYERS } = require('./layers.cjs');
const config = require(configFile);
const depcruise = path.join(root, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');

const units = LAYERS.flatMap((layer) => layer.units);

/** The units of a src/ folder: its folders (`name/`) and its top-level files. */
function unitsOf(srcDir) {
  return fs
    .readdirSync(srcDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || /\.[cm]?[jt]s$/.test(entry.name))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name));
}

function placementProblems(srcDir) {
  const present = unitsOf(srcDir);
  return [
    ...present.filter((unit) => !units.includes(unit)).map((unit) => `src/${unit} has no layer: give it one in scripts/architecture/layers.cjs`),
    ...units.filter((unit) => !present.includes(unit)).map((unit) => `scripts/architecture/layers.cjs names src/${unit}, which does not exist`),
  ];
}

/** dependency-cruiser's violations for the src/ of `cwd`, with this repository's configuration. */
function violations(cwd) {
  const run = spawnSync(process.execPath, [depcruise, 'src', '--config', configFile, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  let result;
  try {
    result = JSON.parse(run.stdout);
  } catch {
    throw new Error(`dependency-cruiser gave no result (exit ${run.status}):\n${run.stderr}`);
  }
  return result.summary.violations.map((violation) => ({
    from: violation.from,
    to: violation.to,
    rule: violation.rule.name,
    cycle: violation.cycle,
  }));
}

const ruleComment = (name) => config.forbidden.find((rule) => rule.name === name)?.comment ?? name;

function check() {
  const problems = placementProblems(path.join(root, 'src'));
  for (const violation of violations(root)) {
    const cycle = violation.cycle ? ` (cycle: ${violation.cycle.map((step) => step.name ?? step).join(' -> ')})` : '';
    problems.push(`${violation.from} -> ${violation.to}: ${ruleComment(violation.rule)}${cycle}`);
  }
  if (problems.length > 0) {
    console.error(`Imports against the layers of src/ (${problems.length}):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`layers: every import of src/ points down (${LAYERS.length} layers, ${units.length} units)`);
}

/** Where a unit's file of the throwaway tree is, and how another file imports it. */
const fileOf = (unit) => (unit.endsWith('/') ? `src/${unit}unit.ts` : `src/${unit}`);
function specifier(fromFile, toFile) {
  const relative = path.posix.relative(path.posix.dirname(fromFile), toFile).replace(/\.ts$/, '');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

/** The five imports issue 36 found against the layers, at their real paths. */
const ISSUE_36 = [
  ['src/events/outbox.ts', 'src/webhooks/delivery-queue.ts'],
  ['src/database/migrate.ts', 'src/webhooks/queue-install.ts'],
  ['src/scheduler/scheduler.ts', 'src/sandbox/sandbox-jobs.ts'],
  ['src/http/pipeline.ts', 'src/request-log/request-log-line.ts'],
  ['src/auth/reserved-names.ts', 'src/guarantees/history.ts'],
];

function selfTest() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'layers-self-test-'));
  try {
    const files = new Map(); // file -> the files it imports
    const layerOf = new Map(LAYERS.flatMap((layer, index) => layer.units.map((unit) => [unit, { index, sideways: layer.sideways }])));
    const expected = new Set();
    for (const from of units) {
      const imports = units.filter((to) => to !== from).map(fileOf);
      files.set(fileOf(from), imports);
      for (const to of units) {
        if (to === from) continue;
        const a = layerOf.get(from);
        const b = layerOf.get(to);
        if (b.index < a.index || (b.index === a.index && !a.sideways)) expected.add(`${fileOf(from)} -> ${fileOf(to)}`);
      }
    }
    for (const [from, to] of ISSUE_36) {
      files.set(from, [...(files.get(from) ?? []), to]);
      if (!files.has(to)) files.set(to, []);
      expected.add(`${from} -> ${to}`);
    }
    files.set('src/unplaced-feature/thing.ts', []);
    for (const [file, imports] of files) {
      fs.mkdirSync(path.join(dir, path.dirname(file)), { recursive: true });
      const body = imports.map((target) => `import '${specifier(file, target)}';`).join('\n');
      fs.writeFileSync(path.join(dir, file), `${body}\nexport const here = true;\n`);
    }
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'node20', moduleResolution: 'node16', strict: true }, include: ['src'] }),
    );

    const found = violations(dir);
    const reported = new Set(
      found.filter((violation) => violation.rule.startsWith('layer-')).map((violation) => `${violation.from} -> ${violation.to}`),
    );
    const missed = [...expected].filter((pair) => !reported.has(pair));
    const wrong = [...reported].filter((pair) => !expected.has(pair));
    const problems = [
      ...missed.map((pair) => `not refused: ${pair}`),
      ...wrong.map((pair) => `refused although it points down: ${pair}`),
      ...(found.some((violation) => violation.rule === 'no-import-cycle') ? [] : ['no import cycle was reported']),
      ...(placementProblems(path.join(dir, 'src')).some((problem) => problem.startsWith('src/unplaced-feature/ has no layer'))
        ? []
        : ['a folder without a layer was not reported']),
    ];
    if (problems.length > 0) {
      console.error(`The layer check's self-test failed:\n  ${problems.join('\n  ')}`);
      process.exit(1);
    }
    console.log(
      `layers self-test: ${expected.size} imports up or sideways refused (the five of issue 36 among them), ` +
        `${units.length * (units.length - 1) - (expected.size - ISSUE_36.length)} downward ones allowed, a cycle and a folder without a layer reported`,
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv.includes('--self-test')) selfTest();
else check();
