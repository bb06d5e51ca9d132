-- Pacing of a webhook endpoint that stops answering (src/webhooks/delivery-pacing.ts): the attempts
-- in a row that got no answer (timeout, connection failure), and until when the endpoint's next
-- attempt waits once it is paced. Both are written only while the endpoint fails to answer, and
-- reset by any answer, a new URL or re-enabling it.
ALTER TABLE "webhook_endpoints" ADD COLUMN "unanswered_in_row" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN "paced_until" TIMESTAMPTZ(3);
