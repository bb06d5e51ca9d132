/**
 * A write's unit of work (src/database/unit-of-work.ts): the history entries and events it holds
 * are invisible to the transaction's reads until it is flushed, commit or roll back with the
 * transaction, keep their order when a row must be written at once (a staff comment), and a unit
 * that only reads refuses to hold anything.
 */
import { addStaffComment, staffMember } from '../../src/guarantees/transitions/review-service';
import { inUnitOfWork, UnitOfWork } from '../../src/database/unit-of-work';
import { emitEvent } from '../../src/events/outbox';
import { SYSTEM_ACTOR } from '../../src/auth/actors';
import { recordHistory } from '../../src/guarantees/history';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

const entry = (id: bigint, comment: string) =>
  ({ rentalInsuranceId: id, kind: 'comment', actor: SYSTEM_ACTOR, comment, previousStatus: 'under_review', status: 'under_review' }) as const;

describe('When a unit of work holds a history entry and an event', () => {
  test('then the transaction does not see them before the flush, and they are stored once it commits', async () => {
    const id = BigInt((await partner.newGuarantee()).id);
    const { companyId } = world.agency;
    const seen = await inUnitOfWork(world.db, async (unit) => {
      recordHistory(unit, entry(id, 'held entry'));
      const eventId = emitEvent(unit, { companyId, type: 'rental_insurance.comment_added', data: { held: true } });
      const before = {
        entries: await unit.db.historyEntry.count({ where: { rentalInsuranceId: id, comment: 'held entry' } }),
        events: await unit.db.event.count({ where: { id: eventId } }),
      };
      await unit.flush();
      const after = {
        entries: await unit.db.historyEntry.count({ where: { rentalInsuranceId: id, comment: 'held entry' } }),
        events: await unit.db.event.count({ where: { id: eventId } }),
      };
      return { before, after };
    });
    expect(seen).toEqual({ before: { entries: 0, events: 0 }, after: { entries: 1, events: 1 } });
  });

  test('then a rollback stores neither', async () => {
    const id = BigInt((await partner.newGuarantee()).id);
    await expect(
      inUnitOfWork(world.db, async (unit) => {
        recordHistory(unit, entry(id, 'rolled back'));
        throw new Error('rolled back on purpose');
      }),
    ).rejects.toThrow('rolled back on purpose');
    expect(await world.db.historyEntry.count({ where: { rentalInsuranceId: id, comment: 'rolled back' } })).toBe(0);
  });

  test('then a staff comment written at once comes after the entries held before it', async () => {
    const id = BigInt((await partner.newGuarantee()).id);
    await inUnitOfWork(world.db, async (unit) => {
      recordHistory(unit, entry(id, 'first, held'));
      await addStaffComment(unit, id, staffMember('Ana Revisora'), 'second, written at once');
      recordHistory(unit, entry(id, 'third, held'));
    });
    const comments = (await world.db.historyEntry.findMany({ where: { rentalInsuranceId: id }, orderBy: { id: 'asc' } })).map((row) => row.comment);
    expect(comments.slice(-3)).toEqual(['first, held', 'second, written at once', 'third, held']);
  });
});

describe('When a unit of work only reads', () => {
  test('then holding a row is refused, so nothing is silently dropped', () => {
    const unit = UnitOfWork.readOnly(world.db);
    expect(() => recordHistory(unit, entry(1n, 'never held'))).toThrow('A read-only unit of work cannot append to history_entries');
  });
});
