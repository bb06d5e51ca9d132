-- Issue 35 beside issue 34: a document's file name is kept cleaned to at most 255 bytes (the
-- contract's Document.fileName, maxLength 255). The bound of 100 characters set before documents
-- could be attached would refuse a long name that the upload accepts.
ALTER TABLE "documents" DROP CONSTRAINT IF EXISTS "documents_file_name_length";
ALTER TABLE "documents" ADD CONSTRAINT "documents_file_name_length" CHECK (octet_length("file_name") <= 255) NOT VALID;
