/**
 * The request log's write-behind: the pipeline hands each line here after the answer is sent
 * (`record` only pushes it into this process's buffer), and the buffer is written in batches of
 * one statement each (request-log-insert.ts), REQUEST_LOG_FLUSH_MS after its first line or at once when a batch is full.
 * A request never waits for its line, and nothing the log does can fail one.
 *
 * The buffer is bounded, in lines and in bytes (a line's strings, estimated as the heap holds them):
 * when it is full (the database slower than the traffic, or unavailable), new lines are dropped and counted (request_log_lines_dropped_total), with one warning until it
 * drains. A batch that fails because the database is unavailable is kept and retried; one that
 * fails otherwise is dropped and counted. Losing the buffer (a crash) loses the last second of
 * lines: the contract says so; the log is no record of truth, the answers are.
 */
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import type { Logger } from '../logger';
import { metrics } from '../observability/metrics';
import { untraced } from '../tracing/tracing';
import { insertLines } from './request-log-insert';
import type { RequestLogLine, RequestLogSink } from '../http/request-log-line';

export interface WriterOptions {
  flushMs: number;
  /** Lines one `createMany` writes. */
  batchLines?: number;
  /** Lines the buffer holds at most; beyond, new lines are dropped. */
  maxBuffered?: number;
  /** Bytes (estimated, estimatedBytes) the buffer holds at most; beyond, new lines are dropped. */
  maxBufferedBytes?: number;
}

/**
 * About what a line takes in the heap: its strings at 2 bytes per UTF-16 unit, and the object
 * around them. A handful of additions per request: the request's own path pays nothing it notices.
 */
export function estimatedBytes(line: RequestLogLine): number {
  let chars =
    line.path.length +
    line.operationId.length +
    line.correlationId.length +
    line.credentialName.length +
    line.sourceAddress.length +
    (line.resourceId?.length ?? 0) +
    (line.idempotencyKey?.length ?? 0) +
    (line.errorCode?.length ?? 0);
  for (const detail of line.errorDetails) chars += detail.length;
  return LINE_OVERHEAD_BYTES + 2 * chars;
}

const LINE_OVERHEAD_BYTES = 300;

export class RequestLogWriter implements RequestLogSink {
  private buffer: RequestLogLine[] = [];
  private bufferedBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private warnedFull = false;
  /** The last batch failed because the database was unavailable (kept, retried later). */
  private lastFailedUnavailable = false;
  private readonly batchLines: number;
  private readonly maxBuffered: number;
  private readonly maxBufferedBytes: number;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    private readonly options: WriterOptions,
  ) {
    this.batchLines = options.batchLines ?? 500;
    this.maxBuffered = options.maxBuffered ?? 20_000;
    this.maxBufferedBytes = options.maxBufferedBytes ?? 8 * 1024 * 1024;
  }

  record(line: RequestLogLine): void {
    const bytes = estimatedBytes(line);
    if (this.buffer.length >= this.maxBuffered || this.bufferedBytes + bytes > this.maxBufferedBytes) {
      metrics.requestLogDropped.inc({ reason: 'buffer_full' });
      if (!this.warnedFull) {
        this.warnedFull = true;
        this.logger.warn({ buffered: this.buffer.length }, 'request log buffer full: new lines are dropped until it drains');
      }
      return;
    }
    this.buffer.push(line);
    this.bufferedBytes += bytes;
    if (this.buffer.length >= this.batchLines && !this.writing) this.startWriting();
    else this.schedule();
  }

  /** Writes everything buffered now (graceful stop, tests); resolves when it is written or dropped. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing || this.buffer.length > 0) {
      if (!this.writing) this.startWriting();
      await this.writing;
      if (this.buffer.length > 0 && this.lastFailedUnavailable) break; // the database is down: give up at stop
    }
  }

  private schedule(): void {
    if (this.timer || this.writing) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.startWriting();
    }, this.options.flushMs);
    this.timer.unref();
  }

  private startWriting(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.writing = this.writeBatches().finally(() => {
      this.writing = undefined;
      if (this.buffer.length > 0) this.schedule();
    });
  }

  /** The first lines of a failed batch that fit back into the buffer, in lines and in bytes. */
  private keptOf(batch: RequestLogLine[]): RequestLogLine[] {
    let lines = Math.max(this.maxBuffered - this.buffer.length, 0);
    let bytes = this.maxBufferedBytes - this.bufferedBytes;
    const kept: RequestLogLine[] = [];
    for (const line of batch) {
      const size = estimatedBytes(line);
      if (lines === 0 || size > bytes) break;
      kept.push(line);
      lines -= 1;
      bytes -= size;
    }
    return kept;
  }

  /** Writes batch after batch until the buffer is empty or a write fails. Never throws. */
  private async writeBatches(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.batchLines);
      const batchBytes = batch.reduce((sum, line) => sum + estimatedBytes(line), 0);
      this.bufferedBytes -= batchBytes;
      try {
        // Bookkeeping of requests already answered, on a timer a request set: no trace of its own, nor in that request's.
        await untraced(() => insertLines(this.db, batch));
        this.lastFailedUnavailable = false;
        if (this.buffer.length < this.maxBuffered / 2) this.warnedFull = false;
      } catch (error) {
        if (databaseFailed(error)) {
          // Kept for the next attempt, as far as the bound allows.
          this.lastFailedUnavailable = true;
          const kept = this.keptOf(batch);
          if (batch.length > kept.length) metrics.requestLogDropped.inc({ reason: 'buffer_full' }, batch.length - kept.length);
          this.buffer.unshift(...kept);
          this.bufferedBytes += kept.reduce((sum, line) => sum + estimatedBytes(line), 0);
        } else {
          metrics.requestLogDropped.inc({ reason: 'write_failed' }, batch.length);
          this.logger.warn({ err: error, lines: batch.length }, 'request log batch could not be written; its lines are dropped');
        }
        return;
      }
    }
  }
}
