-- An attempt is recorded before its request is sent (state 'started') and completed with its outcome
-- after it ('completed'), and one whose process stopped in between is 'interrupted' (issue 24 item 2).
-- Expand only: a constant default adds the column without rewriting the table, existing rows are
-- completed attempts, and so is every row the previous release inserts (it never names the column).
ALTER TABLE "webhook_attempts" ADD COLUMN "state" TEXT NOT NULL DEFAULT 'completed';
