/**
 * Imported first by main.ts: when the OTEL_* variables ask for traces (tracing-switch.ts), the
 * OpenTelemetry SDK starts here, before node:http, Express and Prisma Client are loaded, so that its
 * instrumentations can patch them. Otherwise the SDK is never loaded at all.
 */
import { tracingRequested } from './tracing-switch';

if (tracingRequested(process.env)) {
  // Loaded only on this branch: a service without tracing carries none of the SDK's code or memory.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./tracing-sdk') as typeof import('./tracing-sdk')).startTracing();
}
