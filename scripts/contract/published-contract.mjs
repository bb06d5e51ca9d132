/** The published partner contract: its versions, and the accepted corrections that the breaking-change check puts back. */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CURRENT = path.join(root, 'openapi/partner.yaml');
const PUBLISHED_DIR = path.join(root, 'openapi/published');

export const semver = (text) => {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(text ?? ''));
  if (!match) throw new Error(`not a semantic version: ${text}`);
  return match.slice(1, 4).map(Number);
};
export const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const CORRECTIONS = path.join(PUBLISHED_DIR, 'accepted-corrections.yaml');

/** The accepted contract corrections of `published` (openapi/published/accepted-corrections.yaml). */
export function correctionsFor(published) {
  const entries = fs.existsSync(CORRECTIONS) ? (YAML.parse(fs.readFileSync(CORRECTIONS, 'utf8')) ?? []) : [];
  return entries.filter((entry) => compare(semver(entry.base), published.version) === 0);
}

/**
 * A copy of `file` with each accepted correction's published value put back, so that Optic
 * judges every other change. A correction whose pointer no longer differs fails: it hides nothing
 * and should be removed.
 */
export function withCorrectionsUndone(file, corrections, dir) {
  if (corrections.length === 0) return file;
  const doc = YAML.parse(fs.readFileSync(file, 'utf8'));
  for (const { pointer, publishedValue } of corrections) {
    const segments = pointer
      .split('/')
      .slice(1)
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = segments.pop();
    const parent = segments.reduce((node, key) => node?.[key], doc);
    if (!parent || !(last in parent) || parent[last] === publishedValue) {
      throw new Error(`accepted correction ${pointer} does not apply to ${path.relative(root, file)}: remove it`);
    }
    parent[last] = publishedValue;
  }
  const copy = path.join(dir, `corrected-${path.basename(file)}`);
  fs.writeFileSync(copy, YAML.stringify(doc));
  return copy;
}

const CHANGELOG = path.join(root, 'openapi/CHANGELOG.md');

/** Every openapi/published/partner-v<semver>.yaml, the highest version first. */
export function publishedFiles() {
  return fs
    .readdirSync(PUBLISHED_DIR)
    .map((name) => ({ name, match: /^partner-v(\d+\.\d+\.\d+)\.yaml$/.exec(name) }))
    .filter((entry) => entry.match)
    .map((entry) => ({ file: path.join(PUBLISHED_DIR, entry.name), version: semver(entry.match[1]) }))
    .sort((a, b) => compare(b.version, a.version));
}

export function latestPublished() {
  const files = publishedFiles();
  if (files.length === 0) throw new Error(`no openapi/published/partner-v<version>.yaml found`);
  const latest = files[0];
  const declared = semver(YAML.parse(fs.readFileSync(latest.file, 'utf8')).info?.version);
  if (compare(declared, latest.version) !== 0) {
    throw new Error(`${path.relative(root, latest.file)} declares info.version ${declared.join('.')}, not the version in its name`);
  }
  return latest;
}

/** What changelog-check.mjs needs: the current and latest published documents, the changelog text. */
export function changelogInput(published, current) {
  return {
    current,
    published: { version: published.version, document: YAML.parse(fs.readFileSync(published.file, 'utf8')) },
    publishedVersions: publishedFiles().map((file) => file.version),
    changelog: fs.existsSync(CHANGELOG) ? fs.readFileSync(CHANGELOG, 'utf8') : undefined,
  };
}
