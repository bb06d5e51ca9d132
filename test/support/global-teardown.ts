export default async function globalTeardown(): Promise<void> {
  const server = (globalThis as { __embeddedTestServer?: { stop(): Promise<void> } }).__embeddedTestServer;
  if (server) await server.stop();
}
