-- The statements the mssql dialect sends, for the fixed descriptions of @sqlinbox/sql's snapshot.ts.
-- Written by the test beside this file: run it with -u after a change of a statement, and review the diff.

-- =================================================================================================
-- mssql: transactions and the version
-- =================================================================================================
-- begin
-- text: 65 characters, sha256 1f75ad74d006460a
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

BEGIN TRANSACTION;

-- begin (read_uncommitted)
-- text: 67 characters, sha256 d041de185bdda356
SET
TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;

BEGIN TRANSACTION;

-- begin (read_committed)
-- text: 65 characters, sha256 1f75ad74d006460a
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

BEGIN TRANSACTION;

-- begin (repeatable_read)
-- text: 66 characters, sha256 fc9d72e2a3585e5b
SET
TRANSACTION ISOLATION LEVEL REPEATABLE READ;

BEGIN TRANSACTION;

-- begin (serializable)
-- text: 63 characters, sha256 59e4d0ea3a637641
SET
TRANSACTION ISOLATION LEVEL SERIALIZABLE;

BEGIN TRANSACTION;

-- commit
-- text: 18 characters, sha256 eb292b2caa8e3c8d
COMMIT TRANSACTION;

-- rollback
-- text: 39 characters, sha256 e86a633f8469e0dd
IF @@TRANCOUNT > 0 ROLLBACK TRANSACTION;

-- savepoint
-- text: 30 characters, sha256 e4f853f0031be9af
SAVE TRANSACTION sqlinbox_step;

-- release savepoint: none

-- rollback to savepoint
-- text: 34 characters, sha256 b1dc67a150a8dfbd
ROLLBACK TRANSACTION sqlinbox_step;

-- version
-- text: 134 characters, sha256 83a9ce1dabf3d5c4
SELECT
  CAST(SERVERPROPERTY('ProductVersion') AS NVARCHAR(128)) AS [version],
  CAST(SERVERPROPERTY('EngineEdition') AS INT) AS [edition];

-- describe a table
-- text: 750 characters, sha256 591739bfd5781f9c
SELECT
  c.COLUMN_NAME AS name,
  c.DATA_TYPE AS data_type,
  c.CHARACTER_MAXIMUM_LENGTH AS max_length,
  c.DATETIME_PRECISION AS datetime_precision,
  c.IS_NULLABLE AS nullable,
  c.COLUMN_DEFAULT AS column_default,
  COLUMNPROPERTY(
    OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)),
    c.COLUMN_NAME,
    'IsIdentity'
  ) AS is_identity,
  COLUMNPROPERTY(
    OBJECT_ID(QUOTENAME(c.TABLE_SCHEMA) + N'.' + QUOTENAME(c.TABLE_NAME)),
    c.COLUMN_NAME,
    'IsComputed'
  ) AS is_computed
FROM
  INFORMATION_SCHEMA.COLUMNS AS c
WHERE
  c.TABLE_SCHEMA = COALESCE(
    @p1,
    CASE
      WHEN EXISTS (
        SELECT
          1
        FROM
          INFORMATION_SCHEMA.TABLES AS s
        WHERE
          s.TABLE_SCHEMA = SCHEMA_NAME()
          AND s.TABLE_NAME = @p2
      ) THEN SCHEMA_NAME()
      ELSE N'dbo'
    END
  )
  AND c.TABLE_NAME = @p2
ORDER BY
  c.ORDINAL_POSITION;

-- the prefix of a plain read
-- text: 47 characters, sha256 59e56b60a55e51ec
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;;

-- transactions open on the session
-- text: 25 characters, sha256 8ab78e85d7232ae2
SELECT
  @@TRANCOUNT AS [n];


-- =================================================================================================
-- row lock (table jobs, rowlock form)
-- =================================================================================================
-- ddl
-- text: 217 characters, sha256 59e0b37cbe49a8d1
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [retry_after] DATETIME2(3) NULL
);

-- claimLocked (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10]
-- text: 142 characters, sha256 7a869820aa92471f
SELECT
  TOP (@p2) q.*
FROM
  [jobs] q
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
ORDER BY
  q.[id];

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 95 characters, sha256 fda0915e61b70276
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 244 characters, sha256 1ae6b8b49c1e1180
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 265 characters, sha256 1862331b3e52d676
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 323 characters, sha256 4c43ad56b5e4b913
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN q.[retry_after] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 204 characters, sha256 74a42c9cd35a5b76
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 203 characters, sha256 c61939ed32106ed6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 6e470a17cdfeacef
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 290 characters, sha256 a66d2605ce7e41d5
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 101 characters, sha256 dbae16aaf35880b3
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 92 characters, sha256 00bdb5eaa7be9fa4
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);


-- =================================================================================================
-- row lock, database clock (table jobs, rowlock form)
-- =================================================================================================
-- ddl
-- text: 217 characters, sha256 59e0b37cbe49a8d1
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [retry_after] DATETIME2(3) NULL
);

-- claimLocked (n 10)
-- params: [10]
-- text: 155 characters, sha256 729256cfd2cb4bb6
SELECT
  TOP (@p1) q.*
FROM
  [jobs] q
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= SYSUTCDATETIME()
  )
ORDER BY
  q.[id];

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 95 characters, sha256 fda0915e61b70276
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 244 characters, sha256 1ae6b8b49c1e1180
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 265 characters, sha256 1862331b3e52d676
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 323 characters, sha256 4c43ad56b5e4b913
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN q.[retry_after] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 204 characters, sha256 74a42c9cd35a5b76
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 203 characters, sha256 c61939ed32106ed6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 6e470a17cdfeacef
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 290 characters, sha256 a66d2605ce7e41d5
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 101 characters, sha256 dbae16aaf35880b3
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 92 characters, sha256 00bdb5eaa7be9fa4
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);


-- =================================================================================================
-- lease (table jobs, lease form)
-- =================================================================================================
-- ddl
-- text: 253 characters, sha256 8577905757ed54b7
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [retry_after] DATETIME2(3) NULL
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 365 characters, sha256 b95f5c2a8a20bf81
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p3) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p4,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 145 characters, sha256 77fde2e11375031b
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 244 characters, sha256 1ae6b8b49c1e1180
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 265 characters, sha256 1862331b3e52d676
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 514 characters, sha256 7fe337a41de2eec8
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q.[locked_until] IS NOT NULL
          AND q.[locked_until] > @p2
        )
        AND q.[retry_after] > @p3 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p4
        )
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p5
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 262 characters, sha256 08c9934758f78864
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p2
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 261 characters, sha256 b53d6f38b6b7f259
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 324 characters, sha256 d9ca91b3d63e6a21
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        WHEN r.[retry_after] > @p2 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p3
  AND x.[id] > @p4
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 332 characters, sha256 6d725e4b934b6978
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p6) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        WHEN r.[retry_after] > @p2 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p3
  AND x.[id] IN (@p4, @p5)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 159 characters, sha256 809e8a6ed4e85167
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 115 characters, sha256 29778c185b331054
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);


-- =================================================================================================
-- advisory (table jobs, advisory form)
-- =================================================================================================
-- ddl
-- text: 249 characters, sha256 b3ab8ba9f9e2b6c4
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [retry_after] DATETIME2(3) NULL,
  [account] NVARCHAR(255) NULL
);

-- candidates (n 10)
-- params: ["account-","2025-01-01T00:00:00.000Z","account-",10]
-- text: 708 characters, sha256 8ae5bf9c7d514a44
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) q.[id] AS [id],
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p2
  )
  AND APPLOCK_TEST(
    N'public',
    CASE
      WHEN DATALENGTH(
        (@p3 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
      ) / 2 > 255 THEN CONVERT(
        NVARCHAR(64),
        HASHBYTES(
          'SHA2_256',
          (@p3 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
        ),
        2
      )
      ELSE (@p3 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
    END,
    'Exclusive',
    'Session'
  ) = 1
ORDER BY
  q.[id];

-- candidates (n 10, two keys of its own)
-- params: ["account-","2025-01-01T00:00:00.000Z","account-","k1","k2","account-",10]
-- text: 816 characters, sha256 bf2332b98243119f
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p7) q.[id] AS [id],
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p2
  )
  AND (@p3 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 NOT IN (@p4, @p5)
  AND APPLOCK_TEST(
    N'public',
    CASE
      WHEN DATALENGTH(
        (@p6 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
      ) / 2 > 255 THEN CONVERT(
        NVARCHAR(64),
        HASHBYTES(
          'SHA2_256',
          (@p6 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
        ),
        2
      )
      ELSE (@p6 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
    END,
    'Exclusive',
    'Session'
  ) = 1
ORDER BY
  q.[id];

-- lock
-- params: ["account-1"]
-- text: 205 characters, sha256 c0310bb43f8ba69e
DECLARE @r INT = -1;

EXEC @r = sp_getapplock @Resource = @p1,
@LockOwner = 'Session',
@DbPrincipal = N'public',
@LockMode = 'Exclusive',
@LockTimeout = 0;

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- unlock
-- params: ["account-1"]
-- text: 223 characters, sha256 ee790f3f4fb5212a
DECLARE @r INT = -1;

IF APPLOCK_MODE(N'public', @p1, 'Session') <> 'NoLock' EXEC @r = sp_releaseapplock @Resource = @p1,
@LockOwner = 'Session',
@DbPrincipal = N'public';

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- take (id 7)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 148 characters, sha256 c1634171e281cd2d
UPDATE q
SET
  [attempt] = [attempt] + 1 OUTPUT inserted.*
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p2
  );

-- heldKeys (two keys)
-- params: ["k1","k2"]
-- text: 238 characters, sha256 06ee7c36939fb5af
SELECT
  COUNT(*) AS [n]
FROM
  (
    VALUES
      (@p1),
      (@p2)
  ) AS v ([k])
WHERE
  NOT (
    APPLOCK_TEST(
      N'public',
      CASE
        WHEN DATALENGTH(v.[k]) / 2 > 255 THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', v.[k]), 2)
        ELSE v.[k]
      END,
      'Exclusive',
      'Session'
    ) = 1
  );

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 95 characters, sha256 fda0915e61b70276
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","a1"]
-- text: 284 characters, sha256 d5682637c3829dcf
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after], [account]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after],
  v.[account]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0)
  ) AS v ([payload], [attempt], [retry_after], [account], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","a1","{\"n\":2}",0]
-- text: 311 characters, sha256 4a67df25800c594a
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after], [account]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after],
  v.[account]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0),
      (@p5, @p6, NULL, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [account], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 323 characters, sha256 4c43ad56b5e4b913
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN q.[retry_after] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["account-","2025-01-01T00:00:00.000Z"]
-- text: 285 characters, sha256 2f0b9f9239009447
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p2
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 203 characters, sha256 c61939ed32106ed6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 6e470a17cdfeacef
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 290 characters, sha256 a66d2605ce7e41d5
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 101 characters, sha256 dbae16aaf35880b3
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 92 characters, sha256 00bdb5eaa7be9fa4
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);


-- =================================================================================================
-- row lock, FIFO (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 217 characters, sha256 d5ca6f359e50fee6
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [fifo_group] NVARCHAR(255) NULL
);

-- ddl, 2 of 2
-- text: 168 characters, sha256 7c3f0b32243926dc
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_fifo'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_fifo] ON [jobs] ([fifo_group], [id]);

-- claimLocked (n 10)
-- params: [10]
-- text: 194 characters, sha256 f44deef0141b0dd7
SELECT
  TOP (@p1) q.*
FROM
  [jobs] q
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  1 = 1
  AND NOT EXISTS (
    SELECT
      1
    FROM
      [jobs] s
    WHERE
      s.[fifo_group] = q.[fifo_group]
      AND s.[id] < q.[id]
  )
ORDER BY
  q.[id];

-- headGuard (id 7, group g)
-- params: ["jobs/g"]
-- text: 209 characters, sha256 9432de4f091d922a
DECLARE @r INT = -1;

EXEC @r = sp_getapplock @Resource = @p1,
@LockOwner = 'Transaction',
@DbPrincipal = N'public',
@LockMode = 'Exclusive',
@LockTimeout = 0;

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- headGuards (ids 7, 9, groups g, h): none

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: [7]
-- text: 74 characters, sha256 113f11acdf55c0a7
UPDATE q
SET
  [attempt] = [attempt] + 1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g"]
