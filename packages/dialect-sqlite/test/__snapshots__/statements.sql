-- The statements the sqlite dialect sends, for the fixed descriptions of @sqlinbox/sql's snapshot.ts.
-- Written by the test beside this file: run it with -u after a change of a statement, and review the diff.

-- =================================================================================================
-- sqlite: transactions and the version
-- =================================================================================================
-- begin
-- text: 14 characters, sha256 0f4b704d3d5fee91
BEGIN DEFERRED;

-- begin (deferred)
-- text: 14 characters, sha256 0f4b704d3d5fee91
BEGIN DEFERRED;

-- begin (immediate)
-- text: 15 characters, sha256 930a777039908789
BEGIN IMMEDIATE;

-- begin (exclusive)
-- text: 15 characters, sha256 35ad8bc5912f8f8f
BEGIN EXCLUSIVE;

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
-- text: 34 characters, sha256 aa3b414757e1f372
SELECT
  sqlite_version() AS version;


-- =================================================================================================
-- lease (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 196 characters, sha256 aee4993429a84a1f
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "retry_after" INTEGER
);

-- ddl, 2 of 2
-- text: 85 characters, sha256 64fe310dc56628f2
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until", "retry_after");

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 262 characters, sha256 65d90593c5cb21e6
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 132 characters, sha256 b9ccfbb08f18a28d
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 88 characters, sha256 1ee28abe947d1dd4
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 88 characters, sha256 1ee28abe947d1dd4
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 421 characters, sha256 7d6209a7170f0154
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q."locked_until" IS NOT NULL
          AND q."locked_until" > ?
        )
        AND q."retry_after" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."retry_after" IS NULL
          OR q."retry_after" <= ?
        )
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 175 characters, sha256 43f7ec75afde3a2a
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 175 characters, sha256 d1694f4c007a7a6a
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
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 231 characters, sha256 aebaeb736b03434a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 237 characters, sha256 1ec2274d81ac3618
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 119 characters, sha256 119ab45f2ec27662
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 104 characters, sha256 3247d2e862b4b919
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 63 characters, sha256 854ee460cde12794
UPDATE "jobs" AS q
SET
  "retry_after" = ?
WHERE
  q."id" IN (?, ?);


-- =================================================================================================
-- advisory (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 188 characters, sha256 3bbd9ac36960ed80
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "retry_after" INTEGER,
  "account" TEXT
);

-- ddl, 2 of 2
-- text: 69 characters, sha256 1711b93870c0491f
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "retry_after");

-- candidates (n 10)
-- params: ["account-","2025-01-01T00:00:00.000Z",10]
-- text: 329 characters, sha256 afba015658db8272
SELECT
  q."id" AS "id",
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
ORDER BY
  q."id"
LIMIT
  ?;

-- candidates (n 10, two keys of its own)
-- params: ["account-","2025-01-01T00:00:00.000Z","account-","k1","k2",10]
-- text: 551 characters, sha256 df516108f0d1fd08
SELECT
  q."id" AS "id",
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
  AND CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) NOT IN (?, ?)
ORDER BY
  q."id"
LIMIT
  ?;

-- lock: not sent here (table jobs: this dialect has no advisory lock statement. Fix: override lock() and unlock() in the dialect): none

-- unlock: not sent here (table jobs: this dialect has no advisory lock statement. Fix: override lock() and unlock() in the dialect): none

-- take (id 7)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 131 characters, sha256 a8eea60679637f4a
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = ?
  AND (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
RETURNING
  *;

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 51169412735401f6
DELETE FROM "jobs"
WHERE
  "id" = ?;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 84 characters, sha256 7d1891f9195b6c7d
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = ?
WHERE
  q."id" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","a1"]
-- text: 102 characters, sha256 b26fa6b39ca46f92
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after", "account")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","a1"]
-- text: 102 characters, sha256 b26fa6b39ca46f92
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after", "account")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 236 characters, sha256 406849a406776a66
SELECT
  0 AS "in_work",
  COALESCE(
    SUM(
      CASE
        WHEN q."retry_after" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."retry_after" IS NULL
          OR q."retry_after" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["account-","2025-01-01T00:00:00.000Z"]
-- text: 318 characters, sha256 a356ff5194f99d61
SELECT
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 119 characters, sha256 2aee7a1627bc8fe6
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
        OR q."retry_after" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 191 characters, sha256 f6838023a32a370e
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 197 characters, sha256 5e79b02d5c521597
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 63 characters, sha256 294f7a5af1b8ba19
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 81 characters, sha256 ca402ddbb7b06128
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 63 characters, sha256 854ee460cde12794
UPDATE "jobs" AS q
SET
  "retry_after" = ?
WHERE
  q."id" IN (?, ?);


-- =================================================================================================
-- lease, FIFO (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 192 characters, sha256 9d9aa63b8a35c367
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "fifo_group" TEXT
);

-- ddl, 2 of 3
-- text: 70 characters, sha256 c33aee83c0a2d176
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until");

-- ddl, 3 of 3
-- text: 75 characters, sha256 9732398ed5e58543
CREATE INDEX IF NOT EXISTS "jobs_group_head" ON "jobs" ("fifo_group", "id");

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z",64,"2025-01-01T00:00:00.000Z",10,10,64,10,10,"2025-01-01T00:00:00.000Z",10]
-- text: 1436 characters, sha256 7b12e1d80e36166a
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      q."id" IN (
        WITH RECURSIVE
          sqlinbox_w (i) AS (
            SELECT
              w."id"
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
                  ?
              ) w
            WHERE
              (
                w."locked_until" IS NULL
                OR w."locked_until" <= ?
              )
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
            LIMIT
              ?
          ),
          sqlinbox_g (g) AS (
            SELECT
              *
            FROM
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
                  (
                    (
                      SELECT
                        count(*)
                      FROM
                        sqlinbox_w
                    ) < ?
                  )
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
          )
        SELECT
          i
        FROM
          sqlinbox_w
        UNION ALL
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
        UNION ALL
        SELECT
          *
        FROM
          (
            SELECT
              x."id"
            FROM
              "jobs" x
            WHERE
              x."fifo_group" IS NULL
              AND + x."id" > (
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
                      ?
                  ) y
              )
            ORDER BY
              x."fifo_group",
              x."id"
            LIMIT
              (
                CASE
                  WHEN (
                    SELECT
                      count(*)
                    FROM
                      sqlinbox_w
                  ) < ? THEN ?
                  ELSE 0
                END
              )
          )
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
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
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 370d542c822434ba
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g"]
-- text: 87 characters, sha256 f9924d68a9086c0c
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"g"]
-- text: 87 characters, sha256 f9924d68a9086c0c
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 239 characters, sha256 a476b61365d09608
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 110 characters, sha256 f09d9b3f1dbf08b7
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 121 characters, sha256 f2ce013a816a9e3a
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
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 191 characters, sha256 f00d44771e8754f6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 197 characters, sha256 8fac5cc3be5f1f52
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 119 characters, sha256 119ab45f2ec27662
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 100 characters, sha256 9d63301a081f190e
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL,
  "fifo_group" = ?
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none


-- =================================================================================================
-- advisory, FIFO (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 184 characters, sha256 3e2220fa63910ae9
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "fifo_group" TEXT,
  "account" TEXT
);

-- ddl, 2 of 2
-- text: 75 characters, sha256 9732398ed5e58543
CREATE INDEX IF NOT EXISTS "jobs_group_head" ON "jobs" ("fifo_group", "id");

-- candidates (n 10)
-- params: ["k-",10]
-- text: 379 characters, sha256 9cff73d5ec74a207
SELECT
  q."id" AS "id",
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key"
FROM
  "jobs" q
WHERE
  1
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
LIMIT
  ?;

-- candidates (n 10, two keys of its own)
-- params: ["k-","k-","k1","k2",10]
-- text: 601 characters, sha256 50f0ae307c7eab06
SELECT
  q."id" AS "id",
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key"
FROM
  "jobs" q
