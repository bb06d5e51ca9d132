/**
 * The kit's output: a readable report on the console (one line per step, its problems under it)
 * and a JUnit XML file (one testcase per step) for the partner's CI. Everything written passes
 * through redact(): the client secret and access tokens never appear, not even in a failure.
 */
import type { StepRecord } from './session.js';

export class Redactor {
  readonly #secrets = new Set<string>();

  add(secret: string | undefined): void {
    if (secret && secret.length >= 4) this.#secrets.add(secret);
  }

  redact(text: string): string {
    let out = text;
    for (const secret of this.#secrets) out = out.split(secret).join('[redacted]');
    // Access tokens of either environment, wherever they came from.
    return out.replace(/\b(sbx|prd)_at_[A-Za-z0-9_-]{8,}/g, '$1_at_[redacted]');
  }
}

export interface RunSummary {
  title: string;
  contractVersion: string;
  contractSource: string;
  baseUrl: string;
  records: StepRecord[];
  durationMs: number;
}

const MARK = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;
const seconds = (ms: number) => (ms / 1000).toFixed(1);
const number = (index: number) => String(index + 1).padStart(2, '0');

export function stepLine(record: StepRecord, index: number): string {
  const requests = record.exchanges.length;
  const head = `  ${MARK[record.outcome]} ${number(index)} ${record.name}`;
  const tail = record.outcome === 'skipped' ? `skipped: ${record.note}` : `${requests} request${requests === 1 ? '' : 's'}, ${seconds(record.durationMs)} s`;
  return [`${head.padEnd(92)} ${tail}`, ...record.problems.map((problem) => `         - ${problem}`)].join('\n');
}

export function header(summary: Omit<RunSummary, 'records' | 'durationMs'>): string {
  return `${summary.title} conformance: contract ${summary.contractVersion} (${summary.contractSource}) against ${summary.baseUrl}`;
}

export function footer(summary: RunSummary): string {
  const count = (outcome: StepRecord['outcome']) => summary.records.filter((record) => record.outcome === outcome).length;
  const requests = summary.records.reduce((sum, record) => sum + record.exchanges.length, 0);
  const failed = summary.records.filter((record) => record.outcome === 'failed').map((record) => `"${record.name}"`);
  return [
    `${summary.records.length} steps: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped; ${requests} requests, each validated against the contract (${seconds(summary.durationMs)} s)`,
    failed.length > 0 ? `FAILED steps: ${failed.join(', ')}` : 'CONFORMANT: every step passed',
  ].join('\n');
}

export function junitXml(summary: RunSummary): string {
  const count = (outcome: StepRecord['outcome']) => summary.records.filter((record) => record.outcome === outcome).length;
  const cases = summary.records.map((record, index) => {
    const exchanges = record.exchanges.map((exchange) => `${exchange.method} ${exchange.path} -> ${exchange.status} (${exchange.durationMs} ms)`).join('\n');
    const body =
      record.outcome === 'failed'
        ? `      <failure message="${xml(record.problems[0] ?? 'failed')}" type="conformance">${xml(record.problems.join('\n'))}</failure>\n`
        : record.outcome === 'skipped'
          ? `      <skipped message="${xml(record.note ?? '')}"/>\n`
          : '';
    return (
      `    <testcase classname="partner-conformance" name="${xml(`${number(index)} ${record.name}`)}" time="${seconds(record.durationMs)}">\n` +
      body +
      (exchanges ? `      <system-out>${xml(exchanges)}</system-out>\n` : '') +
      '    </testcase>'
    );
  });
  const totals = `tests="${summary.records.length}" failures="${count('failed')}" errors="0" skipped="${count('skipped')}" time="${seconds(summary.durationMs)}"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="partner-conformance" ${totals}>`,
    `  <testsuite name="${xml(`${summary.title} ${summary.contractVersion} conformance`)}" ${totals} timestamp="${new Date().toISOString()}">`,
    '    <properties>',
    `      <property name="baseUrl" value="${xml(summary.baseUrl)}"/>`,
    `      <property name="contract" value="${xml(`${summary.contractSource} (${summary.contractVersion})`)}"/>`,
    '    </properties>',
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

function xml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // XML 1.0 cannot carry these control characters at all.
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F]/g, '');
}