-- text: 241 characters, sha256 41eefee04ea60c48
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [fifo_group], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0]
-- text: 262 characters, sha256 18c0989ee42f4d95
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [fifo_group], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- text: 211 characters, sha256 40cb6e61f512e2db
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN 1 = 1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- text: 147 characters, sha256 7c537251c88c8ec0
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  1 = 1;

-- lockable
-- text: 157 characters, sha256 5de1edad301c1f29
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      1 = 1
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 226 characters, sha256 d97a957a030bfcac
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] > @p2
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 234 characters, sha256 97ffbf02c987413d
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 101 characters, sha256 dbae16aaf35880b3
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 90 characters, sha256 1010de6f1e3c0afe
UPDATE q
SET
  [attempt] = 0,
  [fifo_group] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, FIFO (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 253 characters, sha256 049cf34834e19531
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [fifo_group] NVARCHAR(255) NULL
);

-- ddl, 2 of 2
-- text: 168 characters, sha256 7c3f0b32243926dc
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_fifo'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_fifo] ON [jobs] ([fifo_group], [id]);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 407 characters, sha256 d6f5b3ba5c463140
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p2) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
      AND NOT EXISTS (
        SELECT
          1
        FROM
          [jobs] s
        WHERE
          s.[fifo_group] = q.[fifo_group]
          AND s.[id] < q.[id]
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p3,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 5d6ddb36269ed8f7
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g"]
-- text: 241 characters, sha256 41eefee04ea60c48
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [fifo_group], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0]
-- text: 262 characters, sha256 18c0989ee42f4d95
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [fifo_group], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 326 characters, sha256 b8b8d11c2a598a1e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 195 characters, sha256 ed4da9ed269c4cc8
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 205 characters, sha256 fe808d13fa8a64e6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 deb86c5598bdf9ed
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 290 characters, sha256 6514aa3219160c79
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 159 characters, sha256 809e8a6ed4e85167
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 113 characters, sha256 1a39ce5d1f4375c5
UPDATE q
SET
  [attempt] = 0,
  [locked_until] = NULL,
  [fifo_group] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- advisory, FIFO (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 249 characters, sha256 1c9d105f333cb4ef
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [fifo_group] NVARCHAR(255) NULL,
  [account] NVARCHAR(255) NULL
);

-- ddl, 2 of 2
-- text: 168 characters, sha256 7c3f0b32243926dc
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_fifo'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_fifo] ON [jobs] ([fifo_group], [id]);

-- candidates (n 10)
-- params: ["k-","k-",10]
-- text: 760 characters, sha256 a4606d6e6bc3533f
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) q.[id] AS [id],
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  1 = 1
  AND NOT EXISTS (
    SELECT
      1
    FROM
      [jobs] s
    WHERE
      s.[fifo_group] = q.[fifo_group]
      AND s.[id] < q.[id]
  )
  AND APPLOCK_TEST(
    N'public',
    CASE
      WHEN DATALENGTH(
        (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
      ) / 2 > 255 THEN CONVERT(
        NVARCHAR(64),
        HASHBYTES(
          'SHA2_256',
          (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
        ),
        2
      )
      ELSE (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
    END,
    'Exclusive',
    'Session'
  ) = 1
ORDER BY
  q.[id];

-- candidates (n 10, two keys of its own)
-- params: ["k-","k-","k1","k2","k-",10]
-- text: 868 characters, sha256 68ce069866bbe305
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p6) q.[id] AS [id],
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  1 = 1
  AND NOT EXISTS (
    SELECT
      1
    FROM
      [jobs] s
    WHERE
      s.[fifo_group] = q.[fifo_group]
      AND s.[id] < q.[id]
  )
  AND (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 NOT IN (@p3, @p4)
  AND APPLOCK_TEST(
    N'public',
    CASE
      WHEN DATALENGTH(
        (@p5 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
      ) / 2 > 255 THEN CONVERT(
        NVARCHAR(64),
        HASHBYTES(
          'SHA2_256',
          (@p5 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
        ),
        2
      )
      ELSE (@p5 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
    END,
    'Exclusive',
    'Session'
  ) = 1
ORDER BY
  q.[id];

-- lock
-- params: ["account-1"]
-- text: 205 characters, sha256 c0310bb43f8ba69e
DECLARE @r INT = -1;

EXEC @r = sp_getapplock @Resource = @p1,
@LockOwner = 'Session',
@DbPrincipal = N'public',
@LockMode = 'Exclusive',
@LockTimeout = 0;

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- unlock
-- params: ["account-1"]
-- text: 223 characters, sha256 ee790f3f4fb5212a
DECLARE @r INT = -1;

IF APPLOCK_MODE(N'public', @p1, 'Session') <> 'NoLock' EXEC @r = sp_releaseapplock @Resource = @p1,
@LockOwner = 'Session',
@DbPrincipal = N'public';

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- take (id 7)
-- params: [7]
-- text: 200 characters, sha256 1a6edec682a5eca1
UPDATE q
SET
  [attempt] = [attempt] + 1 OUTPUT inserted.*
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND 1 = 1
  AND NOT EXISTS (
    SELECT
      1
    FROM
      [jobs] s
    WHERE
      s.[fifo_group] = q.[fifo_group]
      AND s.[id] < q.[id]
  );

-- heldKeys (two keys)
-- params: ["k1","k2"]
-- text: 238 characters, sha256 06ee7c36939fb5af
SELECT
  COUNT(*) AS [n]
FROM
  (
    VALUES
      (@p1),
      (@p2)
  ) AS v ([k])
WHERE
  NOT (
    APPLOCK_TEST(
      N'public',
      CASE
        WHEN DATALENGTH(v.[k]) / 2 > 255 THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', v.[k]), 2)
        ELSE v.[k]
      END,
      'Exclusive',
      'Session'
    ) = 1
  );

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: [7]
-- text: 74 characters, sha256 113f11acdf55c0a7
UPDATE q
SET
  [attempt] = [attempt] + 1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","a1"]
-- text: 281 characters, sha256 68e368acb5a028d8
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group], [account]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group],
  v.[account]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0)
  ) AS v ([payload], [attempt], [fifo_group], [account], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","a1","{\"n\":2}",0]
-- text: 308 characters, sha256 0a8c07b73f6f2870
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group], [account]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group],
  v.[account]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0),
      (@p5, @p6, NULL, NULL, 1)
  ) AS v ([payload], [attempt], [fifo_group], [account], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- text: 211 characters, sha256 40cb6e61f512e2db
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN 1 = 1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["k-"]
-- text: 228 characters, sha256 b1e00f798e81653b
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  1 = 1;

-- lockable
-- text: 157 characters, sha256 5de1edad301c1f29
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      1 = 1
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 226 characters, sha256 d97a957a030bfcac
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] > @p2
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 234 characters, sha256 97ffbf02c987413d
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 101 characters, sha256 dbae16aaf35880b3
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 90 characters, sha256 1010de6f1e3c0afe
UPDATE q
SET
  [attempt] = 0,
  [fifo_group] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, priority (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 255 characters, sha256 4aa7cfc1e8dcb172
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [priority] INT NOT NULL DEFAULT 0
);

-- ddl, 2 of 2
-- text: 179 characters, sha256 b6545c54f8e73f69
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_priority'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_priority] ON [jobs] ([priority] DESC, [id]);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 328 characters, sha256 ac10114023891a5f
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p2) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
    ORDER BY
      q.[priority] DESC,
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p3,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 5d6ddb36269ed8f7
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,3]
-- text: 235 characters, sha256 13c7abd36e2ceb08
INSERT INTO
  [jobs] ([payload], [attempt], [priority]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[priority]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [priority], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,3,"{\"n\":2}",0]
-- text: 256 characters, sha256 0d31437648e8cdcd
INSERT INTO
  [jobs] ([payload], [attempt], [priority]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[priority]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [priority], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 326 characters, sha256 b8b8d11c2a598a1e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 195 characters, sha256 ed4da9ed269c4cc8
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 205 characters, sha256 fe808d13fa8a64e6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 deb86c5598bdf9ed
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 290 characters, sha256 6514aa3219160c79
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 159 characters, sha256 809e8a6ed4e85167
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 93 characters, sha256 af9c89ea606c4541
UPDATE q
SET
  [attempt] = 0,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, unique key, processed_at (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 289 characters, sha256 c341a68d092892e5
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [processed_at] DATETIME2(3) NULL,
  [unique_key] NVARCHAR(255) NULL
);

-- ddl, 2 of 3
-- text: 210 characters, sha256 dbc208d836081c58
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_claim'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_claim] ON [jobs] ([id]) INCLUDE ([locked_until])
WHERE
  [processed_at] IS NULL;

-- ddl, 3 of 3
-- text: 239 characters, sha256 b77454a157913c3a
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_unique_key'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE UNIQUE INDEX [sqlinbox_unique_key] ON [jobs] ([unique_key])
WHERE
  [unique_key] IS NOT NULL
  AND [processed_at] IS NULL;

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 338 characters, sha256 d6bc9a25a6459b0f
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p2) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[processed_at] IS NULL
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p3,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 148 characters, sha256 7cb0e44e0ebb009a
UPDATE t
SET
  [processed_at] = @p1,
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 119 characters, sha256 246d4db8ff4c8909
UPDATE q
SET
  [processed_at] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 5d6ddb36269ed8f7
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 192 characters, sha256 35385427782b27ec
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 207 characters, sha256 6a747c3848dce454
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0),
      (@p3, @p4, 1)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insertKeyed
-- params: ["{\"n\":1}",0,"k1"]
-- text: 369 characters, sha256 5f00b6bf4397b547
INSERT INTO
  [jobs] ([payload], [attempt], [unique_key]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[unique_key]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [unique_key], [sqlinbox_pos])
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      [jobs]
    WITH
      (UPDLOCK, HOLDLOCK)
    WHERE
      [unique_key] = v.[unique_key]
      AND [processed_at] IS NULL
  )
ORDER BY
  v.[sqlinbox_pos];

-- keyHolder
-- params: ["k1"]
-- text: 75 characters, sha256 9a04b794ad99696d
SELECT
  [id]
FROM
  [jobs]
WHERE
  [unique_key] = @p1
  AND [processed_at] IS NULL;

-- insertReplacing
-- params: ["{\"n\":2}",0,"k1"]
-- text: 405 characters, sha256 5d2bb158bbe610e9
MERGE INTO
  [jobs]
WITH
  (HOLDLOCK) AS q USING (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [unique_key], [sqlinbox_pos]) ON q.[unique_key] = v.[unique_key]
  AND q.[processed_at] IS NULL
WHEN MATCHED
  AND q.[attempt] < 1 THEN
UPDATE SET
  [payload] = v.[payload]
WHEN NOT MATCHED THEN
INSERT
  ([payload], [attempt], [unique_key])
VALUES
  (v.[payload], v.[attempt], v.[unique_key]) OUTPUT inserted.[id];;

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 384 characters, sha256 1d4793fff3e68783
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 224 characters, sha256 257a3a7d1367dfc2
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  q.[processed_at] IS NULL
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 234 characters, sha256 c3eeae2418b40c40
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[processed_at] IS NULL
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 328 characters, sha256 fda0fac1df3ed3bd
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[processed_at] IS NOT NULL THEN 'done'
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 336 characters, sha256 1a824dd9938dc66e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[processed_at] IS NOT NULL THEN 'done'
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 188 characters, sha256 fe6ce7cfb1550927
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[processed_at] IS NULL
  AND (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 93 characters, sha256 af9c89ea606c4541
UPDATE q
SET
  [attempt] = 0,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, per-key concurrency (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 250 characters, sha256 10fa0b46fbc66744
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [account] NVARCHAR(255) NULL
);

-- ddl, 2 of 2
-- text: 189 characters, sha256 5e3dae83fd06b10f
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_concurrency'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_concurrency] ON [jobs] ([account], [locked_until]);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 309 characters, sha256 5a6aca20eb304788
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p2) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p3,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- claimTurn
-- params: ["sqlinbox.concurrency:jobs"]
-- text: 213 characters, sha256 a2dd260c3288d954
DECLARE @r INT = -1;

EXEC @r = sp_getapplock @Resource = @p1,
@LockOwner = 'Transaction',
@DbPrincipal = N'public',
@LockMode = 'Exclusive',
@LockTimeout = 10000;

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- claimLeaseByKey (n 10)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",2,20,2,10,"2025-01-01T00:00:00.000Z"]
-- text: 831 characters, sha256 63f971fa16ad3fe1
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

