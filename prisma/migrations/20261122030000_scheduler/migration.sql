-- Scheduler (issue #5, item 2): indexes for the time-driven transitions. Proposal expiry already
-- uses rental_insurances_status_approved_at_idx, termination and archiving get their own, so that
-- a run every few seconds in every service process reads only the rows it may change.

-- CreateIndex
CREATE INDEX "rental_insurances_status_termination_date_idx" ON "rental_insurances"("status", "termination_date");

-- CreateIndex
CREATE INDEX "rental_insurances_status_terminated_at_idx" ON "rental_insurances"("status", "terminated_at");
