/**
 * The TypeScript client's webhook event catalogue (clients/typescript/src/generated/webhook-events.ts),
 * written from the partner document's `webhooks` section: one type per event (the request body the
 * document declares for that webhook, as openapi-typescript generated it in partner-api.ts), the
 * discriminated union of all of them, the list of event type names and a type guard per event.
 * scripts/generate-types.mjs writes it and drift-checks it with the other generated files, so a
 * webhook added to the document is a compile-time case of every partner's `switch (event.type)`.
 */
import YAML from 'yaml';

const pascal = (name) => name.charAt(0).toUpperCase() + name.slice(1);

/** The `type` constant of a webhook's body schema (the `const` inside its allOf). */
function eventTypeOf(document, webhookName, schema) {
  const resolved = schema.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;
  for (const part of [resolved, ...(resolved.allOf ?? [])]) {
    const type = part?.properties?.type?.const;
    if (typeof type === 'string') return type;
  }
  throw new Error(`webhooks.${webhookName}: the request body schema has no \`type\` const`);
}

/** @param {string} yamlText the partner document; @returns {string} the file's TypeScript (after the header) */
export function webhookEventsSource(yamlText) {
  const document = YAML.parse(yamlText);
  const events = Object.entries(document.webhooks ?? {}).map(([name, item]) => {
    const operation = item.post;
    const schema = operation?.requestBody?.content?.['application/json']?.schema;
    if (!operation?.operationId || !schema) throw new Error(`webhooks.${name}: needs a post with an operationId and a JSON request body`);
    return {
      typeName: `${pascal(name)}Event`,
      guard: `is${pascal(name)}`,
      operationId: operation.operationId,
      eventType: eventTypeOf(document, name, schema),
      summary: String(operation.summary ?? '').replace(/\*\//g, '*\\/'),
    };
  });
  const lines = [
    "import type { operations } from './partner-api.js';",
    '',
    '/** The JSON body the document declares for a webhook operation. */',
    "type BodyOf<Id extends keyof operations> = operations[Id] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;",
    '',
  ];
  for (const event of events) {
    lines.push(`/** ${event.summary} */`, `export type ${event.typeName} = BodyOf<'${event.operationId}'>;`);
  }
  lines.push(
    '',
    '/** Every event the service may deliver: narrow it with `switch (event.type)` or a guard below. */',
    `export type WebhookEvent =\n${events.map((event) => `  | ${event.typeName}`).join('\n')};`,
    '',
    "export type WebhookEventType = WebhookEvent['type'];",
    '',
    '/** The event type names of the document, in its order. */',
    `export const WEBHOOK_EVENT_TYPES = [${events.map((event) => `'${event.eventType}'`).join(', ')}] as const satisfies readonly WebhookEventType[];`,
    '',
  );
  for (const event of events) {
    lines.push(
      `/** True when \`event\` is a \`${event.eventType}\` event. */`,
      `export function ${event.guard}(event: WebhookEvent): event is ${event.typeName} {`,
      `  return event.type === '${event.eventType}';`,
      '}',
    );
  }
  return `${lines.join('\n')}\n`;
}
