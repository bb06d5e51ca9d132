/** Assertions shared by every test that expects an error in the specification's error body. */
import type { Response } from 'supertest';

export function expectErrorBody(response: Response, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(typeof response.body.message).toBe('string');
  expect(response.body.message.length).toBeGreaterThan(0);
  expect(new Date(response.body.timestamp).toISOString()).toBe(response.body.timestamp);
  expect(response.body.correlationId).toBe(response.headers['x-correlation-id']);
}

/** The error body carries a `details` entry for `path` (the entry starts with `path: `). */
export function expectDetailFor(response: Response, path: string): void {
  const details = (response.body?.details ?? []) as string[];
  expect(details).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${escapeRegExp(path)}: .+`))]));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