UPDATE t
SET
  [locked_until] = @p1,
  [attempt] = [attempt] + 1 OUTPUT inserted.*
FROM
  [jobs] AS t
WHERE
  t.[id] IN (
    SELECT
      TOP (@p8) x.[id]
    FROM
      (
        SELECT
          c.[id],
          c.[account],
          ROW_NUMBER() OVER (
            PARTITION BY
              c.[account]
            ORDER BY
              c.[id]
          ) AS [sqlinbox_rank],
          (
            SELECT
              COUNT(*)
            FROM
              [jobs] w
            WHERE
              w.[account] = c.[account]
              AND w.[locked_until] > @p2
          ) AS [sqlinbox_in_work]
        FROM
          (
            SELECT
              TOP (@p6) q.[id],
              q.[account]
            FROM
              [jobs] q
            WHERE
              (
                q.[locked_until] IS NULL
                OR q.[locked_until] <= @p3
              )
              AND (
                q.[account] IS NULL
                OR (
                  SELECT
                    COUNT(*)
                  FROM
                    [jobs] w
                  WHERE
                    w.[account] = q.[account]
                    AND w.[locked_until] > @p4
                ) < @p5
              )
            ORDER BY
              q.[id]
          ) c
      ) x
    WHERE
      (
        x.[account] IS NULL
        OR x.[sqlinbox_rank] <= @p7 - x.[sqlinbox_in_work]
      )
    ORDER BY
      x.[id]
  )
  AND (
    t.[locked_until] IS NULL
    OR t.[locked_until] <= @p9
  );

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 5d6ddb36269ed8f7
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 192 characters, sha256 35385427782b27ec
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 207 characters, sha256 6a747c3848dce454
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0),
      (@p3, @p4, 1)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 326 characters, sha256 b8b8d11c2a598a1e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 195 characters, sha256 ed4da9ed269c4cc8
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 205 characters, sha256 fe808d13fa8a64e6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 deb86c5598bdf9ed
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 290 characters, sha256 6514aa3219160c79
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 159 characters, sha256 809e8a6ed4e85167
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 93 characters, sha256 af9c89ea606c4541
UPDATE q
SET
  [attempt] = 0,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, rate limit, schedules, control, steps (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 218 characters, sha256 71fbc8ccd7d42d1d
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL
);

-- ddl, 2 of 5
-- text: 185 characters, sha256 b6d7571659509560
IF OBJECT_ID(N'[sqlinbox_schedules]', N'U') IS NULL
CREATE TABLE [sqlinbox_schedules] (
  [name] NVARCHAR(255) NOT NULL,
  [tick] DATETIME2(3) NOT NULL,
  PRIMARY KEY ([name], [tick])
);

-- ddl, 3 of 5
-- text: 295 characters, sha256 6f9aa1230eac0b56
IF OBJECT_ID(N'[sqlinbox_rates]', N'U') IS NULL
CREATE TABLE [sqlinbox_rates] (
  [name] NVARCHAR(255) NOT NULL,
  [window_start] BIGINT NOT NULL DEFAULT 0,
  [used] INTEGER NOT NULL DEFAULT 0,
  [granted] INTEGER NOT NULL DEFAULT 0,
  [at_ms] BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY ([name])
);

-- ddl, 4 of 5
-- text: 297 characters, sha256 002026dc51d4cbeb
IF OBJECT_ID(N'[sqlinbox_control]', N'U') IS NULL
CREATE TABLE [sqlinbox_control] (
  [queue_name] NVARCHAR(128) NOT NULL,
  [kind] VARCHAR(16) NOT NULL,
  [target] NVARCHAR(255) NOT NULL,
  [reason] VARCHAR(2000),
  [requested_at] BIGINT NOT NULL,
  PRIMARY KEY ([queue_name], [kind], [target])
);

-- ddl, 5 of 5
-- text: 313 characters, sha256 61a05f95ef69004f
IF OBJECT_ID(N'[sqlinbox_steps]', N'U') IS NULL
CREATE TABLE [sqlinbox_steps] (
  [queue_name] NVARCHAR(128) NOT NULL,
  [row_id] NVARCHAR(128) NOT NULL,
  [step_name] NVARCHAR(128) NOT NULL,
  [result] NVARCHAR(MAX) NOT NULL,
  [finished_at] BIGINT NOT NULL,
  PRIMARY KEY ([queue_name], [row_id], [step_name])
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 309 characters, sha256 5a6aca20eb304788
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p2) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p3,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 5d6ddb36269ed8f7
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 192 characters, sha256 35385427782b27ec
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 207 characters, sha256 6a747c3848dce454
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0),
      (@p3, @p4, 1)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 326 characters, sha256 b8b8d11c2a598a1e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 195 characters, sha256 ed4da9ed269c4cc8
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 205 characters, sha256 fe808d13fa8a64e6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 deb86c5598bdf9ed
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 290 characters, sha256 6514aa3219160c79
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 159 characters, sha256 809e8a6ed4e85167
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 93 characters, sha256 af9c89ea606c4541
UPDATE q
SET
  [attempt] = 0,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none

-- schedules recordTick
-- params: ["nightly","2025-01-01T00:00:00.000Z"]
-- text: 241 characters, sha256 ad7e3c13c9ab656b
INSERT INTO
  [sqlinbox_schedules] ([name], [tick])
SELECT
  v.*
FROM
  (
    VALUES
      (@p1, @p2)
  ) AS v ([name], [tick])
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      [sqlinbox_schedules] AS x
    WITH
      (UPDLOCK, HOLDLOCK)
    WHERE
      x.[name] = v.[name]
      AND x.[tick] = v.[tick]
  );

-- schedules lastTick
-- params: ["nightly"]
-- text: 73 characters, sha256 7f8d522cec52ba59
SELECT
  MAX([tick]) AS [tick]
FROM
  [sqlinbox_schedules]
WHERE
  [name] = @p1;

-- schedules pruneTicks
-- params: ["nightly","2025-01-01T00:00:00.000Z"]
-- text: 68 characters, sha256 f608b8ca0cf522fb
DELETE FROM [sqlinbox_schedules]
WHERE
  [name] = @p1
  AND [tick] < @p2;

-- rates rateRow
-- params: ["jobs"]
-- text: 188 characters, sha256 85b7ed310ab2c2e0
INSERT INTO
  [sqlinbox_rates] ([name])
SELECT
  v.*
FROM
  (
    VALUES
      (@p1)
  ) AS v ([name])
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      [sqlinbox_rates] AS x
    WITH
      (UPDLOCK, HOLDLOCK)
    WHERE
      x.[name] = v.[name]
  );

-- rates reserveRate
-- params: [50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,"jobs"]
-- text: 1499 characters, sha256 3b63372d0c0b905f
UPDATE b
SET
  [granted] = (
    CASE
      WHEN (
        @p1 - (
          CASE
            WHEN [window_start] = (
              DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p2
            ) * @p3 THEN [used]
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        @p4 - (
          CASE
            WHEN [window_start] = (
              DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p5
            ) * @p6 THEN [used]
            ELSE 0
          END
        )
      ) < @p7 THEN (
        @p8 - (
          CASE
            WHEN [window_start] = (
              DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p9
            ) * @p10 THEN [used]
            ELSE 0
          END
        )
      )
      ELSE @p11
    END
  ),
  [used] = (
    CASE
      WHEN [window_start] = (
        DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p12
      ) * @p13 THEN [used]
      ELSE 0
    END
  ) + (
    CASE
      WHEN (
        @p14 - (
          CASE
            WHEN [window_start] = (
              DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p15
            ) * @p16 THEN [used]
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        @p17 - (
          CASE
            WHEN [window_start] = (
              DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p18
            ) * @p19 THEN [used]
            ELSE 0
          END
        )
      ) < @p20 THEN (
        @p21 - (
          CASE
            WHEN [window_start] = (
              DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p22
            ) * @p23 THEN [used]
            ELSE 0
          END
        )
      )
      ELSE @p24
    END
  ),
  [window_start] = (
    DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) / @p25
  ) * @p26,
  [at_ms] = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME()) OUTPUT inserted.*
FROM
  [sqlinbox_rates] AS b
WHERE
  b.[name] = @p27;

-- rates returnRate
-- params: [4,4,"jobs",1735689600000]
-- text: 148 characters, sha256 0a66f12af8ecc262
UPDATE b
SET
  [used] = CASE
    WHEN [used] > @p1 THEN [used] - @p2
    ELSE 0
  END
FROM
  [sqlinbox_rates] AS b
WHERE
  b.[name] = @p3
  AND b.[window_start] = @p4;

-- rates rateState
-- params: ["jobs"]
-- text: 49 characters, sha256 c3df3d5ac0d09982
SELECT
  *
FROM
  [sqlinbox_rates]
WHERE
  [name] = @p1;

-- control readControl
-- params: ["jobs"]
-- text: 147 characters, sha256 6c658be070a19d4e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  [queue_name],
  [kind],
  [target],
  [reason]
FROM
  [sqlinbox_control]
WHERE
  [queue_name] IN (@p1);

-- control writeControl
-- params: ["jobs","pause_group","acme"]
-- text: 427 characters, sha256 f4504cfcc8a659ae
INSERT INTO
  [sqlinbox_control] ([queue_name], [kind], [target], [requested_at])
SELECT
  v.*
FROM
  (
    VALUES
      (
        @p1,
        @p2,
        @p3,
        DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())
      )
  ) AS v ([queue_name], [kind], [target], [requested_at])
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      [sqlinbox_control] AS x
    WITH
      (UPDLOCK, HOLDLOCK)
    WHERE
      x.[queue_name] = v.[queue_name]
      AND x.[kind] = v.[kind]
      AND x.[target] = v.[target]
  );

-- control writeControl cancel
-- params: ["jobs","cancel","41","withdrawn"]
-- text: 452 characters, sha256 d417b70faafd76e8
INSERT INTO
  [sqlinbox_control] ([queue_name], [kind], [target], [reason], [requested_at])
SELECT
  v.*
FROM
  (
    VALUES
      (
        @p1,
        @p2,
        @p3,
        @p4,
        DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())
      )
  ) AS v ([queue_name], [kind], [target], [reason], [requested_at])
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      [sqlinbox_control] AS x
    WITH
      (UPDLOCK, HOLDLOCK)
    WHERE
      x.[queue_name] = v.[queue_name]
      AND x.[kind] = v.[kind]
      AND x.[target] = v.[target]
  );

-- control deleteControl
-- params: ["jobs","pause_group","acme"]
-- text: 91 characters, sha256 3d0144d0d619ffb0
DELETE FROM [sqlinbox_control]
WHERE
  [queue_name] = @p1
  AND [kind] = @p2
  AND [target] = @p3;

-- control sweepCancels
-- params: ["jobs","cancel","41","41","42","42"]
-- text: 233 characters, sha256 665bd45ec54b1ed2
DELETE FROM [sqlinbox_control]
WHERE
  [queue_name] = @p1
  AND [kind] = @p2
  AND (
    (
      [target] = @p3
      AND NOT EXISTS (
        SELECT
          1
        FROM
          [jobs] x
        WHERE
          x.[id] = @p4
      )
    )
    OR (
      [target] = @p5
      AND NOT EXISTS (
        SELECT
          1
        FROM
          [jobs] x
        WHERE
          x.[id] = @p6
      )
    )
  );

-- steps readSteps
-- params: ["jobs","41"]
-- text: 142 characters, sha256 7855b19078896a31
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  [step_name],
  [result]
FROM
  [sqlinbox_steps]
WHERE
  [queue_name] = @p1
  AND [row_id] = @p2;

-- steps writeStep
-- params: ["jobs","41","charge card","{\"value\":{\"charge\":\"ch_1\"}}"]
-- text: 466 characters, sha256 578f4d981023047e
INSERT INTO
  [sqlinbox_steps] ([queue_name], [row_id], [step_name], [result], [finished_at])
SELECT
  v.*
FROM
  (
    VALUES
      (
        @p1,
        @p2,
        @p3,
        @p4,
        DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())
      )
  ) AS v ([queue_name], [row_id], [step_name], [result], [finished_at])
WHERE
  NOT EXISTS (
    SELECT
      1
    FROM
      [sqlinbox_steps] AS x
    WITH
      (UPDLOCK, HOLDLOCK)
    WHERE
      x.[queue_name] = v.[queue_name]
      AND x.[row_id] = v.[row_id]
      AND x.[step_name] = v.[step_name]
  );