WHERE
  1
  AND NOT EXISTS (
    SELECT
      1
    FROM
      "jobs" s
    WHERE
      s."fifo_group" = q."fifo_group"
      AND s."id" < q."id"
  )
  AND CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) NOT IN (?, ?)
ORDER BY
  q."id"
LIMIT
  ?;

-- lock: not sent here (table jobs: this dialect has no advisory lock statement. Fix: override lock() and unlock() in the dialect): none

-- unlock: not sent here (table jobs: this dialect has no advisory lock statement. Fix: override lock() and unlock() in the dialect): none

-- take (id 7)
-- params: [7]
-- text: 181 characters, sha256 b0a84e92f2874548
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = ?
  AND 1
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
-- text: 33 characters, sha256 51169412735401f6
DELETE FROM "jobs"
WHERE
  "id" = ?;

-- settle retry
-- params: [7]
-- text: 65 characters, sha256 b1e8836e3e954a39
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","a1"]
-- text: 101 characters, sha256 a8a130052f4652c4
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group", "account")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"g","a1"]
-- text: 101 characters, sha256 a8a130052f4652c4
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group", "account")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- text: 124 characters, sha256 5ebbbde258c7cc03
SELECT
  0 AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN 1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["k-"]
-- text: 259 characters, sha256 fe78c26e4a4caca1
SELECT
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  1;

-- lockable
-- text: 71 characters, sha256 e9418e2c2e446802
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      1
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 137 characters, sha256 2bb6649898d01d48
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
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 143 characters, sha256 dfebc1e9a0bee201
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
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 63 characters, sha256 294f7a5af1b8ba19
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 77 characters, sha256 6015598c4e2e8f9c
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "fifo_group" = ?
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none


-- =================================================================================================
-- lease, priority (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 212 characters, sha256 4adcd2025cdff851
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "priority" INTEGER NOT NULL DEFAULT 0
);

-- ddl, 2 of 3
-- text: 70 characters, sha256 c33aee83c0a2d176
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until");

-- ddl, 3 of 3
-- text: 76 characters, sha256 1a12fee1b46b0abd
CREATE INDEX IF NOT EXISTS "jobs_priority" ON "jobs" ("priority" DESC, "id");

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 227 characters, sha256 4036bb2b7599868b
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."priority" DESC,
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 370d542c822434ba
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,3]
-- text: 85 characters, sha256 8cb26d4c65dafe7c
INSERT INTO
  "jobs" ("payload", "attempt", "priority")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,3]
-- text: 85 characters, sha256 8cb26d4c65dafe7c
INSERT INTO
  "jobs" ("payload", "attempt", "priority")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 239 characters, sha256 a476b61365d09608
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 110 characters, sha256 f09d9b3f1dbf08b7
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 121 characters, sha256 f2ce013a816a9e3a
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
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 191 characters, sha256 f00d44771e8754f6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 197 characters, sha256 8fac5cc3be5f1f52
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 119 characters, sha256 119ab45f2ec27662
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 05288c4779249410
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none


-- =================================================================================================
-- lease, unique key, processed_at (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 218 characters, sha256 24c004264a988845
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "processed_at" INTEGER,
  "unique_key" TEXT
);

-- ddl, 2 of 3
-- text: 99 characters, sha256 de1e39f9c8040f0c
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until")
WHERE
  "processed_at" IS NULL;

-- ddl, 3 of 3
-- text: 105 characters, sha256 6b55a512f4600d28
CREATE UNIQUE INDEX IF NOT EXISTS "jobs_unique_key" ON "jobs" ("unique_key")
WHERE
  "processed_at" IS NULL;

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 237 characters, sha256 024fe7c68e1efa41
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      q."processed_at" IS NULL
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 127 characters, sha256 bb12f622bc965764
UPDATE "jobs" AS t
SET
  "processed_at" = ?,
  "locked_until" = NULL
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 106 characters, sha256 2ecd971752d46769
UPDATE "jobs" AS q
SET
  "processed_at" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 370d542c822434ba
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 78 characters, sha256 f032042e39d0642b
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?),
  (?, ?)
RETURNING
  "id";

-- insertKeyed
-- params: ["{\"n\":1}",0,"k1"]
-- text: 154 characters, sha256 d6ec6b3db57b1c4b
INSERT INTO
  "jobs" ("payload", "attempt", "unique_key")
VALUES
  (?, ?, ?)
ON CONFLICT ("unique_key")
WHERE
  "processed_at" IS NULL DO NOTHING
RETURNING
  "id";

-- keyHolder
-- params: ["k1"]
-- text: 73 characters, sha256 686eebdbe036afa1
SELECT
  "id"
FROM
  "jobs"
WHERE
  "unique_key" = ?
  AND "processed_at" IS NULL;

-- insertReplacing
-- params: ["{\"n\":2}",0,"k1"]
-- text: 215 characters, sha256 4ad91a94a0d77723
INSERT INTO
  "jobs" AS q ("payload", "attempt", "unique_key")
VALUES
  (?, ?, ?)
ON CONFLICT ("unique_key")
WHERE
  "processed_at" IS NULL DO UPDATE
SET
  "payload" = EXCLUDED."payload"
WHERE
  q."attempt" < 1
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 297 characters, sha256 c6302716859ea777
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."processed_at" IS NULL
        AND q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN q."processed_at" IS NULL
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 139 characters, sha256 01eda1317c5aee4e
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  q."processed_at" IS NULL
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 150 characters, sha256 47194cb7c5df8f93
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
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 237 characters, sha256 b44927d8231967e6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 243 characters, sha256 39376acd559da0f4
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 148 characters, sha256 6658ce35cf62515c
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."processed_at" IS NULL
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 05288c4779249410
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none


-- =================================================================================================
-- lease, per-key concurrency (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 189 characters, sha256 e588abd5cec354e8
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "account" TEXT
);

-- ddl, 2 of 3
-- text: 70 characters, sha256 c33aee83c0a2d176
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until");

-- ddl, 3 of 3
-- text: 83 characters, sha256 f6ab244fdc4e1cc9
CREATE INDEX IF NOT EXISTS "jobs_concurrency" ON "jobs" ("account", "locked_until");

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 208 characters, sha256 b5772e3054ae1491
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- claimTurn: none

-- claimLeaseByKey (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",100,"2025-01-01T00:00:00.000Z",2,20,2,10,60,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:00.000Z",2,"2025-01-01T00:00:00.000Z",2,10,"2025-01-01T00:00:00.000Z"]
-- text: 1842 characters, sha256 3c4368a5c79a54ae
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
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
              (
                f."locked_until" IS NULL
                OR f."locked_until" <= ?
              )
            ORDER BY
              f."id"
            LIMIT
              ?
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
              AND w."locked_until" > ?
          ) < ?
        ORDER BY
          q."id"
        LIMIT
          ?
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
              OR y.r <= ?
          ) < ?
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
          AND sqlinbox_keys.i < ?
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
              AND (
                b."locked_until" IS NULL
                OR b."locked_until" <= ?
              )
            ORDER BY
              b."locked_until",
              b."id"
            LIMIT
              ?
          )
        WHERE
          (
            SELECT
              COUNT(*)
            FROM
              "jobs" w
            WHERE
              w."account" = sqlinbox_keys.k
              AND w."locked_until" > ?
          ) < ?
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
              AND w."locked_until" > ?
          ) AS "sqlinbox_in_work"
        FROM
          sqlinbox_candidates c
      ) x
    WHERE
      (
        x."account" IS NULL
        OR x."sqlinbox_rank" <= ? - x."sqlinbox_in_work"
      )
    ORDER BY
      x."id"
    LIMIT
      ?
  )
  AND (
    t."locked_until" IS NULL
    OR t."locked_until" <= ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 370d542c822434ba
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 78 characters, sha256 f032042e39d0642b
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?),
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 239 characters, sha256 a476b61365d09608
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 110 characters, sha256 f09d9b3f1dbf08b7
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 121 characters, sha256 f2ce013a816a9e3a
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
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 191 characters, sha256 f00d44771e8754f6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 197 characters, sha256 8fac5cc3be5f1f52
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 119 characters, sha256 119ab45f2ec27662
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 05288c4779249410
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none


