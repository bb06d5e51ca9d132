/**
 * Issue 37 item 1: staff (ops:credentials:admin) list the agencies' directors and re-invite one who
 * lost their passkeys, from the console or with a token, as the admin tool's `people reinvite`
 * does (people/people.ts, in this request's transaction). Only directors: a staff member's link
 * would carry staff scopes, so staff are re-invited with the admin tool alone.
 */
import { directorPage, enrolmentLink, reinvitePersonIn } from '../../people/people';
import type { ConsolePerson } from '../../generated/prisma/client';
import { halPage, pageRequest } from '../../http/paging';
import { defineOperation, SCOPE } from './back-office-work';

type Counted = ConsolePerson & { _count?: { passkeys: number; sessions: number } };

const toDirector = (person: Counted) => ({
  id: person.id,
  companyId: person.companyId,
  name: person.name,
  passkeys: person._count?.passkeys ?? 0,
  sessions: person._count?.sessions ?? 0,
  createdAt: person.createdAt.toISOString(),
});

export const directorOperations = [
  defineOperation('listDirectors', {
    handler: async ({ query }, work, request) => {
      work.operator('staff', SCOPE.admin);
      const page = pageRequest(query, request);
      const { rows, total } = await directorPage(work.db, query.companyId, page);
      return { status: 200, body: halPage(request, 'directors', rows.map(toDirector), total, page) };
    },
  }),

  defineOperation('reinviteDirector', {
    handler: async ({ params }, work, request) => {
      const staff = work.operator('staff', SCOPE.admin);
      const { person, token, expiresAt } = await reinvitePersonIn(
        work.db,
        work.environment,
        { personId: params.personId, kind: 'director' },
        staff.audit,
        work.people.invitationHours,
      );
      const link = enrolmentLink(request.origin, work.people.consoleBasePath, token);
      // The stored answer (an idempotent replay's) never holds the link: it is shown once.
      return {
        status: 200,
        body: { director: toDirector(person), enrolmentLink: null, expiresAt: expiresAt.toISOString() },
        revealOnce: (stored) => ({ ...stored, enrolmentLink: link }),
      };
    },
  }),
];
