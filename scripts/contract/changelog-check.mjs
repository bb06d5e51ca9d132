/**
 * The changelog rule of the partner contract (openapi/CHANGELOG.md), checked by
 * scripts/contract/breaking-changes.mjs next to Optic:
 *   - info.version of openapi/partner.yaml has an entry `## <version> (<date>|unreleased)`, and it
 *     is the newest entry (entries go newest first, versions strictly descending);
 *   - every published version (openapi/published/partner-v<version>.yaml) has an entry with its
 *     publication date (`unreleased` is no longer true once the file exists);
 *   - a document that differs from the latest published one carries a higher info.version:
 *     a published version is frozen, so a change cannot go out under its number.
 * `changelogProblems` is pure, so the self-test can try each rule without Optic or files.
 */
import { isDeepStrictEqual } from 'node:util';

const ENTRY = /^## (\d+)\.(\d+)\.(\d+)[ \t]*\(([^)]*)\)[ \t]*$/gm;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const semverOf = (text) => {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(String(text ?? ''));
  return match ? match.slice(1, 4).map(Number) : undefined;
};
const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
const label = (version) => version.join('.');

/** The entries of the changelog text, in file order: { version: [major, minor, patch], note }. */
export function changelogEntries(text) {
  return [...text.matchAll(ENTRY)].map((match) => ({ version: match.slice(1, 4).map(Number), note: match[4].trim() }));
}

/**
 * @param current   the parsed openapi/partner.yaml
 * @param published { version: [major, minor, patch], document } of the latest published file
 * @param publishedVersions every published version, as [major, minor, patch]
 * @param changelog the text of openapi/CHANGELOG.md (undefined when the file is missing)
 * @returns a list of problems, empty when the rule holds
 */
export function changelogProblems({ current, published, publishedVersions, changelog }) {
  if (changelog === undefined) return ['openapi/CHANGELOG.md is missing'];
  const problems = [];
  const version = semverOf(current.info?.version);
  if (!version) return [`info.version ${current.info?.version} is not a semantic version`];
  const entries = changelogEntries(changelog);
  if (entries.length === 0) return ['openapi/CHANGELOG.md has no entry (`## <version> (<date>)`)'];

  if (!entries.some((entry) => compare(entry.version, version) === 0)) {
    problems.push(`openapi/CHANGELOG.md has no entry for info.version ${label(version)}: add "## ${label(version)} (unreleased)" with what changed`);
  } else if (compare(entries[0].version, version) !== 0) {
    problems.push(`the newest entry of openapi/CHANGELOG.md is ${label(entries[0].version)}, not info.version ${label(version)}`);
  }
  for (let i = 1; i < entries.length; i += 1) {
    if (compare(entries[i - 1].version, entries[i].version) <= 0) {
      problems.push(
        `openapi/CHANGELOG.md: entry ${label(entries[i].version)} after ${label(entries[i - 1].version)} (newest first, each version once)`,
      );
    }
  }
  for (const publishedVersion of publishedVersions) {
    const entry = entries.find((candidate) => compare(candidate.version, publishedVersion) === 0);
    if (!entry) problems.push(`openapi/CHANGELOG.md has no entry for the published version ${label(publishedVersion)}`);
    else if (!DATE.test(entry.note)) {
      problems.push(
        `openapi/CHANGELOG.md: ${label(publishedVersion)} is published; its entry needs the publication date (YYYY-MM-DD), not "${entry.note}"`,
      );
    }
  }
  if (compare(version, published.version) === 0 && !isDeepStrictEqual(current, published.document)) {
    problems.push(
      `openapi/partner.yaml differs from the published ${label(published.version)} but keeps its info.version: ` +
        'bump info.version (minor for additions, patch for clarifications) and add its changelog entry',
    );
  }
  return problems;
}

/**
 * Each rule broken once (the problem it must produce), and the states that must pass; run by
 * breaking-changes.mjs --self-test (quick too: it needs no Optic).
 */
export function changelogSelfTest({ current, published, publishedVersions, changelog }) {
  const base = { current, published, publishedVersions, changelog };
  const withVersion = (version) => ({ ...current, info: { ...current.info, version } });
  const [major, minor] = semverOf(current.info.version);
  const bumped = `${major}.${minor + 1}.0`;
  const firstEntryAs = (note) => changelog.replace(/^(## \d+\.\d+\.\d+)[ \t]*\([^)]*\)/m, `$1 (${note})`);
  const cases = [
    { name: 'the current document and changelog', input: base },
    {
      name: 'info.version bumped without a changelog entry',
      input: { ...base, current: withVersion(bumped) },
      refused: /no entry for info\.version/,
    },
    {
      name: 'info.version bumped with its entry',
      input: { ...base, current: withVersion(bumped), changelog: changelog.replace(/^## /m, `## ${bumped} (unreleased)\n\n- A change.\n\n## `) },
    },
    {
      name: 'the entry of info.version is not the newest',
      input: { ...base, current: withVersion(bumped), changelog: `${changelog}\n## ${bumped} (unreleased)\n` },
      refused: /newest entry/,
    },
    {
      name: 'a changed document that keeps the published info.version',
      input: { ...base, current: { ...published.document, info: { ...published.document.info, description: 'A change.' } } },
      refused: /differs from the published/,
    },
    {
      name: 'a published version whose entry still says unreleased',
      input: { ...base, publishedVersions: [...publishedVersions, semverOf(current.info.version)], changelog: firstEntryAs('unreleased') },
      refused: /needs the publication date/,
    },
  ];
  return cases.map(({ name, input, refused }) => {
    const problems = changelogProblems(input);
    const ok = refused ? problems.some((problem) => refused.test(problem)) : problems.length === 0;
    const shown = (refused && problems.find((problem) => refused.test(problem))) ?? problems[0];
    return { name, ok, verdict: problems.length === 0 ? 'accepted' : `refused (${shown})`, expected: refused ? 'refused' : 'accepted' };
  });
}
