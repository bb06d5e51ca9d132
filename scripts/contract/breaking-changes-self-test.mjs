/**
 * The self-test of the breaking-change check: each mutation of a temporary copy of the published
 * contract, and the verdict the check must give it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { changelogSelfTest } from './changelog-check.mjs';
import { runOptic } from './optic.mjs';
import { changelogInput, correctionsFor, CURRENT, latestPublished, semver, withCorrectionsUndone } from './published-contract.mjs';

const enumOf = (doc, name) => doc.components.schemas[name].enum;
export const MUTATIONS = {
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
  // A client that switches over a returned value meets one it does not know (the document's policy).
  'add an enum value to a response field (signature status)': { breaking: true, apply: (d) => enumOf(d, 'SignatureStatus').push('expired') },
  'add an enum value to a response header (Idempotent-Replay)': {
    breaking: true,
    apply: (d) => d.components.headers.IdempotentReplay.schema.enum.push('partial'),
  },
  'add an enum value to a request-only field (address state, additive)': {
    breaking: false,
    apply: (d) => d.components.schemas.AddressCreate.properties.state.enum.push('ZZ'),
  },
  'remove a response code': { breaking: true, apply: (d) => delete d.paths['/v1/rental-insurances/{id}'].get.responses['404'] },
  'make a request field required': { breaking: true, apply: (d) => d.components.schemas.RentalInsuranceCreate.required.push('externalId') },
  'add a required query parameter': {
    breaking: true,
    apply: (d) =>
      d.paths['/v1/rental-insurances'].get.parameters.push({
        name: 'agencyCode',
        in: 'query',
        required: true,
        schema: { type: 'string', maxLength: 20 },
      }),
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
    apply: (d) =>
      d.paths['/v1/rental-insurances'].get.parameters.push({
        name: 'externalId',
        in: 'query',
        required: false,
        schema: { type: 'string', maxLength: 100 },
      }),
  },
  'remove an enum value of a list filter, with a major version bump': {
    breaking: false,
    apply: (d) => {
      enumOf(d, 'RentalInsuranceStatus').splice(enumOf(d, 'RentalInsuranceStatus').indexOf('archived'), 1);
      d.info.version = `${semver(d.info.version)[0] + 1}.0.0`;
    },
  },
  'make If-Match required (an accepted correction)': {
    breaking: false,
    corrected: true,
    apply: (d) => (d.components.parameters.IfMatch.required = true),
  },
  'make If-Match required (an accepted correction) and remove an operation': {
    breaking: true,
    corrected: true,
    apply: (d) => {
      d.components.parameters.IfMatch.required = true;
      delete d.paths['/v1/rental-insurances/{id}/refuse'].post;
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
export const QUICK = [
  'remove an enum value of a list filter (status)',
  'add an enum value to a response header (Idempotent-Replay)',
  'make If-Match required (an accepted correction) and remove an operation',
  'add an optional request field (additive)',
  'remove an enum value of a list filter, with a major version bump',
];

export async function selfTest(names) {
  const published = latestPublished();
  const base = fs.readFileSync(published.file, 'utf8');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'breaking-changes-'));
  try {
    const cases = names.map((name, index) => {
      const doc = YAML.parse(base);
      MUTATIONS[name].apply(doc);
      const file = path.join(dir, `case-${index}.yaml`);
      fs.writeFileSync(file, YAML.stringify(doc));
      const corrected = MUTATIONS[name].corrected ? withCorrectionsUndone(file, correctionsFor(published), dir) : file;
      return { name, file: corrected, breaking: MUTATIONS[name].breaking };
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
      console.log(
        `  ${ok ? 'ok  ' : 'FAIL'} ${result.name}: ${refused ? `refused${reason ? ` (${reason})` : ''}` : 'accepted'}${ok ? '' : `, expected ${result.breaking ? 'refused' : 'accepted'}`}`,
      );
      if (!ok) console.log(result.output.split('\n').slice(0, 30).join('\n'));
    }
    const current = YAML.parse(fs.readFileSync(CURRENT, 'utf8'));
    const changelogCases = changelogSelfTest(changelogInput(published, current));
    for (const result of changelogCases) {
      if (!result.ok) failures += 1;
      console.log(`  ${result.ok ? 'ok  ' : 'FAIL'} changelog: ${result.name}: ${result.verdict}${result.ok ? '' : `, expected ${result.expected}`}`);
    }
    const total = cases.length + changelogCases.length;
    console.log(`breaking-changes self-test: ${total - failures} of ${total} cases as expected`);
    return failures === 0 ? 0 : 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
