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
 *   node scripts/contract/breaking-changes.mjs --self-test=quick   the five-case version CI runs
 *
 * The rule (see openapi/published/README.md): a change that removes an operation, a request or
 * response field, an enum value or a response code, or adds a required request field or parameter,
 * fails unless info.version of openapi/partner.yaml has a higher MAJOR version than the published
 * one. info.version may never go below the published version. The changelog rule
 * (changelog-check.mjs) is checked with it: info.version changes together with an entry in
 * openapi/CHANGELOG.md, and a published version is never changed under the same number.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { changelogProblems } from './changelog-check.mjs';
import { MUTATIONS, QUICK, selfTest } from './breaking-changes-self-test.mjs';
import { runOptic } from './optic.mjs';
import { changelogInput, compare, correctionsFor, CURRENT, latestPublished, root, semver, withCorrectionsUndone } from './published-contract.mjs';

async function check() {
  const published = latestPublished();
  const current = YAML.parse(fs.readFileSync(CURRENT, 'utf8'));
  const currentVersion = semver(current.info?.version);
  const label = `openapi/partner.yaml ${currentVersion.join('.')} against ${path.relative(root, published.file)}`;
  if (compare(currentVersion, published.version) < 0) {
    console.error(`breaking-changes: ${label}: info.version is lower than the published version`);
    return 1;
  }
  const changelog = changelogProblems(changelogInput(published, current));
  if (changelog.length > 0) {
    console.error(`breaking-changes: FAILED, ${label}: the changelog rule (openapi/CHANGELOG.md):\n  - ${changelog.join('\n  - ')}`);
    return 1;
  }
  const corrections = correctionsFor(published);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'breaking-changes-'));
  const { code, output } = await runOptic(published.file, withCorrectionsUndone(CURRENT, corrections, dir)).finally(() =>
    fs.rmSync(dir, { recursive: true, force: true }),
  );
  if (corrections.length > 0)
    console.log(`breaking-changes: ${corrections.length} accepted correction(s) of openapi/published/accepted-corrections.yaml applied`);
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

const arg = process.argv.find((a) => a.startsWith('--self-test'));
const status = arg ? await selfTest(arg === '--self-test=quick' ? QUICK : Object.keys(MUTATIONS)) : await check();
process.exit(status);
