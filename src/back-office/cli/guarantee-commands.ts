/**
 * Back-office commands of the admin tool for guarantees and the ledger (issue #5): the operations
 * API's operations for staff who do not write HTTP calls. Each calls the same service function as
 * the HTTP handler, in one transaction and its unit of work (`inUnitOfWork`, which writes the history
 * entries and events it holds before COMMIT), under the staff member's name (`--staff`).
 */
import { staffActor } from '../../auth/audit-log';
import { inUnitOfWork } from '../../database/unit-of-work';
import type { StatementType } from '../../generated/prisma/client';
import { toRentalInsurance, type GuaranteeRow, toHistoryEntry } from '../../guarantees/guarantee-mapper';
import { listHistory } from '../../guarantees/history';
import { listSignatures } from '../../guarantees/signatures';
import type { Effect } from '../../guarantees/transitions/status-machine';
import { serviceEffectsHeader } from '../../http/run-operation';
import { etagOf } from '../../http/preconditions';
import { postLedgerEntry } from '../api/ledger-posting';
import { toPostedStatementEntry } from '../api/mappers';
import {
  addStaffComment,
  applyReviewOperation,
  findAnyGuarantee,
  staffMember,
  type ReviewOperation,
  type SignerRole,
} from '../../guarantees/transitions/review-service';
import { requiredOption, UsageError, type CliCommand, type CommandContext, type CommandResult } from './cli-command';

const ID = { id: { description: 'guarantee id', required: true } };
const STAFF = { staff: { description: 'your name, as the history shows it (serviceAccount false)', required: true } };

function guaranteeIdOption(ctx: CommandContext): bigint {
  const raw = requiredOption(ctx, 'id');
  if (!/^[1-9]\d{0,18}$/.test(raw)) throw new UsageError('--id must be a positive integer');
  return BigInt(raw);
}