-- =================================================================================================
-- lease, rate limit, schedules, control, steps (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 6
-- text: 171 characters, sha256 e3b2d3653b941900
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER
);

-- ddl, 2 of 6
-- text: 70 characters, sha256 c33aee83c0a2d176
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until");

-- ddl, 3 of 6
-- text: 133 characters, sha256 9cf491bea484b447
CREATE TABLE IF NOT EXISTS "sqlinbox_schedules" ("name" TEXT NOT NULL, "tick" INTEGER NOT NULL, PRIMARY KEY ("name", "tick"));

-- ddl, 4 of 6
-- text: 254 characters, sha256 dab9768087321c51
CREATE TABLE IF NOT EXISTS "sqlinbox_rates" (
  "name" TEXT NOT NULL,
  "window_start" INTEGER NOT NULL DEFAULT 0,
  "used" INTEGER NOT NULL DEFAULT 0,
  "granted" INTEGER NOT NULL DEFAULT 0,
  "at_ms" INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY ("name")
);

-- ddl, 5 of 6
-- text: 244 characters, sha256 4938643412533366
CREATE TABLE IF NOT EXISTS "sqlinbox_control" (
  "queue_name" TEXT NOT NULL,
  "kind" VARCHAR(16) NOT NULL,
  "target" TEXT NOT NULL,
  "reason" VARCHAR(2000),
  "requested_at" INTEGER NOT NULL,
  PRIMARY KEY ("queue_name", "kind", "target")
);

-- ddl, 6 of 6
-- text: 244 characters, sha256 1f4e046f00d4e337
CREATE TABLE IF NOT EXISTS "sqlinbox_steps" (
  "queue_name" TEXT NOT NULL,
  "row_id" TEXT NOT NULL,
  "step_name" TEXT NOT NULL,
  "result" TEXT NOT NULL,
  "finished_at" INTEGER NOT NULL,
  PRIMARY KEY ("queue_name", "row_id", "step_name")
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 208 characters, sha256 b5772e3054ae1491
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 370d542c822434ba
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 78 characters, sha256 f032042e39d0642b
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?),
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 239 characters, sha256 a476b61365d09608
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 110 characters, sha256 f09d9b3f1dbf08b7
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 121 characters, sha256 f2ce013a816a9e3a
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
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 191 characters, sha256 f00d44771e8754f6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 197 characters, sha256 8fac5cc3be5f1f52
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 119 characters, sha256 119ab45f2ec27662
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 05288c4779249410
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none

-- schedules recordTick
-- params: ["nightly","2025-01-01T00:00:00.000Z"]
-- text: 86 characters, sha256 17536056d4a0c7c3
INSERT INTO
  "sqlinbox_schedules" ("name", "tick")
VALUES
  (?, ?)
ON CONFLICT DO NOTHING;

-- schedules lastTick
-- params: ["nightly"]
-- text: 71 characters, sha256 463a2cce300d7d40
SELECT
  MAX("tick") AS "tick"
FROM
  "sqlinbox_schedules"
WHERE
  "name" = ?;

-- schedules pruneTicks
-- params: ["nightly","2025-01-01T00:00:00.000Z"]
-- text: 64 characters, sha256 255466522007b3fa
DELETE FROM "sqlinbox_schedules"
WHERE
  "name" = ?
  AND "tick" < ?;

-- rates rateRow
-- params: ["jobs"]
-- text: 71 characters, sha256 15c9398d40e961bc
INSERT INTO
  "sqlinbox_rates" ("name")
VALUES
  (?)
ON CONFLICT DO NOTHING;

