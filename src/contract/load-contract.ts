/**
 * The published contract, read once from openapi/ (the single source of truth). Parsed with
 * js-yaml's core schema (YAML 1.2's: no timestamps, no YAML 1.1 booleans), which reads the
 * documents to exactly what the `yaml` package reads them to, about four times faster: every test
 * file builds the app on a fresh module registry and parsed the five documents again.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CORE_SCHEMA, load } from 'js-yaml';
import { PROJECT_ROOT } from '../project-root';

export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

const cache = new Map<string, OpenApiDocument>();

export function loadContract(name: 'partner' | 'auth' | 'back-office' | 'health' | 'console'): OpenApiDocument {
  let document = cache.get(name);
  if (!document) {
    const file = path.join(PROJECT_ROOT, 'openapi', `${name}.yaml`);
    document = load(fs.readFileSync(file, 'utf8'), { schema: CORE_SCHEMA, filename: file }) as OpenApiDocument;
    cache.set(name, document);
  }
  // Callers get their own copy: openapi-backend dereferences the document in place.
  return structuredClone(document);
}
