/**
 * Runs `release` once a request's answer is over: written, or its connection closed first. A
 * ServerResponse emits 'close' in both cases (Node 16 and later); when the client hung up before
 * the listener could be added, `closed` is already true and `release` runs at once, so a slot is
 * never kept for good. One listener and no wrapper objects: this runs on every admitted request.
 */
import type { ServerResponse } from 'node:http';

export function afterAnswer(res: ServerResponse, release: () => void): void {
  if (res.closed) release();
  else res.once('close', release);
}