-- rates reserveRate
-- params: [50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,"jobs"]
-- text: 1714 characters, sha256 7d866e84b6ee4d47
UPDATE "sqlinbox_rates" AS b
SET
  "granted" = (
    CASE
      WHEN (
        ? - (
          CASE
            WHEN "window_start" = CAST(
              (
                CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
              ) / ? AS INTEGER
            ) * ? THEN "used"
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        ? - (
          CASE
            WHEN "window_start" = CAST(
              (
                CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
              ) / ? AS INTEGER
            ) * ? THEN "used"
            ELSE 0
          END
        )
      ) < ? THEN (
        ? - (
          CASE
            WHEN "window_start" = CAST(
              (
                CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
              ) / ? AS INTEGER
            ) * ? THEN "used"
            ELSE 0
          END
        )
      )
      ELSE ?
    END
  ),
  "used" = (
    CASE
      WHEN "window_start" = CAST(
        (
          CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
        ) / ? AS INTEGER
      ) * ? THEN "used"
      ELSE 0
    END
  ) + (
    CASE
      WHEN (
        ? - (
          CASE
            WHEN "window_start" = CAST(
              (
                CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
              ) / ? AS INTEGER
            ) * ? THEN "used"
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        ? - (
          CASE
            WHEN "window_start" = CAST(
              (
                CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
              ) / ? AS INTEGER
            ) * ? THEN "used"
            ELSE 0
          END
        )
      ) < ? THEN (
        ? - (
          CASE
            WHEN "window_start" = CAST(
              (
                CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
              ) / ? AS INTEGER
            ) * ? THEN "used"
            ELSE 0
          END
        )
      )
      ELSE ?
    END
  ),
  "window_start" = CAST(
    (
      CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
    ) / ? AS INTEGER
  ) * ?,
  "at_ms" = (
    CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
  )
WHERE
  b."name" = ?
RETURNING
  *;

-- rates returnRate
-- params: [4,4,"jobs",1735689600000]
-- text: 133 characters, sha256 5d7b3b17108ef679
UPDATE "sqlinbox_rates" AS b
SET
  "used" = CASE
    WHEN "used" > ? THEN "used" - ?
    ELSE 0
  END
WHERE
  b."name" = ?
  AND b."window_start" = ?;

-- rates rateState
-- params: ["jobs"]
-- text: 47 characters, sha256 bca4b6f6ec7e751d
SELECT
  *
FROM
  "sqlinbox_rates"
WHERE
  "name" = ?;

-- control readControl
-- params: ["jobs"]
-- text: 97 characters, sha256 1503bf313d4b4da5
SELECT
  "queue_name",
  "kind",
  "target",
  "reason"
FROM
  "sqlinbox_control"
WHERE
  "queue_name" IN (?);

-- control writeControl
-- params: ["jobs","pause_group","acme"]
-- text: 220 characters, sha256 004222e5c44887ab
INSERT INTO
  "sqlinbox_control" ("queue_name", "kind", "target", "requested_at")
VALUES
  (
    ?,
    ?,
    ?,
    (
      CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
    )
  )
ON CONFLICT DO NOTHING;

-- control writeControl cancel
-- params: ["jobs","cancel","41","withdrawn"]
-- text: 247 characters, sha256 d0c2c4ab7fcbbbd5
INSERT INTO
  "sqlinbox_control" ("queue_name", "kind", "target", "reason", "requested_at")
VALUES
  (
    ?,
    ?,
    ?,
    CAST(? AS TEXT),
    (
      CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
    )
  )
ON CONFLICT DO NOTHING;

-- control deleteControl
-- params: ["jobs","pause_group","acme"]
-- text: 85 characters, sha256 4a9bdebfcd1f2fb2
DELETE FROM "sqlinbox_control"
WHERE
  "queue_name" = ?
  AND "kind" = ?
  AND "target" = ?;

-- control sweepCancels
-- params: ["jobs","cancel","41","41","42","42"]
-- text: 221 characters, sha256 dcb2de30879fce70
DELETE FROM "sqlinbox_control"
WHERE
  "queue_name" = ?
  AND "kind" = ?
  AND (
    (
      "target" = ?
      AND NOT EXISTS (
        SELECT
          1
        FROM
          "jobs" x
        WHERE
          x."id" = ?
      )
    )
    OR (
      "target" = ?
      AND NOT EXISTS (
        SELECT
          1
        FROM
          "jobs" x
        WHERE
          x."id" = ?
      )
    )
  );

-- steps readSteps
-- params: ["jobs","41"]
-- text: 90 characters, sha256 4b070893fd6d8eea
SELECT
  "step_name",
  "result"
FROM
  "sqlinbox_steps"
WHERE
  "queue_name" = ?
  AND "row_id" = ?;

-- steps writeStep
-- params: ["jobs","41","charge card","{\"value\":{\"charge\":\"ch_1\"}}"]
-- text: 249 characters, sha256 fdf5a1894a088745
INSERT INTO
  "sqlinbox_steps" ("queue_name", "row_id", "step_name", "result", "finished_at")
VALUES
  (
    ?,
    ?,
    ?,
    CAST(? AS TEXT),
    (
      CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
    )
  )
ON CONFLICT DO NOTHING;

-- steps deleteSteps
-- params: ["jobs","41","42"]
-- text: 74 characters, sha256 595395b4debf76f5
DELETE FROM "sqlinbox_steps"
WHERE
  "queue_name" = ?
  AND "row_id" IN (?, ?);

-- steps stepRows
-- params: ["jobs",500]
-- text: 137 characters, sha256 d0a6536757ad364f
SELECT
  "row_id",
  MAX("finished_at") AS "last_ms"
FROM
  "sqlinbox_steps"
WHERE
  "queue_name" = ?
GROUP BY
  "row_id"
ORDER BY
  "row_id"
LIMIT
  ?;

-- steps stepRows after a cursor
-- params: ["jobs","41",500]
-- text: 154 characters, sha256 ae2ef3788942ae14
SELECT
  "row_id",
  MAX("finished_at") AS "last_ms"
FROM
  "sqlinbox_steps"
WHERE
  "queue_name" = ?
  AND "row_id" > ?
GROUP BY
  "row_id"
ORDER BY
  "row_id"
LIMIT
  ?;

-- steps deleteStepsUpTo
-- params: ["jobs","41","1735689600000","42","1735689600500"]
-- text: 136 characters, sha256 fa0e4fd6dc763dfd
DELETE FROM "sqlinbox_steps"
WHERE
  "queue_name" = ?
  AND (
    (
      "row_id" = ?
      AND "finished_at" <= ?
    )
    OR (
      "row_id" = ?
      AND "finished_at" <= ?
    )
  );


-- =================================================================================================
-- lease, flows (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 196 characters, sha256 aee4993429a84a1f
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "retry_after" INTEGER
);

-- ddl, 2 of 5
-- text: 85 characters, sha256 64fe310dc56628f2
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until", "retry_after");

-- ddl, 3 of 5
-- text: 298 characters, sha256 9d5219ddb14a6ac6
CREATE TABLE IF NOT EXISTS "sqlinbox_flow" (
  "queue_name" TEXT NOT NULL,
  "child_id" TEXT NOT NULL,
  "parent_id" TEXT NOT NULL,
  "child_name" TEXT NOT NULL,
  "state" VARCHAR(16) NOT NULL,
  "error" VARCHAR(2000),
  "settled_ms" INTEGER,
  PRIMARY KEY ("queue_name", "child_id", "parent_id")
);

-- ddl, 4 of 5
-- text: 272 characters, sha256 f29460988570e198
CREATE TABLE IF NOT EXISTS "sqlinbox_flow_parent" (
  "queue_name" TEXT NOT NULL,
  "parent_id" TEXT NOT NULL,
  "pending" INTEGER NOT NULL,
  "dead" INTEGER NOT NULL,
  "policy" VARCHAR(16) NOT NULL,
  "woken" INTEGER NOT NULL,
  PRIMARY KEY ("queue_name", "parent_id")
);

-- ddl, 5 of 5
-- text: 99 characters, sha256 f4cf6b8e3047e634
CREATE INDEX IF NOT EXISTS "sqlinbox_flow_by_parent" ON "sqlinbox_flow" ("queue_name", "parent_id");

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 262 characters, sha256 65d90593c5cb21e6
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 132 characters, sha256 b9ccfbb08f18a28d
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 88 characters, sha256 1ee28abe947d1dd4
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 88 characters, sha256 1ee28abe947d1dd4
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 421 characters, sha256 7d6209a7170f0154
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q."locked_until" IS NOT NULL
          AND q."locked_until" > ?
        )
        AND q."retry_after" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."retry_after" IS NULL
          OR q."retry_after" <= ?
        )
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 175 characters, sha256 43f7ec75afde3a2a
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 175 characters, sha256 d1694f4c007a7a6a
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
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 231 characters, sha256 aebaeb736b03434a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 237 characters, sha256 1ec2274d81ac3618
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 119 characters, sha256 119ab45f2ec27662
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 104 characters, sha256 3247d2e862b4b919
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 63 characters, sha256 854ee460cde12794
UPDATE "jobs" AS q
SET
  "retry_after" = ?
WHERE
  q."id" IN (?, ?);

-- flows insertParent
-- params: ["jobs","7",2,"dead"]
-- text: 126 characters, sha256 f9f5bfed5e3f2bda
INSERT INTO
  "sqlinbox_flow_parent" ("queue_name", "parent_id", "pending", "dead", "policy", "woken")
VALUES
  (?, ?, ?, 0, ?, 0);

-- flows insertEdge
-- params: ["jobs","5","7","charge"]
-- text: 121 characters, sha256 4ee510ad4ddf40d0
INSERT INTO
  "sqlinbox_flow" ("queue_name", "child_id", "parent_id", "child_name", "state")
VALUES
  (?, ?, ?, ?, 'pending');

-- flows pendingEdges
-- params: ["jobs",500]
-- text: 173 characters, sha256 14e5c634ac2979b5
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = ?
  AND "state" = 'pending'
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  ?;

-- flows pendingEdges of children
-- params: ["jobs","5","6",500]
-- text: 198 characters, sha256 f8a899135baa179f
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = ?
  AND "state" = 'pending'
  AND "child_id" IN (?, ?)
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  ?;

-- flows pendingEdges after a cursor
-- params: ["jobs","42",500]
-- text: 192 characters, sha256 8372f6746a51b6d7
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = ?
  AND "state" = 'pending'
  AND "child_id" > ?
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  ?;

-- flows settleEdge
-- params: ["dead","boom","jobs","5","7"]
-- text: 272 characters, sha256 3b950c79621c0942
UPDATE "sqlinbox_flow" AS f
SET
  "state" = ?,
  "error" = CAST(? AS TEXT),
  "settled_ms" = (
    CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
  )
WHERE
  "queue_name" = ?
  AND "child_id" = ?
  AND "parent_id" = ?
  AND "state" = 'pending';

-- flows settleEdges
-- params: ["jobs","7","5","6"]
-- text: 256 characters, sha256 42b44cc0bc35f189
UPDATE "sqlinbox_flow" AS f
SET
  "state" = 'done',
  "settled_ms" = (
    CAST(strftime('%s', 'now') AS INTEGER) * 1000 + CAST(substr(strftime('%f', 'now'), 4) AS INTEGER)
  )
WHERE
  "queue_name" = ?
  AND "parent_id" = ?
  AND "child_id" IN (?, ?)
  AND "state" = 'pending';

-- flows countDown
-- params: ["jobs","7"]
-- text: 128 characters, sha256 81cab0564213ead3
UPDATE "sqlinbox_flow_parent" AS f
SET
  "pending" = "pending" - 1,
  "dead" = "dead" + 1
WHERE
  "queue_name" = ?
  AND "parent_id" = ?;

-- flows countDown by 3
-- params: [3,"jobs","7"]
-- text: 107 characters, sha256 bfa9b1baba5418c1
UPDATE "sqlinbox_flow_parent" AS f
SET
  "pending" = "pending" - ?
WHERE
  "queue_name" = ?
  AND "parent_id" = ?;

