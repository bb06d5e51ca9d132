/** Types of sandbox-service.mjs, for the TypeScript tests that start a real service. */
export interface SandboxService {
  origin: string;
  /** {base_url}: origin + API_BASE_PATH */
  baseUrl: string;
  /** {auth_url}: origin + AUTH_BASE_PATH */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** The service's recent console output, with the secret redacted. */
  output(): string;
  stop(): Promise<void>;
}

export function freePort(): Promise<number>;
export function startSandboxService(options: { name: string; env?: Record<string, string>; command?: string[] }): Promise<SandboxService>;
export function killAllSandboxServices(): void;