-- steps deleteSteps
-- params: ["jobs","41","42"]
-- text: 80 characters, sha256 c2ea5b88364b66f1
DELETE FROM [sqlinbox_steps]
WHERE
  [queue_name] = @p1
  AND [row_id] IN (@p2, @p3);

-- steps stepRows
-- params: ["jobs",500]
-- text: 189 characters, sha256 d573c6266c6925c2
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p2) [row_id],
  MAX([finished_at]) AS [last_ms]
FROM
  [sqlinbox_steps]
WHERE
  [queue_name] = @p1
GROUP BY
  [row_id]
ORDER BY
  [row_id];

-- steps stepRows after a cursor
-- params: ["jobs","41",500]
-- text: 208 characters, sha256 e2c86920265b70cb
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) [row_id],
  MAX([finished_at]) AS [last_ms]
FROM
  [sqlinbox_steps]
WHERE
  [queue_name] = @p1
  AND [row_id] > @p2
GROUP BY
  [row_id]
ORDER BY
  [row_id];

-- steps deleteStepsUpTo
-- params: ["jobs","41","1735689600000","42","1735689600500"]
-- text: 146 characters, sha256 63002419eea80d7e
DELETE FROM [sqlinbox_steps]
WHERE
  [queue_name] = @p1
  AND (
    (
      [row_id] = @p2
      AND [finished_at] <= @p3
    )
    OR (
      [row_id] = @p4
      AND [finished_at] <= @p5
    )
  );


-- =================================================================================================
-- lease, flows (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 4
-- text: 253 characters, sha256 8577905757ed54b7
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [retry_after] DATETIME2(3) NULL
);

-- ddl, 2 of 4
-- text: 366 characters, sha256 11c6a229822e2a17
IF OBJECT_ID(N'[sqlinbox_flow]', N'U') IS NULL
CREATE TABLE [sqlinbox_flow] (
  [queue_name] NVARCHAR(128) NOT NULL,
  [child_id] NVARCHAR(255) NOT NULL,
  [parent_id] NVARCHAR(255) NOT NULL,
  [child_name] NVARCHAR(255) NOT NULL,
  [state] VARCHAR(16) NOT NULL,
  [error] VARCHAR(2000),
  [settled_ms] BIGINT,
  PRIMARY KEY ([queue_name], [child_id], [parent_id])
);

-- ddl, 3 of 4
-- text: 330 characters, sha256 3730c460cb104276
IF OBJECT_ID(N'[sqlinbox_flow_parent]', N'U') IS NULL
CREATE TABLE [sqlinbox_flow_parent] (
  [queue_name] NVARCHAR(128) NOT NULL,
  [parent_id] NVARCHAR(255) NOT NULL,
  [pending] INTEGER NOT NULL,
  [dead] INTEGER NOT NULL,
  [policy] VARCHAR(16) NOT NULL,
  [woken] INTEGER NOT NULL,
  PRIMARY KEY ([queue_name], [parent_id])
);

-- ddl, 4 of 4
-- text: 213 characters, sha256 e304c5cb83532f89
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_flow_by_parent'
    AND object_id = OBJECT_ID(N'[sqlinbox_flow]')
)
CREATE INDEX [sqlinbox_flow_by_parent] ON [sqlinbox_flow] ([queue_name], [parent_id]);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 365 characters, sha256 b95f5c2a8a20bf81
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p3) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p4,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 145 characters, sha256 77fde2e11375031b
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 244 characters, sha256 1ae6b8b49c1e1180
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 265 characters, sha256 1862331b3e52d676
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 514 characters, sha256 7fe337a41de2eec8
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q.[locked_until] IS NOT NULL
          AND q.[locked_until] > @p2
        )
        AND q.[retry_after] > @p3 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p4
        )
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p5
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 262 characters, sha256 08c9934758f78864
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p2
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 261 characters, sha256 b53d6f38b6b7f259
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 324 characters, sha256 d9ca91b3d63e6a21
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        WHEN r.[retry_after] > @p2 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p3
  AND x.[id] > @p4
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 332 characters, sha256 6d725e4b934b6978
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p6) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        WHEN r.[retry_after] > @p2 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p3
  AND x.[id] IN (@p4, @p5)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 159 characters, sha256 809e8a6ed4e85167
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 115 characters, sha256 29778c185b331054
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- flows insertParent
-- params: ["jobs","7",2,"dead"]
-- text: 134 characters, sha256 005ff63d430922b9
INSERT INTO
  [sqlinbox_flow_parent] ([queue_name], [parent_id], [pending], [dead], [policy], [woken])
VALUES
  (@p1, @p2, @p3, 0, @p4, 0);

-- flows insertEdge
-- params: ["jobs","5","7","charge"]
-- text: 129 characters, sha256 8d601784d2c12a1b
INSERT INTO
  [sqlinbox_flow] ([queue_name], [child_id], [parent_id], [child_name], [state])
VALUES
  (@p1, @p2, @p3, @p4, 'pending');

-- flows pendingEdges
-- params: ["jobs",500]
-- text: 225 characters, sha256 c442848348776c89
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p2) [parent_id],
  [child_id],
  [child_name],
  [state],
  [error]
FROM
  [sqlinbox_flow] f
WHERE
  [queue_name] = @p1
  AND [state] = 'pending'
ORDER BY
  [child_id],
  [parent_id];

-- flows pendingEdges of children
-- params: ["jobs","5","6",500]
-- text: 254 characters, sha256 0242d32dd28e26c9
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) [parent_id],
  [child_id],
  [child_name],
  [state],
  [error]
FROM
  [sqlinbox_flow] f
WHERE
  [queue_name] = @p1
  AND [state] = 'pending'
  AND [child_id] IN (@p2, @p3)
ORDER BY
  [child_id],
  [parent_id];

-- flows pendingEdges after a cursor
-- params: ["jobs","42",500]
-- text: 246 characters, sha256 b20cf0edf2c0956b
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) [parent_id],
  [child_id],
  [child_name],
  [state],
  [error]
FROM
  [sqlinbox_flow] f
WHERE
  [queue_name] = @p1
  AND [state] = 'pending'
  AND [child_id] > @p2
ORDER BY
  [child_id],
  [parent_id];

-- flows settleEdge
-- params: ["dead","boom","jobs","5","7"]
-- text: 255 characters, sha256 af99f32ee7023e5d
UPDATE f
SET
  [state] = @p1,
  [error] = @p2,
  [settled_ms] = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())
FROM
  [sqlinbox_flow] AS f
WHERE
  [queue_name] = @p3
  AND [child_id] = @p4
  AND [parent_id] = @p5
  AND [state] = 'pending';

-- flows settleEdges
-- params: ["jobs","7","5","6"]
-- text: 251 characters, sha256 3c43c6092d0c692c
UPDATE f
SET
  [state] = 'done',
  [settled_ms] = DATEDIFF_BIG(MILLISECOND, CAST('1970-01-01' AS DATETIME2(3)), SYSUTCDATETIME())
FROM
  [sqlinbox_flow] AS f
WHERE
  [queue_name] = @p1
  AND [parent_id] = @p2
  AND [child_id] IN (@p3, @p4)
  AND [state] = 'pending';

-- flows countDown
-- params: ["jobs","7"]
-- text: 139 characters, sha256 a5274010422ee684
UPDATE f
SET
  [pending] = [pending] - 1,
  [dead] = [dead] + 1
FROM
  [sqlinbox_flow_parent] AS f
WHERE
  [queue_name] = @p1
  AND [parent_id] = @p2;

-- flows countDown by 3
-- params: [3,"jobs","7"]
-- text: 120 characters, sha256 3cccac74e3f6075d
UPDATE f
SET
  [pending] = [pending] - @p1
FROM
  [sqlinbox_flow_parent] AS f
WHERE
  [queue_name] = @p2
  AND [parent_id] = @p3;

-- flows markWoken
-- params: ["jobs","7"]
-- text: 120 characters, sha256 573950af419497c3
UPDATE f
SET
  [woken] = 1
FROM
  [sqlinbox_flow_parent] AS f
WHERE
  [queue_name] = @p1
  AND [parent_id] = @p2
  AND [woken] = 0;

-- flows edgesBy
-- params: ["jobs","7"]
-- text: 181 characters, sha256 5881e777043a8198
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  [parent_id],
  [child_id],
  [child_name],
  [state],
  [error]
FROM
  [sqlinbox_flow]
WHERE
  [queue_name] = @p1
  AND [parent_id] IN (@p2);

-- flows parentsOf
-- params: ["jobs","7"]
-- text: 134 characters, sha256 bd395cfe731fc518
SELECT
  [parent_id],
  [pending],
  [dead],
  [policy],
  [woken]
FROM
  [sqlinbox_flow_parent]
WHERE
  [queue_name] = @p1
  AND [parent_id] IN (@p2);

-- flows settledEdges
-- params: ["jobs",1000]
-- text: 226 characters, sha256 b9fe122be23d89cf
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p2) [parent_id],
  [child_id],
  [child_name],
  [state],
  [error]
FROM
  [sqlinbox_flow] f
WHERE
  [queue_name] = @p1
  AND [state] <> 'pending'
ORDER BY
  [child_id],
  [parent_id];

-- flows settledEdges after a cursor
-- params: ["jobs","5","5","7",1000]
-- text: 292 characters, sha256 72ef883e9c7e8cf3
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) [parent_id],
  [child_id],
  [child_name],
  [state],
  [error]
FROM
  [sqlinbox_flow] f
WHERE
  [queue_name] = @p1
  AND [state] <> 'pending'
  AND [child_id] >= @p2
  AND (
    [child_id] > @p3
    OR [parent_id] > @p4
  )
ORDER BY
  [child_id],
  [parent_id];

-- flows deleteEdges
-- params: ["jobs","5","7","6","7"]
-- text: 168 characters, sha256 fa7885fe7768526c
DELETE FROM [sqlinbox_flow]
WHERE
  [queue_name] = @p1
  AND [state] <> 'pending'
  AND (
    (
      [child_id] = @p2
      AND [parent_id] = @p3
    )
    OR (
      [child_id] = @p4
      AND [parent_id] = @p5
    )
  );

-- flows settledParents
-- params: ["jobs",1000]
-- text: 225 characters, sha256 bee8e1b1490ff903
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p2) [parent_id],
  [pending],
  [dead],
  [policy],
  [woken]
FROM
  [sqlinbox_flow_parent] f
WHERE
  [queue_name] = @p1
  AND [woken] = 1
  AND [pending] <= 0
ORDER BY
  [parent_id];

-- flows settledParents after a cursor
-- params: ["jobs","7",1000]
-- text: 247 characters, sha256 98d19126b53e2fe5
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) [parent_id],
  [pending],
  [dead],
  [policy],
  [woken]
FROM
  [sqlinbox_flow_parent] f
WHERE
  [queue_name] = @p1
  AND [woken] = 1
  AND [pending] <= 0
  AND [parent_id] > @p2
ORDER BY
  [parent_id];

-- flows deleteParents
-- params: ["jobs","7","8"]
-- text: 124 characters, sha256 89ccebd667aadf11
DELETE FROM [sqlinbox_flow_parent]
WHERE
  [queue_name] = @p1
  AND [woken] = 1
  AND [pending] <= 0
  AND [parent_id] IN (@p2, @p3);


-- =================================================================================================
-- row lock, processed_at, skipped ids (a relay) (table outbox, rowlock form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 220 characters, sha256 e797b10e3e4830e5
IF OBJECT_ID(N'[outbox]', N'U') IS NULL
CREATE TABLE [outbox] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [relayed_at] DATETIME2(3) NULL
);

-- ddl, 2 of 2
-- text: 187 characters, sha256 3762a0590a254054
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_claim'
    AND object_id = OBJECT_ID(N'[outbox]')
)
CREATE INDEX [sqlinbox_claim] ON [outbox] ([id])
WHERE
  [relayed_at] IS NULL;

-- claimLocked (n 10)
-- params: ["[\"3\",\"5\",\"8\"]",10]
-- text: 169 characters, sha256 a69db55f9f29a30f
SELECT
  TOP (@p2) q.*
FROM
  [outbox] q
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  q.[relayed_at] IS NULL
  AND q.[id] NOT IN (
    SELECT
      [value]
    FROM
      OPENJSON(@p1)
  )
