#!/usr/bin/env node
/**
 * Breaking-change check of the partner contract: openapi/partner.yaml against the last published
 * version kept in openapi/published/partner-v<semver>.yaml (the highest version there), with Optic
 * (`optic diff <published> <current> --check`, offline, no Optic account or cloud) and the standard
 * in scripts/contract/optic-standard.yml.
 *
 *   node scripts/contract/breaking-changes.mjs               check (exit 1 on a breaking change)
 *   node scripts/contract/breaking-changes.mjs --self-test   prove the check: it must fail on each
 *       kind of breaking change made to a temporary copy, pass on additive changes, and pass on a
 *       breaking change whose info.version is bumped to a new major version
 *   node scripts/contract/breaking-changes.mjs --self-test=quick   the three-case version CI runs
 *
 * The rule (see openapi/published/README.md): a change that removes an operation, a request or
 * response field, an enum value or a response code, or adds a required request field or parameter,
 * fails unless info.version of openapi/partner.yaml has a higher MAJOR version than the published
 * one. info.version may never go below the published version.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CURRENT = path.join(root, 'openapi/partner.yaml');
const PUBLISHED_DIR = path.join(root, 'openapi/published');
const STANDARD = 'scripts/contract/optic-standard.yml';
const OPTIC = path.join(root, 'node_modules/.bin/optic');
// Optic sends no telemetry with this level; nothing it does here needs the network.
const OPTIC_ENV = { ...process.env, OPTIC_TELEMETRY_LEVEL: 'none', SCARF_ANALYTICS: 'false', NO_UPDATE_NOTIFIER: '1', FORCE_COLOR: '0' };

const semver = (text) => {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(text ?? ''));
  if (!match) throw new Error(`not a semantic version: ${text}`);
  return match.slice(1, 4).map(Number);
};
const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

function latestPublished() {
  const files = fs
    .readdirSync(PUBLISHED_DIR)
    .map((name) => ({ name, match: /^partner-v(\d+\.\d+\.\d+)\.yaml$/.exec(name) }))
    .filter((entry) => entry.match)
    .map((entry) => ({ file: path.join(PUBLISHED_DIR, entry.name), version: semver(entry.match[1]) }))
    .sort((a, b) => compare(b.version, a.version));
  if (files.length === 0) throw new Error(`no openapi/published/partner-v<version>.yaml found`);
  const latest = files[0];
  const declared = semver(YAML.parse(fs.readFileSync(latest.file, 'utf8')).info?.version);
  if (compare(declared, latest.version) !== 0) {
    throw new Error(`${path.relative(root, latest.file)} declares info.version ${declared.join('.')}, not the version in its name`);
  }
  return latest;
}

function runOptic(before, after) {
  return new Promise((resolve) => {
    const child = spawn(OPTIC, ['diff', before, after, '--check', '--standard', STANDARD], { cwd: root, env: OPTIC_ENV });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      // With CI=true Optic also writes a report file into its working directory; it is not wanted.
      fs.rmSync(path.join(root, 'ci-run-details.json'), { force: true });
      resolve({ code, output });
    });
  });
}

async function check() {
  const published = latestPublished();
  const current = YAML.parse(fs.readFileSync(CURRENT, 'utf8'));
  const currentVersion = semver(current.info?.version);
  const label = `openapi/partner.yaml ${currentVersion.join('.')} against ${path.relative(root, published.file)}`;
  if (compare(currentVersion, published.version) < 0) {
    console.error(`breaking-changes: ${label}: info.version is lower than the published version`);
    return 1;
  }
  const { code, output } = await runOptic(published.file, CURRENT);
  // Optic only warns when a ruleset cannot be loaded, and then checks less: treat that as a failure.
  if (/ruleset[^\n]* (failed|had configuration errors)/i.test(output)) {
    console.error(output.trimEnd());
    console.error('breaking-changes: FAILED, a ruleset of scripts/contract/optic-standard.yml did not load');
    return 1;
  }
  const major = currentVersion[0] > published.version[0];
  if (code !== 0) {
    console.error(output.trimEnd());
    console.error(
      `breaking-changes: FAILED, ${label}: the change above breaks partners of v${published.version[0]}. ` +
        'Make it additive, or (deliberately) bump info.version to a new major version.',
    );
    return 1;
  }
  const summary = /Checks: .*/.exec(output)?.[0]?.trim() ?? 'no operation changed';
  console.log(`breaking-changes: OK, ${label} (${summary})${major ? ' (new major version: breaking changes allowed)' : ''}`);
  return 0;
}

