-- The statements the postgres dialect sends, for the fixed descriptions of @sqlinbox/sql's snapshot.ts.
-- Written by the test beside this file: run it with -u after a change of a statement, and review the diff.

-- =================================================================================================
-- postgres: transactions and the version
-- =================================================================================================
-- begin
-- text: 5 characters, sha256 a8402858d4f1e1d2
BEGIN;

-- begin (read_committed)
-- text: 36 characters, sha256 7fb4b5a7dca2722f
BEGIN ISOLATION LEVEL READ COMMITTED;

-- begin (repeatable_read)
-- text: 37 characters, sha256 18a7aad3272b1742
BEGIN ISOLATION LEVEL REPEATABLE READ;

-- begin (serializable)
-- text: 34 characters, sha256 547004d6c33e887b
BEGIN ISOLATION LEVEL SERIALIZABLE;

-- commit
-- text: 6 characters, sha256 79663c1d3b43ceaf
COMMIT;

-- rollback
-- text: 8 characters, sha256 587fa628a9fe4642
ROLLBACK;

-- savepoint
-- text: 25 characters, sha256 76b784f9b1af5b23
SAVEPOINT "sqlinbox_step";

-- release savepoint
-- text: 33 characters, sha256 4ec0949721a9d099
RELEASE SAVEPOINT "sqlinbox_step";

-- rollback to savepoint
-- text: 37 characters, sha256 b157789b656ea823
ROLLBACK TO SAVEPOINT "sqlinbox_step";

-- version
-- text: 51 characters, sha256 41fe7d9e55c1648e
SELECT
  current_setting('server_version') AS version;


-- =================================================================================================
-- row lock (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 4
-- text: 276 characters, sha256 66cd6392f0aae2a9
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "retry_after" timestamptz
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 4
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 4
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 4
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLocked (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10]
-- text: 147 characters, sha256 3de2e989cf19b94d
SELECT
  q.*
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
ORDER BY
  q."id"
LIMIT
  $2
FOR UPDATE OF
  q SKIP LOCKED;

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 99 characters, sha256 005645f2bdf3d7c4
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz
WHERE
  q."id" = $2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 239 characters, sha256 b4c7dd634189469a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 270 characters, sha256 5549a320a298d1ac
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 220 characters, sha256 14d5cb13f2b2ca9a
SELECT
  0 AS "in_work",
  count(*) FILTER (
    WHERE
      q."retry_after" > $1::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $2::timestamptz
      )
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 133 characters, sha256 8dd5bc24d5e7652f
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 c182377605ab041c
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 112eb8927677a181
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 213 characters, sha256 9c3e0af4e96d651a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 91 characters, sha256 cf1b24818696e64f
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 81 characters, sha256 a08b1d08a6848156
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 389 characters, sha256 170a9429c970ca43
SELECT
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $3::timestamptz
      )
  ) - (
    SELECT
      count(*)
    FROM
      (
        SELECT
          1
        FROM
          "jobs" f
        WHERE
          (
            f."retry_after" IS NULL
            OR f."retry_after" <= $2::timestamptz
          )
        FOR UPDATE OF
          f SKIP LOCKED
      ) sqlinbox_free
  ) AS busy,
  min(q."retry_after") FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
  ) AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- row lock, database clock (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 4
-- text: 276 characters, sha256 66cd6392f0aae2a9
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "retry_after" timestamptz
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 4
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 4
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 4
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLocked (n 10)
-- params: [10]
-- text: 137 characters, sha256 685b10a3bbc0f4f0
SELECT
  q.*
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= now()
  )
ORDER BY
  q."id"
LIMIT
  $1
