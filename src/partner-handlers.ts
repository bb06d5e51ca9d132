/** Every partner operation's handler, keyed by operationId (the contract's names). */
import type { OperationHandlers } from './http/operation';

export function partnerHandlers(): Pick<OperationHandlers, 'read' | 'write'> {
  return { read: {}, write: {} };
}