// ---- self-test: each mutation of a temporary copy and the verdict it must get -----------------
const enumOf = (doc, name) => doc.components.schemas[name].enum;
const MUTATIONS = {
  'remove an operation': { breaking: true, apply: (d) => delete d.paths['/v1/rental-insurances/{id}/refuse'].post },
  'remove a response field': {
    breaking: true,
    apply: (d) => {
      const schema = d.components.schemas.Balance;
      delete schema.properties.debits;
      schema.required = schema.required.filter((name) => name !== 'debits');
    },
  },
  'remove a request field': { breaking: true, apply: (d) => delete d.components.schemas.RentalInsuranceCreate.properties.externalId },
  'remove an enum value of a request field': { breaking: true, apply: (d) => enumOf(d, 'PropertyType').pop() },
  'remove an enum value of a list filter (status)': {
    breaking: true,
    apply: (d) => enumOf(d, 'RentalInsuranceStatus').splice(enumOf(d, 'RentalInsuranceStatus').indexOf('archived'), 1),
  },
  'remove a response code': { breaking: true, apply: (d) => delete d.paths['/v1/rental-insurances/{id}'].get.responses['404'] },
  'make a request field required': { breaking: true, apply: (d) => d.components.schemas.RentalInsuranceCreate.required.push('externalId') },
  'add a required query parameter': {
    breaking: true,
    apply: (d) => d.paths['/v1/rental-insurances'].get.parameters.push({ name: 'agencyCode', in: 'query', required: true, schema: { type: 'string', maxLength: 20 } }),
  },
  'add an optional request field (additive)': {
    breaking: false,
    apply: (d) => (d.components.schemas.RentalInsuranceCreate.properties.notes = { type: ['string', 'null'], maxLength: 500 }),
  },
  'add an operation (additive)': {
    breaking: false,
    apply: (d) => (d.paths['/v1/ping'] = { get: { operationId: 'ping', security: [], responses: { 200: { description: 'Alive.' } } } }),
  },
  'add an optional query parameter (additive)': {
    breaking: false,
    apply: (d) => d.paths['/v1/rental-insurances'].get.parameters.push({ name: 'externalId', in: 'query', required: false, schema: { type: 'string', maxLength: 100 } }),
  },
  'remove an enum value of a list filter, with a major version bump': {
    breaking: false,
    apply: (d) => {
      enumOf(d, 'RentalInsuranceStatus').splice(enumOf(d, 'RentalInsuranceStatus').indexOf('archived'), 1);
      d.info.version = `${semver(d.info.version)[0] + 1}.0.0`;
    },
  },
  'remove an operation, with only a minor version bump': {
    breaking: true,
    apply: (d) => {
      delete d.paths['/v1/rental-insurances/{id}/refuse'].post;
      const [major, minor] = semver(d.info.version);
      d.info.version = `${major}.${minor + 1}.0`;
    },
  },
};
const QUICK = [
  'remove an enum value of a list filter (status)',
  'add an optional request field (additive)',
  'remove an enum value of a list filter, with a major version bump',
];

async function selfTest(names) {
  const published = latestPublished();
  const base = fs.readFileSync(published.file, 'utf8');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'breaking-changes-'));
  try {
    const cases = names.map((name, index) => {
      const doc = YAML.parse(base);
      MUTATIONS[name].apply(doc);
      const file = path.join(dir, `case-${index}.yaml`);
      fs.writeFileSync(file, YAML.stringify(doc));
      return { name, file, breaking: MUTATIONS[name].breaking };
    });
    // Two at a time: each Optic run is about 10 s of CPU; the machine has 2 cores.
    const results = [];
    const queue = [...cases];
    await Promise.all(
      [0, 1].map(async () => {
        for (let next = queue.shift(); next; next = queue.shift()) {
          const { code, output } = await runOptic(published.file, next.file);
          results.push({ ...next, code, output });
        }
      }),
    );
    let failures = 0;
    for (const result of cases.map((c) => results.find((r) => r.file === c.file))) {
      const refused = result.code !== 0;
      const ok = refused === result.breaking && (result.code === 0 || result.code === 1);
      if (!ok) failures += 1;
      const reason = /x \[([^\]]+)\]/.exec(result.output)?.[1];
      console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${result.name}: ${refused ? `refused${reason ? ` (${reason})` : ''}` : 'accepted'}${ok ? '' : `, expected ${result.breaking ? 'refused' : 'accepted'}`}`);
      if (!ok) console.log(result.output.split('\n').slice(0, 30).join('\n'));
    }
    console.log(`breaking-changes self-test: ${cases.length - failures} of ${cases.length} cases as expected`);
    return failures === 0 ? 0 : 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const arg = process.argv.find((a) => a.startsWith('--self-test'));
const status = arg ? await selfTest(arg === '--self-test=quick' ? QUICK : Object.keys(MUTATIONS)) : await check();
process.exit(status);