FOR UPDATE OF
  q SKIP LOCKED;

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 99 characters, sha256 005645f2bdf3d7c4
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz
WHERE
  q."id" = $2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 239 characters, sha256 b4c7dd634189469a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 270 characters, sha256 5549a320a298d1ac
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 220 characters, sha256 14d5cb13f2b2ca9a
SELECT
  0 AS "in_work",
  count(*) FILTER (
    WHERE
      q."retry_after" > $1::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $2::timestamptz
      )
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 133 characters, sha256 8dd5bc24d5e7652f
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 c182377605ab041c
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 112eb8927677a181
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 213 characters, sha256 9c3e0af4e96d651a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 91 characters, sha256 cf1b24818696e64f
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 81 characters, sha256 a08b1d08a6848156
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 389 characters, sha256 170a9429c970ca43
SELECT
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $3::timestamptz
      )
  ) - (
    SELECT
      count(*)
    FROM
      (
        SELECT
          1
        FROM
          "jobs" f
        WHERE
          (
            f."retry_after" IS NULL
            OR f."retry_after" <= $2::timestamptz
          )
        FOR UPDATE OF
          f SKIP LOCKED
      ) sqlinbox_free
  ) AS busy,
  min(q."retry_after") FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
  ) AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- lease (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 4
-- text: 323 characters, sha256 7fd9248ca4633bc3
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "retry_after" timestamptz
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 4
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 4
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 4
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 441 characters, sha256 979d19a28827b7e1
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            (
              q."retry_after" IS NULL
              OR q."retry_after" <= $2::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $3::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $4
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 f514da18928fae7a
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 239 characters, sha256 b4c7dd634189469a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 270 characters, sha256 5549a320a298d1ac
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 418 characters, sha256 8edc82f92669fba3
SELECT
  count(*) FILTER (
    WHERE
      q."locked_until" > $1::timestamptz
  ) AS "in_work",
  count(*) FILTER (
    WHERE
      NOT (
        q."locked_until" IS NOT NULL
        AND q."locked_until" > $2::timestamptz
      )
      AND q."retry_after" > $3::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $4::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $5::timestamptz
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 196 characters, sha256 ad50c3b5c7c6e44e
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
  AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 224 characters, sha256 52e66fc9760c5939
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 262 characters, sha256 9895aaca50bf25c2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $2::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $3
  AND x."id" > $4
ORDER BY
  x."id"
LIMIT
  $5;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 267 characters, sha256 939446823c9fd0b2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $2::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $3
  AND x."id" = ANY ($4)
ORDER BY
  x."id"
LIMIT
  $5;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 161 characters, sha256 612cc0abc018b12a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 104 characters, sha256 1b31ade02b2f9cd1
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 204 characters, sha256 c416ca5af6514793
SELECT
  0 AS busy,
  min(q."retry_after") FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS oldest
FROM
  "jobs" q;

-- claimLease from an id (n 10, from 4000)
-- params: ["2025-01-01T00:00:30.000Z","4000","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 464 characters, sha256 028ed7bf3e52f300
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" >= $2::int8
            AND (
              q."retry_after" IS NULL
              OR q."retry_after" <= $3::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $4::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $5
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";


-- =================================================================================================
-- advisory (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 4
-- text: 294 characters, sha256 141e8a48c3baab9d
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "retry_after" timestamptz,
  "account" text
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 4
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 4
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 4
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- candidates (n 10)
-- params: ["account-","2025-01-01T00:00:00.000Z",10]
-- text: 674 characters, sha256 9ac20259e09088c1
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  c.id AS id,
  c.key AS key
FROM
  (
    SELECT
      q."id" AS id,
      $1::text || coalesce(q."account"::text, '') AS key
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $2::timestamptz
      )
    ORDER BY
      q."id"
    OFFSET
      0
  ) c
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      sqlinbox_held h
    WHERE
      h.hi = ((hashtextextended (c.key, 0) >> 32) & 4294967295)
      AND h.lo = (hashtextextended (c.key, 0) & 4294967295)
  )
LIMIT
  $3;

-- candidates (n 10, two keys of its own)
-- params: [["k1","k2"],"account-","2025-01-01T00:00:00.000Z",10]
-- text: 695 characters, sha256 490f03e02d96777d
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  c.id AS id,
  c.key AS key
FROM
  (
    SELECT
      q."id" AS id,
      $2::text || coalesce(q."account"::text, '') AS key
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $3::timestamptz
      )
    ORDER BY
      q."id"
    OFFSET
      0
  ) c
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      sqlinbox_held h
    WHERE
      h.hi = ((hashtextextended (c.key, 0) >> 32) & 4294967295)
      AND h.lo = (hashtextextended (c.key, 0) & 4294967295)
  )
  AND c.key <> ALL ($1)
LIMIT
  $4;

-- lock
-- params: ["account-1"]
-- text: 64 characters, sha256 99e2194cf2f71c67
SELECT
  pg_try_advisory_lock(hashtextextended ($1::text, 0)) AS ok;

-- unlock
-- params: ["account-1"]
-- text: 62 characters, sha256 033a77c870b04889
SELECT
  pg_advisory_unlock(hashtextextended ($1::text, 0)) AS ok;

-- take (id 7)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 146 characters, sha256 0a92577c10b17eac
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1
  AND (
    q."retry_after" IS NULL
    OR q."retry_after" <= $2::timestamptz
  )
RETURNING
  *;

-- lockAndTake (id 7)
-- params: ["account-1",7,"2025-01-01T00:00:00.000Z"]
-- text: 387 characters, sha256 925d9e2874a17ebb
WITH
  sqlinbox_lock AS (
    SELECT
      pg_try_advisory_lock(hashtextextended ($1::text, 0)) AS ok
  ),
  sqlinbox_taken AS (
    UPDATE "jobs" AS q
    SET
      "attempt" = "attempt" + 1
    WHERE
      q."id" = $2
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $3::timestamptz
      )
      AND (
        SELECT
          l.ok
        FROM
          sqlinbox_lock l
      )
    RETURNING
      *
  )
SELECT
  l.ok AS sqlinbox_locked,
  k.*
FROM
  sqlinbox_lock l
  LEFT JOIN sqlinbox_taken k ON true;

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 99 characters, sha256 005645f2bdf3d7c4
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz
WHERE
  q."id" = $2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","a1","sqlinbox_jobs"]
-- text: 254 characters, sha256 0342bdde4766bb3e
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after", "account")
    VALUES
      ($1::text::json, $2, $3::timestamptz, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","a1","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 294 characters, sha256 6ac4ac47a41baff6
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after", "account")
    VALUES
      ($1::text::json, $2, $3::timestamptz, $4),
      ($5::text::json, $6, DEFAULT, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($7, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 220 characters, sha256 14d5cb13f2b2ca9a
SELECT
  0 AS "in_work",
  count(*) FILTER (
    WHERE
      q."retry_after" > $1::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $2::timestamptz
      )
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["account-","2025-01-01T00:00:00.000Z"]
-- text: 172 characters, sha256 5c3850b7aa553dc5
SELECT
  $1::text || coalesce(q."account"::text, '') AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $2::timestamptz
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 c182377605ab041c
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 112eb8927677a181
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 213 characters, sha256 9c3e0af4e96d651a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 91 characters, sha256 cf1b24818696e64f
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 81 characters, sha256 a08b1d08a6848156
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","account-"]
-- text: 741 characters, sha256 b514ff42cef4b842
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $2::timestamptz
      )
      AND EXISTS (
        SELECT
          1
        FROM
          sqlinbox_held h
        WHERE
          h.hi = (
            (hashtextextended ($3::text || coalesce(q."account"::text, ''), 0) >> 32) & 4294967295
          )
          AND h.lo = (hashtextextended ($3::text || coalesce(q."account"::text, ''), 0) & 4294967295)
      )
  ) AS busy,
  min(q."retry_after") FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
  ) AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- row lock, FIFO (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 268 characters, sha256 3a70fd78144b3f5e
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "fifo_group" text
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 79 characters, sha256 5f85ef58cdcde238
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_group" ON "jobs" ("fifo_group", "id");

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLocked (n 10)
-- params: ["sqlinbox.fifo:jobs:",64,10,10]
-- text: 1625 characters, sha256 74f2ed9ea6696ba4
WITH
  sqlinbox_heads AS (
    SELECT
      h.sqlinbox_id
    FROM
      (
        SELECT
          *
        FROM
          (
            SELECT
              w."id" AS sqlinbox_id,
              w."fifo_group" AS sqlinbox_group
            FROM
              (
                SELECT
                  "id",
                  "fifo_group"
                FROM
                  "jobs"
                ORDER BY
                  "id"
                LIMIT
                  $2
              ) w
            WHERE
              TRUE
              AND NOT EXISTS (
                SELECT
                  1
                FROM
                  "jobs" s
                WHERE
                  s."fifo_group" = w."fifo_group"
                  AND s."id" < w."id"
              )
            ORDER BY
              w."id"
            OFFSET
              0
          ) a
        UNION ALL
        SELECT
          *
        FROM
          (
            WITH RECURSIVE
              sqlinbox_g (g) AS (
                (
                  SELECT
                    x."fifo_group"
                  FROM
                    "jobs" x
                  WHERE
                    x."fifo_group" IS NOT NULL
                  ORDER BY
                    x."fifo_group"
                  LIMIT
                    1
                )
                UNION ALL
                SELECT
                  (
                    SELECT
                      x."fifo_group"
                    FROM
                      "jobs" x
                    WHERE
                      x."fifo_group" > r.g
                    ORDER BY
                      x."fifo_group"
                    LIMIT
                      1
                  )
                FROM
                  sqlinbox_g r
                WHERE
                  r.g IS NOT NULL
              ),
              sqlinbox_last (m) AS (
                SELECT
                  max(y."id")
                FROM
                  (
                    SELECT
                      "id",
                      "fifo_group"
                    FROM
                      "jobs"
                    ORDER BY
                      "id"
                    LIMIT
                      $2
                  ) y
              )
            SELECT
              u.*
            FROM
              (
                SELECT
                  q."id" AS sqlinbox_id,
                  q."fifo_group" AS sqlinbox_group
                FROM
                  "jobs" q
                WHERE
                  q."id" IN (
                    SELECT
                      (
                        SELECT
                          x."id"
                        FROM
                          "jobs" x
                        WHERE
                          x."fifo_group" = r.g
                        ORDER BY
                          x."id"
                        LIMIT
                          1
                      )
                    FROM
                      sqlinbox_g r
                    WHERE
                      r.g IS NOT NULL
                  )
                  AND q."id" > (
                    SELECT
                      m
                    FROM
                      sqlinbox_last
                  )
                  AND TRUE
                UNION ALL
                (
                  SELECT
                    q."id" AS sqlinbox_id,
                    q."fifo_group" AS sqlinbox_group
                  FROM
                    "jobs" q
                  WHERE
                    q."fifo_group" IS NULL
                    AND q."id" > (
                      SELECT
                        m
                      FROM
                        sqlinbox_last
                    )
                    AND TRUE
                  ORDER BY
                    q."id"
                  LIMIT
                    $3
                )
              ) u
            ORDER BY
              u.sqlinbox_id
            OFFSET
              0
          ) b
      ) h
    WHERE
      pg_try_advisory_xact_lock(
        hashtextextended (
          $1::text || CASE
            WHEN h.sqlinbox_group IS NULL THEN 'row:' || h.sqlinbox_id::text
            ELSE 'group:' || h.sqlinbox_group::text
          END,
          0
        )
      )
    LIMIT
      $4
  )
SELECT
  q.*
FROM
  "jobs" q
WHERE
  q."id" = ANY (
    ARRAY(
      SELECT
        sqlinbox_id
      FROM
        sqlinbox_heads
    )
  )
  AND TRUE
ORDER BY
  q."id"
FOR UPDATE OF
  q SKIP LOCKED;

-- headGuard (id 7, group g): none

-- headGuards (ids 7, 9, groups g, h): none

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: [7]
-- text: 66 characters, sha256 490963b4fc231e28
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","sqlinbox_jobs"]
-- text: 225 characters, sha256 bc408def5f6860de
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group")
    VALUES
      ($1::text::json, $2, $3)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 256 characters, sha256 4f69ade54bd40aae
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group")
    VALUES
      ($1::text::json, $2, $3),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- text: 105 characters, sha256 ce101a0b8e1c0773
SELECT
  0 AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      TRUE
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- text: 63 characters, sha256 463d2cccc8e3f3c2
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  TRUE;

-- lockable
-- text: 102 characters, sha256 1f04dbe500abd1e7
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      TRUE
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 140 characters, sha256 f157c50930c28987
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" > $2
ORDER BY
  x."id"
LIMIT
  $3;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 145 characters, sha256 3ab4527751619fd5
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 91 characters, sha256 cf1b24818696e64f
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",[4,5]]
-- text: 78 characters, sha256 0c623646b4c1d616
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "fifo_group" = $1
WHERE
  q."id" = ANY ($2);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- text: 189 characters, sha256 554ece6d438461e5
SELECT
  count(*) FILTER (
    WHERE
      TRUE
  ) - (
    SELECT
      count(*)
    FROM
      (
        SELECT
          1
        FROM
          "jobs" f
        WHERE
          TRUE
        FOR UPDATE OF
          f SKIP LOCKED
      ) sqlinbox_free
  ) AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- lease, FIFO (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 315 characters, sha256 f3714676a98a9958
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "fifo_group" text
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 79 characters, sha256 5f85ef58cdcde238
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_group" ON "jobs" ("fifo_group", "id");

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLease (n 10)
-- params: ["sqlinbox.fifo:jobs:",64,"2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10,10,"2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z"]
-- text: 2100 characters, sha256 b7641ff8bbaa090e
WITH
  sqlinbox_heads AS (
    SELECT
      h.sqlinbox_id
    FROM
      (
        SELECT
          *
        FROM
          (
            SELECT
              w."id" AS sqlinbox_id,
              w."fifo_group" AS sqlinbox_group
            FROM
              (
                SELECT
                  "id",
                  "fifo_group",
                  "locked_until"
                FROM
                  "jobs"
                ORDER BY
                  "id"
                LIMIT
                  $2
              ) w
            WHERE
              coalesce(w."locked_until", '-infinity') <= $3::timestamptz
              AND NOT EXISTS (
                SELECT
                  1
                FROM
                  "jobs" s
                WHERE
                  s."fifo_group" = w."fifo_group"
                  AND s."id" < w."id"
              )
            ORDER BY
              w."id"
            OFFSET
              0
          ) a
        UNION ALL
        SELECT
          *
        FROM
          (
            WITH RECURSIVE
              sqlinbox_g (g) AS (
                (
                  SELECT
                    x."fifo_group"
                  FROM
                    "jobs" x
                  WHERE
                    x."fifo_group" IS NOT NULL
                  ORDER BY
                    x."fifo_group"
                  LIMIT
                    1
                )
                UNION ALL
                SELECT
                  (
                    SELECT
                      x."fifo_group"
                    FROM
                      "jobs" x
                    WHERE
                      x."fifo_group" > r.g
                    ORDER BY
                      x."fifo_group"
                    LIMIT
                      1
                  )
                FROM
                  sqlinbox_g r
                WHERE
                  r.g IS NOT NULL
              ),
              sqlinbox_last (m) AS (
                SELECT
                  max(y."id")
                FROM
                  (
                    SELECT
                      "id",
                      "fifo_group",
                      "locked_until"
                    FROM
                      "jobs"
                    ORDER BY
                      "id"
                    LIMIT
                      $2
                  ) y
              )
            SELECT
              u.*
            FROM
              (
                SELECT
                  q."id" AS sqlinbox_id,
                  q."fifo_group" AS sqlinbox_group
                FROM
                  "jobs" q
                WHERE
                  q."id" IN (
                    SELECT
                      (
                        SELECT
                          x."id"
                        FROM
                          "jobs" x
                        WHERE
                          x."fifo_group" = r.g
                        ORDER BY
                          x."id"
                        LIMIT
                          1
                      )
                    FROM
                      sqlinbox_g r
                    WHERE
                      r.g IS NOT NULL
                  )
                  AND q."id" > (
                    SELECT
                      m
                    FROM
                      sqlinbox_last
                  )
                  AND coalesce(q."locked_until", '-infinity') <= $4::timestamptz
                UNION ALL
                (
                  SELECT
                    q."id" AS sqlinbox_id,
                    q."fifo_group" AS sqlinbox_group
                  FROM
                    "jobs" q
                  WHERE
                    q."fifo_group" IS NULL
                    AND q."id" > (
                      SELECT
                        m
                      FROM
                        sqlinbox_last
                    )
                    AND coalesce(q."locked_until", '-infinity') <= $4::timestamptz
                  ORDER BY
                    q."id"
                  LIMIT
                    $5
                )
              ) u
            ORDER BY
              u.sqlinbox_id
            OFFSET
              0
          ) b
      ) h
    WHERE
      pg_try_advisory_xact_lock(
        hashtextextended (
          $1::text || CASE
            WHEN h.sqlinbox_group IS NULL THEN 'row:' || h.sqlinbox_id::text
            ELSE 'group:' || h.sqlinbox_group::text
          END,
          0
        )
      )
    LIMIT
      $6
  ),
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $7::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" = ANY (
              ARRAY(
                SELECT
                  sqlinbox_id
                FROM
                  sqlinbox_heads
              )
            )
            AND coalesce(q."locked_until", '-infinity') <= $8::timestamptz
          ORDER BY
            q."id"
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 8b0938bf19d22a56
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","sqlinbox_jobs"]
-- text: 225 characters, sha256 bc408def5f6860de
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group")
    VALUES
      ($1::text::json, $2, $3)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 256 characters, sha256 4f69ade54bd40aae
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group")
    VALUES
      ($1::text::json, $2, $3),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 216 characters, sha256 5d43ada91fa8c2ac
SELECT
  count(*) FILTER (
    WHERE
      q."locked_until" > $1::timestamptz
  ) AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 117 characters, sha256 8e86e35139f8c2ef
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  coalesce(q."locked_until", '-infinity') <= $1::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 156 characters, sha256 8faa81f534517911
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      coalesce(q."locked_until", '-infinity') <= $1::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 076424a2110630a8
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 213 characters, sha256 b97fa6576c843fce
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 161 characters, sha256 612cc0abc018b12a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",[4,5]]
-- text: 101 characters, sha256 bb8ae6765c78cd38
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL,
  "fifo_group" = $1
WHERE
  q."id" = ANY ($2);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- text: 59 characters, sha256 0bce639c162a2914
SELECT
  0 AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- advisory, FIFO (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 286 characters, sha256 6a8884d568f12d53
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "fifo_group" text,
  "account" text
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 79 characters, sha256 5f85ef58cdcde238
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_group" ON "jobs" ("fifo_group", "id");

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- candidates (n 10)
-- params: ["k-",10]
-- text: 713 characters, sha256 404fcc3fddd55476
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  c.id AS id,
  c.key AS key
FROM
  (
    SELECT
      q."id" AS id,
      $1::text || coalesce(q."account"::text, '') AS key
    FROM
      "jobs" q
    WHERE
      TRUE
      AND NOT EXISTS (
        SELECT
          1
        FROM
          "jobs" s
        WHERE
          s."fifo_group" = q."fifo_group"
          AND s."id" < q."id"
      )
    ORDER BY
      q."id"
    OFFSET
      0
  ) c
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      sqlinbox_held h
    WHERE
      h.hi = ((hashtextextended (c.key, 0) >> 32) & 4294967295)
      AND h.lo = (hashtextextended (c.key, 0) & 4294967295)
  )
LIMIT
  $2;

-- candidates (n 10, two keys of its own)
-- params: [["k1","k2"],"k-",10]
-- text: 734 characters, sha256 3320f7278d7e1211
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  c.id AS id,
  c.key AS key
FROM
  (
    SELECT
      q."id" AS id,
      $2::text || coalesce(q."account"::text, '') AS key
    FROM
      "jobs" q
    WHERE
      TRUE
      AND NOT EXISTS (
        SELECT
          1
        FROM
          "jobs" s
        WHERE
          s."fifo_group" = q."fifo_group"
          AND s."id" < q."id"
      )
    ORDER BY
      q."id"
    OFFSET
      0
  ) c
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      sqlinbox_held h
    WHERE
      h.hi = ((hashtextextended (c.key, 0) >> 32) & 4294967295)
      AND h.lo = (hashtextextended (c.key, 0) & 4294967295)
  )
  AND c.key <> ALL ($1)
LIMIT
  $3;

-- lock
-- params: ["account-1"]
-- text: 64 characters, sha256 99e2194cf2f71c67
SELECT
  pg_try_advisory_lock(hashtextextended ($1::text, 0)) AS ok;

-- unlock
-- params: ["account-1"]
-- text: 62 characters, sha256 033a77c870b04889
SELECT
  pg_advisory_unlock(hashtextextended ($1::text, 0)) AS ok;

-- take (id 7)
-- params: [7]
-- text: 185 characters, sha256 45ba0d0647a165ad
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1
  AND TRUE
  AND NOT EXISTS (
    SELECT
      1
    FROM
      "jobs" s
    WHERE
      s."fifo_group" = q."fifo_group"
      AND s."id" < q."id"
  )
RETURNING
  *;

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: [7]
-- text: 66 characters, sha256 490963b4fc231e28
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","a1","sqlinbox_jobs"]
-- text: 240 characters, sha256 76c43376c1987eb8
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group", "account")
    VALUES
      ($1::text::json, $2, $3, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","a1","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 280 characters, sha256 6a1d66db50bd3ee3
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group", "account")
    VALUES
      ($1::text::json, $2, $3, $4),
      ($5::text::json, $6, DEFAULT, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($7, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- text: 105 characters, sha256 ce101a0b8e1c0773
SELECT
  0 AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      TRUE
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["k-"]
-- text: 102 characters, sha256 5f2136ab32ab0d40
SELECT
  $1::text || coalesce(q."account"::text, '') AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  TRUE;

-- lockable
-- text: 102 characters, sha256 1f04dbe500abd1e7
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      TRUE
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 140 characters, sha256 f157c50930c28987
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" > $2
ORDER BY
  x."id"
LIMIT
  $3;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 145 characters, sha256 3ab4527751619fd5
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 91 characters, sha256 cf1b24818696e64f
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",[4,5]]
-- text: 78 characters, sha256 0c623646b4c1d616
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "fifo_group" = $1
WHERE
  q."id" = ANY ($2);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["k-"]
-- text: 600 characters, sha256 d2a14a09f511be2a
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  count(*) FILTER (
    WHERE
      TRUE
      AND EXISTS (
        SELECT
          1
        FROM
          sqlinbox_held h
        WHERE
          h.hi = (
            (hashtextextended ($1::text || coalesce(q."account"::text, ''), 0) >> 32) & 4294967295
          )
          AND h.lo = (hashtextextended ($1::text || coalesce(q."account"::text, ''), 0) & 4294967295)
      )
  ) AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- lease, priority (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 335 characters, sha256 8c9a38b2f25f0736
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "priority" integer NOT NULL DEFAULT 0
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 85 characters, sha256 290bfde6d09dc75d
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_priority" ON "jobs" ("priority" DESC, "id");

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 426 characters, sha256 355bb65a8770ad24
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            coalesce(q."locked_until", '-infinity') <= $2::timestamptz
          ORDER BY
            q."priority" DESC,
            q."id"
          LIMIT
            $3
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."priority" DESC,
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 8b0938bf19d22a56
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,3,"sqlinbox_jobs"]
-- text: 223 characters, sha256 e657ca060db3cbee
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "priority")
    VALUES
      ($1::text::json, $2, $3)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,3,"{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 254 characters, sha256 e05f524d8f914e17
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "priority")
    VALUES
      ($1::text::json, $2, $3),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 216 characters, sha256 5d43ada91fa8c2ac
SELECT
  count(*) FILTER (
    WHERE
      q."locked_until" > $1::timestamptz
  ) AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 117 characters, sha256 8e86e35139f8c2ef
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  coalesce(q."locked_until", '-infinity') <= $1::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 156 characters, sha256 8faa81f534517911
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      coalesce(q."locked_until", '-infinity') <= $1::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 076424a2110630a8
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 213 characters, sha256 b97fa6576c843fce
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 161 characters, sha256 612cc0abc018b12a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 82 characters, sha256 48c95a2879d7288d
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- text: 59 characters, sha256 0bce639c162a2914
SELECT
  0 AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- lease, unique key, processed_at (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 6
-- text: 345 characters, sha256 a922a643683a0483
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "processed_at" timestamptz,
  "unique_key" text
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 6
-- text: 92 characters, sha256 c7b2d8e01c584636
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_due" ON "jobs" ("id")
WHERE
  "processed_at" IS NULL;

-- ddl, 3 of 6
-- text: 107 characters, sha256 17f8da4bf1a3bb5c
CREATE UNIQUE INDEX IF NOT EXISTS "jobs_sqlinbox_key" ON "jobs" ("unique_key")
WHERE
  "processed_at" IS NULL;

-- ddl, 4 of 6
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 5 of 6
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 6 of 6
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 402 characters, sha256 e80d049bb0d1387c
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."processed_at" IS NULL
            AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $3
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 155 characters, sha256 afc04d2c562ecc93
UPDATE "jobs" AS t
SET
  "processed_at" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 135 characters, sha256 3b5ce089ed069b03
UPDATE "jobs" AS q
SET
  "processed_at" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 8b0938bf19d22a56
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"sqlinbox_jobs"]
-- text: 207 characters, sha256 6786080a9309a8f4
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($3, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 229 characters, sha256 d5c1686e34ed0506
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2),
      ($3::text::json, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insertKeyed
-- params: ["{\"n\":1}",0,"k1","sqlinbox_jobs"]
-- text: 306 characters, sha256 32916eb6a45e1ca7
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "unique_key")
    VALUES
      ($1::text::json, $2, $3)
    ON CONFLICT ("unique_key")
    WHERE
      "processed_at" IS NULL DO NOTHING
    RETURNING
      "id",
      "unique_key"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- keyHolder
-- params: [["k1"]]
-- text: 93 characters, sha256 2c5b02a26bf81a0d
SELECT
  "id",
  "unique_key"
FROM
  "jobs"
WHERE
  "unique_key" = ANY ($1)
  AND "processed_at" IS NULL;

-- insertReplacing
-- params: ["{\"n\":2}",0,"k1","sqlinbox_jobs"]
-- text: 367 characters, sha256 58f7779f4451f1a9
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" AS q ("payload", "attempt", "unique_key")
    VALUES
      ($1::text::json, $2, $3)
    ON CONFLICT ("unique_key")
    WHERE
      "processed_at" IS NULL DO UPDATE
    SET
      "payload" = EXCLUDED."payload"
    WHERE
      q."attempt" < 1
    RETURNING
      "id",
      "unique_key"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 274 characters, sha256 72ca5849755e94ac
SELECT
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND q."locked_until" > $1::timestamptz
  ) AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 146 characters, sha256 f33a046a994bab14
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  q."processed_at" IS NULL
  AND coalesce(q."locked_until", '-infinity') <= $1::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 185 characters, sha256 3db73043f9372921
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      q."processed_at" IS NULL
      AND coalesce(q."locked_until", '-infinity') <= $1::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 254 characters, sha256 0a1f1c83937e2cf2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 259 characters, sha256 3c51b9c386c778d5
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 190 characters, sha256 c83ebcbf9151e15e
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."processed_at" IS NULL
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 82 characters, sha256 48c95a2879d7288d
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- keyHolder (two keys)
-- params: [["k1","k2"]]
-- text: 93 characters, sha256 2c5b02a26bf81a0d
SELECT
  "id",
  "unique_key"
FROM
  "jobs"
WHERE
  "unique_key" = ANY ($1)
  AND "processed_at" IS NULL;

-- statsInWork
-- text: 59 characters, sha256 0bce639c162a2914
SELECT
  0 AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;

-- claimLease from an id (n 10, from 4000)
-- params: ["2025-01-01T00:00:30.000Z","4000","2025-01-01T00:00:00.000Z",10]
-- text: 425 characters, sha256 8f01c332d56493c2
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" >= $2::int8
            AND q."processed_at" IS NULL
            AND coalesce(q."locked_until", '-infinity') <= $3::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $4
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";


-- =================================================================================================
-- lease, per-key concurrency (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 312 characters, sha256 a7e874e145fc71e3
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "account" text
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 98 characters, sha256 da4897721abd48b9
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_concurrency" ON "jobs" ("account", "locked_until", "id");

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 373 characters, sha256 5ced84107049f049
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            coalesce(q."locked_until", '-infinity') <= $2::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $3
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- claimTurn
-- params: ["sqlinbox.concurrency:jobs"]
-- text: 318 characters, sha256 2e98be4e5a0970ae
SELECT
  pg_advisory_xact_lock(hashtextextended ($1::text, 0)),
  set_config('enable_seqscan', 'off', true),
  set_config('enable_bitmapscan', 'off', true),
  set_config('enable_hashjoin', 'off', true),
  set_config('enable_mergejoin', 'off', true),
  set_config('enable_sort', 'off', true),
  set_config('jit', 'off', true),
  1 AS ok;

-- claimLeaseByKey (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",100,"2025-01-01T00:00:00.000Z",2,20,2,10,60,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:00.000Z",2,"2025-01-01T00:00:00.000Z",2,10,"2025-01-01T00:00:00.000Z"]
-- text: 2035 characters, sha256 5419b5896e4d0ee1
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          WITH RECURSIVE
            sqlinbox_front AS (
              SELECT
                q."id",
                q."account"
              FROM
                (
                  SELECT
                    f."id",
                    f."account"
                  FROM
                    "jobs" f
                  WHERE
                    coalesce(f."locked_until", '-infinity') <= $2::timestamptz
                  ORDER BY
                    f."id"
                  LIMIT
                    $3
                ) q
              WHERE
                q."account" IS NULL
                OR (
                  SELECT
                    COUNT(*)
                  FROM
                    "jobs" w
                  WHERE
                    w."account" = q."account"
                    AND w."locked_until" > $4::timestamptz
                ) < $5
              ORDER BY
                q."id"
              LIMIT
                $6
            ),
            sqlinbox_keys (k, i) AS (
              SELECT
                MIN(m."account"),
                1
              FROM
                "jobs" m
              WHERE
                m."account" IS NOT NULL
                AND (
                  SELECT
                    COUNT(*)
                  FROM
                    (
                      SELECT
                        z."account",
                        ROW_NUMBER() OVER (
                          PARTITION BY
                            z."account"
                          ORDER BY
                            z."id"
                        ) AS r
                      FROM
                        sqlinbox_front z
                    ) y
                  WHERE
                    y."account" IS NULL
                    OR y.r <= $7
                ) < $8
              UNION ALL
              SELECT
                (
                  SELECT
                    MIN(m."account")
                  FROM
                    "jobs" m
                  WHERE
                    m."account" > sqlinbox_keys.k
                ),
                sqlinbox_keys.i + 1
              FROM
                sqlinbox_keys
              WHERE
                sqlinbox_keys.k IS NOT NULL
                AND sqlinbox_keys.i < $9
            ),
            sqlinbox_heads AS (
              SELECT
                h."id",
                h."account"
              FROM
                sqlinbox_keys
                JOIN "jobs" h ON h."id" = (
                  SELECT
                    b."id"
                  FROM
                    "jobs" b
                  WHERE
                    b."account" = sqlinbox_keys.k
                    AND b."locked_until" IS NULL
                    AND coalesce(b."locked_until", '-infinity') <= $10::timestamptz
                  ORDER BY
                    b."locked_until",
                    b."id"
                  LIMIT
                    $11
                )
              WHERE
                (
                  SELECT
                    COUNT(*)
                  FROM
                    "jobs" w
                  WHERE
                    w."account" = sqlinbox_keys.k
                    AND w."locked_until" > $12::timestamptz
                ) < $13
            ),
            sqlinbox_candidates AS (
              SELECT
                "id",
                "account"
              FROM
                sqlinbox_front
              UNION
              SELECT
                "id",
                "account"
              FROM
                sqlinbox_heads
            )
          SELECT
            x."id"
          FROM
            (
              SELECT
                c."id",
                c."account",
                ROW_NUMBER() OVER (
                  PARTITION BY
                    c."account"
                  ORDER BY
                    c."id"
                ) AS "sqlinbox_rank",
                (
                  SELECT
                    COUNT(*)
                  FROM
                    "jobs" w
                  WHERE
                    w."account" = c."account"
                    AND w."locked_until" > $14::timestamptz
                ) AS "sqlinbox_in_work"
              FROM
                sqlinbox_candidates c
            ) x
          WHERE
            (
              x."account" IS NULL
              OR x."sqlinbox_rank" <= $15 - x."sqlinbox_in_work"
            )
          ORDER BY
            x."id"
          LIMIT
            $16
        )
      )
      AND coalesce(t."locked_until", '-infinity') <= $17::timestamptz
    RETURNING
      *
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 8b0938bf19d22a56
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"sqlinbox_jobs"]
-- text: 207 characters, sha256 6786080a9309a8f4
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($3, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 229 characters, sha256 d5c1686e34ed0506
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2),
      ($3::text::json, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 216 characters, sha256 5d43ada91fa8c2ac
SELECT
  count(*) FILTER (
    WHERE
      q."locked_until" > $1::timestamptz
  ) AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 117 characters, sha256 8e86e35139f8c2ef
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  coalesce(q."locked_until", '-infinity') <= $1::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 156 characters, sha256 8faa81f534517911
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      coalesce(q."locked_until", '-infinity') <= $1::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 076424a2110630a8
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 213 characters, sha256 b97fa6576c843fce
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 161 characters, sha256 612cc0abc018b12a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 82 characters, sha256 48c95a2879d7288d
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- text: 59 characters, sha256 0bce639c162a2914
SELECT
  0 AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- lease, rate limit, schedules, control, steps (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 8
-- text: 294 characters, sha256 e53ddd140832f231
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 8
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 8
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 8
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- ddl, 5 of 8
-- text: 137 characters, sha256 2fa0d958ed45d43f
CREATE TABLE IF NOT EXISTS "sqlinbox_schedules" ("name" text NOT NULL, "tick" timestamptz NOT NULL, PRIMARY KEY ("name", "tick"));

-- ddl, 6 of 8
-- text: 252 characters, sha256 c67de01be1d642eb
CREATE TABLE IF NOT EXISTS "sqlinbox_rates" (
  "name" text NOT NULL,
  "window_start" BIGINT NOT NULL DEFAULT 0,
  "used" INTEGER NOT NULL DEFAULT 0,
  "granted" INTEGER NOT NULL DEFAULT 0,
  "at_ms" BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY ("name")
);

-- ddl, 7 of 8
-- text: 243 characters, sha256 970a5c348b10eddd
CREATE TABLE IF NOT EXISTS "sqlinbox_control" (
  "queue_name" text NOT NULL,
  "kind" VARCHAR(16) NOT NULL,
  "target" text NOT NULL,
  "reason" VARCHAR(2000),
  "requested_at" BIGINT NOT NULL,
  PRIMARY KEY ("queue_name", "kind", "target")
);

-- ddl, 8 of 8
-- text: 243 characters, sha256 b3dea1f252c8121f
CREATE TABLE IF NOT EXISTS "sqlinbox_steps" (
  "queue_name" text NOT NULL,
  "row_id" text NOT NULL,
  "step_name" text NOT NULL,
  "result" TEXT NOT NULL,
  "finished_at" BIGINT NOT NULL,
  PRIMARY KEY ("queue_name", "row_id", "step_name")
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 373 characters, sha256 5ced84107049f049
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            coalesce(q."locked_until", '-infinity') <= $2::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $3
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 8b0938bf19d22a56
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"sqlinbox_jobs"]
-- text: 207 characters, sha256 6786080a9309a8f4
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($3, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 229 characters, sha256 d5c1686e34ed0506
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2),
      ($3::text::json, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 216 characters, sha256 5d43ada91fa8c2ac
SELECT
  count(*) FILTER (
    WHERE
      q."locked_until" > $1::timestamptz
  ) AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 117 characters, sha256 8e86e35139f8c2ef
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  coalesce(q."locked_until", '-infinity') <= $1::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 156 characters, sha256 8faa81f534517911
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      coalesce(q."locked_until", '-infinity') <= $1::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 076424a2110630a8
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 213 characters, sha256 b97fa6576c843fce
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 161 characters, sha256 612cc0abc018b12a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 82 characters, sha256 48c95a2879d7288d
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- schedules recordTick
-- params: ["nightly","2025-01-01T00:00:00.000Z"]
-- text: 101 characters, sha256 74f8e53d20c82999
INSERT INTO
  "sqlinbox_schedules" ("name", "tick")
VALUES
  ($1, $2::timestamptz)
ON CONFLICT DO NOTHING;

-- schedules lastTick
-- params: ["nightly"]
-- text: 72 characters, sha256 2db5611750f560bf
SELECT
  MAX("tick") AS "tick"
FROM
  "sqlinbox_schedules"
WHERE
  "name" = $1;

-- schedules pruneTicks
-- params: ["nightly","2025-01-01T00:00:00.000Z"]
-- text: 79 characters, sha256 1744c4a235c7bdea
DELETE FROM "sqlinbox_schedules"
WHERE
  "name" = $1
  AND "tick" < $2::timestamptz;

-- rates rateRow
-- params: ["jobs"]
-- text: 72 characters, sha256 c6e75f1287ce99dc
INSERT INTO
  "sqlinbox_rates" ("name")
VALUES
  ($1)
ON CONFLICT DO NOTHING;

-- rates reserveRate
-- params: [50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,"jobs"]
-- text: 1351 characters, sha256 d17181212a3ae18d
UPDATE "sqlinbox_rates" AS b
SET
  "granted" = (
    CASE
      WHEN (
        $1 - (
          CASE
            WHEN "window_start" = (
              CAST(
                FLOOR(
                  EXTRACT(
                    EPOCH
                    FROM
                      CURRENT_TIMESTAMP
                  ) * 1000
                ) AS BIGINT
              ) / $2
            ) * $3 THEN "used"
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        $4 - (
          CASE
            WHEN "window_start" = (
              CAST(
                FLOOR(
                  EXTRACT(
                    EPOCH
                    FROM
                      CURRENT_TIMESTAMP
                  ) * 1000
                ) AS BIGINT
              ) / $5
            ) * $6 THEN "used"
            ELSE 0
          END
        )
      ) < $7 THEN (
        $8 - (
          CASE
            WHEN "window_start" = (
              CAST(
                FLOOR(
                  EXTRACT(
                    EPOCH
                    FROM
                      CURRENT_TIMESTAMP
                  ) * 1000
                ) AS BIGINT
              ) / $9
            ) * $10 THEN "used"
            ELSE 0
          END
        )
      )
      ELSE $11
    END
  ),
  "used" = (
    CASE
      WHEN "window_start" = (
        CAST(
          FLOOR(
            EXTRACT(
              EPOCH
              FROM
                CURRENT_TIMESTAMP
            ) * 1000
          ) AS BIGINT
        ) / $12
      ) * $13 THEN "used"
      ELSE 0
    END
  ) + (
    CASE
      WHEN (
        $14 - (
          CASE
            WHEN "window_start" = (
              CAST(
                FLOOR(
                  EXTRACT(
                    EPOCH
                    FROM
                      CURRENT_TIMESTAMP
                  ) * 1000
                ) AS BIGINT
              ) / $15
            ) * $16 THEN "used"
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        $17 - (
          CASE
            WHEN "window_start" = (
              CAST(
                FLOOR(
                  EXTRACT(
                    EPOCH
                    FROM
                      CURRENT_TIMESTAMP
                  ) * 1000
                ) AS BIGINT
              ) / $18
            ) * $19 THEN "used"
            ELSE 0
          END
        )
      ) < $20 THEN (
        $21 - (
          CASE
            WHEN "window_start" = (
              CAST(
                FLOOR(
                  EXTRACT(
                    EPOCH
                    FROM
                      CURRENT_TIMESTAMP
                  ) * 1000
                ) AS BIGINT
              ) / $22
            ) * $23 THEN "used"
            ELSE 0
          END
        )
      )
      ELSE $24
    END
  ),
  "window_start" = (
    CAST(
      FLOOR(
        EXTRACT(
          EPOCH
          FROM
            CURRENT_TIMESTAMP
        ) * 1000
      ) AS BIGINT
    ) / $25
  ) * $26,
  "at_ms" = CAST(
    FLOOR(
      EXTRACT(
        EPOCH
        FROM
          CURRENT_TIMESTAMP
      ) * 1000
    ) AS BIGINT
  )
WHERE
  b."name" = $27
RETURNING
  *;

-- rates returnRate
-- params: [4,4,"jobs",1735689600000]
-- text: 137 characters, sha256 9ca40bc4cd7b7902
UPDATE "sqlinbox_rates" AS b
SET
  "used" = CASE
    WHEN "used" > $1 THEN "used" - $2
    ELSE 0
  END
WHERE
  b."name" = $3
  AND b."window_start" = $4;

-- rates rateState
-- params: ["jobs"]
-- text: 48 characters, sha256 6d4a01fe2515545b
SELECT
  *
FROM
  "sqlinbox_rates"
WHERE
  "name" = $1;

-- control readControl
-- params: [["jobs"]]
-- text: 100 characters, sha256 266a034ae73ef5d5
SELECT
  "queue_name",
  "kind",
  "target",
  "reason"
FROM
  "sqlinbox_control"
WHERE
  "queue_name" = ANY ($1);

-- control writeControl
-- params: ["jobs","pause_group","acme"]
-- text: 299 characters, sha256 ca5b297b3082f419
WITH
  sqlinbox_changed AS (
    INSERT INTO
      "sqlinbox_control" ("queue_name", "kind", "target", "requested_at")
    VALUES
      (
        $1,
        $2,
        $3,
        CAST(
          FLOOR(
            EXTRACT(
              EPOCH
              FROM
                CURRENT_TIMESTAMP
            ) * 1000
          ) AS BIGINT
        )
      )
    ON CONFLICT DO NOTHING
    RETURNING
      1
  )
SELECT
  pg_notify (E'sqlinbox:control:jobs', '')
FROM
  sqlinbox_changed;

-- control writeControl cancel
-- params: ["jobs","cancel","41","withdrawn"]
-- text: 319 characters, sha256 cb04b92c8de26c64
WITH
  sqlinbox_changed AS (
    INSERT INTO
      "sqlinbox_control" ("queue_name", "kind", "target", "reason", "requested_at")
    VALUES
      (
        $1,
        $2,
        $3,
        $4::text,
        CAST(
          FLOOR(
            EXTRACT(
              EPOCH
              FROM
                CURRENT_TIMESTAMP
            ) * 1000
          ) AS BIGINT
        )
      )
    ON CONFLICT DO NOTHING
    RETURNING
      1
  )
SELECT
  pg_notify (E'sqlinbox:control:jobs', '')
FROM
  sqlinbox_changed;

-- control deleteControl
-- params: ["jobs","pause_group","acme"]
-- text: 196 characters, sha256 36947429b1ae0a94
WITH
  sqlinbox_changed AS (
    DELETE FROM "sqlinbox_control"
    WHERE
      "queue_name" = $1
      AND "kind" = $2
      AND "target" = $3
    RETURNING
      1
  )
SELECT
  pg_notify (E'sqlinbox:control:jobs', '')
FROM
  sqlinbox_changed;

-- control sweepCancels
-- params: ["jobs","cancel","41","41","42","42"]
-- text: 227 characters, sha256 5b4042d61a6d4f06
DELETE FROM "sqlinbox_control"
WHERE
  "queue_name" = $1
  AND "kind" = $2
  AND (
    (
      "target" = $3
      AND NOT EXISTS (
        SELECT
          1
        FROM
          "jobs" x
        WHERE
          x."id" = $4
      )
    )
    OR (
      "target" = $5
      AND NOT EXISTS (
        SELECT
          1
        FROM
          "jobs" x
        WHERE
          x."id" = $6
      )
    )
  );

-- steps readSteps
-- params: ["jobs","41"]
-- text: 92 characters, sha256 ef1b7b8ce1809a60
SELECT
  "step_name",
  "result"
FROM
  "sqlinbox_steps"
WHERE
  "queue_name" = $1
  AND "row_id" = $2;

-- steps writeStep
-- params: ["jobs","41","charge card","{\"value\":{\"charge\":\"ch_1\"}}"]
-- text: 213 characters, sha256 2e90919f3f5585e4
INSERT INTO
  "sqlinbox_steps" ("queue_name", "row_id", "step_name", "result", "finished_at")
VALUES
  (
    $1,
    $2,
    $3,
    $4::text,
    CAST(
      FLOOR(
        EXTRACT(
          EPOCH
          FROM
            CURRENT_TIMESTAMP
        ) * 1000
      ) AS BIGINT
    )
  )
ON CONFLICT DO NOTHING;

-- steps deleteSteps
-- params: ["jobs",["41","42"]]
-- text: 75 characters, sha256 8b45df960e55693a
DELETE FROM "sqlinbox_steps"
WHERE
  "queue_name" = $1
  AND "row_id" = ANY ($2);

-- steps stepRows
-- params: ["jobs",500]
-- text: 139 characters, sha256 da58dfed3be20851
SELECT
  "row_id",
  MAX("finished_at") AS "last_ms"
FROM
  "sqlinbox_steps"
WHERE
  "queue_name" = $1
GROUP BY
  "row_id"
ORDER BY
  "row_id"
LIMIT
  $2;

-- steps stepRows after a cursor
-- params: ["jobs","41",500]
-- text: 157 characters, sha256 baba408eb95e3e2c
SELECT
  "row_id",
  MAX("finished_at") AS "last_ms"
FROM
  "sqlinbox_steps"
WHERE
  "queue_name" = $1
  AND "row_id" > $2
GROUP BY
  "row_id"
ORDER BY
  "row_id"
LIMIT
  $3;

-- steps deleteStepsUpTo
-- params: ["jobs","41","1735689600000","42","1735689600500"]
-- text: 141 characters, sha256 d41e3d926302dff6
DELETE FROM "sqlinbox_steps"
WHERE
  "queue_name" = $1
  AND (
    (
      "row_id" = $2
      AND "finished_at" <= $3
    )
    OR (
      "row_id" = $4
      AND "finished_at" <= $5
    )
  );

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- text: 59 characters, sha256 0bce639c162a2914
SELECT
  0 AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;

-- claimLease from an id (n 10, from 4000)
-- params: ["2025-01-01T00:00:30.000Z","4000","2025-01-01T00:00:00.000Z",10]
-- text: 396 characters, sha256 6cdc698f17f53aaa
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" >= $2::int8
            AND coalesce(q."locked_until", '-infinity') <= $3::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $4
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";


-- =================================================================================================
-- lease, flows (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 7
-- text: 323 characters, sha256 7fd9248ca4633bc3
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "retry_after" timestamptz
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 7
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 7
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 7
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- ddl, 5 of 7
-- text: 297 characters, sha256 5619a7a7cce83087
CREATE TABLE IF NOT EXISTS "sqlinbox_flow" (
  "queue_name" text NOT NULL,
  "child_id" text NOT NULL,
  "parent_id" text NOT NULL,
  "child_name" text NOT NULL,
  "state" VARCHAR(16) NOT NULL,
  "error" VARCHAR(2000),
  "settled_ms" BIGINT,
  PRIMARY KEY ("queue_name", "child_id", "parent_id")
);

-- ddl, 6 of 7
-- text: 272 characters, sha256 6ee02983602181fd
CREATE TABLE IF NOT EXISTS "sqlinbox_flow_parent" (
  "queue_name" text NOT NULL,
  "parent_id" text NOT NULL,
  "pending" INTEGER NOT NULL,
  "dead" INTEGER NOT NULL,
  "policy" VARCHAR(16) NOT NULL,
  "woken" INTEGER NOT NULL,
  PRIMARY KEY ("queue_name", "parent_id")
);

-- ddl, 7 of 7
-- text: 99 characters, sha256 f4cf6b8e3047e634
CREATE INDEX IF NOT EXISTS "sqlinbox_flow_by_parent" ON "sqlinbox_flow" ("queue_name", "parent_id");

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 441 characters, sha256 979d19a28827b7e1
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            (
              q."retry_after" IS NULL
              OR q."retry_after" <= $2::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $3::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $4
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 f514da18928fae7a
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 239 characters, sha256 b4c7dd634189469a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 270 characters, sha256 5549a320a298d1ac
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 418 characters, sha256 8edc82f92669fba3
SELECT
  count(*) FILTER (
    WHERE
      q."locked_until" > $1::timestamptz
  ) AS "in_work",
  count(*) FILTER (
    WHERE
      NOT (
        q."locked_until" IS NOT NULL
        AND q."locked_until" > $2::timestamptz
      )
      AND q."retry_after" > $3::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $4::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $5::timestamptz
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 196 characters, sha256 ad50c3b5c7c6e44e
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
  AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 224 characters, sha256 52e66fc9760c5939
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 262 characters, sha256 9895aaca50bf25c2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $2::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $3
  AND x."id" > $4
ORDER BY
  x."id"
LIMIT
  $5;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 267 characters, sha256 939446823c9fd0b2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $2::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $3
  AND x."id" = ANY ($4)
ORDER BY
  x."id"
LIMIT
  $5;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 161 characters, sha256 612cc0abc018b12a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 104 characters, sha256 1b31ade02b2f9cd1
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- flows insertParent
-- params: ["jobs","7",2,"dead"]
-- text: 130 characters, sha256 d6ac7552b925e440
INSERT INTO
  "sqlinbox_flow_parent" ("queue_name", "parent_id", "pending", "dead", "policy", "woken")
VALUES
  ($1, $2, $3, 0, $4, 0);

-- flows insertEdge
-- params: ["jobs","5","7","charge"]
-- text: 125 characters, sha256 6ec679cf0fd3ff99
INSERT INTO
  "sqlinbox_flow" ("queue_name", "child_id", "parent_id", "child_name", "state")
VALUES
  ($1, $2, $3, $4, 'pending');

-- flows pendingEdges
-- params: ["jobs",500]
-- text: 175 characters, sha256 052f7bda1ae9fbf2
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = $1
  AND "state" = 'pending'
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  $2;

-- flows pendingEdges of children
-- params: ["jobs",["5","6"],500]
-- text: 200 characters, sha256 a922bd99e93b24e2
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = $1
  AND "state" = 'pending'
  AND "child_id" = ANY ($2)
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  $3;

-- flows pendingEdges after a cursor
-- params: ["jobs","42",500]
-- text: 195 characters, sha256 f6ec2675fb7b5731
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = $1
  AND "state" = 'pending'
  AND "child_id" > $2
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  $3;

-- flows settleEdge
-- params: ["dead","boom","jobs","5","7"]
-- text: 237 characters, sha256 b2b5a321cee585da
UPDATE "sqlinbox_flow" AS f
SET
  "state" = $1,
  "error" = $2::text,
  "settled_ms" = CAST(
    FLOOR(
      EXTRACT(
        EPOCH
        FROM
          CURRENT_TIMESTAMP
      ) * 1000
    ) AS BIGINT
  )
WHERE
  "queue_name" = $3
  AND "child_id" = $4
  AND "parent_id" = $5
  AND "state" = 'pending';

-- flows settleEdges
-- params: ["jobs","7",["5","6"]]
-- text: 226 characters, sha256 7726614aee43d6c3
UPDATE "sqlinbox_flow" AS f
SET
  "state" = 'done',
  "settled_ms" = CAST(
    FLOOR(
      EXTRACT(
        EPOCH
        FROM
          CURRENT_TIMESTAMP
      ) * 1000
    ) AS BIGINT
  )
WHERE
  "queue_name" = $1
  AND "parent_id" = $2
  AND "child_id" = ANY ($3)
  AND "state" = 'pending';

-- flows countDown
-- params: ["jobs","7"]
-- text: 130 characters, sha256 a36f3b6cef93f73f
UPDATE "sqlinbox_flow_parent" AS f
SET
  "pending" = "pending" - 1,
  "dead" = "dead" + 1
WHERE
  "queue_name" = $1
  AND "parent_id" = $2;

-- flows countDown by 3
-- params: [3,"jobs","7"]
-- text: 110 characters, sha256 31633f21c8bd788e
UPDATE "sqlinbox_flow_parent" AS f
SET
  "pending" = "pending" - $1
WHERE
  "queue_name" = $2
  AND "parent_id" = $3;

-- flows markWoken
-- params: ["jobs","7"]
-- text: 111 characters, sha256 aaaf83e40bc7ea3c
UPDATE "sqlinbox_flow_parent" AS f
SET
  "woken" = 1
WHERE
  "queue_name" = $1
  AND "parent_id" = $2
  AND "woken" = 0;

-- flows edgesBy
-- params: ["jobs",["7"]]
-- text: 133 characters, sha256 ec28f02994920e60
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow"
WHERE
  "queue_name" = $1
  AND "parent_id" = ANY ($2);

-- flows parentsOf
-- params: ["jobs",["7"]]
-- text: 134 characters, sha256 121e9854d07402f9
SELECT
  "parent_id",
  "pending",
  "dead",
  "policy",
  "woken"
FROM
  "sqlinbox_flow_parent"
WHERE
  "queue_name" = $1
  AND "parent_id" = ANY ($2);

-- flows settledEdges
-- params: ["jobs",1000]
-- text: 176 characters, sha256 5a483b6081428b57
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = $1
  AND "state" <> 'pending'
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  $2;

-- flows settledEdges after a cursor
-- params: ["jobs","5","5","7",1000]
-- text: 239 characters, sha256 3a2d3902575361b4
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = $1
  AND "state" <> 'pending'
  AND "child_id" >= $2
  AND (
    "child_id" > $3
    OR "parent_id" > $4
  )
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  $5;

-- flows deleteEdges
-- params: ["jobs","5","7","6","7"]
-- text: 163 characters, sha256 cbc3c1a9e564f7a3
DELETE FROM "sqlinbox_flow"
WHERE
  "queue_name" = $1
  AND "state" <> 'pending'
  AND (
    (
      "child_id" = $2
      AND "parent_id" = $3
    )
    OR (
      "child_id" = $4
      AND "parent_id" = $5
    )
  );

-- flows settledParents
-- params: ["jobs",1000]
-- text: 175 characters, sha256 2878e1583f91dff0
SELECT
  "parent_id",
  "pending",
  "dead",
  "policy",
  "woken"
FROM
  "sqlinbox_flow_parent" f
WHERE
  "queue_name" = $1
  AND "woken" = 1
  AND "pending" <= 0
ORDER BY
  "parent_id"
LIMIT
  $2;

-- flows settledParents after a cursor
-- params: ["jobs","7",1000]
-- text: 196 characters, sha256 704e0ebbb28f4e1b
SELECT
  "parent_id",
  "pending",
  "dead",
  "policy",
  "woken"
FROM
  "sqlinbox_flow_parent" f
WHERE
  "queue_name" = $1
  AND "woken" = 1
  AND "pending" <= 0
  AND "parent_id" > $2
ORDER BY
  "parent_id"
LIMIT
  $3;

-- flows deleteParents
-- params: ["jobs",["7","8"]]
-- text: 119 characters, sha256 19f034cd004c884f
DELETE FROM "sqlinbox_flow_parent"
WHERE
  "queue_name" = $1
  AND "woken" = 1
  AND "pending" <= 0
  AND "parent_id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 204 characters, sha256 c416ca5af6514793
SELECT
  0 AS busy,
  min(q."retry_after") FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS oldest
FROM
  "jobs" q;

-- claimLease from an id (n 10, from 4000)
-- params: ["2025-01-01T00:00:30.000Z","4000","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 464 characters, sha256 028ed7bf3e52f300
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" >= $2::int8
            AND (
              q."retry_after" IS NULL
              OR q."retry_after" <= $3::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $4::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $5
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";


-- =================================================================================================
-- row lock, processed_at, skipped ids (a relay) (table outbox, rowlock form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 277 characters, sha256 90f191afa98e0edf
CREATE TABLE IF NOT EXISTS "outbox" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "relayed_at" timestamptz
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 94 characters, sha256 05a82287b66a2e07
CREATE INDEX IF NOT EXISTS "outbox_sqlinbox_due" ON "outbox" ("id")
WHERE
  "relayed_at" IS NULL;

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 52 characters, sha256 ab6dace04064a78f
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "outbox";

-- ddl, 5 of 5
-- text: 131 characters, sha256 c214c7dbfe7e03d8
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "outbox" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_outbox');

-- claimLocked (n 10)
-- params: [[3,5,8],10]
-- text: 130 characters, sha256 9966c07b51f31077
SELECT
  q.*
FROM
  "outbox" q
WHERE
  q."relayed_at" IS NULL
  AND q."id" <> ALL ($1)
ORDER BY
  q."id"
LIMIT
  $2
FOR UPDATE OF
  q SKIP LOCKED;

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7]
-- text: 100 characters, sha256 1d19eed0131bb429
UPDATE "outbox" AS q
SET
  "relayed_at" = $1::timestamptz,
  "attempt" = "attempt" + 1
WHERE
  q."id" = $2;

-- settle retry
-- params: [7]
-- text: 68 characters, sha256 ea09d5d147783e76
UPDATE "outbox" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"sqlinbox_outbox"]
-- text: 209 characters, sha256 ded9079b4190611b
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "outbox" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($3, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0,"sqlinbox_outbox"]
-- text: 231 characters, sha256 25317bf67cfb3e1a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "outbox" ("payload", "attempt")
    VALUES
      ($1::text::json, $2),
      ($3::text::json, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: [[3,5,8]]
-- text: 147 characters, sha256 01ef8864704f692c
SELECT
  0 AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      q."relayed_at" IS NULL
      AND q."id" <> ALL ($1)
  ) AS "ready",
  0 AS "dead"
FROM
  "outbox" q;

-- dueRows
-- params: [[3,5,8]]
-- text: 105 characters, sha256 5058b5975cf58bdf
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "outbox" q
WHERE
  q."relayed_at" IS NULL
  AND q."id" <> ALL ($1);

-- lockable
-- params: [[3,5,8]]
-- text: 144 characters, sha256 abe0ce850d3d424d
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "outbox" q
    WHERE
      q."relayed_at" IS NULL
      AND q."id" <> ALL ($1)
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 200 characters, sha256 789ea2a51ed505fb
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."relayed_at" IS NOT NULL THEN 'done'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "outbox" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" > $2
ORDER BY
  x."id"
LIMIT
  $3;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 205 characters, sha256 56f20dd49a9b7bc8
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."relayed_at" IS NOT NULL THEN 'done'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "outbox" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 120 characters, sha256 8fbb21f094fdeb2a
SELECT
  r.*
FROM
  "outbox" r
WHERE
  r."relayed_at" IS NULL
  AND r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 61 characters, sha256 f4c8475e22fe26e3
UPDATE "outbox" AS q
SET
  "attempt" = 0
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 41 characters, sha256 1809264ceb703e43
DELETE FROM "outbox"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 234 characters, sha256 2f471690258cf679
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "outbox" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: [[3,5,8],[3,5,8]]
-- text: 273 characters, sha256 a6463b739414c678
SELECT
  count(*) FILTER (
    WHERE
      q."relayed_at" IS NULL
      AND q."id" <> ALL ($2)
  ) - (
    SELECT
      count(*)
    FROM
      (
        SELECT
          1
        FROM
          "outbox" f
        WHERE
          f."relayed_at" IS NULL
          AND f."id" <> ALL ($1)
        FOR UPDATE OF
          f SKIP LOCKED
      ) sqlinbox_free
  ) AS busy,
  NULL::timestamptz AS oldest
FROM
  "outbox" q;


-- =================================================================================================
-- lease, processed_at, skipped ids (a relay) (table outbox, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 324 characters, sha256 209990f1b7dd4c4e
CREATE TABLE IF NOT EXISTS "outbox" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "relayed_at" timestamptz
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 94 characters, sha256 05a82287b66a2e07
CREATE INDEX IF NOT EXISTS "outbox_sqlinbox_due" ON "outbox" ("id")
WHERE
  "relayed_at" IS NULL;

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 52 characters, sha256 ab6dace04064a78f
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "outbox";

-- ddl, 5 of 5
-- text: 131 characters, sha256 c214c7dbfe7e03d8
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "outbox" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_outbox');

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[3,5,8],10]
-- text: 426 characters, sha256 11fd49bafbda5343
WITH
  sqlinbox_claimed AS (
    UPDATE "outbox" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "outbox" q
          WHERE
            q."relayed_at" IS NULL
            AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
            AND q."id" <> ALL ($3)
          ORDER BY
            q."id"
          LIMIT
            $4
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 134 characters, sha256 d8ac0a60be3b97ba
UPDATE "outbox" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 220 characters, sha256 c1433b94d500e789
UPDATE "outbox" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 155 characters, sha256 bfd9d0a150debc1e
UPDATE "outbox" AS t
SET
  "relayed_at" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 209 characters, sha256 ae6bb2db2cbfbf93
UPDATE "outbox" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 135 characters, sha256 3690a936e767f835
UPDATE "outbox" AS q
SET
  "relayed_at" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 130 characters, sha256 ac6e8b2dc559d986
UPDATE "outbox" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 130 characters, sha256 2ea4a9d9a103da5b
UPDATE "outbox" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"sqlinbox_outbox"]
-- text: 209 characters, sha256 ded9079b4190611b
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "outbox" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($3, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0,"sqlinbox_outbox"]
-- text: 231 characters, sha256 25317bf67cfb3e1a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "outbox" ("payload", "attempt")
    VALUES
      ($1::text::json, $2),
      ($3::text::json, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",[3,5,8]]
-- text: 294 characters, sha256 0d5be16815eb2c2b
SELECT
  count(*) FILTER (
    WHERE
      q."relayed_at" IS NULL
      AND q."locked_until" > $1::timestamptz
  ) AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      q."relayed_at" IS NULL
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
      AND q."id" <> ALL ($3)
  ) AS "ready",
  0 AS "dead"
FROM
  "outbox" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z",[3,5,8]]
-- text: 168 characters, sha256 0cea9b1cc6f1824a
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "outbox" q
WHERE
  q."relayed_at" IS NULL
  AND coalesce(q."locked_until", '-infinity') <= $1::timestamptz
  AND q."id" <> ALL ($2);

-- lockable
-- params: ["2025-01-01T00:00:00.000Z",[3,5,8]]
-- text: 207 characters, sha256 e8dd277abe7f44cd
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "outbox" q
    WHERE
      q."relayed_at" IS NULL
      AND coalesce(q."locked_until", '-infinity') <= $1::timestamptz
      AND q."id" <> ALL ($2)
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 254 characters, sha256 83ba8d40190d6da7
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."relayed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "outbox" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 259 characters, sha256 44269abb36c7c2be
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."relayed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "outbox" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 190 characters, sha256 63242345ab9db84b
SELECT
  r.*
FROM
  "outbox" r
WHERE
  r."relayed_at" IS NULL
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 84 characters, sha256 6dcee00cd5b4b52b
UPDATE "outbox" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 41 characters, sha256 1809264ceb703e43
DELETE FROM "outbox"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 234 characters, sha256 2f471690258cf679
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "outbox" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- text: 61 characters, sha256 f5108a6666b59c6a
SELECT
  0 AS busy,
  NULL::timestamptz AS oldest
FROM
  "outbox" q;

-- claimLease from an id (n 10, from 4000)
-- params: ["2025-01-01T00:00:30.000Z","4000","2025-01-01T00:00:00.000Z",[3,5,8],10]
-- text: 449 characters, sha256 c926212d2776c4f8
WITH
  sqlinbox_claimed AS (
    UPDATE "outbox" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "outbox" q
          WHERE
            q."id" >= $2::int8
            AND q."relayed_at" IS NULL
            AND coalesce(q."locked_until", '-infinity') <= $3::timestamptz
            AND q."id" <> ALL ($4)
          ORDER BY
            q."id"
          LIMIT
            $5
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";


-- =================================================================================================
-- lease, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 344 characters, sha256 ed51af0284a59970
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "retry_after" timestamptz,
  "fifo_group" text
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 79 characters, sha256 5f85ef58cdcde238
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_group" ON "jobs" ("fifo_group", "id");

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLease (n 10)
-- params: ["sqlinbox.fifo:jobs:",64,"2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10,10,"2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 2563 characters, sha256 c599da2b3ac9e3b2
WITH
  sqlinbox_heads AS (
    SELECT
      h.sqlinbox_id
    FROM
      (
        SELECT
          *
        FROM
          (
            SELECT
              w."id" AS sqlinbox_id,
              w."fifo_group" AS sqlinbox_group
            FROM
              (
                SELECT
                  "id",
                  "fifo_group",
                  "retry_after",
                  "locked_until"
                FROM
                  "jobs"
                ORDER BY
                  "id"
                LIMIT
                  $2
              ) w
            WHERE
              (
                w."retry_after" IS NULL
                OR w."retry_after" <= $3::timestamptz
              )
              AND coalesce(w."locked_until", '-infinity') <= $4::timestamptz
              AND w."fifo_group" IS DISTINCT FROM $5
              AND NOT EXISTS (
                SELECT
                  1
                FROM
                  "jobs" s
                WHERE
                  s."fifo_group" = w."fifo_group"
                  AND s."id" < w."id"
              )
            ORDER BY
              w."id"
            OFFSET
              0
          ) a
        UNION ALL
        SELECT
          *
        FROM
          (
            WITH RECURSIVE
              sqlinbox_g (g) AS (
                (
                  SELECT
                    x."fifo_group"
                  FROM
                    "jobs" x
                  WHERE
                    x."fifo_group" IS NOT NULL
                  ORDER BY
                    x."fifo_group"
                  LIMIT
                    1
                )
                UNION ALL
                SELECT
                  (
                    SELECT
                      x."fifo_group"
                    FROM
                      "jobs" x
                    WHERE
                      x."fifo_group" > r.g
                    ORDER BY
                      x."fifo_group"
                    LIMIT
                      1
                  )
                FROM
                  sqlinbox_g r
                WHERE
                  r.g IS NOT NULL
              ),
              sqlinbox_last (m) AS (
                SELECT
                  max(y."id")
                FROM
                  (
                    SELECT
                      "id",
                      "fifo_group",
                      "retry_after",
                      "locked_until"
                    FROM
                      "jobs"
                    ORDER BY
                      "id"
                    LIMIT
                      $2
                  ) y
              )
            SELECT
              u.*
            FROM
              (
                SELECT
                  q."id" AS sqlinbox_id,
                  q."fifo_group" AS sqlinbox_group
                FROM
                  "jobs" q
                WHERE
                  q."id" IN (
                    SELECT
                      (
                        SELECT
                          x."id"
                        FROM
                          "jobs" x
                        WHERE
                          x."fifo_group" = r.g
                        ORDER BY
                          x."id"
                        LIMIT
                          1
                      )
                    FROM
                      sqlinbox_g r
                    WHERE
                      r.g IS NOT NULL
                  )
                  AND q."id" > (
                    SELECT
                      m
                    FROM
                      sqlinbox_last
                  )
                  AND (
                    q."retry_after" IS NULL
                    OR q."retry_after" <= $6::timestamptz
                  )
                  AND coalesce(q."locked_until", '-infinity') <= $7::timestamptz
                  AND q."fifo_group" IS DISTINCT FROM $8
                UNION ALL
                (
                  SELECT
                    q."id" AS sqlinbox_id,
                    q."fifo_group" AS sqlinbox_group
                  FROM
                    "jobs" q
                  WHERE
                    q."fifo_group" IS NULL
                    AND q."id" > (
                      SELECT
                        m
                      FROM
                        sqlinbox_last
                    )
                    AND (
                      q."retry_after" IS NULL
                      OR q."retry_after" <= $6::timestamptz
                    )
                    AND coalesce(q."locked_until", '-infinity') <= $7::timestamptz
                    AND q."fifo_group" IS DISTINCT FROM $8
                  ORDER BY
                    q."id"
                  LIMIT
                    $9
                )
              ) u
            ORDER BY
              u.sqlinbox_id
            OFFSET
              0
          ) b
      ) h
    WHERE
      pg_try_advisory_xact_lock(
        hashtextextended (
          $1::text || CASE
            WHEN h.sqlinbox_group IS NULL THEN 'row:' || h.sqlinbox_id::text
            ELSE 'group:' || h.sqlinbox_group::text
          END,
          0
        )
      )
    LIMIT
      $10
  ),
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $11::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" = ANY (
              ARRAY(
                SELECT
                  sqlinbox_id
                FROM
                  sqlinbox_heads
              )
            )
            AND (
              q."retry_after" IS NULL
              OR q."retry_after" <= $12::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $13::timestamptz
            AND q."fifo_group" IS DISTINCT FROM $14
          ORDER BY
            q."id"
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 f514da18928fae7a
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01T00:00:00.000Z"]
-- text: 120 characters, sha256 2c22f6fca4cfdf03
UPDATE "jobs" AS q
SET
  "fifo_group" = $1,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 257 characters, sha256 6dc70ae1e08e498f
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group", "retry_after")
    VALUES
      ($1::text::json, $2, $3, $4::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 297 characters, sha256 66fcec00139ee7df
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group", "retry_after")
    VALUES
      ($1::text::json, $2, $3, $4::timestamptz),
      ($5::text::json, $6, DEFAULT, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($7, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["dead","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","dead"]
-- text: 577 characters, sha256 e6b96a8384587386
SELECT
  count(*) FILTER (
    WHERE
      q."fifo_group" IS DISTINCT FROM $1
      AND q."locked_until" > $2::timestamptz
  ) AS "in_work",
  count(*) FILTER (
    WHERE
      q."fifo_group" IS DISTINCT FROM $3
      AND NOT (
        q."locked_until" IS NOT NULL
        AND q."locked_until" > $4::timestamptz
      )
      AND q."retry_after" > $5::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $6::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $7::timestamptz
      AND q."fifo_group" IS DISTINCT FROM $8
  ) AS "ready",
  count(*) FILTER (
    WHERE
      q."fifo_group" = $9
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 235 characters, sha256 85df89bc879d05e8
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
  AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  AND q."fifo_group" IS DISTINCT FROM $3;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 263 characters, sha256 8c22de4279936886
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
      AND q."fifo_group" IS DISTINCT FROM $3
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 299 characters, sha256 f62ffe886d7089f3
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = $1 THEN 'dead'
        WHEN r."locked_until" > $2::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $3::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $4
  AND x."id" > $5
ORDER BY
  x."id"
LIMIT
  $6;

-- admin list (dead, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 304 characters, sha256 963d6f6903a33f7d
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = $1 THEN 'dead'
        WHEN r."locked_until" > $2::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $3::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $4
  AND x."id" = ANY ($5)
ORDER BY
  x."id"
LIMIT
  $6;

-- admin pick (live, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z",[4,5]]
-- text: 200 characters, sha256 2b889c6bbae4308b
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" IS DISTINCT FROM $1
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= $2::timestamptz
  )
  AND r."id" = ANY ($3)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- params: ["dead"]
-- text: 94 characters, sha256 5dc876bfbab28884
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" = $1
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: ["g",[4,5]]
-- text: 123 characters, sha256 8c5b7cb24a1b5e61
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL,
  "fifo_group" = $1
WHERE
  q."id" = ANY ($2);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 243 characters, sha256 1891009261a31fbb
SELECT
  0 AS busy,
  min(q."retry_after") FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
      AND q."fifo_group" IS DISTINCT FROM $3
  ) AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- row lock, dead-letter table, schema-qualified (table app.jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 6
-- text: 312 characters, sha256 ed38bc53afd29f21
CREATE TABLE IF NOT EXISTS "app"."jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "retry_after" timestamptz,
  "processed_at" timestamptz
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 6
-- text: 98 characters, sha256 b410323ea1e4ddae
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_due" ON "app"."jobs" ("id")
WHERE
  "processed_at" IS NULL;

-- ddl, 3 of 6
-- text: 398 characters, sha256 23001c75409ad28f
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "app"."sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 6
-- text: 56 characters, sha256 4e74ffb0f09f40c3
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "app"."jobs";

-- ddl, 5 of 6
-- text: 143 characters, sha256 8c962edd06fa3663
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "app"."jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "app"."sqlinbox_wakeup" (E'sqlinbox_app.jobs');

-- ddl, 6 of 6
-- text: 201 characters, sha256 27ca119c9190cca8
CREATE TABLE IF NOT EXISTS "app"."jobs_dead" (
  "id" bigint PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "retry_after" timestamptz,
  "processed_at" timestamptz
);

-- claimLocked (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10]
-- text: 182 characters, sha256 2797a0a8eac2b661
SELECT
  q.*
FROM
  "app"."jobs" q
WHERE
  q."processed_at" IS NULL
  AND (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
ORDER BY
  q."id"
LIMIT
  $2
FOR UPDATE OF
  q SKIP LOCKED;

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7]
-- text: 106 characters, sha256 506b6de2202c8bbf
UPDATE "app"."jobs" AS q
SET
  "processed_at" = $1::timestamptz,
  "attempt" = "attempt" + 1
WHERE
  q."id" = $2;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 105 characters, sha256 ea8249a7d379e18d
UPDATE "app"."jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz
WHERE
  q."id" = $2;

-- countBeforeMove
-- params: [7]
-- text: 72 characters, sha256 ae93a4e0ccae7f13
UPDATE "app"."jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1;

-- moveToDeadLetter
-- params: [7]
-- text: 136 characters, sha256 aa80ed522e0c9b0b
WITH
  sqlinbox_moved AS (
    DELETE FROM "app"."jobs"
    WHERE
      "id" = $1
    RETURNING
      *
  )
INSERT INTO
  "app"."jobs_dead"
SELECT
  *
FROM
  sqlinbox_moved;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","sqlinbox_app.jobs"]
-- text: 245 characters, sha256 5c7b78a538b5afe1
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "app"."jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_app.jobs"]
-- text: 276 characters, sha256 f1f3dd02cd72d66f
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "app"."jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 323 characters, sha256 6f5a48a2054124a3
SELECT
  0 AS "in_work",
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND q."retry_after" > $1::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $2::timestamptz
      )
  ) AS "ready",
  (
    SELECT
      COUNT(*)
    FROM
      "app"."jobs_dead"
  ) AS "dead"
FROM
  "app"."jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 168 characters, sha256 5761a4ed6ec0fd84
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "app"."jobs" q
WHERE
  q."processed_at" IS NULL
  AND (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 196 characters, sha256 4bcd77004764e738
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "app"."jobs" q
    WHERE
      q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 260 characters, sha256 0bc50f547236db2f
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "app"."jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 155 characters, sha256 8b578afa97908576
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      "app"."jobs_dead" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 126 characters, sha256 e2e2267636f85bd2
SELECT
  r.*
FROM
  "app"."jobs" r
WHERE
  r."processed_at" IS NULL
  AND r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- text: 79 characters, sha256 771038a1a292d28d
SELECT
  r.*
FROM
  "app"."jobs_dead" r
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 87 characters, sha256 9c6ff8abc22f23dc
UPDATE "app"."jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL
WHERE
  q."id" = ANY ($1);

-- admin copyBack
-- params: [[4,5]]
-- text: 77 characters, sha256 b396704668ec7879
INSERT INTO
  "app"."jobs"
SELECT
  *
FROM
  "app"."jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove (dead)
-- params: [[4,5]]
-- text: 50 characters, sha256 7875c8dfe8245826
DELETE FROM "app"."jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 45 characters, sha256 7255c557a885a7f8
DELETE FROM "app"."jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 83 characters, sha256 39f863dbd0756c75
UPDATE "app"."jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 238 characters, sha256 61e829a3497b0ceb
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "app"."jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 488 characters, sha256 b600515febc2d19e
SELECT
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $3::timestamptz
      )
  ) - (
    SELECT
      count(*)
    FROM
      (
        SELECT
          1
        FROM
          "app"."jobs" f
        WHERE
          f."processed_at" IS NULL
          AND (
            f."retry_after" IS NULL
            OR f."retry_after" <= $2::timestamptz
          )
        FOR UPDATE OF
          f SKIP LOCKED
      ) sqlinbox_free
  ) AS busy,
  min(q."retry_after") FILTER (
    WHERE
      q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
  ) AS oldest
FROM
  "app"."jobs" q;


-- =================================================================================================
-- lease, retention, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 8
-- text: 399 characters, sha256 c503fd8e96ba5bf0
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "retry_after" timestamptz,
  "processed_at" timestamptz,
  "dead_at" timestamptz,
  "fifo_group" text
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 8
-- text: 92 characters, sha256 c7b2d8e01c584636
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_due" ON "jobs" ("id")
WHERE
  "processed_at" IS NULL;

-- ddl, 3 of 8
-- text: 108 characters, sha256 a958462f0bda61d6
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_group" ON "jobs" ("fifo_group", "id")
WHERE
  "processed_at" IS NULL;

-- ddl, 4 of 8
-- text: 112 characters, sha256 958b6b082feecf14
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_processed" ON "jobs" ("processed_at")
WHERE
  "processed_at" IS NOT NULL;

-- ddl, 5 of 8
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 6 of 8
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 7 of 8
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- ddl, 8 of 8
-- text: 137 characters, sha256 2fa0d958ed45d43f
CREATE TABLE IF NOT EXISTS "sqlinbox_schedules" ("name" text NOT NULL, "tick" timestamptz NOT NULL, PRIMARY KEY ("name", "tick"));

-- claimLease (n 10)
-- params: ["sqlinbox.fifo:jobs:",64,"2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10,10,"2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 2885 characters, sha256 1f455d0a19f6679a
WITH
  sqlinbox_heads AS (
    SELECT
      h.sqlinbox_id
    FROM
      (
        SELECT
          *
        FROM
          (
            SELECT
              w."id" AS sqlinbox_id,
              w."fifo_group" AS sqlinbox_group
            FROM
              (
                SELECT
                  "id",
                  "fifo_group",
                  "processed_at",
                  "retry_after",
                  "locked_until"
                FROM
                  "jobs"
                WHERE
                  "processed_at" IS NULL
                ORDER BY
                  "id"
                LIMIT
                  $2
              ) w
            WHERE
              w."processed_at" IS NULL
              AND (
                w."retry_after" IS NULL
                OR w."retry_after" <= $3::timestamptz
              )
              AND coalesce(w."locked_until", '-infinity') <= $4::timestamptz
              AND w."fifo_group" IS DISTINCT FROM $5
              AND NOT EXISTS (
                SELECT
                  1
                FROM
                  "jobs" s
                WHERE
                  s."fifo_group" = w."fifo_group"
                  AND s."id" < w."id"
                  AND s."processed_at" IS NULL
              )
            ORDER BY
              w."id"
            OFFSET
              0
          ) a
        UNION ALL
        SELECT
          *
        FROM
          (
            WITH RECURSIVE
              sqlinbox_g (g) AS (
                (
                  SELECT
                    x."fifo_group"
                  FROM
                    "jobs" x
                  WHERE
                    x."fifo_group" IS NOT NULL
                    AND x."processed_at" IS NULL
                  ORDER BY
                    x."fifo_group"
                  LIMIT
                    1
                )
                UNION ALL
                SELECT
                  (
                    SELECT
                      x."fifo_group"
                    FROM
                      "jobs" x
                    WHERE
                      x."fifo_group" > r.g
                      AND x."processed_at" IS NULL
                    ORDER BY
                      x."fifo_group"
                    LIMIT
                      1
                  )
                FROM
                  sqlinbox_g r
                WHERE
                  r.g IS NOT NULL
              ),
              sqlinbox_last (m) AS (
                SELECT
                  max(y."id")
                FROM
                  (
                    SELECT
                      "id",
                      "fifo_group",
                      "processed_at",
                      "retry_after",
                      "locked_until"
                    FROM
                      "jobs"
                    WHERE
                      "processed_at" IS NULL
                    ORDER BY
                      "id"
                    LIMIT
                      $2
                  ) y
              )
            SELECT
              u.*
            FROM
              (
                SELECT
                  q."id" AS sqlinbox_id,
                  q."fifo_group" AS sqlinbox_group
                FROM
                  "jobs" q
                WHERE
                  q."id" IN (
                    SELECT
                      (
                        SELECT
                          x."id"
                        FROM
                          "jobs" x
                        WHERE
                          x."fifo_group" = r.g
                          AND x."processed_at" IS NULL
                        ORDER BY
                          x."id"
                        LIMIT
                          1
                      )
                    FROM
                      sqlinbox_g r
                    WHERE
                      r.g IS NOT NULL
                  )
                  AND q."id" > (
                    SELECT
                      m
                    FROM
                      sqlinbox_last
                  )
                  AND q."processed_at" IS NULL
                  AND (
                    q."retry_after" IS NULL
                    OR q."retry_after" <= $6::timestamptz
                  )
                  AND coalesce(q."locked_until", '-infinity') <= $7::timestamptz
                  AND q."fifo_group" IS DISTINCT FROM $8
                UNION ALL
                (
                  SELECT
                    q."id" AS sqlinbox_id,
                    q."fifo_group" AS sqlinbox_group
                  FROM
                    "jobs" q
                  WHERE
                    q."fifo_group" IS NULL
                    AND q."id" > (
                      SELECT
                        m
                      FROM
                        sqlinbox_last
                    )
                    AND q."processed_at" IS NULL
                    AND (
                      q."retry_after" IS NULL
                      OR q."retry_after" <= $6::timestamptz
                    )
                    AND coalesce(q."locked_until", '-infinity') <= $7::timestamptz
                    AND q."fifo_group" IS DISTINCT FROM $8
                  ORDER BY
                    q."id"
                  LIMIT
                    $9
                )
              ) u
            ORDER BY
              u.sqlinbox_id
            OFFSET
              0
          ) b
      ) h
    WHERE
      pg_try_advisory_xact_lock(
        hashtextextended (
          $1::text || CASE
            WHEN h.sqlinbox_group IS NULL THEN 'row:' || h.sqlinbox_id::text
            ELSE 'group:' || h.sqlinbox_group::text
          END,
          0
        )
      )
    LIMIT
      $10
  ),
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $11::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" = ANY (
              ARRAY(
                SELECT
                  sqlinbox_id
                FROM
                  sqlinbox_heads
              )
            )
            AND q."processed_at" IS NULL
            AND (
              q."retry_after" IS NULL
              OR q."retry_after" <= $12::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $13::timestamptz
            AND q."fifo_group" IS DISTINCT FROM $14
          ORDER BY
            q."id"
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 155 characters, sha256 afc04d2c562ecc93
UPDATE "jobs" AS t
SET
  "processed_at" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 135 characters, sha256 3b5ce089ed069b03
UPDATE "jobs" AS q
SET
  "processed_at" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 f514da18928fae7a
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01T00:00:00.000Z"]
-- text: 120 characters, sha256 2c22f6fca4cfdf03
UPDATE "jobs" AS q
SET
  "fifo_group" = $1,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 257 characters, sha256 6dc70ae1e08e498f
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group", "retry_after")
    VALUES
      ($1::text::json, $2, $3, $4::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 297 characters, sha256 66fcec00139ee7df
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group", "retry_after")
    VALUES
      ($1::text::json, $2, $3, $4::timestamptz),
      ($5::text::json, $6, DEFAULT, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($7, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["dead","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","dead"]
-- text: 693 characters, sha256 1e8bde1e9b247647
SELECT
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND q."fifo_group" IS DISTINCT FROM $1
      AND q."locked_until" > $2::timestamptz
  ) AS "in_work",
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND q."fifo_group" IS DISTINCT FROM $3
      AND NOT (
        q."locked_until" IS NOT NULL
        AND q."locked_until" > $4::timestamptz
      )
      AND q."retry_after" > $5::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $6::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $7::timestamptz
      AND q."fifo_group" IS DISTINCT FROM $8
  ) AS "ready",
  count(*) FILTER (
    WHERE
      q."fifo_group" = $9
      AND q."processed_at" IS NULL
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 264 characters, sha256 427249f353312899
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  q."processed_at" IS NULL
  AND (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
  AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  AND q."fifo_group" IS DISTINCT FROM $3;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 292 characters, sha256 ab2fb54f82d5cda7
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
      AND q."fifo_group" IS DISTINCT FROM $3
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 345 characters, sha256 30a57e856b284413
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = $1 THEN 'dead'
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > $2::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $3::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $4
  AND x."id" > $5
ORDER BY
  x."id"
LIMIT
  $6;

-- admin list (dead, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",[4,5],50]
-- text: 350 characters, sha256 a2cd68adeee5ce81
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = $1 THEN 'dead'
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > $2::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $3::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $4
  AND x."id" = ANY ($5)
ORDER BY
  x."id"
LIMIT
  $6;

-- admin pick (live, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z",[4,5]]
-- text: 229 characters, sha256 bd0737c3aa145c8b
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."processed_at" IS NULL
  AND r."fifo_group" IS DISTINCT FROM $1
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= $2::timestamptz
  )
  AND r."id" = ANY ($3)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- params: ["dead"]
-- text: 123 characters, sha256 860e139f8e420d81
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" = $1
  AND r."processed_at" IS NULL
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: ["g",[4,5]]
-- text: 123 characters, sha256 8c5b7cb24a1b5e61
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL,
  "fifo_group" = $1
WHERE
  q."id" = ANY ($2);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- retention pruneProcessed
-- params: ["2025-01-01T00:00:00.000Z",1000]
-- text: 197 characters, sha256 3fd5084001e3a4a8
DELETE FROM "jobs"
WHERE
  "id" = ANY (
    ARRAY(
      SELECT
        "id"
      FROM
        "jobs"
      WHERE
        "processed_at" IS NOT NULL
        AND "processed_at" < $1::timestamptz
        AND "locked_until" IS NULL
      ORDER BY
        "processed_at"
      LIMIT
        $2
    )
  );

-- retention markDead
-- params: ["2025-01-01T00:00:00.000Z","dead"]
-- text: 129 characters, sha256 7470ec4f422bfc0d
UPDATE "jobs" AS q
SET
  "dead_at" = $1::timestamptz
WHERE
  q."fifo_group" = $2
  AND q."locked_until" IS NULL
  AND q."dead_at" IS NULL;

-- retention pruneDead
-- params: ["dead","2025-01-01T00:00:00.000Z",1000]
-- text: 178 characters, sha256 1669f79c5d2c7860
DELETE FROM "jobs"
WHERE
  "id" = ANY (
    ARRAY(
      SELECT
        "id"
      FROM
        "jobs"
      WHERE
        "fifo_group" = $1
        AND "locked_until" IS NULL
        AND "dead_at" < $2::timestamptz
      ORDER BY
        "dead_at"
      LIMIT
        $3
    )
  );

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 272 characters, sha256 4c0e158277fa895b
SELECT
  0 AS busy,
  min(q."retry_after") FILTER (
    WHERE
      q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
      AND q."fifo_group" IS DISTINCT FROM $3
  ) AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- row lock, retention, dead-letter table (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 6
-- text: 301 characters, sha256 b443154ceba774cc
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "retry_after" timestamptz,
  "dead_at" timestamptz
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 6
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 6
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 6
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- ddl, 5 of 6
-- text: 190 characters, sha256 423c798a3b858610
CREATE TABLE IF NOT EXISTS "jobs_dead" (
  "id" bigint PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "retry_after" timestamptz,
  "dead_at" timestamptz
);

-- ddl, 6 of 6
-- text: 137 characters, sha256 2fa0d958ed45d43f
CREATE TABLE IF NOT EXISTS "sqlinbox_schedules" ("name" text NOT NULL, "tick" timestamptz NOT NULL, PRIMARY KEY ("name", "tick"));

-- claimLocked (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10]
-- text: 147 characters, sha256 3de2e989cf19b94d
SELECT
  q.*
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
ORDER BY
  q."id"
LIMIT
  $2
FOR UPDATE OF
  q SKIP LOCKED;

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 99 characters, sha256 005645f2bdf3d7c4
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz
WHERE
  q."id" = $2;

-- countBeforeMove
-- params: [7]
-- text: 66 characters, sha256 490963b4fc231e28
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1;

-- moveToDeadLetter
-- params: [7]
-- text: 124 characters, sha256 731449e2188e3f14
WITH
  sqlinbox_moved AS (
    DELETE FROM "jobs"
    WHERE
      "id" = $1
    RETURNING
      *
  )
INSERT INTO
  "jobs_dead"
SELECT
  *
FROM
  sqlinbox_moved;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 239 characters, sha256 b4c7dd634189469a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 270 characters, sha256 5549a320a298d1ac
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 253 characters, sha256 77c8c537253720e0
SELECT
  0 AS "in_work",
  count(*) FILTER (
    WHERE
      q."retry_after" > $1::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $2::timestamptz
      )
  ) AS "ready",
  (
    SELECT
      COUNT(*)
    FROM
      "jobs_dead"
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 133 characters, sha256 8dd5bc24d5e7652f
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 c182377605ab041c
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 208 characters, sha256 112eb8927677a181
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > $1::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 149 characters, sha256 4229da0ec2aab5b3
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      "jobs_dead" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 91 characters, sha256 cf1b24818696e64f
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- text: 73 characters, sha256 691e229e376833dd
SELECT
  r.*
FROM
  "jobs_dead" r
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 81 characters, sha256 a08b1d08a6848156
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL
WHERE
  q."id" = ANY ($1);

-- admin copyBack
-- params: [[4,5]]
-- text: 65 characters, sha256 1f27624a87a3cb9e
INSERT INTO
  "jobs"
SELECT
  *
FROM
  "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove (dead)
-- params: [[4,5]]
-- text: 44 characters, sha256 18ec80e8bf1e1536
DELETE FROM "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- retention markDead
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 90 characters, sha256 6a8b55f1ed7bd4af
UPDATE "jobs_dead" AS q
SET
  "dead_at" = $1::timestamptz
WHERE
  TRUE
  AND q."dead_at" IS NULL;

-- retention pruneDead
-- params: ["2025-01-01T00:00:00.000Z",500]
-- text: 148 characters, sha256 4ddd41e9c7284015
DELETE FROM "jobs_dead"
WHERE
  "id" = ANY (
    ARRAY(
      SELECT
        "id"
      FROM
        "jobs_dead"
      WHERE
        TRUE
        AND "dead_at" < $1::timestamptz
      ORDER BY
        "dead_at"
      LIMIT
        $2
    )
  );

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 389 characters, sha256 170a9429c970ca43
SELECT
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $3::timestamptz
      )
  ) - (
    SELECT
      count(*)
    FROM
      (
        SELECT
          1
        FROM
          "jobs" f
        WHERE
          (
            f."retry_after" IS NULL
            OR f."retry_after" <= $2::timestamptz
          )
        FOR UPDATE OF
          f SKIP LOCKED
      ) sqlinbox_free
  ) AS busy,
  min(q."retry_after") FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
  ) AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- advisory, dead-letter table (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 265 characters, sha256 c489c07611a98449
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "account" text
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- ddl, 5 of 5
-- text: 154 characters, sha256 a398e14a2d7fe285
CREATE TABLE IF NOT EXISTS "jobs_dead" (
  "id" bigint PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "account" text
);

-- candidates (n 10)
-- params: ["account-",10]
-- text: 615 characters, sha256 972477d4dad391e2
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  c.id AS id,
  c.key AS key
FROM
  (
    SELECT
      q."id" AS id,
      $1::text || coalesce(q."account"::text, '') AS key
    FROM
      "jobs" q
    WHERE
      TRUE
    ORDER BY
      q."id"
    OFFSET
      0
  ) c
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      sqlinbox_held h
    WHERE
      h.hi = ((hashtextextended (c.key, 0) >> 32) & 4294967295)
      AND h.lo = (hashtextextended (c.key, 0) & 4294967295)
  )
LIMIT
  $2;

-- candidates (n 10, two keys of its own)
-- params: [["k1","k2"],"account-",10]
-- text: 636 characters, sha256 dfb84ba96718ec5f
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  c.id AS id,
  c.key AS key
FROM
  (
    SELECT
      q."id" AS id,
      $2::text || coalesce(q."account"::text, '') AS key
    FROM
      "jobs" q
    WHERE
      TRUE
    ORDER BY
      q."id"
    OFFSET
      0
  ) c
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      sqlinbox_held h
    WHERE
      h.hi = ((hashtextextended (c.key, 0) >> 32) & 4294967295)
      AND h.lo = (hashtextextended (c.key, 0) & 4294967295)
  )
  AND c.key <> ALL ($1)
LIMIT
  $3;

-- lock
-- params: ["account-1"]
-- text: 64 characters, sha256 99e2194cf2f71c67
SELECT
  pg_try_advisory_lock(hashtextextended ($1::text, 0)) AS ok;

-- unlock
-- params: ["account-1"]
-- text: 62 characters, sha256 033a77c870b04889
SELECT
  pg_advisory_unlock(hashtextextended ($1::text, 0)) AS ok;

-- take (id 7)
-- params: [7]
-- text: 87 characters, sha256 63d19ad4cc00db15
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1
  AND TRUE
RETURNING
  *;

-- lockAndTake (id 7)
-- params: ["account-1",7]
-- text: 328 characters, sha256 735fb7c5763fe1b2
WITH
  sqlinbox_lock AS (
    SELECT
      pg_try_advisory_lock(hashtextextended ($1::text, 0)) AS ok
  ),
  sqlinbox_taken AS (
    UPDATE "jobs" AS q
    SET
      "attempt" = "attempt" + 1
    WHERE
      q."id" = $2
      AND TRUE
      AND (
        SELECT
          l.ok
        FROM
          sqlinbox_lock l
      )
    RETURNING
      *
  )
SELECT
  l.ok AS sqlinbox_locked,
  k.*
FROM
  sqlinbox_lock l
  LEFT JOIN sqlinbox_taken k ON true;

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: [7]
-- text: 66 characters, sha256 490963b4fc231e28
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1;

-- moveToDeadLetter
-- params: [7]
-- text: 124 characters, sha256 731449e2188e3f14
WITH
  sqlinbox_moved AS (
    DELETE FROM "jobs"
    WHERE
      "id" = $1
    RETURNING
      *
  )
INSERT INTO
  "jobs_dead"
SELECT
  *
FROM
  sqlinbox_moved;

-- insert (one message)
-- params: ["{\"n\":1}",0,"a1","sqlinbox_jobs"]
-- text: 222 characters, sha256 66bd2b40a13ba0dd
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "account")
    VALUES
      ($1::text::json, $2, $3)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"a1","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 253 characters, sha256 b3159522711dedec
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "account")
    VALUES
      ($1::text::json, $2, $3),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- text: 138 characters, sha256 b21d1a64ef28c67a
SELECT
  0 AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      TRUE
  ) AS "ready",
  (
    SELECT
      COUNT(*)
    FROM
      "jobs_dead"
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["account-"]
-- text: 102 characters, sha256 5f2136ab32ab0d40
SELECT
  $1::text || coalesce(q."account"::text, '') AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  TRUE;

-- lockable
-- text: 102 characters, sha256 1f04dbe500abd1e7
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      TRUE
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 140 characters, sha256 f157c50930c28987
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" > $2
ORDER BY
  x."id"
LIMIT
  $3;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 149 characters, sha256 4229da0ec2aab5b3
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      "jobs_dead" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: [[4,5]]
-- text: 91 characters, sha256 cf1b24818696e64f
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" = ANY ($1)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- text: 73 characters, sha256 691e229e376833dd
SELECT
  r.*
FROM
  "jobs_dead" r
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 59 characters, sha256 4d21f32601b97b3b
UPDATE "jobs" AS q
SET
  "attempt" = 0
WHERE
  q."id" = ANY ($1);

-- admin copyBack
-- params: [[4,5]]
-- text: 65 characters, sha256 1f27624a87a3cb9e
INSERT INTO
  "jobs"
SELECT
  *
FROM
  "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove (dead)
-- params: [[4,5]]
-- text: 44 characters, sha256 18ec80e8bf1e1536
DELETE FROM "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["account-"]
-- text: 600 characters, sha256 d2a14a09f511be2a
WITH
  sqlinbox_held AS (
    SELECT
      l.classid::int8 AS hi,
      l.objid::int8 AS lo
    FROM
      pg_catalog.pg_locks l
    WHERE
      l.locktype = 'advisory'
      AND l.objsubid = 1
      AND l.pid <> pg_backend_pid()
      AND l.database = (
        SELECT
          d.oid
        FROM
          pg_catalog.pg_database d
        WHERE
          d.datname = current_database()
      )
  )
SELECT
  count(*) FILTER (
    WHERE
      TRUE
      AND EXISTS (
        SELECT
          1
        FROM
          sqlinbox_held h
        WHERE
          h.hi = (
            (hashtextextended ($1::text || coalesce(q."account"::text, ''), 0) >> 32) & 4294967295
          )
          AND h.lo = (hashtextextended ($1::text || coalesce(q."account"::text, ''), 0) & 4294967295)
      )
  ) AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;


-- =================================================================================================
-- lease, failure record, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 435 characters, sha256 56378040a00c545e
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "retry_after" timestamptz,
  "last_error" text,
  "error_class" text,
  "failed_at" timestamptz,
  "created_at" timestamptz DEFAULT now()
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 3 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 4 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- ddl, 5 of 5
-- text: 307 characters, sha256 2e59fb2b2e371ddd
CREATE TABLE IF NOT EXISTS "jobs_dead" (
  "id" bigint PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "retry_after" timestamptz,
  "last_error" text,
  "error_class" text,
  "failed_at" timestamptz,
  "created_at" timestamptz DEFAULT now()
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 441 characters, sha256 979d19a28827b7e1
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            (
              q."retry_after" IS NULL
              OR q."retry_after" <= $2::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $3::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $4
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",[1,2]]
-- text: 91 characters, sha256 e05f92491685a029
DELETE FROM "jobs"
WHERE
  "locked_until" = $1::timestamptz
  AND "id" = ANY ($2)
RETURNING
  "id";

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- returnMany (failures, each its own message)
-- params: [1,"one",2,"two","TypeError","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 274 characters, sha256 9bdb1d26f97d6a26
UPDATE "jobs" AS t
SET
  "locked_until" = NULL,
  "last_error" = CASE t."id"
    WHEN $1 THEN $2::text
    WHEN $3 THEN $4::text
    ELSE t."last_error"
  END,
  "error_class" = $5::text,
  "failed_at" = $6::timestamptz
WHERE
  t."locked_until" = $7::timestamptz
  AND t."id" = ANY ($8)
RETURNING
  "id";

-- returnMany (failures, leases held until their backoffs end)
-- params: [1,"2025-01-01T00:00:30.000Z",2,"2025-01-01T00:00:30.001Z","boom","TypeError","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 294 characters, sha256 f13b9a10380e89b9
UPDATE "jobs" AS t
SET
  "locked_until" = CASE t."id"
    WHEN $1 THEN $2::timestamptz
    WHEN $3 THEN $4::timestamptz
    ELSE t."locked_until"
  END,
  "last_error" = $5::text,
  "error_class" = $6::text,
  "failed_at" = $7::timestamptz
WHERE
  t."locked_until" = $8::timestamptz
  AND t."id" = ANY ($9)
RETURNING
  "id";

-- settle retry (failure, lease held until the backoff ends)
-- params: ["2025-01-01T00:00:30.000Z","boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 194 characters, sha256 65bf5193fe8779ef
UPDATE "jobs" AS q
SET
  "locked_until" = $1::timestamptz,
  "last_error" = $2::text,
  "error_class" = $3::text,
  "failed_at" = $4::timestamptz
WHERE
  q."id" = $5
  AND q."locked_until" = $6::timestamptz;

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 71 characters, sha256 c5b1317fa137c2c8
DELETE FROM "jobs"
WHERE
  "id" = $1
  AND "locked_until" = $2::timestamptz;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 161 characters, sha256 f514da18928fae7a
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = $1::timestamptz,
  "locked_until" = NULL
WHERE
  q."id" = $2
  AND q."locked_until" = $3::timestamptz;

-- settle retry (failure)
-- params: ["boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 183 characters, sha256 a5538c0053dc6071
UPDATE "jobs" AS q
SET
  "locked_until" = NULL,
  "last_error" = $1::text,
  "error_class" = $2::text,
  "failed_at" = $3::timestamptz
WHERE
  q."id" = $4
  AND q."locked_until" = $5::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- moveToDeadLetter
-- params: [7,"2025-01-01T00:00:00.000Z","boom","TypeError","2025-01-01T00:00:00.000Z"]
-- text: 384 characters, sha256 4421e48ff36530df
WITH
  sqlinbox_moved AS (
    DELETE FROM "jobs"
    WHERE
      "id" = $1
      AND "locked_until" = $2::timestamptz
    RETURNING
      *
  )
INSERT INTO
  "jobs_dead" (
    "id",
    "payload",
    "attempt",
    "locked_until",
    "retry_after",
    "created_at",
    "last_error",
    "error_class",
    "failed_at"
  )
SELECT
  "id",
  "payload",
  "attempt",
  "locked_until",
  "retry_after",
  "created_at",
  $3::text,
  $4::text,
  $5::timestamptz
FROM
  sqlinbox_moved;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","sqlinbox_jobs"]
-- text: 239 characters, sha256 b4c7dd634189469a
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 270 characters, sha256 5549a320a298d1ac
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "retry_after")
    VALUES
      ($1::text::json, $2, $3::timestamptz),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 451 characters, sha256 5e4103ba80620580
SELECT
  count(*) FILTER (
    WHERE
      q."locked_until" > $1::timestamptz
  ) AS "in_work",
  count(*) FILTER (
    WHERE
      NOT (
        q."locked_until" IS NOT NULL
        AND q."locked_until" > $2::timestamptz
      )
      AND q."retry_after" > $3::timestamptz
  ) AS "delayed",
  count(*) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $4::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $5::timestamptz
  ) AS "ready",
  (
    SELECT
      COUNT(*)
    FROM
      "jobs_dead"
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 222 characters, sha256 ac17cd35470c7ec9
SELECT
  NULL AS "key",
  COALESCE(q."retry_after", q."created_at") AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= $1::timestamptz
  )
  AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 224 characters, sha256 52e66fc9760c5939
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 262 characters, sha256 9895aaca50bf25c2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        WHEN r."retry_after" > $2::timestamptz THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $3
  AND x."id" > $4
ORDER BY
  x."id"
LIMIT
  $5;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 149 characters, sha256 4229da0ec2aab5b3
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      "jobs_dead" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 161 characters, sha256 612cc0abc018b12a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- text: 73 characters, sha256 691e229e376833dd
SELECT
  r.*
FROM
  "jobs_dead" r
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 104 characters, sha256 1b31ade02b2f9cd1
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin copyBack
-- params: [[4,5]]
-- text: 65 characters, sha256 1f27624a87a3cb9e
INSERT INTO
  "jobs"
SELECT
  *
FROM
  "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove (dead)
-- params: [[4,5]]
-- text: 44 characters, sha256 18ec80e8bf1e1536
DELETE FROM "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",[4,5]]
-- text: 77 characters, sha256 647053b7dc5c7023
UPDATE "jobs" AS q
SET
  "retry_after" = $1::timestamptz
WHERE
  q."id" = ANY ($2);

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 230 characters, sha256 0deb0ce88d077a90
SELECT
  0 AS busy,
  min(COALESCE(q."retry_after", q."created_at")) FILTER (
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= $1::timestamptz
      )
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS oldest
FROM
  "jobs" q;

-- claimLease from an id (n 10, from 4000)
-- params: ["2025-01-01T00:00:30.000Z","4000","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 464 characters, sha256 028ed7bf3e52f300
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" >= $2::int8
            AND (
              q."retry_after" IS NULL
              OR q."retry_after" <= $3::timestamptz
            )
            AND coalesce(q."locked_until", '-infinity') <= $4::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $5
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";


-- =================================================================================================
-- lease, processed_at, results, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 6
-- text: 342 characters, sha256 864d2fee46682827
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "processed_at" timestamptz,
  "result" jsonb
)
WITH
  (
    fillfactor = 50,
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 6
-- text: 92 characters, sha256 c7b2d8e01c584636
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_due" ON "jobs" ("id")
WHERE
  "processed_at" IS NULL;

-- ddl, 3 of 6
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 6
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 6
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- ddl, 6 of 6
-- text: 214 characters, sha256 0ef46336f9226b51
CREATE TABLE IF NOT EXISTS "jobs_dead" (
  "id" bigint PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "locked_until" timestamptz,
  "processed_at" timestamptz,
  "result" jsonb
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 402 characters, sha256 e80d049bb0d1387c
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."processed_at" IS NULL
            AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $3
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 132 characters, sha256 f70bd5ac6b21338f
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."locked_until" = $2::timestamptz
  AND t."id" = ANY ($3)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 218 characters, sha256 2c2e9f98003bfc33
UPDATE "jobs" AS t
SET
  "locked_until" = $1::timestamptz
WHERE
  t."id" = ANY ($2)
  AND (
    (
      t."locked_until" = $3::timestamptz
      AND t."id" = ANY ($4)
    )
    OR (
      t."locked_until" = $5::timestamptz
      AND t."id" = ANY ($6)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",[1,2]]
-- text: 316 characters, sha256 5b85d7974535ec07
WITH
  sqlinbox_settled AS (
    UPDATE "jobs" AS t
    SET
      "processed_at" = $1::timestamptz,
      "locked_until" = NULL
    WHERE
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    RETURNING
      "id"
  )
SELECT
  sqlinbox_settled.*,
  pg_notify (E'sqlinbox:result:jobs', sqlinbox_settled."id"::text) AS sqlinbox_notified
FROM
  sqlinbox_settled;

-- returnMany (retries)
-- params: [[1,2],"2025-01-01T00:00:00.000Z",[1],"2025-01-01T00:00:30.000Z",[2]]
-- text: 207 characters, sha256 2a9cc24ae0117f67
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" = ANY ($1)
  AND (
    (
      t."locked_until" = $2::timestamptz
      AND t."id" = ANY ($3)
    )
    OR (
      t."locked_until" = $4::timestamptz
      AND t."id" = ANY ($5)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 311 characters, sha256 7d31d01ba7462bb8
WITH
  sqlinbox_settled AS (
    UPDATE "jobs" AS q
    SET
      "processed_at" = $1::timestamptz,
      "locked_until" = NULL
    WHERE
      q."id" = $2
      AND q."locked_until" = $3::timestamptz
    RETURNING
      "id"
  )
SELECT
  sqlinbox_settled.*,
  pg_notify (E'sqlinbox:result:jobs', sqlinbox_settled."id"::text) AS sqlinbox_notified
FROM
  sqlinbox_settled;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 8b0938bf19d22a56
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 128 characters, sha256 1416c4b7deb39133
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = $1
  AND q."locked_until" = $2::timestamptz;

-- moveToDeadLetter
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 283 characters, sha256 0927e12a70f5c1a2
WITH
  sqlinbox_moved AS (
    DELETE FROM "jobs"
    WHERE
      "id" = $1
      AND "locked_until" = $2::timestamptz
    RETURNING
      *
  ),
  sqlinbox_dead AS (
    INSERT INTO
      "jobs_dead"
    SELECT
      *
    FROM
      sqlinbox_moved
    RETURNING
      "id"
  )
SELECT
  pg_notify (E'sqlinbox:result:jobs', sqlinbox_dead."id"::text)
FROM
  sqlinbox_dead;

-- insert (one message)
-- params: ["{\"n\":1}",0,"sqlinbox_jobs"]
-- text: 207 characters, sha256 6786080a9309a8f4
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($3, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 229 characters, sha256 d5c1686e34ed0506
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2),
      ($3::text::json, $4)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($5, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 307 characters, sha256 49ea14b47421dd73
SELECT
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND q."locked_until" > $1::timestamptz
  ) AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      q."processed_at" IS NULL
      AND coalesce(q."locked_until", '-infinity') <= $2::timestamptz
  ) AS "ready",
  (
    SELECT
      COUNT(*)
    FROM
      "jobs_dead"
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 146 characters, sha256 f33a046a994bab14
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  q."processed_at" IS NULL
  AND coalesce(q."locked_until", '-infinity') <= $1::timestamptz;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 185 characters, sha256 3db73043f9372921
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      q."processed_at" IS NULL
      AND coalesce(q."locked_until", '-infinity') <= $1::timestamptz
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 254 characters, sha256 0a1f1c83937e2cf2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > $1::timestamptz THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["dead",[4,5],50]
-- text: 149 characters, sha256 4229da0ec2aab5b3
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      "jobs_dead" r
  ) x
WHERE
  x.sqlinbox_state = $1
  AND x."id" = ANY ($2)
ORDER BY
  x."id"
LIMIT
  $3;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",[4,5]]
-- text: 190 characters, sha256 c83ebcbf9151e15e
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."processed_at" IS NULL
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= $1::timestamptz
  )
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- text: 73 characters, sha256 691e229e376833dd
SELECT
  r.*
FROM
  "jobs_dead" r
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: [[4,5]]
-- text: 82 characters, sha256 48c95a2879d7288d
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" = ANY ($1);

-- admin copyBack
-- params: [[4,5]]
-- text: 65 characters, sha256 1f27624a87a3cb9e
INSERT INTO
  "jobs"
SELECT
  *
FROM
  "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove (dead)
-- params: [[4,5]]
-- text: 44 characters, sha256 18ec80e8bf1e1536
DELETE FROM "jobs_dead"
WHERE
  "id" = ANY ($1);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- text: 59 characters, sha256 0bce639c162a2914
SELECT
  0 AS busy,
  NULL::timestamptz AS oldest
FROM
  "jobs" q;

-- claimLease from an id (n 10, from 4000)
-- params: ["2025-01-01T00:00:30.000Z","4000","2025-01-01T00:00:00.000Z",10]
-- text: 425 characters, sha256 8f01c332d56493c2
WITH
  sqlinbox_claimed AS (
    UPDATE "jobs" AS t
    SET
      "locked_until" = $1::timestamptz,
      "attempt" = "attempt" + 1
    WHERE
      t."id" = ANY (
        ARRAY(
          SELECT
            q."id" AS sqlinbox_id
          FROM
            "jobs" q
          WHERE
            q."id" >= $2::int8
            AND q."processed_at" IS NULL
            AND coalesce(q."locked_until", '-infinity') <= $3::timestamptz
          ORDER BY
            q."id"
          LIMIT
            $4
          FOR UPDATE OF
            q SKIP LOCKED
        )
      )
    RETURNING
      t.*
  )
SELECT
  *
FROM
  sqlinbox_claimed
ORDER BY
  sqlinbox_claimed."id";


-- =================================================================================================
-- row lock, failure record, dead-letter group (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 380 characters, sha256 fdd9ce0d8f96774b
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" bigserial PRIMARY KEY,
  "payload" jsonb NOT NULL,
  "attempt" integer NOT NULL DEFAULT 0,
  "fifo_group" text,
  "last_error" text,
  "error_class" text,
  "failed_at" timestamptz,
  "created_at" timestamptz DEFAULT now()
)
WITH
  (
    autovacuum_vacuum_scale_factor = 0,
    autovacuum_vacuum_threshold = 10000,
    autovacuum_vacuum_cost_delay = 0
  );

-- ddl, 2 of 5
-- text: 79 characters, sha256 5f85ef58cdcde238
CREATE INDEX IF NOT EXISTS "jobs_sqlinbox_group" ON "jobs" ("fifo_group", "id");

-- ddl, 3 of 5
-- text: 392 characters, sha256 770b58b2b5470dff
DO $sqlinbox_ddl$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('sqlinbox.wakeup_function', 0));
  CREATE OR REPLACE FUNCTION "sqlinbox_wakeup"() RETURNS trigger LANGUAGE plpgsql AS $sqlinbox$
  BEGIN
    IF coalesce(current_setting('sqlinbox.quiet', true), '') <> 'on' THEN
      PERFORM pg_notify(TG_ARGV[0], '');
    END IF;
    RETURN NULL;
  END
  $sqlinbox$;
END
$sqlinbox_ddl$;

-- ddl, 4 of 5
-- text: 50 characters, sha256 1b64c1322413f900
DROP TRIGGER IF EXISTS "sqlinbox_wakeup" ON "jobs";

-- ddl, 5 of 5
-- text: 127 characters, sha256 a6e52fc35f675e85
CREATE TRIGGER "sqlinbox_wakeup"
AFTER INSERT ON "jobs" FOR EACH STATEMENT
EXECUTE FUNCTION "sqlinbox_wakeup" (E'sqlinbox_jobs');

-- claimLocked (n 10)
-- params: ["sqlinbox.fifo:jobs:",64,"dead","dead",10,10,"dead"]
-- text: 1745 characters, sha256 6377d437c1160265
WITH
  sqlinbox_heads AS (
    SELECT
      h.sqlinbox_id
    FROM
      (
        SELECT
          *
        FROM
          (
            SELECT
              w."id" AS sqlinbox_id,
              w."fifo_group" AS sqlinbox_group
            FROM
              (
                SELECT
                  "id",
                  "fifo_group"
                FROM
                  "jobs"
                ORDER BY
                  "id"
                LIMIT
                  $2
              ) w
            WHERE
              w."fifo_group" IS DISTINCT FROM $3
              AND NOT EXISTS (
                SELECT
                  1
                FROM
                  "jobs" s
                WHERE
                  s."fifo_group" = w."fifo_group"
                  AND s."id" < w."id"
              )
            ORDER BY
              w."id"
            OFFSET
              0
          ) a
        UNION ALL
        SELECT
          *
        FROM
          (
            WITH RECURSIVE
              sqlinbox_g (g) AS (
                (
                  SELECT
                    x."fifo_group"
                  FROM
                    "jobs" x
                  WHERE
                    x."fifo_group" IS NOT NULL
                  ORDER BY
                    x."fifo_group"
                  LIMIT
                    1
                )
                UNION ALL
                SELECT
                  (
                    SELECT
                      x."fifo_group"
                    FROM
                      "jobs" x
                    WHERE
                      x."fifo_group" > r.g
                    ORDER BY
                      x."fifo_group"
                    LIMIT
                      1
                  )
                FROM
                  sqlinbox_g r
                WHERE
                  r.g IS NOT NULL
              ),
              sqlinbox_last (m) AS (
                SELECT
                  max(y."id")
                FROM
                  (
                    SELECT
                      "id",
                      "fifo_group"
                    FROM
                      "jobs"
                    ORDER BY
                      "id"
                    LIMIT
                      $2
                  ) y
              )
            SELECT
              u.*
            FROM
              (
                SELECT
                  q."id" AS sqlinbox_id,
                  q."fifo_group" AS sqlinbox_group
                FROM
                  "jobs" q
                WHERE
                  q."id" IN (
                    SELECT
                      (
                        SELECT
                          x."id"
                        FROM
                          "jobs" x
                        WHERE
                          x."fifo_group" = r.g
                        ORDER BY
                          x."id"
                        LIMIT
                          1
                      )
                    FROM
                      sqlinbox_g r
                    WHERE
                      r.g IS NOT NULL
                  )
                  AND q."id" > (
                    SELECT
                      m
                    FROM
                      sqlinbox_last
                  )
                  AND q."fifo_group" IS DISTINCT FROM $4
                UNION ALL
                (
                  SELECT
                    q."id" AS sqlinbox_id,
                    q."fifo_group" AS sqlinbox_group
                  FROM
                    "jobs" q
                  WHERE
                    q."fifo_group" IS NULL
                    AND q."id" > (
                      SELECT
                        m
                      FROM
                        sqlinbox_last
                    )
                    AND q."fifo_group" IS DISTINCT FROM $4
                  ORDER BY
                    q."id"
                  LIMIT
                    $5
                )
              ) u
            ORDER BY
              u.sqlinbox_id
            OFFSET
              0
          ) b
      ) h
    WHERE
      pg_try_advisory_xact_lock(
        hashtextextended (
          $1::text || CASE
            WHEN h.sqlinbox_group IS NULL THEN 'row:' || h.sqlinbox_id::text
            ELSE 'group:' || h.sqlinbox_group::text
          END,
          0
        )
      )
    LIMIT
      $6
  )
SELECT
  q.*
FROM
  "jobs" q
WHERE
  q."id" = ANY (
    ARRAY(
      SELECT
        sqlinbox_id
      FROM
        sqlinbox_heads
    )
  )
  AND q."fifo_group" IS DISTINCT FROM $7
ORDER BY
  q."id"
FOR UPDATE OF
  q SKIP LOCKED;

-- headGuard (id 7, group g): none

-- headGuards (ids 7, 9, groups g, h): none

-- settle ack
-- params: [7]
-- text: 34 characters, sha256 de594713c26420fb
DELETE FROM "jobs"
WHERE
  "id" = $1;

-- settle retry
-- params: [7]
-- text: 66 characters, sha256 490963b4fc231e28
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = $1;

-- settle retry (failure)
-- params: ["boom","TypeError","2025-01-01T00:00:00.000Z",7]
-- text: 148 characters, sha256 d0f6fbc8959d390c
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "last_error" = $1::text,
  "error_class" = $2::text,
  "failed_at" = $3::timestamptz
WHERE
  q."id" = $4;

-- settle dead letter (group)
-- params: ["dead","boom","TypeError","2025-01-01T00:00:00.000Z",7]
-- text: 167 characters, sha256 209c0408543ea514
UPDATE "jobs" AS q
SET
  "fifo_group" = $1,
  "attempt" = "attempt" + 1,
  "last_error" = $2::text,
  "error_class" = $3::text,
  "failed_at" = $4::timestamptz
WHERE
  q."id" = $5;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","sqlinbox_jobs"]
-- text: 225 characters, sha256 bc408def5f6860de
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group")
    VALUES
      ($1::text::json, $2, $3)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($4, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0,"sqlinbox_jobs"]
-- text: 256 characters, sha256 4f69ade54bd40aae
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt", "fifo_group")
    VALUES
      ($1::text::json, $2, $3),
      ($4::text::json, $5, DEFAULT)
    RETURNING
      "id"
  ),
  sqlinbox_wake AS (
    SELECT
      pg_notify ($6, '')
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_wake;

-- stats
-- params: ["dead","dead"]
-- text: 177 characters, sha256 7fa42c56c76cd2b2
SELECT
  0 AS "in_work",
  0 AS "delayed",
  count(*) FILTER (
    WHERE
      q."fifo_group" IS DISTINCT FROM $1
  ) AS "ready",
  count(*) FILTER (
    WHERE
      q."fifo_group" = $2
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["dead"]
-- text: 103 characters, sha256 f500f896510ec545
SELECT
  NULL AS "key",
  q."created_at" AS "due_at"
FROM
  "jobs" q
WHERE
  q."fifo_group" IS DISTINCT FROM $1;

-- lockable
-- params: ["dead"]
-- text: 132 characters, sha256 ed25bdd5f0ed00c5
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      q."fifo_group" IS DISTINCT FROM $1
    FOR UPDATE OF
      q SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","ready",3,50]
-- text: 191 characters, sha256 614be701c4d6ee3c
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = $1 THEN 'dead'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" > $3
ORDER BY
  x."id"
LIMIT
  $4;

-- admin list (dead, ids)
-- params: ["dead","dead",[4,5],50]
-- text: 196 characters, sha256 57cefdcdbc9e98c2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = $1 THEN 'dead'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = $2
  AND x."id" = ANY ($3)
ORDER BY
  x."id"
LIMIT
  $4;

-- admin pick (live, ids)
-- params: ["dead",[4,5]]
-- text: 130 characters, sha256 6d63773446302a81
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" IS DISTINCT FROM $1
  AND r."id" = ANY ($2)
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin pick (dead)
-- params: ["dead"]
-- text: 94 characters, sha256 5dc876bfbab28884
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" = $1
ORDER BY
  r."id"
FOR UPDATE OF
  r SKIP LOCKED;

-- admin fresh (to group g)
-- params: ["g",[4,5]]
-- text: 78 characters, sha256 0c623646b4c1d616
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "fifo_group" = $1
WHERE
  q."id" = ANY ($2);

-- admin remove
-- params: [[4,5]]
-- text: 39 characters, sha256 aa78284b8cb63bba
DELETE FROM "jobs"
WHERE
  "id" = ANY ($1);

-- admin reschedule: none

-- insert without its wake-up (a quiet publish)
-- params: ["{\"n\":1}",0]
-- text: 232 characters, sha256 7418be1c9389aa63
WITH
  sqlinbox_ins AS (
    INSERT INTO
      "jobs" ("payload", "attempt")
    VALUES
      ($1::text::json, $2)
    RETURNING
      "id"
  ),
  sqlinbox_quiet AS (
    SELECT
      set_config('sqlinbox.quiet', 'on', true)
  )
SELECT
  sqlinbox_ins.*
FROM
  sqlinbox_ins,
  sqlinbox_quiet;

-- statsInWork
-- params: ["dead","dead","dead"]
-- text: 301 characters, sha256 f439fd49bb7d23cb
SELECT
  count(*) FILTER (
    WHERE
      q."fifo_group" IS DISTINCT FROM $3
  ) - (
    SELECT
      count(*)
    FROM
      (
        SELECT
          1
        FROM
          "jobs" f
        WHERE
          f."fifo_group" IS DISTINCT FROM $2
        FOR UPDATE OF
          f SKIP LOCKED
      ) sqlinbox_free
  ) AS busy,
  min(q."created_at") FILTER (
    WHERE
      q."fifo_group" IS DISTINCT FROM $1
  ) AS oldest
FROM
  "jobs" q;

