-- Back office (issue #5): credentials of staff members and agency directors next to the partners'.

-- CreateEnum
CREATE TYPE "CredentialKind" AS ENUM ('partner', 'staff', 'director');

-- AlterTable
ALTER TABLE "credentials" ADD COLUMN     "kind" "CredentialKind" NOT NULL DEFAULT 'partner',
ADD COLUMN     "person_name" TEXT;

-- Written by hand below: rules Prisma's schema cannot express (the service checks them first, with
-- clear messages, and these keep a hand-edited row from granting one kind's scopes to another kind).

-- Staff and directors are people: their name is the history creator and the audit log's actor.
ALTER TABLE "credentials"
    ADD CONSTRAINT "credentials_person_name_check" CHECK ("kind" = 'partner' OR "person_name" IS NOT NULL);

-- Partner scopes (ri:...) only on partner credentials, operations scopes (ops:...) only on staff and
-- director credentials.
ALTER TABLE "credentials"
    ADD CONSTRAINT "credentials_scopes_kind_check" CHECK (
        CASE WHEN "kind" = 'partner'
             THEN array_to_string("scopes", ' ') !~ '(^| )ops:'
             ELSE array_to_string("scopes", ' ') !~ '(^| )ri:'
        END
    );

-- Staff credentials, and only they, belong to the reserved internal company 'back-office'.
ALTER TABLE "credentials"
    ADD CONSTRAINT "credentials_staff_company_check" CHECK (("kind" = 'staff') = ("company_id" = 'back-office'));
