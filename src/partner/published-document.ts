/**
 * GET {base_url}/openapi.json and /openapi.yaml: the partner document as published, with `servers`
 * and the token URL set to where this process actually runs; GET {base_url}/docs: the same
 * document as a self-contained reference page (reference-page.ts).
 */
import YAML from 'yaml';
import type { RequestFacts } from '../http/operation-registry';
import { definePublicOperation } from './partner-work';
import { loadContract } from '../contract/load-contract';
import { forEnvironment } from '../contract/sandbox-only';
import { referencePage } from '../contract/reference-page';

export interface PublishedDocumentOptions {
  environment: 'sandbox' | 'production';
  apiBasePath: string;
  authBasePath: string;
}

export function publishedDocumentOperations(options: PublishedDocumentOptions) {
  const documentFor = (request: RequestFacts) => {
    const origin = request.baseUrl.slice(0, request.baseUrl.length - options.apiBasePath.length);
    const document = forEnvironment(loadContract('partner'), options.environment) as Record<string, unknown> & {
      components?: { securitySchemes?: { oauth2?: { flows?: { clientCredentials?: { tokenUrl?: string } } } } };
    };
    document['servers'] = [{ url: request.baseUrl, description: `This ${options.environment} deployment` }];
    const flow = document.components?.securitySchemes?.oauth2?.flows?.clientCredentials;
    if (flow) flow.tokenUrl = `${origin}${options.authBasePath}/oauth2/token`;
    return document;
  };
  return [
    definePublicOperation('getOpenApiJson', async (_input, request) => ({ status: 200, body: documentFor(request) })),
    definePublicOperation('getOpenApiYaml', async (_input, request) => ({ status: 200, body: YAML.stringify(documentFor(request)) })),
    definePublicOperation('getApiReference', async (_input, request) => {
      // The request console only in the sandbox (docs/partners.md).
      const page = referencePage(documentFor(request), { consoleEnabled: options.environment === 'sandbox' });
      return { status: 200, headers: { 'Content-Security-Policy': page.contentSecurityPolicy }, body: page.html };
    }),
  ];
}
