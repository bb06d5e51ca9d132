/**
 * Collects the domain validation problems of a request (those JSON Schema cannot express: check
 * digits, phone numbers, past dates...), each naming its field, and throws them together.
 */
import { ValidationFailed } from '../errors';
import type { ValidationResult } from './result';

export class FieldProblems {
  private readonly problems: string[] = [];

  /** The normalised value, or undefined after recording the problem under `path`. */
  check(path: string, result: ValidationResult): string | undefined {
    if (result.ok) return result.value;
    this.problems.push(`${path}: ${result.reason}`);
    return undefined;
  }

  add(path: string, reason: string): void {
    this.problems.push(`${path}: ${reason}`);
  }

  list(): string[] {
    return [...this.problems];
  }

  throwIfAny(): void {
    if (this.problems.length > 0) throw new ValidationFailed(this.problems);
  }
}
