/** Every partner operation's handler, keyed by operationId (the contract's names). */
import { financialHandlers } from './financial/handlers';
import { guaranteeHandlers } from './guarantees/guarantee-handlers';
import { lifecycleHandlers } from './guarantees/lifecycle-handlers';
import type { OperationHandlers } from './http/operation';

export function partnerHandlers(): Pick<OperationHandlers, 'read' | 'write'> {
  return {
    read: { ...guaranteeHandlers.read, ...lifecycleHandlers.read, ...financialHandlers().read },
    write: { ...guaranteeHandlers.write, ...lifecycleHandlers.write },
  };
}
