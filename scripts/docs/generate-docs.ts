/**
 * The generated parts of the docs, from their one source each:
 *   - docs/configuration.md, whole, from the settings' declaration (src/config-settings.ts);
 *   - the layer table of docs/architecture.md (between its `layers:` markers), from
 *     scripts/architecture/layers.cjs, the table the layer check enforces.
 *   node --import tsx scripts/docs/generate-docs.ts          write them
 *   node --import tsx scripts/docs/generate-docs.ts --check  fail when a committed one differs (make check)
 */
import fs from 'node:fs';
import path from 'node:path';
import { CONFIG_SECTIONS } from '../../src/config';
import type { AnySetting } from '../../src/config-declaration';
import { PROJECT_ROOT } from '../../src/project-root';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { LAYERS } = require('../architecture/layers.cjs') as { LAYERS: Array<{ name: string; units: string[]; holds: string; sideways?: boolean }> };

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const slug = (title: string) =>
  title
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');

function defaultCell(setting: AnySetting): string {
  const shown = setting.default === undefined ? `(unset: ${setting.unset})` : `\`${String(setting.default)}\``;
  return setting.note ? `${shown} (${setting.note})` : shown;
}

function configurationDoc(): string {
  const lines = [
    '# Configuration',
    '',
    '<!-- Generated from src/config-settings.ts by `make generate`: change the declaration there, not this file (`make check` fails while they differ). -->',
    '',
    'Environment variables, read and validated once at start-up: a bad value stops the service with a',
    'message naming it, and an empty value counts as unset. Each setting is declared once, in',
    '`src/config-settings.ts` (docs/architecture.md, "Adding a setting"); this page is made from that declaration.',
    '`make start` runs the sandbox with `DEMO_CREDENTIAL=true` and `WEBHOOK_ALLOW_LOOPBACK=true`. The',
    'admin tool reads the same variables, and needs only what its commands use (docs/back-office.md).',
    '',
    CONFIG_SECTIONS.map((section) => `[${section.title}](#${slug(section.title)})`).join(' · '),
  ];
  for (const section of CONFIG_SECTIONS) {
    lines.push('', `## ${section.title}`, '', '| Variable | Default | Accepts | Meaning |', '|---|---|---|---|');
    for (const [name, setting] of Object.entries(section.settings) as Array<[string, AnySetting]>) {
      lines.push(`| \`${name}\` | ${cell(defaultCell(setting))} | ${cell(setting.accepts)} | ${cell(setting.meaning)} |`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const LAYERS_START = /<!-- layers:start[^>]*-->\n/;
const LAYERS_END = '<!-- layers:end -->';

function layerTable(): string {
  const rows = LAYERS.map((layer, index) => {
    const units = layer.units.map((unit) => `\`src/${unit}\``).join(', ');
    return `| ${index + 1}. ${layer.name} | ${units} | ${cell(layer.holds)}${layer.sideways ? ' (may import one another)' : ''} |`;
  });
  return ['| Layer (top to bottom) | Units | What they hold |', '|---|---|---|', ...rows, ''].join('\n');
}

function architectureDoc(current: string): string {
  const start = LAYERS_START.exec(current);
  const end = current.indexOf(LAYERS_END);
  if (!start || end < start.index) throw new Error('docs/architecture.md has lost its <!-- layers:start --> / <!-- layers:end --> markers');
  const from = start.index + start[0].length;
  return current.slice(0, from) + layerTable() + current.slice(end);
}

const check = process.argv.includes('--check');
const outputs: Array<[string, (current: string) => string]> = [
  ['docs/configuration.md', () => configurationDoc()],
  ['docs/architecture.md', architectureDoc],
];
let stale = false;
for (const [relative, make] of outputs) {
  const file = path.join(PROJECT_ROOT, relative);
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const wanted = make(current);
  if (wanted === current) continue;
  if (check) {
    console.error(`${relative} is out of date with its source: run \`make generate\` and commit it.`);
    stale = true;
  } else {
    fs.writeFileSync(file, wanted);
    console.log(`wrote ${relative}`);
  }
}
if (stale) process.exit(1);
