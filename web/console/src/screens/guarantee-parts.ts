/** A guarantee's data, history (with its documents) and signatures, as both the director and the reviewer see them. */
import type { Schemas } from '../api';
import { h, table } from '../dom';
import { dateTime, money, t } from '../i18n';
import { downloadButton, type Download } from './document-parts';

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

/** The history with each entry's documents, each a download button (document-parts.ts). */
export function historyTable(entries: Schemas['HistoryEntry'][], download: Download, say: (text: string) => void): HTMLElement {
  return table(
    [t('when'), t('by'), t('status'), t('comment'), t('documents')],
    entries.map((entry) => [
      dateTime(entry.createdAt),
      entry.creator.name,
      `${entry.previousStatus.code ?? '—'} → ${entry.status.code ?? ''}`,
      entry.comment ?? '',
      entry.documents.length === 0
        ? ''
        : h('div', { class: 'documents' }, ...entry.documents.map((document) => downloadButton(document, download, say))),
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