-- flows markWoken
-- params: ["jobs","7"]
-- text: 109 characters, sha256 e274cad433d9a6a6
UPDATE "sqlinbox_flow_parent" AS f
SET
  "woken" = 1
WHERE
  "queue_name" = ?
  AND "parent_id" = ?
  AND "woken" = 0;

-- flows edgesBy
-- params: ["jobs","7"]
-- text: 129 characters, sha256 fc80006d810fbc8f
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow"
WHERE
  "queue_name" = ?
  AND "parent_id" IN (?);

-- flows parentsOf
-- params: ["jobs","7"]
-- text: 130 characters, sha256 f8f6c21c0728e304
SELECT
  "parent_id",
  "pending",
  "dead",
  "policy",
  "woken"
FROM
  "sqlinbox_flow_parent"
WHERE
  "queue_name" = ?
  AND "parent_id" IN (?);

-- flows settledEdges
-- params: ["jobs",1000]
-- text: 174 characters, sha256 b732b7f8ea1a792d
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = ?
  AND "state" <> 'pending'
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  ?;

-- flows settledEdges after a cursor
-- params: ["jobs","5","5","7",1000]
-- text: 234 characters, sha256 37bbf86c2d141334
SELECT
  "parent_id",
  "child_id",
  "child_name",
  "state",
  "error"
FROM
  "sqlinbox_flow" f
WHERE
  "queue_name" = ?
  AND "state" <> 'pending'
  AND "child_id" >= ?
  AND (
    "child_id" > ?
    OR "parent_id" > ?
  )
ORDER BY
  "child_id",
  "parent_id"
LIMIT
  ?;

-- flows deleteEdges
-- params: ["jobs","5","7","6","7"]
-- text: 158 characters, sha256 4f8861ff9ee47b4a
DELETE FROM "sqlinbox_flow"
WHERE
  "queue_name" = ?
  AND "state" <> 'pending'
  AND (
    (
      "child_id" = ?
      AND "parent_id" = ?
    )
    OR (
      "child_id" = ?
      AND "parent_id" = ?
    )
  );

-- flows settledParents
-- params: ["jobs",1000]
-- text: 173 characters, sha256 ec7b52e67f946a46
SELECT
  "parent_id",
  "pending",
  "dead",
  "policy",
  "woken"
FROM
  "sqlinbox_flow_parent" f
WHERE
  "queue_name" = ?
  AND "woken" = 1
  AND "pending" <= 0
ORDER BY
  "parent_id"
LIMIT
  ?;

-- flows settledParents after a cursor
-- params: ["jobs","7",1000]
-- text: 193 characters, sha256 6941433b887874e2
SELECT
  "parent_id",
  "pending",
  "dead",
  "policy",
  "woken"
FROM
  "sqlinbox_flow_parent" f
WHERE
  "queue_name" = ?
  AND "woken" = 1
  AND "pending" <= 0
  AND "parent_id" > ?
ORDER BY
  "parent_id"
LIMIT
  ?;

-- flows deleteParents
-- params: ["jobs","7","8"]
-- text: 118 characters, sha256 b5f5cf815ae6f046
DELETE FROM "sqlinbox_flow_parent"
WHERE
  "queue_name" = ?
  AND "woken" = 1
  AND "pending" <= 0
  AND "parent_id" IN (?, ?);


-- =================================================================================================
-- lease, processed_at, skipped ids (a relay) (table outbox, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 197 characters, sha256 6852f07c2d626793
CREATE TABLE IF NOT EXISTS "outbox" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "relayed_at" INTEGER
);

-- ddl, 2 of 2
-- text: 101 characters, sha256 333a3b3b61a38336
CREATE INDEX IF NOT EXISTS "outbox_due" ON "outbox" ("id", "locked_until")
WHERE
  "relayed_at" IS NULL;

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","[3,5,8]",10]
-- text: 290 characters, sha256 6fb8af0606cb21cc
UPDATE "outbox" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "outbox" q
    WHERE
      q."relayed_at" IS NULL
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
      AND q."id" NOT IN (
        SELECT
          value
        FROM
          json_each(?)
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 106 characters, sha256 5cecb8549ca79138
UPDATE "outbox" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 172 characters, sha256 f4ba577fd76e2938
UPDATE "outbox" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 127 characters, sha256 fce91a6683601776
UPDATE "outbox" AS t
SET
  "relayed_at" = ?,
  "locked_until" = NULL
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 175 characters, sha256 311bc3366f400cd1
UPDATE "outbox" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 106 characters, sha256 ad1d65764fe29b81
UPDATE "outbox" AS q
SET
  "relayed_at" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 115 characters, sha256 3a7b6fab3df748b8
UPDATE "outbox" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 115 characters, sha256 6d92bc94f4904b73
UPDATE "outbox" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 72 characters, sha256 b1303bf3b4c02a79
INSERT INTO
  "outbox" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 80 characters, sha256 3770bedba0264377
INSERT INTO
  "outbox" ("payload", "attempt")
VALUES
  (?, ?),
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","[3,5,8]"]
-- text: 346 characters, sha256 d0371f09054d669c
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."relayed_at" IS NULL
        AND q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN q."relayed_at" IS NULL
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        )
        AND q."id" NOT IN (
          SELECT
            value
          FROM
            json_each(?)
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  0 AS "dead"
FROM
  "outbox" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","[3,5,8]"]
-- text: 190 characters, sha256 1dea36526cd4981b
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "outbox" q
WHERE
  q."relayed_at" IS NULL
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  )
  AND q."id" NOT IN (
    SELECT
      value
    FROM
      json_each(?)
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","[3,5,8]"]
-- text: 201 characters, sha256 d919a29afa0e7ae8
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
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
      AND q."id" NOT IN (
        SELECT
          value
        FROM
          json_each(?)
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 237 characters, sha256 02ee8207f8fff599
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."relayed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "outbox" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 243 characters, sha256 c7fb331d0ed54a45
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."relayed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "outbox" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 148 characters, sha256 82898e69f7b73b8e
SELECT
  r.*
FROM
  "outbox" r
WHERE
  r."relayed_at" IS NULL
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 84 characters, sha256 d058ede481b7553c
UPDATE "outbox" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 41 characters, sha256 683efa04ebcf7cf2
DELETE FROM "outbox"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none


-- =================================================================================================
-- lease, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 217 characters, sha256 60311e7fe9ec4df9
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "retry_after" INTEGER,
  "fifo_group" TEXT
);

-- ddl, 2 of 3
-- text: 85 characters, sha256 64fe310dc56628f2
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until", "retry_after");

-- ddl, 3 of 3
-- text: 75 characters, sha256 9732398ed5e58543
CREATE INDEX IF NOT EXISTS "jobs_group_head" ON "jobs" ("fifo_group", "id");

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z",64,"2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10,10,64,10,10,"2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10]
-- text: 1630 characters, sha256 6d1e9b490f75b2e3
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      q."id" IN (
        WITH RECURSIVE
          sqlinbox_w (i) AS (
            SELECT
              w."id"
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
                  ?
              ) w
            WHERE
              (
                w."retry_after" IS NULL
                OR w."retry_after" <= ?
              )
              AND (
                w."locked_until" IS NULL
                OR w."locked_until" <= ?
              )
              AND w."fifo_group" IS NOT ?
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
            LIMIT
              ?
          ),
          sqlinbox_g (g) AS (
            SELECT
              *
            FROM
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
                  (
                    (
                      SELECT
                        count(*)
                      FROM
                        sqlinbox_w
                    ) < ?
                  )
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
          )
        SELECT
          i
        FROM
          sqlinbox_w
        UNION ALL
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
        UNION ALL
        SELECT
          *
        FROM
          (
            SELECT
              x."id"
            FROM
              "jobs" x
            WHERE
              x."fifo_group" IS NULL
              AND + x."id" > (
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
                      ?
                  ) y
              )
            ORDER BY
              x."fifo_group",
              x."id"
            LIMIT
              (
                CASE
                  WHEN (
                    SELECT
                      count(*)
                    FROM
                      sqlinbox_w
                  ) < ? THEN ?
                  ELSE 0
                END
              )
          )
      )
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
      AND q."fifo_group" IS NOT ?
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
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 132 characters, sha256 b9ccfbb08f18a28d
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01T00:00:00.000Z"]
-- text: 104 characters, sha256 8269dc1c14a1e04c
UPDATE "jobs" AS q
SET
  "fifo_group" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z"]
