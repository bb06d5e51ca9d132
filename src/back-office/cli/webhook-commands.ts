/** Admin tool: an agency's webhook endpoints and an endpoint's deliveries; disabling an endpoint (audited). */
import { staffActor } from '../../auth/audit-log';
import { pageRequest } from '../../http/paging';
import { agencyEndpoints, disableEndpoint, endpointDeliveries } from '../../webhooks/endpoint-administration';
import { toWebhookDelivery, toWebhookEndpoint } from '../../webhooks/webhook-mapper';
import { requiredOption, type CliCommand } from './cli-command';

const page = { number: 0, size: 200, offset: 0 };

export const webhookCommands: CliCommand[] = [
  {
    name: 'webhooks list',
    summary: "List an agency's webhook endpoints (never their secrets)",
    options: { company: { description: 'the agency (company id)', required: true } },
    async run(ctx) {
      const { rows, total } = await agencyEndpoints(ctx.db, requiredOption(ctx, 'company'), page);
      const items = rows.map((row) => toWebhookEndpoint(row));
      return {
        json: { items, total },
        text: [
          `${total} endpoint(s):`,
          ...items.map((e) => `${e.id}  ${e.enabled ? 'enabled ' : `disabled (${e.disabledReason})`}  ${e.url}  ${e.eventTypes.join(',')}`),
        ],
      };
    },
  },
  {
    name: 'webhooks deliveries',
    summary: "An endpoint's latest deliveries and their attempts",
    options: { endpoint: { description: 'the endpoint id', required: true } },
    async run(ctx) {
      const { rows, total } = await endpointDeliveries(ctx.db, requiredOption(ctx, 'endpoint'), pageRequest({ pageSize: 50 }, null));
      const items = rows.map(toWebhookDelivery);
      return {
        json: { items, total },
        text: [
          `${total} deliver${total === 1 ? 'y' : 'ies'}; latest ${items.length}:`,
          ...items.map(
            (d) => `${d.createdAt}  ${d.status.padEnd(9)} ${d.eventType.padEnd(36)} ${d.attempts.map((a) => a.responseStatus ?? 'error').join(',')}`,
          ),
        ],
      };
    },
  },
  {
    name: 'webhooks disable',
    summary: 'Disable an endpoint (the agency re-enables it with its partner API)',
    options: { endpoint: { description: 'the endpoint id', required: true }, staff: { description: 'who acts (audit log)', required: true } },
    async run(ctx) {
      const actor = staffActor(requiredOption(ctx, 'staff'), 'cli');
      const row = await ctx.db.$transaction((tx) => disableEndpoint(tx, requiredOption(ctx, 'endpoint'), actor));
      return { json: toWebhookEndpoint(row), text: [`endpoint ${row.id} disabled (${row.url})`] };
    },
  },
];
