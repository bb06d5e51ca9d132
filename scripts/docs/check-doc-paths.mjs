#!/usr/bin/env node
/**
 * Every path a document names exists (make check-docs). The documents: README.md, every docs/*.md
 * (any depth) and bench/README.md. What counts as a path:
 *   - any word that starts with a top-level folder of the repository followed by `/` (`src/http/`,
 *     `test/auth/token-flood.test.ts`, `openapi/partner.yaml`), in prose, in backticks or in code
 *     blocks: taken from the repository root. `*` and `<placeholder>` match any name within a folder;
 *   - the target of a relative Markdown link (`[x](../src/app.ts)`, `[y](deployment.md#health-probes)`),
 *     taken from the document's folder; an `#anchor` into a Markdown file must be one of its headings.
 * A path that git ignores (`.data/`, `dist/`, a generated client) names an output, not a file of the
 * repository, and is not checked.
 *   node scripts/docs/check-doc-paths.mjs            check the documents
 *   node scripts/docs/check-doc-paths.mjs FILE...    check these files instead
 *   node scripts/docs/check-doc-paths.mjs --self-test  a throwaway document with three wrong paths: each must be reported
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function documents() {
  const found = ['README.md', 'bench/README.md'];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith('.md')) found.push(relative);
    }
  };
  if (fs.existsSync(path.join(root, 'docs'))) walk('docs');
  return found.filter((file) => fs.existsSync(path.join(root, file)));
}

/** The repository's top-level folders (those git tracks a file in): what a root path starts with. */
function topFolders() {
  const tracked = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n');
  return new Set(tracked.filter((file) => file.includes('/')).map((file) => file.slice(0, file.indexOf('/'))));
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Root paths in a text: a top folder, `/`, then path characters (trailing punctuation dropped). */
function rootPaths(text, folders) {
  const alternatives = [...folders].map(escapeRegExp).join('|');
  const pattern = new RegExp(`(?<![\\w./@{}<>-])(?:${alternatives})/[\\w./*<>{}@+-]*`, 'g');
  return [...text.matchAll(pattern)].map((match) => match[0].replace(/[.,;:]+$/, ''));
}

function links(text) {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((target) => !/^(?:[a-z]+:|#)/i.test(target));
}

/** Whether a repository path (posix, from the root) exists; `*` and `<...>` match a name within one folder. */
function exists(relative) {
  if (!/[*<]/.test(relative)) return fs.existsSync(path.join(root, relative));
  const parts = relative.replace(/\/$/, '').split('/');
  let candidates = [''];
  for (const part of parts) {
    const matcher = new RegExp(
      `^${part
        .split(/(\*|<[^>]*>)/)
        .map((piece) => (piece === '*' || /^<.*>$/.test(piece) ? '.+' : escapeRegExp(piece)))
        .join('')}$`,
    );
    candidates = candidates.flatMap((dir) => {
      const full = path.join(root, dir);
      if (!fs.existsSync(full) || !fs.statSync(full).isDirectory()) return [];
      return fs
        .readdirSync(full)
        .filter((name) => matcher.test(name))
        .map((name) => path.posix.join(dir, name));
    });
  }
  return candidates.length > 0;
}

function ignoredByGit(relatives) {
  if (relatives.length === 0) return new Set();
  try {
    const out = execFileSync('git', ['check-ignore', '--no-index', '--stdin'], { cwd: root, encoding: 'utf8', input: relatives.join('\n') });
    return new Set(out.split('\n').filter(Boolean));
  } catch (error) {
    if (error.status === 1) return new Set(); // none ignored
    throw error;
  }
}

/** GitHub's anchors of a Markdown file's headings. */
function anchors(markdown) {
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '');
  const slugs = new Set();
  for (const match of withoutCode.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const slug = match[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    slugs.add(slug);
  }
  return slugs;
}

/** The problems of `files` (repository paths of Markdown documents). */
function problemsOf(files) {
  const folders = topFolders();
  const problems = [];
  for (const file of files) {
    const text = fs.readFileSync(path.join(root, file), 'utf8');
    const named = new Map(); // repository path -> how the document wrote it
    for (const found of rootPaths(text, folders)) named.set(found.replace(/\/+$/, ''), found);
    for (const target of links(text)) {
      const [linked, anchor] = target.split('#');
      const relative = linked === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURI(linked)));
      if (relative.startsWith('../')) {
        problems.push(`${file}: the link ${target} leaves the repository`);
        continue;
      }
      named.set(relative.replace(/\/+$/, ''), target);
      if (anchor && relative.endsWith('.md') && fs.existsSync(path.join(root, relative))) {
        if (!anchors(fs.readFileSync(path.join(root, relative), 'utf8')).has(anchor))
          problems.push(`${file}: the link ${target} names no heading of ${relative}`);
      }
    }
    // A folder's ignore rule (`dist/`) matches only a path that says it is a folder: ask both ways.
    const plain = [...named.keys()].filter((relative) => !/[*<]/.test(relative));
    const ignored = ignoredByGit(plain.flatMap((relative) => [relative, `${relative}/`]));
    for (const [relative, written] of named) {
      if (ignored.has(relative) || ignored.has(`${relative}/`) || exists(relative)) continue;
      problems.push(`${file}: ${written} does not exist`);
    }
  }
  return problems;
}

function selfTest() {
  const dir = path.join(root, '.data');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `doc-paths-self-test-${process.pid}.md`);
  fs.writeFileSync(
    file,
    [
      '# A document',
      'Existing: `src/app.ts`, src/http/, [the README](../README.md), [layers](../docs/architecture.md#layers),',
      '`test/<area>/*.test.ts`, an output `.data/postgres`, `dist/src/main.js` and a URL https://example.com/src/nothing.ts.',
      'Missing: `src/nowhere/gone.ts`, [a link](../docs/no-such-page.md), [an anchor](../docs/architecture.md#no-such-heading).',
      '```',
      'node scripts/not-a-script.mjs',
      '```',
      '',
    ].join('\n'),
  );
  try {
    const relative = path.relative(root, file);
    const found = problemsOf([relative]);
    const wanted = [
      'src/nowhere/gone.ts does not exist',
      '../docs/no-such-page.md does not exist',
      'names no heading',
      'scripts/not-a-script.mjs does not exist',
    ];
    const missed = wanted.filter((text) => !found.some((problem) => problem.includes(text)));
    if (missed.length > 0 || found.length !== wanted.length) {
      console.error(`The docs' path check's self-test failed: wanted ${wanted.length} problems, got:\n  ${found.join('\n  ')}`);
      process.exit(1);
    }
    console.log(`docs self-test: the ${wanted.length} wrong paths and links of a throwaway document were reported, and nothing else`);
  } finally {
    fs.rmSync(file, { force: true });
  }
}

if (process.argv.includes('--self-test')) {
  selfTest();
} else {
  const files = process.argv.length > 2 ? process.argv.slice(2).map((file) => path.relative(root, path.resolve(file))) : documents();
  const problems = problemsOf(files);
  if (problems.length > 0) {
    console.error(`Paths named in the docs that do not exist (${problems.length}):\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`docs: every path and link named in ${files.length} documents exists`);
}
