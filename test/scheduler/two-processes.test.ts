/**
 * The scheduler run at the same moment in two service processes on one database changes each
 * guarantee exactly once: 50 proposals past their validity, two child processes, one expiry each.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { backOffice } from '../support/back-office';
import { createGuarantee } from '../support/factories';
import { startTestApp, type Agency, type TestApp } from '../support/test-app';
import { DAY_MS, historyOf, readGuarantee } from './scheduler-helpers';

jest.setTimeout(120_000);

let t: TestApp;
let agency: Agency;
beforeAll(async () => {
  t = await startTestApp({ ENVIRONMENT: 'production' });
  agency = await t.newAgency();
});
afterAll(() => t.close());

interface ProcessResult {
  pid: number;
  summary: Record<string, { processed: number; failed: number }>;
}

/** A scheduler process that has connected and waits for `go`. */
function startProcess(): Promise<{ child: ChildProcessWithoutNullStreams; result: Promise<ProcessResult> }> {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, 'scheduler-process.ts'), t.databaseUrl], {
    cwd: path.resolve(__dirname, '../..'),
    stdio: 'pipe',
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  return new Promise((resolveReady, rejectReady) => {
    let resolveResult!: (result: ProcessResult) => void;
    let rejectResult!: (error: Error) => void;
    const result = new Promise<ProcessResult>((resolve, reject) => ((resolveResult = resolve), (rejectResult = reject)));
    lines.on('line', (line) => {
      if (line === 'ready') resolveReady({ child, result });
      else if (line.startsWith('{')) resolveResult(JSON.parse(line) as ProcessResult);
    });
    child.on('exit', (code) => {
      const error = new Error(`scheduler process exited with ${code}: ${stderr}`);
      rejectReady(error);
      if (code !== 0) rejectResult(error);
    });
  });
}

test('When two processes run the scheduler at the same moment on 50 expired proposals, then each proposal expires exactly once', async () => {
  const office = backOffice(t);
  const ids: number[] = [];
  for (let index = 0; index < 50; index += 1) {
    const created = await createGuarantee(t, agency);
    await office.approve(created.id);
    ids.push(created.id);
  }
  await t.db.rentalInsurance.updateMany({
    where: { id: { in: ids.map(BigInt) } },
    data: { approvedAt: new Date(Date.now() - 31 * DAY_MS) },
  });

  const processes = await Promise.all([startProcess(), startProcess()]);
  for (const { child } of processes) child.stdin.write('go\n');
  const results = await Promise.all(processes.map(({ result }) => result));

  const expiries = results.map((result) => result.summary['expire_proposals']!);
  expect(expiries.map((expiry) => expiry.failed)).toEqual([0, 0]);
  expect(expiries[0]!.processed + expiries[1]!.processed).toBe(50);

  for (const id of ids) {
    const history = await historyOf(t, agency, id);
    expect(history.filter((entry) => entry.status.code === 'expired')).toHaveLength(1);
    expect(history.at(-1)).toMatchObject({ creator: { name: 'system', serviceAccount: true }, previousStatus: { code: 'approved' } });
    const guarantee = await readGuarantee(t, agency, id);
    expect([guarantee.status, guarantee.etag]).toEqual(['expired', 'W/"3"']); // created 1, approved 2, expired 3
  }
  // Both processes were really at work on the same rows (reported for the record, not a condition).
  console.info(`expired per process: ${expiries.map((expiry) => expiry.processed).join(' + ')}`);
});
