/**
 * GET {base_url}/openapi.json and /openapi.yaml: the partner document as published, with `servers`
 * and the token URL set to where this process actually runs; GET {base_url}/docs: the same
 * document as a self-contained reference page (reference-page.ts).
 *
 * Each is built once per process and origin, compressed once (src/http/representations.ts) and
 * then served from the same bytes (issue 34 item 4: the YAML was serialised again on every request
 * and the 4.5 MB page sent uncompressed, so that anonymous loops slowed every partner). Production
 * has one origin (PUBLIC_ORIGIN is required there); a sandbox reached by several Host names keeps
 * the latest few, and builds one page at a time.
 */
import pLimit from 'p-limit';
import type { RequestFacts } from '../http/operation-registry';
import { PreparedRepresentations } from '../http/representations';
import { metrics } from '../observability/metrics';
import { definePreparedPage } from './partner-work';
import { loadContract } from '../contract/load-contract';
import { forEnvironment } from '../contract/sandbox-only';
import { referencePage } from '../contract/reference-page';

export interface PublishedDocumentOptions {
  environment: 'sandbox' | 'production';
  apiBasePath: string;
  authBasePath: string;
}

type Kind = 'json' | 'yaml' | 'html';

/** Built pages kept per process: the three kinds for a few origins (each origin's page is about 7 MB in its three encodings). */
const KEPT = 9;

export function publishedDocumentOperations(options: PublishedDocumentOptions) {
  const documentFor = (baseUrl: string) => {
    const origin = baseUrl.slice(0, baseUrl.length - options.apiBasePath.length);
    const document = forEnvironment(loadContract('partner'), options.environment) as Record<string, unknown> & {
      components?: { securitySchemes?: { oauth2?: { flows?: { clientCredentials?: { tokenUrl?: string } } } } };
    };
    document['servers'] = [{ url: baseUrl, description: `This ${options.environment} deployment` }];
    const flow = document.components?.securitySchemes?.oauth2?.flows?.clientCredentials;
    if (flow) flow.tokenUrl = `${origin}${options.authBasePath}/oauth2/token`;
    return document;
  };
  const build = async (kind: Kind, baseUrl: string): Promise<PreparedRepresentations> => {
    metrics.publishedPageBuilds.inc({ kind });
    const document = documentFor(baseUrl);
    if (kind === 'json') return PreparedRepresentations.of(JSON.stringify(document), 'application/json; charset=utf-8');
    // The YAML library is loaded by the first request for the YAML document, not by every process.
    if (kind === 'yaml') return PreparedRepresentations.of((await import('yaml')).default.stringify(document), 'application/yaml; charset=utf-8');
    // The request console only in the sandbox (docs/partners.md).
    const page = referencePage(document, { consoleEnabled: options.environment === 'sandbox' });
    return PreparedRepresentations.of(page.html, 'text/html; charset=utf-8', { 'Content-Security-Policy': page.contentSecurityPolicy });
  };

  const built = new Map<string, Promise<PreparedRepresentations>>();
  // One build at a time: a burst of new Host names cannot take more than one core.
  const building = pLimit(1);
  const pageOf = (kind: Kind) => (request: RequestFacts) => {
    const key = `${kind} ${request.baseUrl}`;
    let page = built.get(key);
    if (!page) {
      page = building(() => build(kind, request.baseUrl));
      // A failed build is not kept: the next request tries again.
      page.catch(() => built.delete(key));
      if (built.size >= KEPT) built.delete(built.keys().next().value!);
      built.set(key, page);
    }
    return page;
  };
  return [
    definePreparedPage('getOpenApiJson', pageOf('json')),
    definePreparedPage('getOpenApiYaml', pageOf('yaml')),
    definePreparedPage('getApiReference', pageOf('html')),
  ];
}
