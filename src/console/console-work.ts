/** What a console operation's handler works with: the request's unit of work and the signed-in person's session. */
import { Unauthorized, type Principal } from '../auth/principal';
import type { Queryable } from '../database/prisma-client';
import type { UnitOfWork } from '../database/unit-of-work';

export interface ConsoleWork {
  db: Queryable;
  /** The session of the request; 401 when the caller is not a console session (a token). */
  session(): { tokenHash: string; personId: string };
}

export function consoleWork(unit: UnitOfWork, principal: Principal): ConsoleWork {
  return {
    db: unit.db,
    session: () => {
      if (!principal.session) throw new Unauthorized('This operation needs a console session.', true);
      return principal.session;
    },
  };
}
