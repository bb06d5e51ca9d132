/**
 * The sandbox reviewer: in the sandbox (ENVIRONMENT=sandbox) and nowhere else, the service plays
 * the back office by itself so that a partner can drive a guarantee from creation to active with
 * the partner API alone. It is a set of scheduler jobs (claimed with FOR UPDATE SKIP LOCKED like
 * every scheduled transition, so several processes never act twice) that call the same review
 * actions as staff; the one status machine decides every move.
 *
 *   under_review for SANDBOX_REVIEW_DELAY_SECONDS      -> approve / decline / request information
 *                                                        by `Sandbox reviewer` (serviceAccount false)
 *   approved with rentalAmount .04, for SANDBOX_PROPOSAL_VALIDITY_SECONDS -> expired (system)
 *   accepted with pending records, SANDBOX_SIGNING_DELAY_SECONDS after the last change
 *                                                     -> envelope ready (system)
 *   accepted with records awaiting signature, SANDBOX_SIGNING_DELAY_SECONDS after the envelope
 *                                                     -> every signer signs (the tenant refuses for
 *                                                        rentalAmount .03); all signed -> active
 */
import { Prisma } from '../generated/prisma/client';
import type { Config } from '../config';
import type { UnitOfWork } from '../database/unit-of-work';
import { todayInSaoPaulo } from '../database/column-values';
import { SANDBOX_REVIEWER } from '../auth/actors';
import { changeTime } from '../guarantees/guarantee-repository';
import {
  approve,
  decline,
  expireProposal,
  lockForReview,
  markEnvelopeReady,
  recordSignature,
  requestInformation,
} from '../guarantees/transitions/review-actions';
import type { ScheduledJob } from '../scheduler/job';
import { centsPart, MAGIC_CENTS, reviewDecision, sandboxApprovalTerms, tenantRefusesToSign } from './magic-values';

export const SANDBOX_SIGNING_LINK_BASE = 'https://sandbox.sign.rentalguarantee.example/envelopes';

const secondsBefore = (now: Date, seconds: number) => new Date(now.getTime() - seconds * 1000);
const seconds = (count: number) => Prisma.sql`make_interval(secs => ${count}::int)`;
const withSignatures = (status: 'pending' | 'awaiting_signature') =>
  Prisma.sql`EXISTS (SELECT 1 FROM signatures s WHERE s.rental_insurance_id = r.id AND s.status = ${status}::"SignatureStatus")`;

export function sandboxJobs(config: Config): ScheduledJob[] {
  const signingCutoff = (now: Date) => secondsBefore(now, config.SANDBOX_SIGNING_DELAY_SECONDS);
  return [
    {
      name: 'sandbox_review',
      // updated_at: when it entered under_review, or the partner's latest change while under review.
      eligible: (now) => Prisma.sql`r.status = 'under_review' AND r.updated_at <= ${secondsBefore(now, config.SANDBOX_REVIEW_DELAY_SECONDS)}`,
      dueAt: Prisma.sql`CASE WHEN r.status = 'under_review' THEN r.updated_at + ${seconds(config.SANDBOX_REVIEW_DELAY_SECONDS)} END`,
      order: Prisma.sql`r.updated_at, r.id`,
      perform: (unit, id, now, at) => review(unit, id, now, config, at),
    },
    {
      name: 'sandbox_expire_proposals',
      eligible: (now) =>
        Prisma.sql`r.status = 'approved' AND mod(r.rental_amount * 100, 100) = ${MAGIC_CENTS.proposalExpires}
          AND r.approved_at <= ${secondsBefore(now, config.SANDBOX_PROPOSAL_VALIDITY_SECONDS)}`,
      dueAt: Prisma.sql`CASE WHEN r.status = 'approved' AND mod(r.rental_amount * 100, 100) = ${MAGIC_CENTS.proposalExpires}
        THEN r.approved_at + ${seconds(config.SANDBOX_PROPOSAL_VALIDITY_SECONDS)} END`,
      order: Prisma.sql`r.approved_at, r.id`,
      perform: async (unit, id, _now, at) => {
        await expireProposal(unit, await lockForReview(unit.db, id, at));
      },
    },
    {
      name: 'sandbox_envelope_ready',
      eligible: (now) =>
        Prisma.sql`r.status = 'accepted' AND r.updated_at <= ${signingCutoff(now)}
          AND EXISTS (SELECT 1 FROM signatures s WHERE s.rental_insurance_id = r.id AND s.status = 'pending')`,
      dueAt: Prisma.sql`CASE WHEN r.status = 'accepted' AND ${withSignatures('pending')}
        THEN r.updated_at + ${seconds(config.SANDBOX_SIGNING_DELAY_SECONDS)} END`,
      order: Prisma.sql`r.updated_at, r.id`,
      perform: async (unit, id, _now, at) => {
        await markEnvelopeReady(unit, await lockForReview(unit.db, id, at), undefined, SANDBOX_SIGNING_LINK_BASE);
      },
    },
    {
      name: 'sandbox_sign',
      eligible: (now) =>
        Prisma.sql`r.status = 'accepted' AND r.updated_at <= ${signingCutoff(now)}
          AND EXISTS (SELECT 1 FROM signatures s WHERE s.rental_insurance_id = r.id AND s.status = 'awaiting_signature')`,
      dueAt: Prisma.sql`CASE WHEN r.status = 'accepted' AND ${withSignatures('awaiting_signature')}
        THEN r.updated_at + ${seconds(config.SANDBOX_SIGNING_DELAY_SECONDS)} END`,
      order: Prisma.sql`r.updated_at, r.id`,
      perform: (unit, id, _now, at) => sign(unit, id, at),
    },
  ];
}