-- text: 105 characters, sha256 cfc2e1e93240bc3f
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group", "retry_after")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z"]
-- text: 105 characters, sha256 cfc2e1e93240bc3f
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group", "retry_after")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["dead","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","dead"]
-- text: 568 characters, sha256 c6332530e76716b4
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."fifo_group" IS NOT ?
        AND q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  COALESCE(
    SUM(
      CASE
        WHEN q."fifo_group" IS NOT ?
        AND NOT (
          q."locked_until" IS NOT NULL
          AND q."locked_until" > ?
        )
        AND q."retry_after" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."retry_after" IS NULL
          OR q."retry_after" <= ?
        )
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        )
        AND q."fifo_group" IS NOT ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  COALESCE(
    SUM(
      CASE
        WHEN q."fifo_group" = ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 203 characters, sha256 8d7bdeb85080c193
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  )
  AND q."fifo_group" IS NOT ?;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 203 characters, sha256 96bc0c6029f87746
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
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
      AND q."fifo_group" IS NOT ?
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 267 characters, sha256 7cfa8f31dd10d91d
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = ? THEN 'dead'
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 273 characters, sha256 ddf2d1a79c6b936f
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = ? THEN 'dead'
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z",4,5]
-- text: 147 characters, sha256 01623c03746edf9a
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" IS NOT ?
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead)
-- params: ["dead"]
-- text: 65 characters, sha256 571a21f376b0205d
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" = ?
ORDER BY
  r."id";

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 122 characters, sha256 f332cb08ca5a7413
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL,
  "fifo_group" = ?
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 63 characters, sha256 854ee460cde12794
UPDATE "jobs" AS q
SET
  "retry_after" = ?
WHERE
  q."id" IN (?, ?);


-- =================================================================================================
-- lease, retention, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 264 characters, sha256 d10995d1dd7450dc
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "retry_after" INTEGER,
  "processed_at" INTEGER,
  "dead_at" INTEGER,
  "fifo_group" TEXT
);

-- ddl, 2 of 5
-- text: 114 characters, sha256 923a905262a96b9e
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until", "retry_after")
WHERE
  "processed_at" IS NULL;

-- ddl, 3 of 5
-- text: 104 characters, sha256 dd0f10f826c4ba5a
CREATE INDEX IF NOT EXISTS "jobs_group_head" ON "jobs" ("fifo_group", "id")
WHERE
  "processed_at" IS NULL;

-- ddl, 4 of 5
-- text: 103 characters, sha256 c78bfc24fc1afd0f
CREATE INDEX IF NOT EXISTS "jobs_processed" ON "jobs" ("processed_at")
WHERE
  "processed_at" IS NOT NULL;

-- ddl, 5 of 5
-- text: 133 characters, sha256 9cf491bea484b447
CREATE TABLE IF NOT EXISTS "sqlinbox_schedules" ("name" TEXT NOT NULL, "tick" INTEGER NOT NULL, PRIMARY KEY ("name", "tick"));

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z",64,"2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10,10,64,10,10,"2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10]
-- text: 1952 characters, sha256 e39449c7a376ca81
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      q."id" IN (
        WITH RECURSIVE
          sqlinbox_w (i) AS (
            SELECT
              w."id"
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
                  ?
              ) w
            WHERE
              w."processed_at" IS NULL
              AND (
                w."retry_after" IS NULL
                OR w."retry_after" <= ?
              )
              AND (
                w."locked_until" IS NULL
                OR w."locked_until" <= ?
              )
              AND w."fifo_group" IS NOT ?
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
            LIMIT
              ?
          ),
          sqlinbox_g (g) AS (
            SELECT
              *
            FROM
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
                  (
                    (
                      SELECT
                        count(*)
                      FROM
                        sqlinbox_w
                    ) < ?
                  )
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
          )
        SELECT
          i
        FROM
          sqlinbox_w
        UNION ALL
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
        UNION ALL
        SELECT
          *
        FROM
          (
            SELECT
              x."id"
            FROM
              "jobs" x
            WHERE
              x."fifo_group" IS NULL
              AND x."processed_at" IS NULL
              AND + x."id" > (
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
                      ?
                  ) y
              )
            ORDER BY
              x."fifo_group",
              x."id"
            LIMIT
              (
                CASE
                  WHEN (
                    SELECT
                      count(*)
                    FROM
                      sqlinbox_w
                  ) < ? THEN ?
                  ELSE 0
                END
              )
          )
      )
      AND q."processed_at" IS NULL
      AND (
        q."retry_after" IS NULL
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
      AND q."fifo_group" IS NOT ?
      AND NOT EXISTS (
        SELECT
          1
        FROM
          "jobs" s
        WHERE
          s."fifo_group" = q."fifo_group"
          AND s."id" < q."id"
          AND s."processed_at" IS NULL
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 127 characters, sha256 bb12f622bc965764
UPDATE "jobs" AS t
SET
  "processed_at" = ?,
  "locked_until" = NULL
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 106 characters, sha256 2ecd971752d46769
UPDATE "jobs" AS q
SET
  "processed_at" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 132 characters, sha256 b9ccfbb08f18a28d
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01T00:00:00.000Z"]
-- text: 104 characters, sha256 8269dc1c14a1e04c
UPDATE "jobs" AS q
SET
  "fifo_group" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z"]
-- text: 105 characters, sha256 cfc2e1e93240bc3f
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group", "retry_after")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z"]
-- text: 105 characters, sha256 cfc2e1e93240bc3f
INSERT INTO
  "jobs" ("payload", "attempt", "fifo_group", "retry_after")
VALUES
  (?, ?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["dead","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","dead"]
-- text: 684 characters, sha256 028c064c4158ce63
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."processed_at" IS NULL
        AND q."fifo_group" IS NOT ?
        AND q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  COALESCE(
    SUM(
      CASE
        WHEN q."processed_at" IS NULL
        AND q."fifo_group" IS NOT ?
        AND NOT (
          q."locked_until" IS NOT NULL
          AND q."locked_until" > ?
        )
        AND q."retry_after" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN q."processed_at" IS NULL
        AND (
          q."retry_after" IS NULL
          OR q."retry_after" <= ?
        )
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        )
        AND q."fifo_group" IS NOT ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "ready",
  COALESCE(
    SUM(
      CASE
        WHEN q."fifo_group" = ?
        AND q."processed_at" IS NULL THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "dead"
FROM
  "jobs" q;

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 232 characters, sha256 fa56424b5f560da9
SELECT
  NULL AS "key",
  q."retry_after" AS "due_at"
FROM
  "jobs" q
WHERE
  q."processed_at" IS NULL
  AND (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  )
  AND q."fifo_group" IS NOT ?;

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 232 characters, sha256 1114e95d3afd754f
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
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
      AND q."fifo_group" IS NOT ?
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 313 characters, sha256 5a0b1cd08c2efa54
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = ? THEN 'dead'
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 319 characters, sha256 255b89214798d16a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."fifo_group" = ? THEN 'dead'
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z",4,5]
-- text: 176 characters, sha256 45e3c8a28bb472bd
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."processed_at" IS NULL
  AND r."fifo_group" IS NOT ?
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead)
-- params: ["dead"]
-- text: 94 characters, sha256 b0d0a5d12d6f2166
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."fifo_group" = ?
  AND r."processed_at" IS NULL
ORDER BY
  r."id";

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 122 characters, sha256 f332cb08ca5a7413
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL,
  "fifo_group" = ?
WHERE
  q."id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 63 characters, sha256 854ee460cde12794
UPDATE "jobs" AS q
SET
  "retry_after" = ?
WHERE
  q."id" IN (?, ?);

-- retention pruneProcessed
-- params: ["2025-01-01T00:00:00.000Z",1000]
-- text: 173 characters, sha256 4ac341e854796245
DELETE FROM "jobs"
WHERE
  "id" IN (
    SELECT
      "id"
    FROM
      "jobs"
    WHERE
      "processed_at" IS NOT NULL
      AND "processed_at" < ?
      AND "locked_until" IS NULL
    ORDER BY
      "processed_at"
    LIMIT
      ?
  );

-- retention markDead
-- params: ["2025-01-01T00:00:00.000Z","dead"]
-- text: 114 characters, sha256 9748bb8a4ce6b25a
UPDATE "jobs" AS q
SET
  "dead_at" = ?
WHERE
  q."fifo_group" = ?
  AND q."locked_until" IS NULL
  AND q."dead_at" IS NULL;

-- retention pruneDead
-- params: ["dead","2025-01-01T00:00:00.000Z",1000]
-- text: 153 characters, sha256 820912199032a89b
DELETE FROM "jobs"
WHERE
  "id" IN (
    SELECT
      "id"
    FROM
      "jobs"
    WHERE
      "fifo_group" = ?
      AND "locked_until" IS NULL
      AND "dead_at" < ?
    ORDER BY
      "dead_at"
    LIMIT
      ?
  );


-- =================================================================================================
-- advisory, dead-letter table (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 163 characters, sha256 d1af2f29594f9d71
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "account" TEXT
);

-- ddl, 2 of 2
-- text: 163 characters, sha256 1b4bd207e22e54ca
CREATE TABLE IF NOT EXISTS "jobs_dead" (
  "id" INTEGER NOT NULL PRIMARY KEY,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "account" TEXT
);

-- candidates (n 10)
-- params: ["account-",10]
-- text: 281 characters, sha256 a338f6af7851447f
SELECT
  q."id" AS "id",
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key"
FROM
  "jobs" q
WHERE
  1
ORDER BY
  q."id"
LIMIT
  ?;

-- candidates (n 10, two keys of its own)
-- params: ["account-","account-","k1","k2",10]
-- text: 503 characters, sha256 52b3795c445c32c7
SELECT
  q."id" AS "id",
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key"
FROM
  "jobs" q
WHERE
  1
  AND CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) NOT IN (?, ?)
ORDER BY
  q."id"
LIMIT
  ?;

-- lock: not sent here (table jobs: this dialect has no advisory lock statement. Fix: override lock() and unlock() in the dialect): none

-- unlock: not sent here (table jobs: this dialect has no advisory lock statement. Fix: override lock() and unlock() in the dialect): none

-- take (id 7)
-- params: [7]
-- text: 83 characters, sha256 88b8c82e1b6db9a2
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = ?
  AND 1
RETURNING
  *;

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 51169412735401f6
DELETE FROM "jobs"
WHERE
  "id" = ?;

-- settle retry
-- params: [7]
-- text: 65 characters, sha256 b1e8836e3e954a39
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1
WHERE
  q."id" = ?;

-- moveToDeadLetter, 1 of 2
-- params: [7]
-- text: 59 characters, sha256 033c4421850ed5a0
INSERT INTO
  "jobs_dead"
SELECT
  *
FROM
  "jobs"
WHERE
  "id" = ?;

-- moveToDeadLetter, 2 of 2
-- params: [7]
-- text: 33 characters, sha256 51169412735401f6
DELETE FROM "jobs"
WHERE
  "id" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"a1"]
-- text: 84 characters, sha256 37e4ebf23d1e81d1
INSERT INTO
  "jobs" ("payload", "attempt", "account")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"a1"]
-- text: 84 characters, sha256 37e4ebf23d1e81d1
INSERT INTO
  "jobs" ("payload", "attempt", "account")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- text: 157 characters, sha256 8ff9d570f7116bb1
SELECT
  0 AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN 1 THEN 1
        ELSE 0
      END
    ),
    0
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
-- text: 259 characters, sha256 fe78c26e4a4caca1
SELECT
  CAST(? AS TEXT) || (
    CASE
      WHEN typeof(q."account") = 'real'
      AND q."account" = CAST(q."account" AS INTEGER) THEN CAST(CAST(q."account" AS INTEGER) AS TEXT)
      ELSE COALESCE(CAST(q."account" AS TEXT), '')
    END
  ) AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  1;

