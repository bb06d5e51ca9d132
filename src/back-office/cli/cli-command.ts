/** The shape of an admin command-line command: parsed options in, a result printed as text or JSON. */
import type { Config } from '../../config';
import type { Database } from '../../database/prisma-client';
import { staffActor, type AuditActor } from '../../auth/audit-log';

export interface CommandContext {
  db: Database;
  config: Config;
  options: Record<string, string | boolean | undefined>;
}

export interface CommandResult {
  /** Printed with --json. */
  json: unknown;
  /** Printed otherwise: readable lines. */
  text: string[];
  /** 1 when the command did only part of its work (printed above); 0 by default. */
  exitCode?: number;
}

export interface CliCommand {
  /** e.g. "credentials create" */
  name: string;
  summary: string;
  /** Option names (without --) taking a value; --json is always available. */
  options: Record<string, { description: string; required?: boolean }>;
  run(ctx: CommandContext): Promise<CommandResult>;
}

export class UsageError extends Error {}

export function requiredOption(ctx: CommandContext, name: string): string {
  const value = ctx.options[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function optionalText(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.options[name];
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

/** Who reads with the admin tool, for the audit log: `--staff <name>`, or the tool itself. */
export function readerOf(ctx: CommandContext): AuditActor {
  const staff = optionalText(ctx, 'staff');
  return staff === undefined ? { label: 'admin-cli', via: 'cli' } : staffActor(staff, 'cli');
}