function optional(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.options[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** An amount option as the JSON number the HTTP API would receive (the service checks it). */
function amountOption(ctx: CommandContext, name: string): number {
  const raw = requiredOption(ctx, name).trim();
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new UsageError(`--${name} must be an amount such as 1234.56`);
  return Number(raw);
}

function guaranteeResult(row: GuaranteeRow, effects: Effect[], verb: string): CommandResult {
  return {
    json: toRentalInsurance(row),
    text: [
      `Rental insurance ${row.id} (${row.companyId}) ${verb}: status ${row.status}, ETag ${etagOf(row.version)}, Service-Effects ${serviceEffectsHeader(effects)}.`,
    ],
  };
}

/** One guarantee operation: build it from the options, apply it in a transaction, print the guarantee. */
function reviewCommand(
  name: string,
  summary: string,
  options: CliCommand['options'],
  operation: (ctx: CommandContext) => ReviewOperation,
  verb: string,
): CliCommand {
  return {
    name: `guarantees ${name}`,
    summary,
    options: { ...ID, ...options, ...STAFF },
    async run(ctx) {
      const id = guaranteeIdOption(ctx);
      const staff = staffMember(requiredOption(ctx, 'staff'));
      const op = operation(ctx);
      const { row, effects } = await inUnitOfWork(ctx.db, (unit) => applyReviewOperation(unit, id, staff, op));
      return guaranteeResult(row, effects, verb);
    },
  };
}

export const guaranteeCommands: CliCommand[] = [
  {
    name: 'guarantees show',
    summary: 'Show a guarantee of any agency (the RentalInsurance shape)',
    options: { ...ID },
    async run(ctx) {
      const row = await findAnyGuarantee(ctx.db, guaranteeIdOption(ctx));
      return {
        json: { companyId: row.companyId, etag: etagOf(row.version), rentalInsurance: toRentalInsurance(row) },
        text: [
          `Rental insurance ${row.id} of ${row.companyId}: ${row.status}, ETag ${etagOf(row.version)}`,
          JSON.stringify(toRentalInsurance(row), null, 2),
        ],
      };
    },
  },
  {
    name: 'guarantees history',
    summary: "Show a guarantee's history and signature records",
    options: { ...ID },
    async run(ctx) {
      const row = await findAnyGuarantee(ctx.db, guaranteeIdOption(ctx));
      const history = (await listHistory(ctx.db, row.id)).map(toHistoryEntry);
      const signatures = await listSignatures(ctx.db, row.id);
      return {
        json: { history, signatures },
        text: [
          ...history.map(
            (entry) =>
              `${entry.createdAt}  ${entry.status.code?.padEnd(22)} ${entry.creator.name}${entry.creator.serviceAccount ? '' : ' (staff)'}: ${entry.comment ?? ''}`,
          ),
          ...signatures.map((signature) => `signature ${signature.role} ${signature.cpfCnpj ?? ''} ${signature.status}`),
        ],
      };
    },
  },
  reviewCommand(
    'approve',
    'Approve a proposal (under_review -> approved)',
    {
      installment: { description: 'installmentAmount in BRL, e.g. 456.04', required: true },
      coverage: { description: 'coverageLimit in BRL', required: true },
      'rent-coverage': { description: 'rentCoverageLimit in BRL (at most the coverage)', required: true },
      'start-billing': { description: 'startBillingDate, YYYY-MM-DD', required: true },
      termination: { description: 'terminationDate, YYYY-MM-DD' },
      comment: { description: 'comment for the history (the partner reads it)' },
    },
    (ctx) => ({
      type: 'approve',
      terms: {
        installmentAmount: amountOption(ctx, 'installment'),
        coverageLimit: amountOption(ctx, 'coverage'),
        rentCoverageLimit: amountOption(ctx, 'rent-coverage'),
        startBillingDate: requiredOption(ctx, 'start-billing'),
        terminationDate: optional(ctx, 'termination') ?? null,
        comment: optional(ctx, 'comment') ?? null,
      },
    }),
    'approved',
  ),
  reviewCommand(
    'decline',
    'Decline a proposal (under_review -> declined)',
    { comment: { description: 'comment for the history' } },
    (ctx) => ({ type: 'decline', comment: optional(ctx, 'comment') ?? null }),
    'declined',
  ),
  reviewCommand(
    'request-information',
    'Request more information (under_review -> information_requested)',
    { comment: { description: 'what the partner must send (shown in the history)', required: true } },
    (ctx) => ({ type: 'request_information', comment: requiredOption(ctx, 'comment') }),
    'information requested',
  ),
  {
    name: 'guarantees comment',
    summary: "Add a staff comment to a guarantee's history",
    options: { ...ID, comment: { description: 'the comment (the partner sees it)', required: true }, ...STAFF },
    async run(ctx) {
      const id = guaranteeIdOption(ctx);
      const staff = staffMember(requiredOption(ctx, 'staff'));
      const comment = requiredOption(ctx, 'comment');
      const entry = toHistoryEntry(await inUnitOfWork(ctx.db, (unit) => addStaffComment(unit, id, staff, comment)));
      return { json: entry, text: [`Comment added to rental insurance ${id} by ${staff.name}.`] };
    },
  },
  reviewCommand(
    'envelope-ready',
    'Mark the signing envelope ready (pending signatures get their url)',
    {},
    () => ({ type: 'envelope_ready' }),
    'envelope ready',
  ),
  reviewCommand(
    'sign',
    "Record a signer's answer (the last signature activates the guarantee)",
    {
      role: { description: 'document, tenant or co_tenant', required: true },
      cpf: { description: "the signer's CPF/CNPJ (not for role document)" },
      outcome: { description: 'signed (default) or refused' },
    },
    (ctx) => ({
      type: 'signature',
      role: requiredOption(ctx, 'role') as SignerRole,
      cpfCnpj: optional(ctx, 'cpf') ?? null,
      outcome: (optional(ctx, 'outcome') ?? 'signed') as 'signed' | 'refused',
    }),
    'signature recorded',
  ),
  reviewCommand('expire', 'Expire a proposal now (approved -> expired)', {}, () => ({ type: 'expire' }), 'expired'),
  reviewCommand('terminate', 'Terminate a guarantee (active -> terminated)', {}, () => ({ type: 'terminate' }), 'terminated'),
  reviewCommand('archive', 'Archive a guarantee (terminated -> archived)', {}, () => ({ type: 'archive' }), 'archived'),
];

export const ledgerCommands: CliCommand[] = [
  {
    name: 'ledger post',
    summary: "Post a statement entry to an agency's ledger (absolute amount; the sign comes from the type)",
    options: {
      company: { description: 'agency (company) id', required: true },
      date: { description: 'calendar day, YYYY-MM-DD (America/Sao_Paulo)', required: true },
      type: { description: 'charge_paid, charge_refunded, revenue_shared, fee, transfer_sent, transfer_refunded, transfer_received', required: true },
      amount: { description: 'absolute amount in BRL, > 0', required: true },
      description: { description: 'text shown in the statement' },
      ...STAFF,
    },
    async run(ctx) {
      const posting = {
        companyId: requiredOption(ctx, 'company'),
        date: requiredOption(ctx, 'date'),
        type: requiredOption(ctx, 'type') as StatementType,
        amount: amountOption(ctx, 'amount'),
        description: optional(ctx, 'description') ?? null,
      };
      const actor = staffActor(requiredOption(ctx, 'staff'), 'cli');
      const entry = toPostedStatementEntry(await inUnitOfWork(ctx.db, (unit) => postLedgerEntry(unit, posting, actor)));
      return { json: entry, text: [`Entry ${entry.id} posted to ${entry.companyId}: ${entry.date} ${entry.type} ${entry.amount.toFixed(2)}.`] };
    },
  },
];
