/**
 * A supertest parser that reads any answer's body as UTF-8 text: supertest buffers only text and
 * JSON by itself, and the pages under test (HTML, YAML, the console's bundle) are read whole.
 */
import type request from 'supertest';

export const asText = (res: request.Response, done: (error: Error | null, body: string) => void): void => {
  const stream = res as unknown as NodeJS.ReadableStream;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => done(null, text));
};
