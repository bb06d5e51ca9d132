/**
 * Whether the standard OTEL_* variables ask for traces. Only then is the SDK loaded (start-tracing.ts):
 *   - OTEL_SDK_DISABLED=true: never;
 *   - OTEL_TRACES_EXPORTER set: when it names an exporter other than `none`;
 *   - otherwise: when an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 *     OTEL_EXPORTER_OTLP_TRACES_ENDPOINT), the SDK's default exporter being OTLP.
 * Nothing set: no SDK, no exporter, and the API's no-op tracer (tracing.ts does not even call it).
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter(Boolean);
  if (exporters.length > 0) return !exporters.includes('none');
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}