-- lockable
-- text: 71 characters, sha256 e9418e2c2e446802
SELECT
  COUNT(*) AS "n"
FROM
  (
    SELECT
      1 AS "one"
    FROM
      "jobs" q
    WHERE
      1
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 137 characters, sha256 2bb6649898d01d48
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
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 147 characters, sha256 780003419fc39a0a
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
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 63 characters, sha256 294f7a5af1b8ba19
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead)
-- text: 45 characters, sha256 e9b1fca070a803de
SELECT
  r.*
FROM
  "jobs_dead" r
ORDER BY
  r."id";

-- admin fresh (to group g)
-- params: [4,5]
-- text: 59 characters, sha256 357615b24b28ebe0
UPDATE "jobs" AS q
SET
  "attempt" = 0
WHERE
  q."id" IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 65 characters, sha256 810f818d6c751c60
INSERT INTO
  "jobs"
SELECT
  *
FROM
  "jobs_dead"
WHERE
  "id" IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 44 characters, sha256 12e3afb1c667f352
DELETE FROM "jobs_dead"
WHERE
  "id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none


-- =================================================================================================
-- lease, failure record, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 355 characters, sha256 2dada521efeed5e7
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "retry_after" INTEGER,
  "last_error" TEXT,
  "error_class" TEXT,
  "failed_at" INTEGER,
  "created_at" INTEGER DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
);

-- ddl, 2 of 3
-- text: 85 characters, sha256 64fe310dc56628f2
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until", "retry_after");