async function review(unit: UnitOfWork, id: bigint, now: Date, config: Config, at?: Date): Promise<void> {
  const { db } = unit;
  const target = await lockForReview(db, id, at);
  // The review day is the guarantee's own (sandbox time travel), else the run's.
  const reviewDay = todayInSaoPaulo(changeTime(target) ?? now);
  const guarantee = await db.rentalInsurance.findUniqueOrThrow({
    where: { id },
    select: { rentalAmount: true, condoFee: true, propertyTax: true, otherFees: true },
  });
  const informationRequestedBefore =
    (await db.historyEntry.count({ where: { rentalInsuranceId: id, previousStatus: 'under_review', status: 'information_requested' } })) > 0;
  const cents = centsPart(guarantee.rentalAmount);
  const amount = `rentalAmount ends in .${String(cents).padStart(2, '0')}`;
  switch (reviewDecision(guarantee.rentalAmount, informationRequestedBefore)) {
    case 'decline':
      await decline(unit, target, SANDBOX_REVIEWER, `Sandbox: proposal declined automatically because ${amount}.`);
      return;
    case 'request_information':
      await requestInformation(
        unit,
        target,
        SANDBOX_REVIEWER,
        `Sandbox: information requested automatically because ${amount}. Change the guarantee's data with PATCH ` +
          '(any field other than externalId, for example tenant.profession) to send it back to review; the next sandbox review approves it.',
      );
      return;
    case 'approve': {
      const note =
        cents === MAGIC_CENTS.tenantRefusesToSign
          ? ` Because ${amount}, the tenant will refuse to sign.`
          : cents === MAGIC_CENTS.proposalExpires
            ? ` Because ${amount}, the proposal expires ${config.SANDBOX_PROPOSAL_VALIDITY_SECONDS} seconds after approval unless accepted.`
            : ' Accept it to receive the contract for signature.';
      await approve(unit, target, SANDBOX_REVIEWER, sandboxApprovalTerms(guarantee, reviewDay), `Sandbox: proposal approved automatically.${note}`);
      return;
    }
  }
}

/** Every signer awaiting signature answers, in record order; the last signature activates the guarantee. */
async function sign(unit: UnitOfWork, id: bigint, at?: Date): Promise<void> {
  const { db } = unit;
  const guarantee = await db.rentalInsurance.findUniqueOrThrow({ where: { id }, select: { rentalAmount: true } });
  const refuses = tenantRefusesToSign(guarantee.rentalAmount);
  const records = await db.signature.findMany({ where: { rentalInsuranceId: id, status: 'awaiting_signature' }, orderBy: { id: 'asc' } });
  for (const record of records) {
    await recordSignature(
      unit,
      await lockForReview(db, id, at),
      { role: record.role, cpfCnpj: record.cpfCnpj },
      record.role === 'tenant' && refuses ? 'refused' : 'signed',
    );
  }
}
