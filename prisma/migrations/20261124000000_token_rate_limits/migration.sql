-- Brute-force protection of the token endpoint (src/auth/token-guard.ts): the counters and lockouts
-- of rate-limiter-flexible's RateLimiterPrisma, shared by every service process. Column names are
-- the library's. `expire` ends a window or a lockout, and the index serves the library's hourly cleanup
-- (DELETE ... WHERE expire < now() - 1 hour).
CREATE TABLE "token_rate_limits" (
    "key" TEXT NOT NULL,
    "points" INTEGER NOT NULL,
    "expire" TIMESTAMPTZ(3),

    CONSTRAINT "token_rate_limits_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "token_rate_limits_expire_idx" ON "token_rate_limits"("expire");
