/** The health probes (openapi/health.yaml), served by the same pipeline as the other documents. */
import { loadContract } from '../contract/load-contract';
import { ApiError } from '../errors';
import type { operations } from '../generated/health-api';
import { operationRegistry } from '../http/operation-registry';
import type { ApiDefinition } from '../http/pipeline';
import type { ReadinessCheck } from './readiness';

const { definePublicOperation } = operationRegistry<operations, never>();

export function healthApi(ready: ReadinessCheck): ApiDefinition<never> {
  return {
    name: 'openapi/health.yaml',
    document: loadContract('health'),
    operations: [
      definePublicOperation('getLiveness', async () => ({ status: 200, body: { status: 'ok' } })),
      definePublicOperation('getReadiness', async () => {
        if (!(await ready())) {
          throw new ApiError(503, 'not_ready', 'This process is not ready to serve requests.', undefined, { 'Retry-After': '1' });
        }
        return { status: 200, body: { status: 'ok' } };
      }),
    ],
    workFor: () => {
      throw new Error('The health probes take no token');
    },
  };
}