ORDER BY
  q.[id];

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7]
-- text: 96 characters, sha256 585c0b5fd680dbc2
UPDATE q
SET
  [relayed_at] = @p1,
  [attempt] = [attempt] + 1
FROM
  [outbox] AS q
WHERE
  q.[id] = @p2;

-- settle retry
-- params: [7]
-- text: 76 characters, sha256 9b8e39a55053f8ed
UPDATE q
SET
  [attempt] = [attempt] + 1
FROM
  [outbox] AS q
WHERE
  q.[id] = @p1;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 194 characters, sha256 04b66f973cd82b0f
INSERT INTO
  [outbox] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 209 characters, sha256 3e4ff4ec6bc362cd
INSERT INTO
  [outbox] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0),
      (@p3, @p4, 1)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["[\"3\",\"5\",\"8\"]"]
-- text: 284 characters, sha256 14b52d948bed137b
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN q.[relayed_at] IS NULL
        AND q.[id] NOT IN (
          SELECT
            [value]
          FROM
            OPENJSON(@p1)
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [outbox] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["[\"3\",\"5\",\"8\"]"]
-- text: 220 characters, sha256 d55e5d2949ea3d8b
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [outbox] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  q.[relayed_at] IS NULL
  AND q.[id] NOT IN (
    SELECT
      [value]
    FROM
      OPENJSON(@p1)
  );

-- lockable
-- params: ["[\"3\",\"5\",\"8\"]"]
-- text: 230 characters, sha256 1241448970f922bb
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [outbox] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[relayed_at] IS NULL
      AND q.[id] NOT IN (
        SELECT
          [value]
        FROM
          OPENJSON(@p1)
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 286 characters, sha256 69d8803973c17866
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[relayed_at] IS NOT NULL THEN 'done'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [outbox] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] > @p2
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 294 characters, sha256 cd9ce931c94664df
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[relayed_at] IS NOT NULL THEN 'done'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [outbox] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 130 characters, sha256 4dcfe4529d2c9f9e
SELECT
  r.*
FROM
  [outbox] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[relayed_at] IS NULL
  AND r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 72 characters, sha256 9c25a0ead4ad91dd
UPDATE q
SET
  [attempt] = 0
FROM
  [outbox] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 45 characters, sha256 756deb47137aa147
DELETE FROM [outbox]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, processed_at, skipped ids (a relay) (table outbox, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 256 characters, sha256 73b8f40ebc4081f0
IF OBJECT_ID(N'[outbox]', N'U') IS NULL
CREATE TABLE [outbox] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [relayed_at] DATETIME2(3) NULL
);

-- ddl, 2 of 2
-- text: 212 characters, sha256 54b581246a0e47d5
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_claim'
    AND object_id = OBJECT_ID(N'[outbox]')
)
CREATE INDEX [sqlinbox_claim] ON [outbox] ([id]) INCLUDE ([locked_until])
WHERE
  [relayed_at] IS NULL;

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z","[\"3\",\"5\",\"8\"]",10,"2025-01-01T00:00:30.000Z"]
-- text: 392 characters, sha256 5ce4c3ab35333e52
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p3) q.*
    FROM
      [outbox] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[relayed_at] IS NULL
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
      AND q.[id] NOT IN (
        SELECT
          [value]
        FROM
          OPENJSON(@p2)
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p4,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 127 characters, sha256 ca21d3ec550bae7b
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [outbox] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 199 characters, sha256 a0eda4692f3225fc
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [outbox] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 148 characters, sha256 c37ec073699cef0c
UPDATE t
SET
  [relayed_at] = @p1,
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [outbox] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 200 characters, sha256 29698a54eca92350
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [outbox] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 119 characters, sha256 aef3303a9956dad8
UPDATE q
SET
  [relayed_at] = @p1,
  [locked_until] = NULL
FROM
  [outbox] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 126 characters, sha256 e6661c4e40ca56b7
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [locked_until] = NULL
FROM
  [outbox] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 126 characters, sha256 2670a7b8f71a4835
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [outbox] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 194 characters, sha256 04b66f973cd82b0f
INSERT INTO
  [outbox] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 209 characters, sha256 3e4ff4ec6bc362cd
INSERT INTO
  [outbox] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0),
      (@p3, @p4, 1)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","[\"3\",\"5\",\"8\"]"]
-- text: 436 characters, sha256 9f7cccaa9d58f1e5
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[relayed_at] IS NULL
        AND q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN q.[relayed_at] IS NULL
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p2
        )
        AND q.[id] NOT IN (
          SELECT
            [value]
          FROM
            OPENJSON(@p3)
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  0 AS [dead]
FROM
  [outbox] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","[\"3\",\"5\",\"8\"]"]
-- text: 278 characters, sha256 ad273edff5f965f5
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [outbox] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  q.[relayed_at] IS NULL
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p1
  )
  AND q.[id] NOT IN (
    SELECT
      [value]
    FROM
      OPENJSON(@p2)
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","[\"3\",\"5\",\"8\"]"]
-- text: 288 characters, sha256 97363438c188b2af
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [outbox] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[relayed_at] IS NULL
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
      AND q.[id] NOT IN (
        SELECT
          [value]
        FROM
          OPENJSON(@p2)
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 328 characters, sha256 88b36a379d1f5593
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[relayed_at] IS NOT NULL THEN 'done'
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [outbox] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 336 characters, sha256 12c27f3efcfbf951
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[relayed_at] IS NOT NULL THEN 'done'
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [outbox] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 188 characters, sha256 c1fa214d08b73fb3
SELECT
  r.*
FROM
  [outbox] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[relayed_at] IS NULL
  AND (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 95 characters, sha256 7590cad955c0d744
UPDATE q
SET
  [attempt] = 0,
  [locked_until] = NULL
FROM
  [outbox] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 45 characters, sha256 756deb47137aa147
DELETE FROM [outbox]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 288 characters, sha256 a40cf7dd4e95e1c7
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [retry_after] DATETIME2(3) NULL,
  [fifo_group] NVARCHAR(255) NULL
);

-- ddl, 2 of 2
-- text: 168 characters, sha256 7c3f0b32243926dc
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_fifo'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_fifo] ON [jobs] ([fifo_group], [id]);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10,"2025-01-01T00:00:30.000Z"]
-- text: 517 characters, sha256 6e7a6ad8e1023161
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p4) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
      AND (
        q.[fifo_group] IS NULL
        OR q.[fifo_group] <> @p3
      )
      AND NOT EXISTS (
        SELECT
          1
        FROM
          [jobs] s
        WHERE
          s.[fifo_group] = q.[fifo_group]
          AND s.[id] < q.[id]
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p5,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 145 characters, sha256 77fde2e11375031b
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01T00:00:00.000Z"]
-- text: 117 characters, sha256 4b51a98d9fff1ef6
UPDATE q
SET
  [fifo_group] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z"]
-- text: 293 characters, sha256 7df28b2587e4ebe9
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0)
  ) AS v ([payload], [attempt], [fifo_group], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 320 characters, sha256 d2ecb5c2029cbfa6
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0),
      (@p5, @p6, NULL, NULL, 1)
  ) AS v ([payload], [attempt], [fifo_group], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["dead","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","dead"]
-- text: 741 characters, sha256 39afcfbf6f6f1f29
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[fifo_group] IS NULL
          OR q.[fifo_group] <> @p1
        )
        AND q.[locked_until] > @p2 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[fifo_group] IS NULL
          OR q.[fifo_group] <> @p3
        )
        AND NOT (
          q.[locked_until] IS NOT NULL
          AND q.[locked_until] > @p4
        )
        AND q.[retry_after] > @p5 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p6
        )
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p7
        )
        AND (
          q.[fifo_group] IS NULL
          OR q.[fifo_group] <> @p8
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  COALESCE(
    SUM(
      CASE
        WHEN q.[fifo_group] = @p9 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 316 characters, sha256 cf7dc4ddd85b5781
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p2
  )
  AND (
    q.[fifo_group] IS NULL
    OR q.[fifo_group] <> @p3
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 315 characters, sha256 f1d11490d163d3d5
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
      AND (
        q.[fifo_group] IS NULL
        OR q.[fifo_group] <> @p3
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 362 characters, sha256 d4116d60acab0f1b
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p6) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[fifo_group] = @p1 THEN 'dead'
        WHEN r.[locked_until] > @p2 THEN 'inWork'
        WHEN r.[retry_after] > @p3 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p4
  AND x.[id] > @p5
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 370 characters, sha256 9bddc15288298d08
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p7) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[fifo_group] = @p1 THEN 'dead'
        WHEN r.[locked_until] > @p2 THEN 'inWork'
        WHEN r.[retry_after] > @p3 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p4
  AND x.[id] IN (@p5, @p6)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z",4,5]
-- text: 213 characters, sha256 d79444f99f186e99
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[fifo_group] IS NULL
    OR r.[fifo_group] <> @p1
  )
  AND (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p2
  )
  AND r.[id] IN (@p3, @p4)
ORDER BY
  r.[id];

-- admin pick (dead)
-- params: ["dead"]
-- text: 101 characters, sha256 217ed3cc3ea3f7b6
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[fifo_group] = @p1
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 135 characters, sha256 9ecd661067781f1f
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL,
  [locked_until] = NULL,
  [fifo_group] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);


-- =================================================================================================
-- row lock, dead-letter table, schema-qualified (table app.jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 265 characters, sha256 6fd7900344361932
IF OBJECT_ID(N'[app].[jobs]', N'U') IS NULL
CREATE TABLE [app].[jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [retry_after] DATETIME2(3) NULL,
  [processed_at] DATETIME2(3) NULL
);

-- ddl, 2 of 3
-- text: 221 characters, sha256 6c947863bff7d335
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_claim'
    AND object_id = OBJECT_ID(N'[app].[jobs]')
)
CREATE INDEX [sqlinbox_claim] ON [app].[jobs] ([id]) INCLUDE ([retry_after])
WHERE
  [processed_at] IS NULL;

-- ddl, 3 of 3
-- text: 261 characters, sha256 bb99e904011b0995
IF OBJECT_ID(N'[app].[jobs_dead]', N'U') IS NULL
CREATE TABLE [app].[jobs_dead] (
  [id] BIGINT NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [retry_after] DATETIME2(3) NULL,
  [processed_at] DATETIME2(3) NULL
);

-- claimLocked (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10]
-- text: 177 characters, sha256 f2ee65f2e73d8123
SELECT
  TOP (@p2) q.*
FROM
  [app].[jobs] q
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  q.[processed_at] IS NULL
  AND (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
ORDER BY
  q.[id];

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7]
-- text: 102 characters, sha256 27093d1ddd577503
UPDATE q
SET
  [processed_at] = @p1,
  [attempt] = [attempt] + 1
FROM
  [app].[jobs] AS q
WHERE
  q.[id] = @p2;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 101 characters, sha256 031b561c0d8b6254
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1
FROM
  [app].[jobs] AS q
WHERE
  q.[id] = @p2;

-- countBeforeMove
-- params: [7]
-- text: 80 characters, sha256 75f02b2ec458bbd7
UPDATE q
SET
  [attempt] = [attempt] + 1
FROM
  [app].[jobs] AS q
WHERE
  q.[id] = @p1;

-- moveToDeadLetter
-- params: [7]
-- text: 81 characters, sha256 8dcd1389c08a6060
DELETE FROM [app].[jobs] OUTPUT deleted.*
INTO
  [app].[jobs_dead]
WHERE
  [id] = @p1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 250 characters, sha256 c2ef1b525d8d25cd
