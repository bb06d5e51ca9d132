/**
 * GET {base_url}/openapi.json and /openapi.yaml: the partner document as published, with `servers`
 * and the token URL set to where this process actually runs.
 */
import YAML from 'yaml';
import type { PublicHandler } from '../http/operation';
import { loadContract } from './load-contract';

export interface PublishedDocumentOptions {
  environment: 'sandbox' | 'production';
  publicOrigin?: string;
  apiBasePath: string;
  authBasePath: string;
}

export function publishedDocumentHandlers(options: PublishedDocumentOptions): Record<string, PublicHandler> {
  const documentFor = (host: string | undefined) => {
    const origin = options.publicOrigin ?? `http://${host ?? 'localhost'}`;
    const document = loadContract('partner') as Record<string, unknown> & {
      components?: { securitySchemes?: { oauth2?: { flows?: { clientCredentials?: { tokenUrl?: string } } } } };
    };
    document['servers'] = [{ url: `${origin}${options.apiBasePath}`, description: `This ${options.environment} deployment` }];
    const flow = document.components?.securitySchemes?.oauth2?.flows?.clientCredentials;
    if (flow) flow.tokenUrl = `${origin}${options.authBasePath}/oauth2/token`;
    return document;
  };
  const hostOf = (headers: Record<string, string | string[] | undefined>) => headers['host'] as string | undefined;
  return {
    getOpenApiJson: async (ctx) => ({ status: 200, body: documentFor(hostOf(ctx.request.headers)) }),
    getOpenApiYaml: async (ctx) => ({
      status: 200,
      contentType: 'application/yaml',
      body: YAML.stringify(documentFor(hostOf(ctx.request.headers))),
    }),
  };
}
