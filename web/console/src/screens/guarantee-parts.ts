/** A guarantee's data, history (with its documents) and signatures, as both the director and the reviewer see them. */
import type { Schemas } from '../api';
import { h, table } from '../dom';
import { dateTime, money, t } from '../i18n';

export function guaranteeSummary(guarantee: Schemas['RentalInsurance']): HTMLElement {
  return h(
    'dl',
    {},
    h('dt', {}, t('status')),
    h('dd', { id: 'guarantee-status' }, guarantee.status),
    h('dt', {}, t('tenant')),
    h('dd', {}, `${guarantee.tenant.name ?? ''} (${guarantee.tenant.cpfCnpj ?? ''})`),
    h('dt', {}, t('rent')),
    h('dd', {}, money(guarantee.rentalAmount)),
    h('dt', {}, t('installmentAmount')),
    h('dd', {}, money(guarantee.installmentAmount)),
  );
}

/**
 * The history with each entry's documents (names). Downloading a document, and a reviewer attaching
 * documents to a request for information, come with the documents issue (35): this is the seam.
 */
export function historyTable(entries: Schemas['HistoryEntry'][]): HTMLElement {
  return table(
    [t('when'), t('by'), t('status'), t('comment'), t('documents')],
    entries.map((entry) => [
      dateTime(entry.createdAt),
      entry.creator.name,
      `${entry.previousStatus.code ?? '—'} → ${entry.status.code ?? ''}`,
      entry.comment ?? '',
      entry.documents.map((document) => document.fileName ?? String(document.id)).join(', '),
    ]),
    t('history'),
  );
}

export function signaturesTable(signatures: Schemas['Signature'][]): HTMLElement {
  return signatures.length === 0
    ? h('p', {}, t('none'))
    : table(
        [t('kind'), t('tenant'), t('status')],
        signatures.map((signature) => [signature.role, signature.name ?? '', signature.status]),
        t('signatures'),
      );
}
