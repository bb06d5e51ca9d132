/** The published contract, read once from openapi/ (the single source of truth). */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { PROJECT_ROOT } from '../project-root';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

const cache = new Map<string, OpenApiDocument>();

export function loadContract(name: 'partner' | 'auth' | 'back-office' | 'health' | 'console'): OpenApiDocument {
  let document = cache.get(name);
  if (!document) {
    const file = path.join(PROJECT_ROOT, 'openapi', `${name}.yaml`);
    document = YAML.parse(fs.readFileSync(file, 'utf8')) as OpenApiDocument;
    cache.set(name, document);
  }
  // Callers get their own copy: openapi-backend dereferences the document in place.
  return structuredClone(document);
}
