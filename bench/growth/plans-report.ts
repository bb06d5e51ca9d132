/** What `make bench-growth-plans` writes: buffers per statement and target, then every plan. */
import type { LoggedPlan } from './plan-log';

export interface Statement {
  plan: LoggedPlan;
  /** Executions per request. */
  perRequest: number;
}

export type ObservedPlans = Array<{ operation: string; target: string; statuses: number[]; statements: Map<string, Statement> }>;

/** The last plan of each distinct statement of `repeat` requests, in order of first appearance. */
export function lastPlans(plans: LoggedPlan[], repeat: number): Map<string, Statement> {
  const counts = new Map<string, number>();
  for (const plan of plans) counts.set(plan.query, (counts.get(plan.query) ?? 0) + 1);
  const last = new Map<string, Statement>();
  for (const plan of plans) last.set(plan.query, { plan, perRequest: counts.get(plan.query)! / repeat });
  return last;
}

export function formatPlans(observed: ObservedPlans, targets: string[]): string {
  const lines = [
    `# Growth bench: plans (${new Date().toISOString()}, \`make bench-growth-plans\`)`,
    '',
    'Shared buffers (hit + read) of the last execution of each statement, per target; "per request" counts executions on the first target.',
    '',
  ];
  const operations = [...new Set(observed.map((entry) => entry.operation))];
  for (const operation of operations) {
    const entries = observed.filter((entry) => entry.operation === operation);
    const queries = [...new Set(entries.flatMap((entry) => [...entry.statements.keys()]))];
    lines.push(`## ${operation}`, '', `| statement | per request | ${targets.join(' | ')} |`, `|---|---:|${targets.map(() => '---:').join('|')}|`);
    for (const query of queries) {
      const cells = targets.map((target) => entries.find((entry) => entry.target === target)?.statements.get(query)?.plan.buffers ?? '');
      const perRequest = entries.find((entry) => entry.statements.has(query))!.statements.get(query)!.perRequest;
      lines.push(`| \`${cell(query, 90)}\` | ${perRequest.toFixed(1)} | ${cells.join(' | ')} |`);
    }
    lines.push('');
    for (const entry of entries) {
      lines.push(`### ${operation}: ${entry.target}`, '', `Statuses: ${entry.statuses.join(' ')}.`, '');
      for (const { plan, perRequest } of entry.statements.values()) {
        lines.push(
          `- ${perRequest.toFixed(1)} per request; last run: ${plan.buffers} buffers`,
          '',
          '```',
          shorten(plan.query, 600),
          ...(plan.parameters ? [`-- parameters: ${shorten(plan.parameters, 300)}`] : []),
          plan.plan,
          '```',
          '',
        );
      }
    }
  }
  return lines.join('\n');
}

function shorten(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}...` : text;
}

/** A table cell's code: its pipes escaped, no backquote inside. */
function cell(text: string, length: number): string {
  return shorten(text, length).replace(/\|/g, '\\|').replace(/`/g, "'");
}