-- ddl, 3 of 3
-- text: 355 characters, sha256 41514b669ca485f4
CREATE TABLE IF NOT EXISTS "jobs_dead" (
  "id" INTEGER NOT NULL PRIMARY KEY,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "retry_after" INTEGER,
  "last_error" TEXT,
  "error_class" TEXT,
  "failed_at" INTEGER,
  "created_at" INTEGER DEFAULT (CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER))
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 262 characters, sha256 65d90593c5cb21e6
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      (
        q."retry_after" IS NULL
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 77 characters, sha256 2f290779dbb1c2b9
DELETE FROM "jobs"
WHERE
  "locked_until" = ?
  AND "id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- returnMany (failures, each its own message)
-- params: [1,"one",2,"two","TypeError","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 265 characters, sha256 69f3cf1af409bf1b
UPDATE "jobs" AS t
SET
  "locked_until" = NULL,
  "last_error" = CASE t."id"
    WHEN ? THEN CAST(? AS TEXT)
    WHEN ? THEN CAST(? AS TEXT)
    ELSE t."last_error"
  END,
  "error_class" = CAST(? AS TEXT),
  "failed_at" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- returnMany (failures, leases held until their backoffs end)
-- params: [1,"2025-01-01T00:00:30.000Z",2,"2025-01-01T00:00:30.001Z","boom","TypeError","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 250 characters, sha256 de1455c7acf7c675
UPDATE "jobs" AS t
SET
  "locked_until" = CASE t."id"
    WHEN ? THEN ?
    WHEN ? THEN ?
    ELSE t."locked_until"
  END,
  "last_error" = CAST(? AS TEXT),
  "error_class" = CAST(? AS TEXT),
  "failed_at" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- settle retry (failure, lease held until the backoff ends)
-- params: ["2025-01-01T00:00:30.000Z","boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 165 characters, sha256 3d3be4ac108c0776
UPDATE "jobs" AS q
SET
  "locked_until" = ?,
  "last_error" = CAST(? AS TEXT),
  "error_class" = CAST(? AS TEXT),
  "failed_at" = ?
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 132 characters, sha256 b9ccfbb08f18a28d
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "retry_after" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle retry (failure)
-- params: ["boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 168 characters, sha256 996f011d70788b17
UPDATE "jobs" AS q
SET
  "locked_until" = NULL,
  "last_error" = CAST(? AS TEXT),
  "error_class" = CAST(? AS TEXT),
  "failed_at" = ?
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- moveToDeadLetter, 1 of 2
-- params: ["boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 305 characters, sha256 3c671336a60007cc
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
  CAST(? AS TEXT),
  CAST(? AS TEXT),
  ?
FROM
  "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- moveToDeadLetter, 2 of 2
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 88 characters, sha256 1ee28abe947d1dd4
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 1 of 2
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 88 characters, sha256 1ee28abe947d1dd4
INSERT INTO
  "jobs" ("payload", "attempt", "retry_after")
VALUES
  (?, ?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns), 2 of 2
-- params: ["{\"n\":2}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 454 characters, sha256 6e0e578f17baa63e
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q."locked_until" IS NOT NULL
          AND q."locked_until" > ?
        )
        AND q."retry_after" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN (
          q."retry_after" IS NULL
          OR q."retry_after" <= ?
        )
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
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
-- text: 201 characters, sha256 18d8891ffd07b0ed
SELECT
  NULL AS "key",
  COALESCE(q."retry_after", q."created_at") AS "due_at"
FROM
  "jobs" q
WHERE
  (
    q."retry_after" IS NULL
    OR q."retry_after" <= ?
  )
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 175 characters, sha256 d1694f4c007a7a6a
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
        OR q."retry_after" <= ?
      )
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 231 characters, sha256 aebaeb736b03434a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."locked_until" > ? THEN 'inWork'
        WHEN r."retry_after" > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 147 characters, sha256 780003419fc39a0a
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
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 119 characters, sha256 119ab45f2ec27662
SELECT
  r.*
FROM
  "jobs" r
WHERE
  (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead)
-- text: 45 characters, sha256 e9b1fca070a803de
SELECT
  r.*
FROM
  "jobs_dead" r
ORDER BY
  r."id";

-- admin fresh (to group g)
-- params: [4,5]
-- text: 104 characters, sha256 3247d2e862b4b919
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "retry_after" = NULL,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 65 characters, sha256 810f818d6c751c60
INSERT INTO
  "jobs"
SELECT
  *
FROM
  "jobs_dead"
WHERE
  "id" IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 44 characters, sha256 12e3afb1c667f352
DELETE FROM "jobs_dead"
WHERE
  "id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 63 characters, sha256 854ee460cde12794
UPDATE "jobs" AS q
SET
  "retry_after" = ?
WHERE
  q."id" IN (?, ?);


-- =================================================================================================
-- lease, processed_at, results, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 214 characters, sha256 68a631fe9a8efeba
CREATE TABLE IF NOT EXISTS "jobs" (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "processed_at" INTEGER,
  "result" TEXT
);

-- ddl, 2 of 3
-- text: 99 characters, sha256 de1e39f9c8040f0c
CREATE INDEX IF NOT EXISTS "jobs_due" ON "jobs" ("id", "locked_until")
WHERE
  "processed_at" IS NULL;

-- ddl, 3 of 3
-- text: 214 characters, sha256 9f176e00a3b93d8c
CREATE TABLE IF NOT EXISTS "jobs_dead" (
  "id" INTEGER NOT NULL PRIMARY KEY,
  "payload" TEXT NOT NULL,
  "attempt" INTEGER NOT NULL DEFAULT 0,
  "locked_until" INTEGER,
  "processed_at" INTEGER,
  "result" TEXT
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",10]
-- text: 237 characters, sha256 024fe7c68e1efa41
UPDATE "jobs" AS t
SET
  "locked_until" = ?,
  "attempt" = "attempt" + 1
WHERE
  t."id" IN (
    SELECT
      q."id"
    FROM
      "jobs" q
    WHERE
      q."processed_at" IS NULL
      AND (
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
    ORDER BY
      q."id"
    LIMIT
      ?
  )
RETURNING
  *;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 104 characters, sha256 bd208e85365f079b
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 170 characters, sha256 f353f508c3e8bf07
UPDATE "jobs" AS t
SET
  "locked_until" = ?
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 127 characters, sha256 bb12f622bc965764
UPDATE "jobs" AS t
SET
  "processed_at" = ?,
  "locked_until" = NULL
WHERE
  t."locked_until" = ?
  AND t."id" IN (?, ?)
RETURNING
  "id";

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 173 characters, sha256 dc0d76fa44efcb83
UPDATE "jobs" AS t
SET
  "locked_until" = NULL
WHERE
  t."id" IN (?, ?)
  AND (
    (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
    OR (
      t."locked_until" = ?
      AND t."id" IN (?)
    )
  )
RETURNING
  "id";

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 106 characters, sha256 2ecd971752d46769
UPDATE "jobs" AS q
SET
  "processed_at" = ?,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 370d542c822434ba
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" + 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 113 characters, sha256 da79559189520af7
UPDATE "jobs" AS q
SET
  "attempt" = "attempt" - 1,
  "locked_until" = NULL
WHERE
  q."id" = ?
  AND q."locked_until" = ?;

-- moveToDeadLetter, 1 of 2
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 82 characters, sha256 74e0cbda23a9381d
INSERT INTO
  "jobs_dead"
SELECT
  *
FROM
  "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- moveToDeadLetter, 2 of 2
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 56 characters, sha256 9313439a8597b4b4
DELETE FROM "jobs"
WHERE
  "id" = ?
  AND "locked_until" = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 70 characters, sha256 a16cb4c5d7747ce0
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?)
RETURNING
  "id";

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 78 characters, sha256 f032042e39d0642b
INSERT INTO
  "jobs" ("payload", "attempt")
VALUES
  (?, ?),
  (?, ?)
RETURNING
  "id";

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 330 characters, sha256 c9723e125c4ae713
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q."processed_at" IS NULL
        AND q."locked_until" > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS "in_work",
  0 AS "delayed",
  COALESCE(
    SUM(
      CASE
        WHEN q."processed_at" IS NULL
        AND (
          q."locked_until" IS NULL
          OR q."locked_until" <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
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
-- text: 139 characters, sha256 01eda1317c5aee4e
SELECT
  NULL AS "key",
  NULL AS "due_at"
FROM
  "jobs" q
WHERE
  q."processed_at" IS NULL
  AND (
    q."locked_until" IS NULL
    OR q."locked_until" <= ?
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 150 characters, sha256 47194cb7c5df8f93
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
        q."locked_until" IS NULL
        OR q."locked_until" <= ?
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 237 characters, sha256 b44927d8231967e6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r."processed_at" IS NOT NULL THEN 'done'
        WHEN r."locked_until" > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      "jobs" r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x."id" > ?
ORDER BY
  x."id"
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 147 characters, sha256 780003419fc39a0a
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
  x.sqlinbox_state = ?
  AND x."id" IN (?, ?)
ORDER BY
  x."id"
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 148 characters, sha256 6658ce35cf62515c
SELECT
  r.*
FROM
  "jobs" r
WHERE
  r."processed_at" IS NULL
  AND (
    r."locked_until" IS NULL
    OR r."locked_until" <= ?
  )
  AND r."id" IN (?, ?)
ORDER BY
  r."id";

-- admin pick (dead)
-- text: 45 characters, sha256 e9b1fca070a803de
SELECT
  r.*
FROM
  "jobs_dead" r
ORDER BY
  r."id";

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 05288c4779249410
UPDATE "jobs" AS q
SET
  "attempt" = 0,
  "locked_until" = NULL
WHERE
  q."id" IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 65 characters, sha256 810f818d6c751c60
INSERT INTO
  "jobs"
SELECT
  *
FROM
  "jobs_dead"
WHERE
  "id" IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 44 characters, sha256 12e3afb1c667f352
DELETE FROM "jobs_dead"
WHERE
  "id" IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ea4b42b3ccd374ad
DELETE FROM "jobs"
WHERE
  "id" IN (?, ?);

-- admin reschedule: none

