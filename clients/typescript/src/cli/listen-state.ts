/**
 * What `listen` keeps between runs, in one local file (mode 0600): the local signing secret, so the
 * partner's handler keeps verifying after a restart, and per feed (API address and client ID) the
 * cursor of the last event forwarded, so a restart resumes after it: nothing repeated, nothing skipped.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

interface StateFile {
  /** The local signing secret (whsec_ + 32 random bytes, base64): not a credential of the API. */
  secret: string;
  /** Cursor of the last event forwarded, per `<base URL> <client ID>`. */
  cursors: Record<string, string>;
}

export class ListenState {
  readonly #file: string;
  #state: StateFile;

  private constructor(file: string, state: StateFile) {
    this.#file = file;
    this.#state = state;
  }

  /** Reads the file, or starts a new state (with a new secret) when there is none. */
  static open(file: string): ListenState {
    let state: StateFile | undefined;
    if (fs.existsSync(file)) {
      const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<StateFile>;
      if (typeof parsed.secret !== 'string' || !parsed.secret.startsWith('whsec_'))
        throw new Error(`${file} is not a listen state file (no whsec_ secret)`);
      state = { secret: parsed.secret, cursors: typeof parsed.cursors === 'object' && parsed.cursors !== null ? parsed.cursors : {} };
    }
    const opened = new ListenState(file, state ?? { secret: `whsec_${randomBytes(32).toString('base64')}`, cursors: {} });
    if (!state) opened.#save();
    return opened;
  }

  get secret(): string {
    return this.#state.secret;
  }

  cursor(feed: string): string | undefined {
    return this.#state.cursors[feed];
  }

  setCursor(feed: string, cursor: string): void {
    this.#state.cursors[feed] = cursor;
    this.#save();
  }

  /** Written aside and renamed over the file: a crash mid-write leaves the previous state, never half of one. */
  #save(): void {
    fs.mkdirSync(path.dirname(path.resolve(this.#file)), { recursive: true });
    const temporary = `${this.#file}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, `${JSON.stringify(this.#state, null, 2)}\n`, { mode: 0o600 });
    fs.renameSync(temporary, this.#file);
  }
}
