/** The director's read-only view of the agency's guarantees, with history, documents (downloadable) and signatures. */
import { backOffice, must, problem } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, money, t } from '../i18n';
import { documentsTable, type Download } from './document-parts';
import { guaranteeSummary, historyTable, signaturesTable } from './guarantee-parts';

export async function guaranteesScreen(page = 0): Promise<void> {
  const status = statusLine();
  try {
    const list = await must(backOffice.GET('/v1/agency/rental-insurances', { params: { query: { page, pageSize: 20 } } }));
    show(
      t('guaranteesTitle'),
      table(
        ['#', t('tenant'), t('status'), t('rent'), t('createdAt')],
        list._embedded.rentalInsurances.map((guarantee) => [
          h('a', { href: `#/guarantees/${guarantee.id}` }, String(guarantee.id)),
          guarantee.tenant.name ?? '',
          guarantee.status,
          money(guarantee.rentalAmount),
          dateTime(guarantee.createdAt),
        ]),
      ),
      h(
        'div',
        { class: 'actions' },
        page > 0 ? h('button', { type: 'button', class: 'secondary', onclick: () => void guaranteesScreen(page - 1) }, t('previous')) : null,
        list._links.next ? h('button', { type: 'button', class: 'secondary', onclick: () => void guaranteesScreen(page + 1) }, t('next')) : null,
      ),
    );
  } catch (error) {
    show(t('guaranteesTitle'), status);
    status.say(problem(error), 'error');
  }
}

export async function guaranteeScreen(id: number): Promise<void> {
  const status = statusLine();
  const path = { id };
  const say = (text: string) => status.say(text, 'error');
  const download: Download = (document) =>
    backOffice.GET('/v1/agency/rental-insurances/{id}/documents/{documentId}', {
      params: { path: { id, documentId: document.id } },
      parseAs: 'blob',
    });
  try {
    const [guarantee, history, documents, signatures] = await Promise.all([
      must(backOffice.GET('/v1/agency/rental-insurances/{id}', { params: { path } })),
      must(backOffice.GET('/v1/agency/rental-insurances/{id}/history', { params: { path, query: { pageSize: 200 } } })),
      must(backOffice.GET('/v1/agency/rental-insurances/{id}/documents', { params: { path, query: { pageSize: 100 } } })),
      must(backOffice.GET('/v1/agency/rental-insurances/{id}/signatures', { params: { path, query: { pageSize: 200 } } })),
    ]);
    show(
      t('guaranteeTitle', { id }),
      guaranteeSummary(guarantee),
      status,
      h('h2', {}, t('history')),
      historyTable(history._embedded.historyEntries, download, say),
      h('h2', {}, t('documents')),
      documentsTable(documents._embedded.documents, download, say),
      h('h2', {}, t('signatures')),
      signaturesTable(signatures._embedded.signatures),
    );
  } catch (error) {
    show(t('guaranteeTitle', { id }), status);
    status.say(problem(error), 'error');
  }
}