INSERT INTO
  [app].[jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 271 characters, sha256 e10c70784944463e
INSERT INTO
  [app].[jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 461 characters, sha256 32a59a52023832f8
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND q.[retry_after] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  (
    SELECT
      COUNT(*)
    FROM
      [app].[jobs_dead]
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) AS [dead]
FROM
  [app].[jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 239 characters, sha256 f654662aa8f74483
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [app].[jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  q.[processed_at] IS NULL
  AND (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 238 characters, sha256 fe03e7b046d178f1
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [app].[jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[processed_at] IS NULL
      AND (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 334 characters, sha256 bb1ffe8e111572d0
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[processed_at] IS NOT NULL THEN 'done'
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [app].[jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 244 characters, sha256 6fffee9e3f4b9d38
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      [app].[jobs_dead] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 136 characters, sha256 111e301377e0683e
SELECT
  r.*
FROM
  [app].[jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[processed_at] IS NULL
  AND r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead)
-- text: 85 characters, sha256 881f049d8309c5fa
SELECT
  r.*
FROM
  [app].[jobs_dead] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: [4,5]
-- text: 98 characters, sha256 3b28dea9856e6cf9
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL
FROM
  [app].[jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin copyBack
-- params: [4,5]
-- text: 273 characters, sha256 6eca34b4db475aa9
SET
IDENTITY_INSERT [app].[jobs] ON;

INSERT INTO
  [app].[jobs] ([id], [payload], [attempt], [retry_after], [processed_at])
SELECT
  [id],
  [payload],
  [attempt],
  [retry_after],
  [processed_at]
FROM
  [app].[jobs_dead]
WHERE
  [id] IN (@p1, @p2);

SET
IDENTITY_INSERT [app].[jobs] OFF;;

-- admin remove (dead)
-- params: [4,5]
-- text: 54 characters, sha256 4617f066e6833865
DELETE FROM [app].[jobs_dead]
WHERE
  [id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 49 characters, sha256 9116345639fbd0c6
DELETE FROM [app].[jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 82 characters, sha256 4bed2e02a01b3eb3
UPDATE q
SET
  [retry_after] = @p1
FROM
  [app].[jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);


-- =================================================================================================
-- lease, retention, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 355 characters, sha256 a996483d8ef3e49b
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [retry_after] DATETIME2(3) NULL,
  [processed_at] DATETIME2(3) NULL,
  [dead_at] DATETIME2(3) NULL,
  [fifo_group] NVARCHAR(255) NULL
);

-- ddl, 2 of 5
-- text: 225 characters, sha256 123290d7aff614a0
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_claim'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_claim] ON [jobs] ([id]) INCLUDE ([locked_until], [retry_after])
WHERE
  [processed_at] IS NULL;

-- ddl, 3 of 5
-- text: 197 characters, sha256 313e80a1e30039aa
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_fifo'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_fifo] ON [jobs] ([fifo_group], [id])
WHERE
  [processed_at] IS NULL;

-- ddl, 4 of 5
-- text: 207 characters, sha256 20915f10324468ff
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_processed'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_processed] ON [jobs] ([processed_at])
WHERE
  [processed_at] IS NOT NULL;

-- ddl, 5 of 5
-- text: 185 characters, sha256 b6d7571659509560
IF OBJECT_ID(N'[sqlinbox_schedules]', N'U') IS NULL
CREATE TABLE [sqlinbox_schedules] (
  [name] NVARCHAR(255) NOT NULL,
  [tick] DATETIME2(3) NOT NULL,
  PRIMARY KEY ([name], [tick])
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",10,"2025-01-01T00:00:30.000Z"]
-- text: 575 characters, sha256 890775bc4a2d27ee
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p4) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[processed_at] IS NULL
      AND (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
      AND (
        q.[fifo_group] IS NULL
        OR q.[fifo_group] <> @p3
      )
      AND NOT EXISTS (
        SELECT
          1
        FROM
          [jobs] s
        WHERE
          s.[fifo_group] = q.[fifo_group]
          AND s.[id] < q.[id]
          AND s.[processed_at] IS NULL
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p5,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 148 characters, sha256 7cb0e44e0ebb009a
UPDATE t
SET
  [processed_at] = @p1,
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 119 characters, sha256 246d4db8ff4c8909
UPDATE q
SET
  [processed_at] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 145 characters, sha256 77fde2e11375031b
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01T00:00:00.000Z"]
-- text: 117 characters, sha256 4b51a98d9fff1ef6
UPDATE q
SET
  [fifo_group] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z"]
-- text: 293 characters, sha256 7df28b2587e4ebe9
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0)
  ) AS v ([payload], [attempt], [fifo_group], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 320 characters, sha256 d2ecb5c2029cbfa6
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, @p4, 0),
      (@p5, @p6, NULL, NULL, 1)
  ) AS v ([payload], [attempt], [fifo_group], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["dead","2025-01-01T00:00:00.000Z","dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead","dead"]
-- text: 857 characters, sha256 87bf0ab39966cd4a
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND (
          q.[fifo_group] IS NULL
          OR q.[fifo_group] <> @p1
        )
        AND q.[locked_until] > @p2 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND (
          q.[fifo_group] IS NULL
          OR q.[fifo_group] <> @p3
        )
        AND NOT (
          q.[locked_until] IS NOT NULL
          AND q.[locked_until] > @p4
        )
        AND q.[retry_after] > @p5 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p6
        )
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p7
        )
        AND (
          q.[fifo_group] IS NULL
          OR q.[fifo_group] <> @p8
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  COALESCE(
    SUM(
      CASE
        WHEN q.[fifo_group] = @p9
        AND q.[processed_at] IS NULL THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 345 characters, sha256 d32567896d64b468
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  q.[processed_at] IS NULL
  AND (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p2
  )
  AND (
    q.[fifo_group] IS NULL
    OR q.[fifo_group] <> @p3
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead"]
-- text: 344 characters, sha256 7d694712cfb1d792
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[processed_at] IS NULL
      AND (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
      AND (
        q.[fifo_group] IS NULL
        OR q.[fifo_group] <> @p3
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 408 characters, sha256 41e1a34f7dd7939e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p6) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[fifo_group] = @p1 THEN 'dead'
        WHEN r.[processed_at] IS NOT NULL THEN 'done'
        WHEN r.[locked_until] > @p2 THEN 'inWork'
        WHEN r.[retry_after] > @p3 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p4
  AND x.[id] > @p5
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","dead",4,5,50]
-- text: 416 characters, sha256 5988dc11b1cfd098
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p7) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[fifo_group] = @p1 THEN 'dead'
        WHEN r.[processed_at] IS NOT NULL THEN 'done'
        WHEN r.[locked_until] > @p2 THEN 'inWork'
        WHEN r.[retry_after] > @p3 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p4
  AND x.[id] IN (@p5, @p6)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["dead","2025-01-01T00:00:00.000Z",4,5]
-- text: 242 characters, sha256 c17210f594db0971
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[processed_at] IS NULL
  AND (
    r.[fifo_group] IS NULL
    OR r.[fifo_group] <> @p1
  )
  AND (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p2
  )
  AND r.[id] IN (@p3, @p4)
ORDER BY
  r.[id];

-- admin pick (dead)
-- params: ["dead"]
-- text: 130 characters, sha256 a96df4ab82aa555d
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[fifo_group] = @p1
  AND r.[processed_at] IS NULL
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 135 characters, sha256 9ecd661067781f1f
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL,
  [locked_until] = NULL,
  [fifo_group] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- retention pruneProcessed
-- params: ["2025-01-01T00:00:00.000Z",1000]
-- text: 113 characters, sha256 af588e2c62fbe014
DELETE TOP (@p2)
FROM
  [jobs]
WHERE
  [processed_at] IS NOT NULL
  AND [processed_at] < @p1
  AND [locked_until] IS NULL;

-- retention markDead
-- params: ["2025-01-01T00:00:00.000Z","dead"]
-- text: 125 characters, sha256 fd5fbfc3401c207b
UPDATE q
SET
  [dead_at] = @p1
FROM
  [jobs] AS q
WHERE
  q.[fifo_group] = @p2
  AND q.[locked_until] IS NULL
  AND q.[dead_at] IS NULL;

-- retention pruneDead
-- params: ["dead","2025-01-01T00:00:00.000Z",1000]
-- text: 100 characters, sha256 8680dade3762838c
DELETE TOP (@p3)
FROM
  [jobs]
WHERE
  [fifo_group] = @p1
  AND [locked_until] IS NULL
  AND [dead_at] < @p2;


-- =================================================================================================
-- row lock, retention, dead-letter table (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 248 characters, sha256 4baa9ef3afd1e692
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [retry_after] DATETIME2(3) NULL,
  [dead_at] DATETIME2(3) NULL
);

-- ddl, 2 of 3
-- text: 244 characters, sha256 99240a77e5b5f0f2
IF OBJECT_ID(N'[jobs_dead]', N'U') IS NULL
CREATE TABLE [jobs_dead] (
  [id] BIGINT NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [retry_after] DATETIME2(3) NULL,
  [dead_at] DATETIME2(3) NULL
);

-- ddl, 3 of 3
-- text: 185 characters, sha256 b6d7571659509560
IF OBJECT_ID(N'[sqlinbox_schedules]', N'U') IS NULL
CREATE TABLE [sqlinbox_schedules] (
  [name] NVARCHAR(255) NOT NULL,
  [tick] DATETIME2(3) NOT NULL,
  PRIMARY KEY ([name], [tick])
);

-- claimLocked (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10]
-- text: 142 characters, sha256 7a869820aa92471f
SELECT
  TOP (@p2) q.*
FROM
  [jobs] q
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
ORDER BY
  q.[id];

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7]
-- text: 95 characters, sha256 fda0915e61b70276
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2;

-- countBeforeMove
-- params: [7]
-- text: 74 characters, sha256 113f11acdf55c0a7
UPDATE q
SET
  [attempt] = [attempt] + 1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1;

-- moveToDeadLetter
-- params: [7]
-- text: 69 characters, sha256 f05b7c59bd0059bc
DELETE FROM [jobs] OUTPUT deleted.*
INTO
  [jobs_dead]
WHERE
  [id] = @p1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 244 characters, sha256 1ae6b8b49c1e1180
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 265 characters, sha256 1862331b3e52d676
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 391 characters, sha256 e62739d23acc2f7a
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN q.[retry_after] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  (
    SELECT
      COUNT(*)
    FROM
      [jobs_dead]
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 204 characters, sha256 74a42c9cd35a5b76
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[retry_after] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 203 characters, sha256 c61939ed32106ed6
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 282 characters, sha256 6e470a17cdfeacef
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[retry_after] > @p1 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 238 characters, sha256 578e5138383efa97
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      [jobs_dead] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 101 characters, sha256 dbae16aaf35880b3
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead)
-- text: 79 characters, sha256 4975a50aef68ab6e
SELECT
  r.*
FROM
  [jobs_dead] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: [4,5]
-- text: 92 characters, sha256 00bdb5eaa7be9fa4
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin copyBack
-- params: [4,5]
-- text: 239 characters, sha256 abdd059665778fc4
SET
IDENTITY_INSERT [jobs] ON;

INSERT INTO
  [jobs] ([id], [payload], [attempt], [retry_after], [dead_at])
SELECT
  [id],
  [payload],
  [attempt],
  [retry_after],
  [dead_at]
FROM
  [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

SET
IDENTITY_INSERT [jobs] OFF;;

-- admin remove (dead)
-- params: [4,5]
-- text: 48 characters, sha256 a6c993f0461ff199
DELETE FROM [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- retention markDead
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 86 characters, sha256 82cc18c029d4867d
UPDATE q
SET
  [dead_at] = @p1
FROM
  [jobs_dead] AS q
WHERE
  1 = 1
  AND q.[dead_at] IS NULL;

-- retention pruneDead
-- params: ["2025-01-01T00:00:00.000Z",500]
-- text: 65 characters, sha256 6eb9d72311fd8276
DELETE TOP (@p2)
FROM
  [jobs_dead]
WHERE
  1 = 1
  AND [dead_at] < @p1;


-- =================================================================================================
-- advisory, dead-letter table (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 214 characters, sha256 00fd7f405da2515d
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [account] NVARCHAR(255) NULL
);

-- ddl, 2 of 2
-- text: 210 characters, sha256 4979877a6d70294e
IF OBJECT_ID(N'[jobs_dead]', N'U') IS NULL
CREATE TABLE [jobs_dead] (
  [id] BIGINT NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [account] NVARCHAR(255) NULL
);

-- candidates (n 10)
-- params: ["account-","account-",10]
-- text: 662 characters, sha256 5dfdcc049a4b953c
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) q.[id] AS [id],
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  1 = 1
  AND APPLOCK_TEST(
    N'public',
    CASE
      WHEN DATALENGTH(
        (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
      ) / 2 > 255 THEN CONVERT(
        NVARCHAR(64),
        HASHBYTES(
          'SHA2_256',
          (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
        ),
        2
      )
      ELSE (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
    END,
    'Exclusive',
    'Session'
  ) = 1
ORDER BY
  q.[id];

-- candidates (n 10, two keys of its own)
-- params: ["account-","account-","k1","k2","account-",10]
-- text: 770 characters, sha256 d6479ae1af6c64c7
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p6) q.[id] AS [id],
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  1 = 1
  AND (@p2 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 NOT IN (@p3, @p4)
  AND APPLOCK_TEST(
    N'public',
    CASE
      WHEN DATALENGTH(
        (@p5 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
      ) / 2 > 255 THEN CONVERT(
        NVARCHAR(64),
        HASHBYTES(
          'SHA2_256',
          (@p5 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
        ),
        2
      )
      ELSE (@p5 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2
    END,
    'Exclusive',
    'Session'
  ) = 1
ORDER BY
  q.[id];

-- lock
-- params: ["account-1"]
-- text: 205 characters, sha256 c0310bb43f8ba69e
DECLARE @r INT = -1;

EXEC @r = sp_getapplock @Resource = @p1,
@LockOwner = 'Session',
@DbPrincipal = N'public',
@LockMode = 'Exclusive',
@LockTimeout = 0;

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- unlock
-- params: ["account-1"]
-- text: 223 characters, sha256 ee790f3f4fb5212a
DECLARE @r INT = -1;

IF APPLOCK_MODE(N'public', @p1, 'Session') <> 'NoLock' EXEC @r = sp_releaseapplock @Resource = @p1,
@LockOwner = 'Session',
@DbPrincipal = N'public';

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- take (id 7)
-- params: [7]
-- text: 102 characters, sha256 0e5b622e814b95bc
UPDATE q
SET
  [attempt] = [attempt] + 1 OUTPUT inserted.*
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND 1 = 1;

-- heldKeys (two keys)
-- params: ["k1","k2"]
-- text: 238 characters, sha256 06ee7c36939fb5af
SELECT
  COUNT(*) AS [n]
FROM
  (
    VALUES
      (@p1),
      (@p2)
  ) AS v ([k])
WHERE
  NOT (
    APPLOCK_TEST(
      N'public',
      CASE
        WHEN DATALENGTH(v.[k]) / 2 > 255 THEN CONVERT(NVARCHAR(64), HASHBYTES('SHA2_256', v.[k]), 2)
        ELSE v.[k]
      END,
      'Exclusive',
      'Session'
    ) = 1
  );

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: [7]
-- text: 74 characters, sha256 113f11acdf55c0a7
UPDATE q
SET
  [attempt] = [attempt] + 1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1;

-- moveToDeadLetter
-- params: [7]
-- text: 69 characters, sha256 f05b7c59bd0059bc
DELETE FROM [jobs] OUTPUT deleted.*
INTO
  [jobs_dead]
WHERE
  [id] = @p1;

-- insert (one message)
-- params: ["{\"n\":1}",0,"a1"]
-- text: 232 characters, sha256 a85cb887069c3dda
INSERT INTO
  [jobs] ([payload], [attempt], [account]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[account]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [account], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"a1","{\"n\":2}",0]
-- text: 253 characters, sha256 9c4c553235aec3bf
INSERT INTO
  [jobs] ([payload], [attempt], [account]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[account]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [account], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- text: 279 characters, sha256 dbd1e9a3ce665931
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN 1 = 1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  (
    SELECT
      COUNT(*)
    FROM
      [jobs_dead]
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["account-"]
-- text: 228 characters, sha256 b1e00f798e81653b
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  (@p1 + COALESCE(CAST(q.[account] AS NVARCHAR(MAX)), N'')) COLLATE Latin1_General_BIN2 AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  1 = 1;

-- lockable
-- text: 157 characters, sha256 5de1edad301c1f29
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      1 = 1
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 226 characters, sha256 d97a957a030bfcac
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p3) x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] > @p2
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 238 characters, sha256 578e5138383efa97
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      [jobs_dead] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: [4,5]
-- text: 101 characters, sha256 dbae16aaf35880b3
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[id] IN (@p1, @p2)
ORDER BY
  r.[id];

-- admin pick (dead)
-- text: 79 characters, sha256 4975a50aef68ab6e
SELECT
  r.*
FROM
  [jobs_dead] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: [4,5]
-- text: 70 characters, sha256 0bdb6872e1cc03f5
UPDATE q
SET
  [attempt] = 0
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin copyBack
-- params: [4,5]
-- text: 209 characters, sha256 bc2b2df9d98fb047
SET
IDENTITY_INSERT [jobs] ON;

INSERT INTO
  [jobs] ([id], [payload], [attempt], [account])
SELECT
  [id],
  [payload],
  [attempt],
  [account]
FROM
  [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

SET
IDENTITY_INSERT [jobs] OFF;;

-- admin remove (dead)
-- params: [4,5]
-- text: 48 characters, sha256 a6c993f0461ff199
DELETE FROM [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- lease, failure record, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 411 characters, sha256 f2061dab512aff59
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [retry_after] DATETIME2(3) NULL,
  [last_error] NVARCHAR(MAX),
  [error_class] NVARCHAR(255) NULL,
  [failed_at] DATETIME2(3) NULL,
  [created_at] DATETIME2(3) NULL DEFAULT SYSUTCDATETIME()
);

-- ddl, 2 of 2
-- text: 407 characters, sha256 5ed2f9b0853809a5
IF OBJECT_ID(N'[jobs_dead]', N'U') IS NULL
CREATE TABLE [jobs_dead] (
  [id] BIGINT NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [retry_after] DATETIME2(3) NULL,
  [last_error] NVARCHAR(MAX),
  [error_class] NVARCHAR(255) NULL,
  [failed_at] DATETIME2(3) NULL,
  [created_at] DATETIME2(3) NULL DEFAULT SYSUTCDATETIME()
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 365 characters, sha256 b95f5c2a8a20bf81
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p3) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p4,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z",1,2]
-- text: 88 characters, sha256 82c1a5b6c4b4a1fa
DELETE FROM [jobs] OUTPUT deleted.[id]
WHERE
  [locked_until] = @p1
  AND [id] IN (@p2, @p3);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- returnMany (failures, each its own message)
-- params: [1,"one",2,"two","TypeError","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 254 characters, sha256 3cfb535627b2ed26
UPDATE t
SET
  [locked_until] = NULL,
  [last_error] = CASE t.[id]
    WHEN @p1 THEN @p2
    WHEN @p3 THEN @p4
    ELSE t.[last_error]
  END,
  [error_class] = @p5,
  [failed_at] = @p6 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p7
  AND t.[id] IN (@p8, @p9);

-- returnMany (failures, leases held until their backoffs end)
-- params: [1,"2025-01-01T00:00:30.000Z",2,"2025-01-01T00:00:30.001Z","boom","TypeError","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 256 characters, sha256 602dc6267bc953fa
UPDATE t
SET
  [locked_until] = CASE t.[id]
    WHEN @p1 THEN @p2
    WHEN @p3 THEN @p4
    ELSE t.[locked_until]
  END,
  [last_error] = @p5,
  [error_class] = @p6,
  [failed_at] = @p7 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p8
  AND t.[id] IN (@p9, @p10);

-- settle retry (failure, lease held until the backoff ends)
-- params: ["2025-01-01T00:00:30.000Z","boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 156 characters, sha256 4e4995cbaf4184b5
UPDATE q
SET
  [locked_until] = @p1,
  [last_error] = @p2,
  [error_class] = @p3,
  [failed_at] = @p4
FROM
  [jobs] AS q
WHERE
  q.[id] = @p5
  AND q.[locked_until] = @p6;

-- settle ack
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- settle retry
-- params: ["2025-01-01T00:00:30.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 145 characters, sha256 77fde2e11375031b
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [retry_after] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle retry (failure)
-- params: ["boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 157 characters, sha256 422e357d5d6561c0
UPDATE q
SET
  [locked_until] = NULL,
  [last_error] = @p1,
  [error_class] = @p2,
  [failed_at] = @p3
FROM
  [jobs] AS q
WHERE
  q.[id] = @p4
  AND q.[locked_until] = @p5;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- moveToDeadLetter, 1 of 2
-- params: ["boom","TypeError","2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 287 characters, sha256 6a5574b5fc1175c5
INSERT INTO
  [jobs_dead] (
    [id],
    [payload],
    [attempt],
    [locked_until],
    [retry_after],
    [created_at],
    [last_error],
    [error_class],
    [failed_at]
  )
SELECT
  [id],
  [payload],
  [attempt],
  [locked_until],
  [retry_after],
  [created_at],
  @p1,
  @p2,
  @p3
FROM
  [jobs]
WHERE
  [id] = @p4
  AND [locked_until] = @p5;

-- moveToDeadLetter, 2 of 2
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 60 characters, sha256 7bd6a2787fe2b33a
DELETE FROM [jobs]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z"]
-- text: 244 characters, sha256 1ae6b8b49c1e1180
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01T00:00:30.000Z","{\"n\":2}",0]
-- text: 265 characters, sha256 1862331b3e52d676
INSERT INTO
  [jobs] ([payload], [attempt], [retry_after]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[retry_after]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [retry_after], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 582 characters, sha256 79f9efc7eb4df1f7
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q.[locked_until] IS NOT NULL
          AND q.[locked_until] > @p2
        )
        AND q.[retry_after] > @p3 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[retry_after] IS NULL
          OR q.[retry_after] <= @p4
        )
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p5
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  (
    SELECT
      COUNT(*)
    FROM
      [jobs_dead]
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 288 characters, sha256 0f09f34e9774768e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  COALESCE(q.[retry_after], q.[created_at]) AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[retry_after] IS NULL
    OR q.[retry_after] <= @p1
  )
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p2
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 261 characters, sha256 b53d6f38b6b7f259
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[retry_after] IS NULL
        OR q.[retry_after] <= @p1
      )
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p2
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 324 characters, sha256 d9ca91b3d63e6a21
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        WHEN r.[retry_after] > @p2 THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p3
  AND x.[id] > @p4
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 238 characters, sha256 578e5138383efa97
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      [jobs_dead] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 159 characters, sha256 809e8a6ed4e85167
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead)
-- text: 79 characters, sha256 4975a50aef68ab6e
SELECT
  r.*
FROM
  [jobs_dead] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: [4,5]
-- text: 115 characters, sha256 29778c185b331054
UPDATE q
SET
  [attempt] = 0,
  [retry_after] = NULL,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin copyBack
-- params: [4,5]
-- text: 361 characters, sha256 7c4610b89d6440fa
SET
IDENTITY_INSERT [jobs] ON;

INSERT INTO
  [jobs] (
    [id],
    [payload],
    [attempt],
    [locked_until],
    [retry_after],
    [last_error],
    [error_class],
    [failed_at],
    [created_at]
  )
SELECT
  [id],
  [payload],
  [attempt],
  [locked_until],
  [retry_after],
  [last_error],
  [error_class],
  [failed_at],
  [created_at]
FROM
  [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

SET
IDENTITY_INSERT [jobs] OFF;;

-- admin remove (dead)
-- params: [4,5]
-- text: 48 characters, sha256 a6c993f0461ff199
DELETE FROM [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule
-- params: ["2025-01-01T00:00:30.000Z",4,5]
-- text: 76 characters, sha256 06edc607363ac7ec
UPDATE q
SET
  [retry_after] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);


-- =================================================================================================
-- lease, processed_at, results, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 280 characters, sha256 ec18ad2e94d93e7b
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [processed_at] DATETIME2(3) NULL,
  [result] NVARCHAR(MAX)
);

-- ddl, 2 of 3
-- text: 210 characters, sha256 dbc208d836081c58
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_claim'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_claim] ON [jobs] ([id]) INCLUDE ([locked_until])
WHERE
  [processed_at] IS NULL;

-- ddl, 3 of 3
-- text: 276 characters, sha256 4534375e366247c4
IF OBJECT_ID(N'[jobs_dead]', N'U') IS NULL
CREATE TABLE [jobs_dead] (
  [id] BIGINT NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [locked_until] DATETIME2(3) NULL,
  [processed_at] DATETIME2(3) NULL,
  [result] NVARCHAR(MAX)
);

-- claimLease (n 10)
-- params: ["2025-01-01T00:00:00.000Z",10,"2025-01-01T00:00:30.000Z"]
-- text: 338 characters, sha256 d6bc9a25a6459b0f
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

WITH
  sqlinbox_claim AS (
    SELECT
      TOP (@p2) q.*
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[processed_at] IS NULL
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
    ORDER BY
      q.[id]
  )
UPDATE sqlinbox_claim
SET
  [locked_until] = @p3,
  [attempt] = [attempt] + 1 OUTPUT inserted.*;

-- extendLeases (one token)
-- params: ["2025-01-01T00:00:30.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 125 characters, sha256 622d9b5ac6da2cd1
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- extendLeases (two tokens)
-- params: ["2025-01-01T00:00:30.000Z",1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 197 characters, sha256 dd9ec9bb438072d5
UPDATE t
SET
  [locked_until] = @p1 OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p2, @p3)
  AND (
    (
      t.[locked_until] = @p4
      AND t.[id] IN (@p5)
    )
    OR (
      t.[locked_until] = @p6
      AND t.[id] IN (@p7)
    )
  );

-- settleMany
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z",1,2]
-- text: 148 characters, sha256 7cb0e44e0ebb009a
UPDATE t
SET
  [processed_at] = @p1,
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[locked_until] = @p2
  AND t.[id] IN (@p3, @p4);

-- returnMany (retries)
-- params: [1,2,"2025-01-01T00:00:00.000Z",1,"2025-01-01T00:00:30.000Z",2]
-- text: 198 characters, sha256 f83b5935549ee6ce
UPDATE t
SET
  [locked_until] = NULL OUTPUT inserted.[id]
FROM
  [jobs] AS t
WHERE
  t.[id] IN (@p1, @p2)
  AND (
    (
      t.[locked_until] = @p3
      AND t.[id] IN (@p4)
    )
    OR (
      t.[locked_until] = @p5
      AND t.[id] IN (@p6)
    )
  );

-- settle ack
-- params: ["2025-01-01T00:00:00.000Z",7,"2025-01-01T00:00:00.000Z"]
-- text: 119 characters, sha256 246d4db8ff4c8909
UPDATE q
SET
  [processed_at] = @p1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p2
  AND q.[locked_until] = @p3;

-- settle retry
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 5d6ddb36269ed8f7
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- settle release (uncount)
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 124 characters, sha256 0883cdbca5c062cb
UPDATE q
SET
  [attempt] = [attempt] - 1,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1
  AND q.[locked_until] = @p2;

-- moveToDeadLetter
-- params: [7,"2025-01-01T00:00:00.000Z"]
-- text: 94 characters, sha256 89fa891e5ecbce7f
DELETE FROM [jobs] OUTPUT deleted.*
INTO
  [jobs_dead]
WHERE
  [id] = @p1
  AND [locked_until] = @p2;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 192 characters, sha256 35385427782b27ec
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 207 characters, sha256 6a747c3848dce454
INSERT INTO
  [jobs] ([payload], [attempt]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt]
FROM
  (
    VALUES
      (@p1, @p2, 0),
      (@p3, @p4, 1)
  ) AS v ([payload], [attempt], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["2025-01-01T00:00:00.000Z","2025-01-01T00:00:00.000Z"]
-- text: 452 characters, sha256 2aa40ecd267aa52f
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND q.[locked_until] > @p1 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN q.[processed_at] IS NULL
        AND (
          q.[locked_until] IS NULL
          OR q.[locked_until] <= @p2
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  (
    SELECT
      COUNT(*)
    FROM
      [jobs_dead]
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 224 characters, sha256 257a3a7d1367dfc2
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  NULL AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  q.[processed_at] IS NULL
  AND (
    q.[locked_until] IS NULL
    OR q.[locked_until] <= @p1
  );

-- lockable
-- params: ["2025-01-01T00:00:00.000Z"]
-- text: 234 characters, sha256 c3eeae2418b40c40
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      q.[processed_at] IS NULL
      AND (
        q.[locked_until] IS NULL
        OR q.[locked_until] <= @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01T00:00:00.000Z","ready",3,50]
-- text: 328 characters, sha256 fda0fac1df3ed3bd
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[processed_at] IS NOT NULL THEN 'done'
        WHEN r.[locked_until] > @p1 THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 238 characters, sha256 578e5138383efa97
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      [jobs_dead] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p1
  AND x.[id] IN (@p2, @p3)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["2025-01-01T00:00:00.000Z",4,5]
-- text: 188 characters, sha256 fe6ce7cfb1550927
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[processed_at] IS NULL
  AND (
    r.[locked_until] IS NULL
    OR r.[locked_until] <= @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead)
-- text: 79 characters, sha256 4975a50aef68ab6e
SELECT
  r.*
FROM
  [jobs_dead] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: [4,5]
-- text: 93 characters, sha256 af9c89ea606c4541
UPDATE q
SET
  [attempt] = 0,
  [locked_until] = NULL
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p1, @p2);

-- admin copyBack
-- params: [4,5]
-- text: 271 characters, sha256 fbe489265102c32d
SET
IDENTITY_INSERT [jobs] ON;

INSERT INTO
  [jobs] ([id], [payload], [attempt], [locked_until], [processed_at], [result])
SELECT
  [id],
  [payload],
  [attempt],
  [locked_until],
  [processed_at],
  [result]
FROM
  [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

SET
IDENTITY_INSERT [jobs] OFF;;

-- admin remove (dead)
-- params: [4,5]
-- text: 48 characters, sha256 a6c993f0461ff199
DELETE FROM [jobs_dead]
WHERE
  [id] IN (@p1, @p2);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none


-- =================================================================================================
-- row lock, failure record, dead-letter group (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 375 characters, sha256 81c954987e06ee1c
IF OBJECT_ID(N'[jobs]', N'U') IS NULL
CREATE TABLE [jobs] (
  [id] BIGINT IDENTITY(1, 1) NOT NULL PRIMARY KEY,
  [payload] NVARCHAR(MAX) NOT NULL,
  [attempt] INT NOT NULL DEFAULT 0,
  [fifo_group] NVARCHAR(255) NULL,
  [last_error] NVARCHAR(MAX),
  [error_class] NVARCHAR(255) NULL,
  [failed_at] DATETIME2(3) NULL,
  [created_at] DATETIME2(3) NULL DEFAULT SYSUTCDATETIME()
);

-- ddl, 2 of 2
-- text: 168 characters, sha256 7c3f0b32243926dc
IF NOT EXISTS (
  SELECT
    1
  FROM
    sys.indexes
  WHERE
    name = N'sqlinbox_fifo'
    AND object_id = OBJECT_ID(N'[jobs]')
)
CREATE INDEX [sqlinbox_fifo] ON [jobs] ([fifo_group], [id]);

-- claimLocked (n 10)
-- params: ["dead",10]
-- text: 238 characters, sha256 d37fcc7b3ef3ecce
SELECT
  TOP (@p2) q.*
FROM
  [jobs] q
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    q.[fifo_group] IS NULL
    OR q.[fifo_group] <> @p1
  )
  AND NOT EXISTS (
    SELECT
      1
    FROM
      [jobs] s
    WHERE
      s.[fifo_group] = q.[fifo_group]
      AND s.[id] < q.[id]
  )
ORDER BY
  q.[id];

-- headGuard (id 7, group g)
-- params: ["jobs/g"]
-- text: 209 characters, sha256 9432de4f091d922a
DECLARE @r INT = -1;

EXEC @r = sp_getapplock @Resource = @p1,
@LockOwner = 'Transaction',
@DbPrincipal = N'public',
@LockMode = 'Exclusive',
@LockTimeout = 0;

SELECT
  CASE
    WHEN @r >= 0 THEN 1
    ELSE 0
  END AS [ok];

-- headGuards (ids 7, 9, groups g, h): none

-- settle ack
-- params: [7]
-- text: 35 characters, sha256 47d362f852375bfb
DELETE FROM [jobs]
WHERE
  [id] = @p1;

-- settle retry
-- params: [7]
-- text: 74 characters, sha256 113f11acdf55c0a7
UPDATE q
SET
  [attempt] = [attempt] + 1
FROM
  [jobs] AS q
WHERE
  q.[id] = @p1;

-- settle retry (failure)
-- params: ["boom","TypeError","2025-01-01T00:00:00.000Z",7]
-- text: 134 characters, sha256 2014cbe2282bf964
UPDATE q
SET
  [attempt] = [attempt] + 1,
  [last_error] = @p1,
  [error_class] = @p2,
  [failed_at] = @p3
FROM
  [jobs] AS q
WHERE
  q.[id] = @p4;

-- settle dead letter (group)
-- params: ["dead","boom","TypeError","2025-01-01T00:00:00.000Z",7]
-- text: 154 characters, sha256 41696f598bbfdd99
UPDATE q
SET
  [fifo_group] = @p1,
  [attempt] = [attempt] + 1,
  [last_error] = @p2,
  [error_class] = @p3,
  [failed_at] = @p4
FROM
  [jobs] AS q
WHERE
  q.[id] = @p5;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g"]
-- text: 241 characters, sha256 41eefee04ea60c48
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0)
  ) AS v ([payload], [attempt], [fifo_group], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0]
-- text: 262 characters, sha256 18c0989ee42f4d95
INSERT INTO
  [jobs] ([payload], [attempt], [fifo_group]) OUTPUT inserted.[id]
SELECT
  v.[payload],
  v.[attempt],
  v.[fifo_group]
FROM
  (
    VALUES
      (@p1, @p2, @p3, 0),
      (@p4, @p5, NULL, 1)
  ) AS v ([payload], [attempt], [fifo_group], [sqlinbox_pos])
ORDER BY
  v.[sqlinbox_pos];

-- stats
-- params: ["dead","dead"]
-- text: 320 characters, sha256 2ef35ed2cb122a2f
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  0 AS [in_work],
  0 AS [delayed],
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.[fifo_group] IS NULL
          OR q.[fifo_group] <> @p1
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [ready],
  COALESCE(
    SUM(
      CASE
        WHEN q.[fifo_group] = @p2 THEN 1
        ELSE 0
      END
    ),
    0
  ) AS [dead]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST);

-- dueRows
-- params: ["dead"]
-- text: 201 characters, sha256 7f05f6096a0bcdb7
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  NULL AS [key],
  q.[created_at] AS [due_at]
FROM
  [jobs] q
WITH
  (READCOMMITTEDLOCK, READPAST)
WHERE
  (
    q.[fifo_group] IS NULL
    OR q.[fifo_group] <> @p1
  );

-- lockable
-- params: ["dead"]
-- text: 201 characters, sha256 7cfc39453ff6813d
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  COUNT(*) AS [n]
FROM
  (
    SELECT
      1 AS [one]
    FROM
      [jobs] q
    WITH
      (UPDLOCK, READPAST, ROWLOCK)
    WHERE
      (
        q.[fifo_group] IS NULL
        OR q.[fifo_group] <> @p1
      )
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","ready",3,50]
-- text: 278 characters, sha256 8b2f2387fbf00cba
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p4) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[fifo_group] = @p1 THEN 'dead'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] > @p3
ORDER BY
  x.[id];

-- admin list (dead, ids)
-- params: ["dead","dead",4,5,50]
-- text: 286 characters, sha256 5d6dcf97f0919a7e
SET
TRANSACTION ISOLATION LEVEL READ COMMITTED;

SELECT
  TOP (@p5) x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.[fifo_group] = @p1 THEN 'dead'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      [jobs] r
    WITH
      (READCOMMITTEDLOCK, READPAST)
  ) x
WHERE
  x.sqlinbox_state = @p2
  AND x.[id] IN (@p3, @p4)
ORDER BY
  x.[id];

-- admin pick (live, ids)
-- params: ["dead",4,5]
-- text: 155 characters, sha256 5eaffb445fb7c777
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  (
    r.[fifo_group] IS NULL
    OR r.[fifo_group] <> @p1
  )
  AND r.[id] IN (@p2, @p3)
ORDER BY
  r.[id];

-- admin pick (dead)
-- params: ["dead"]
-- text: 101 characters, sha256 217ed3cc3ea3f7b6
SELECT
  r.*
FROM
  [jobs] r
WITH
  (UPDLOCK, READPAST, ROWLOCK)
WHERE
  r.[fifo_group] = @p1
ORDER BY
  r.[id];

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 90 characters, sha256 1010de6f1e3c0afe
UPDATE q
SET
  [attempt] = 0,
  [fifo_group] = @p1
FROM
  [jobs] AS q
WHERE
  q.[id] IN (@p2, @p3);

-- admin remove
-- params: [4,5]
-- text: 43 characters, sha256 51aba2db308f48f3
DELETE FROM [jobs]
WHERE
  [id] IN (@p1, @p2);

-- admin reschedule: none

