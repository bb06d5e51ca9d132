/**
 * The scheduler run at the same moment in two service processes on one database changes each
 * guarantee exactly once: 50 proposals past their validity, two child processes, one expiry each.
 */
import { TEST_WEBHOOK_KEY } from '../support/factories';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { backOffice } from '../support/back-office';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { DAY_MS } from './scheduler-helpers';

jest.setTimeout(120_000);

const world = useTestApp(
  { ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.test', WEBHOOK_SECRET_KEY: TEST_WEBHOOK_KEY },
  { agencies: 1 },
);
const partner = asPartner(world);

interface ProcessResult {
  pid: number;
  summary: Record<string, { processed: number; failed: number }>;
}

/** A scheduler process that has connected and waits for `go`. */
function startProcess(): Promise<{ child: ChildProcessWithoutNullStreams; result: Promise<ProcessResult> }> {
  const child = spawn(process.execPath, [require.resolve('tsx/cli'), path.join(__dirname, 'scheduler-process.ts'), world.databaseUrl], {
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
  const office = backOffice(world);
  const ids: number[] = [];
  for (let index = 0; index < 50; index += 1) {
    const created = await partner.newGuarantee();
    await office.approve(created.id);
    ids.push(created.id);
  }
  await world.db.rentalInsurance.updateMany({
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
    const history = await partner.historyEntries(id);
    expect(history.filter((entry) => entry.status.code === 'expired')).toHaveLength(1);
    expect(history.at(-1)).toMatchObject({ creator: { name: 'system', serviceAccount: true }, previousStatus: { code: 'approved' } });
    const guarantee = await partner.current(id);
    expect([guarantee.status, guarantee.etag]).toEqual(['expired', 'W/"3"']); // created 1, approved 2, expired 3
  }
  // Both processes were really at work on the same rows (reported for the record, not a condition).
  console.info(`expired per process: ${expiries.map((expiry) => expiry.processed).join(' + ')}`);
});
