/** The agency's webhook endpoints, their failed deliveries, and redelivery. */
import { backOffice, keyed, must, problem } from '../api';
import { h, show, statusLine, table } from '../dom';
import { dateTime, t } from '../i18n';

export async function webhooksScreen(): Promise<void> {
  const status = statusLine();
  const sections: HTMLElement[] = [];
  try {
    const endpoints = await must(backOffice.GET('/v1/agency/webhook-endpoints', { params: { query: { pageSize: 50 } } }));
    for (const endpoint of endpoints._embedded.webhookEndpoints) {
      const failed = await must(
        backOffice.GET('/v1/agency/webhook-endpoints/{endpointId}/deliveries', {
          params: { path: { endpointId: endpoint.id }, query: { status: 'failed', pageSize: 20 } },
        }),
      );
      const redeliver = (deliveryId: string) => () =>
        void must(
          backOffice.POST('/v1/agency/webhook-endpoints/{endpointId}/deliveries/{deliveryId}/redeliver', {
            params: { path: { endpointId: endpoint.id, deliveryId }, ...keyed() },
          }),
        )
          .then(() => status.say(t('done')))
          .catch((error: unknown) => status.say(problem(error), 'error'));
      sections.push(
        h(
          'section',
          { class: 'card', 'aria-labelledby': `endpoint-${endpoint.id}` },
          h('h2', { id: `endpoint-${endpoint.id}` }, endpoint.url),
          h(
            'p',
            {},
            `${t('status')}: ${endpoint.enabled ? t('enabled') : `${t('disabled')} (${endpoint.disabledReason})`} · ${endpoint.eventTypes.join(', ')}`,
          ),
          h('h3', {}, t('failedDeliveries')),
          failed._embedded.webhookDeliveries.length === 0
            ? h('p', {}, t('none'))
            : table(
                [t('when'), t('event'), t('attempts'), ''],
                failed._embedded.webhookDeliveries.map((delivery) => [
                  dateTime(delivery.createdAt),
                  delivery.eventType,
                  String(delivery.attemptCount),
                  h('button', { type: 'button', onclick: redeliver(delivery.id) }, t('redeliver')),
                ]),
              ),
        ),
      );
    }
  } catch (error) {
    status.say(problem(error), 'error');
  }
  show(t('webhooksTitle'), status, ...(sections.length > 0 ? sections : [h('p', {}, t('none'))]));
}
