-- The statements the mysql dialect sends, for the fixed descriptions of @sqlinbox/sql's snapshot.ts.
-- Written by the test beside this file: run it with -u after a change of a statement, and review the diff.

-- =================================================================================================
-- mysql: transactions and the version
-- =================================================================================================
-- begin, 1 of 2
-- text: 46 characters, sha256 bcd2639091d097d5
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- begin, 2 of 2
-- text: 17 characters, sha256 c694dd4d8f76a81f
START TRANSACTION;

-- begin (read_uncommitted), 1 of 2
-- text: 48 characters, sha256 80912e500b1ebfe4
SET TRANSACTION ISOLATION LEVEL READ UNCOMMITTED;

-- begin (read_uncommitted), 2 of 2
-- text: 17 characters, sha256 c694dd4d8f76a81f
START TRANSACTION;

-- begin (read_committed), 1 of 2
-- text: 46 characters, sha256 bcd2639091d097d5
SET TRANSACTION ISOLATION LEVEL READ COMMITTED;

-- begin (read_committed), 2 of 2
-- text: 17 characters, sha256 c694dd4d8f76a81f
START TRANSACTION;

-- begin (repeatable_read), 1 of 2
-- text: 47 characters, sha256 e67fda05dacea7a0
SET TRANSACTION ISOLATION LEVEL REPEATABLE READ;

-- begin (repeatable_read), 2 of 2
-- text: 17 characters, sha256 c694dd4d8f76a81f
START TRANSACTION;

-- begin (serializable), 1 of 2
-- text: 44 characters, sha256 a2ed0cad371dca3d
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE;

-- begin (serializable), 2 of 2
-- text: 17 characters, sha256 c694dd4d8f76a81f
START TRANSACTION;

-- commit
-- text: 6 characters, sha256 79663c1d3b43ceaf
COMMIT;

-- rollback
-- text: 8 characters, sha256 587fa628a9fe4642
ROLLBACK;

-- savepoint
-- text: 25 characters, sha256 0258fc6ccaa7ba0a
SAVEPOINT `sqlinbox_step`;

-- release savepoint: none

-- rollback to savepoint
-- text: 37 characters, sha256 1010e3d8f8744c0b
ROLLBACK TO
SAVEPOINT `sqlinbox_step`;

-- version
-- text: 29 characters, sha256 a3b5ef29df34f62c
SELECT
  VERSION() AS `version`;


-- =================================================================================================
-- row lock (table jobs, rowlock form)
-- =================================================================================================
-- ddl
-- text: 232 characters, sha256 18478f678bf92038
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `retry_after` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLocked (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 127 characters, sha256 feae595183cd3311
SELECT
  q.*
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7]
-- text: 84 characters, sha256 6001611d0fb734f1
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?
WHERE
  q.`id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000"]
-- text: 73 characters, sha256 e758fdece6ba46cc
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 90 characters, sha256 fe584f03095bdfab
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 236 characters, sha256 8c932e87ed9463b7
SELECT
  0 AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 119 characters, sha256 46d3035737f7fad3
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 142 characters, sha256 a35493b1cfac0d31
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 a77faf43f014d044
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 197 characters, sha256 8b25259af1ed8cd9
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 86 characters, sha256 a83a78b4eae7484a
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 81 characters, sha256 421846f502714e62
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- stats: due rows no transaction locks
-- params: ["2025-01-01 00:00:00.000"]
-- text: 106 characters, sha256 57f17a13f0ca94ad
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  ) FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- row lock, database clock (table jobs, rowlock form)
-- =================================================================================================
-- ddl
-- text: 232 characters, sha256 18478f678bf92038
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `retry_after` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLocked (n 10)
-- params: [10]
-- text: 142 characters, sha256 2f2ad13f62538c57
SELECT
  q.*
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= UTC_TIMESTAMP (3)
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7]
-- text: 84 characters, sha256 6001611d0fb734f1
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?
WHERE
  q.`id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000"]
-- text: 73 characters, sha256 e758fdece6ba46cc
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 90 characters, sha256 fe584f03095bdfab
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 236 characters, sha256 8c932e87ed9463b7
SELECT
  0 AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 119 characters, sha256 46d3035737f7fad3
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 142 characters, sha256 a35493b1cfac0d31
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 a77faf43f014d044
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 197 characters, sha256 8b25259af1ed8cd9
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 86 characters, sha256 a83a78b4eae7484a
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 81 characters, sha256 421846f502714e62
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- stats: due rows no transaction locks
-- params: ["2025-01-01 00:00:00.000"]
-- text: 106 characters, sha256 57f17a13f0ca94ad
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  ) FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- lease (table jobs, lease form)
-- =================================================================================================
-- ddl
-- text: 267 characters, sha256 011173975c3f4a07
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `retry_after` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 186 characters, sha256 dcea7c86d5b01706
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7,"2025-01-01 00:00:00.000"]
-- text: 132 characters, sha256 30bc4067997a189d
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000"]
-- text: 73 characters, sha256 e758fdece6ba46cc
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 90 characters, sha256 fe584f03095bdfab
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 421 characters, sha256 62ca9f362d007c0d
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q.`locked_until` IS NOT NULL
          AND q.`locked_until` > ?
        )
        AND q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        )
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 175 characters, sha256 762bf4443f8edf6b
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 198 characters, sha256 40035521c1e94259
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","ready",3,50]
-- text: 231 characters, sha256 bc0a597530754d80
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 237 characters, sha256 56fd7829f036c352
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 142 characters, sha256 9551db3d67c7e852
SELECT
  r.*
FROM
  `jobs` r
WHERE
  (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 104 characters, sha256 b005f104775a6a6a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claimLease from an id (n 10, from 4000)
-- params: ["4000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 218 characters, sha256 42312f4411fcc21c
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimLease, a window of the sweep (n 10, from 2000, below 4000)
-- params: ["2000","4000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 249 characters, sha256 26aaf41b6ce6cb61
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`id` < CAST(? AS SIGNED)
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;


-- =================================================================================================
-- advisory (table jobs, advisory form)
-- =================================================================================================
-- ddl
-- text: 263 characters, sha256 50231d996af39ae6
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `retry_after` DATETIME(3) NULL,
  `account` VARCHAR(255) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- candidates (n 10)
-- params: ["account-","2025-01-01 00:00:00.000",10]
-- text: 597 characters, sha256 d951598b379fe47d
SELECT
  c.`id` AS `id`,
  c.sqlinbox_key AS `key`
FROM
  (
    SELECT
      q.`id`,
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
  ) c
WHERE
  IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NULL
ORDER BY
  c.`id`
LIMIT
  ?;

-- candidates (n 10, two keys of its own)
-- params: ["account-","2025-01-01 00:00:00.000","k1","k2",10]
-- text: 646 characters, sha256 9d3ff84522c0509f
SELECT
  c.`id` AS `id`,
  c.sqlinbox_key AS `key`
FROM
  (
    SELECT
      q.`id`,
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
  ) c
WHERE
  CAST(c.sqlinbox_key AS BINARY) NOT IN (?, ?)
  AND IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NULL
ORDER BY
  c.`id`
LIMIT
  ?;

-- lock
-- params: ["account-1","account-1","account-1"]
-- text: 324 characters, sha256 a6ff720e2f1f9a65
SELECT
  GET_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    ),
    0
  ) AS ok;

-- unlock
-- params: ["account-1","account-1","account-1"]
-- text: 325 characters, sha256 4707a4a38f1f6726
SELECT
  RELEASE_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    )
  ) AS ok;

-- take (id 7)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 120 characters, sha256 44f6159c97b2a1d3
UPDATE `jobs` q
SET
  q.`attempt` = q.`attempt` + 1
WHERE
  q.`id` = ?
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  );

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7]
-- text: 84 characters, sha256 6001611d0fb734f1
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?
WHERE
  q.`id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","a1"]
-- text: 87 characters, sha256 df9b11a804e873fb
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`, `account`)
VALUES
  (?, ?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","a1","{\"n\":2}",0]
-- text: 113 characters, sha256 fad5979f6129b579
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`, `account`)
VALUES
  (?, ?, ?, ?),
  (?, ?, DEFAULT, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 236 characters, sha256 8c932e87ed9463b7
SELECT
  0 AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["account-","2025-01-01 00:00:00.000"]
-- text: 165 characters, sha256 468b6d91ab2a9c65
SELECT
  CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 142 characters, sha256 a35493b1cfac0d31
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 a77faf43f014d044
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 197 characters, sha256 8b25259af1ed8cd9
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 86 characters, sha256 a83a78b4eae7484a
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 81 characters, sha256 421846f502714e62
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- take, then: the row
-- params: [7]
-- text: 35 characters, sha256 ee953d1374eda757
SELECT
  *
FROM
  `jobs`
WHERE
  `id` = ?;

-- stats: keys in use
-- params: ["account-","2025-01-01 00:00:00.000"]
-- text: 543 characters, sha256 0f35ed90d186f93b
SELECT
  COUNT(*) AS n
FROM
  (
    SELECT
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
  ) c
WHERE
  IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NOT NULL;


-- =================================================================================================
-- row lock, FIFO (table jobs, rowlock form)
-- =================================================================================================
-- ddl
-- text: 278 characters, sha256 6a4b464bb07f149d
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `fifo_group` VARCHAR(255) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_fifo` (`fifo_group`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLocked (n 10)
-- params: [10]
-- text: 215 characters, sha256 0307d67477a819fe
SELECT
  q.*
FROM
  `jobs` q
WHERE
  TRUE
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- headGuard (id 7, group g)
-- params: ["g",7]
-- text: 94 characters, sha256 4edbab6865212419
SELECT
  s.`id`
FROM
  `jobs` s
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
ORDER BY
  s.`id` FOR
UPDATE;

-- headGuards (ids 7, 9, groups g, h)
-- params: ["g",7,"h",9]
-- text: 237 characters, sha256 caaeb5a47f435c5d
(
  SELECT
    0 AS sqlinbox_k,
    s.`id`
  FROM
    `jobs` s
  WHERE
    s.`fifo_group` = ?
    AND s.`id` < ?
  ORDER BY
    s.`id` FOR
  UPDATE
)
UNION ALL
(
  SELECT
    1 AS sqlinbox_k,
    s.`id`
  FROM
    `jobs` s
  WHERE
    s.`fifo_group` = ?
    AND s.`id` < ?
  ORDER BY
    s.`id` FOR
  UPDATE
);

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: [7]
-- text: 65 characters, sha256 6c4cdeb66e387e68
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g"]
-- text: 72 characters, sha256 5f9b87010e2360d8
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0]
-- text: 89 characters, sha256 2d8d89a9a16ba12f
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- text: 127 characters, sha256 5399ff59066c3491
SELECT
  0 AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN TRUE THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- text: 63 characters, sha256 4087eb20b5bdcf53
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  TRUE;

-- lockable
-- text: 97 characters, sha256 2737c0015a9b65b1
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      TRUE FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 137 characters, sha256 17a0064d4abd0e7f
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 143 characters, sha256 b995719c40c098e2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 86 characters, sha256 a83a78b4eae7484a
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 77 characters, sha256 feb128e982683eeb
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `fifo_group` = ?
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- the FIFO index, found on the server
-- params: [null,"jobs","fifo_group"]
-- text: 230 characters, sha256 c83645cd354885b4
SELECT
  INDEX_NAME AS `name`
FROM
  information_schema.STATISTICS
WHERE
  TABLE_SCHEMA = COALESCE(?, DATABASE ())
  AND TABLE_NAME = ?
  AND SEQ_IN_INDEX = 1
  AND COLUMN_NAME = ?
ORDER BY
  INDEX_NAME = 'sqlinbox_fifo' DESC,
  INDEX_NAME
LIMIT
  1;

-- headGuard through the FIFO index (id 7, group g)
-- params: ["g",7]
-- text: 124 characters, sha256 13075defb7a48a5d
SELECT
  s.`id`
FROM
  `jobs` s FORCE INDEX (`sqlinbox_fifo`)
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
ORDER BY
  s.`id` FOR
UPDATE;

-- FIFO claim: its window of candidates (n 10)
-- params: [64]
-- text: 170 characters, sha256 2e45b4d8fa3c8027
SELECT
  q.`id` AS sqlinbox_id,
  q.`fifo_group` AS sqlinbox_group,
  CASE
    WHEN TRUE THEN 1
    ELSE 0
  END AS sqlinbox_due,
  0 AS sqlinbox_part
FROM
  `jobs` q
ORDER BY
  q.`id`
LIMIT
  ?;

-- FIFO claim: the candidates after the window (last 400, n 10)
-- params: [400,10,400,10]
-- text: 615 characters, sha256 c7e073590312206b
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    TRUE
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND TRUE
  ORDER BY
    q.`id`
  LIMIT
    ?
);

-- FIFO claim: the window and the candidates after the last window (after 400, n 10)
-- params: [64,400,10,400,10]
-- text: 834 characters, sha256 2d3718b93cf30580
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    CASE
      WHEN TRUE THEN 1
      ELSE 0
    END AS sqlinbox_due,
    0 AS sqlinbox_part
  FROM
    `jobs` q
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    TRUE
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND TRUE
  ORDER BY
    q.`id`
  LIMIT
    ?
)
ORDER BY
  sqlinbox_part,
  sqlinbox_id;

-- FIFO claim: the row lock select of the candidates
-- params: [1,2,10]
-- text: 236 characters, sha256 b6ef4757f2577404
SELECT
  q.*
FROM
  `jobs` q
WHERE
  TRUE
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- stats: due rows no transaction locks
-- text: 61 characters, sha256 d07949ed303bd126
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  TRUE FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- lease, FIFO (table jobs, lease form)
-- =================================================================================================
-- ddl
-- text: 313 characters, sha256 86374064b6649876
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `fifo_group` VARCHAR(255) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_fifo` (`fifo_group`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 281 characters, sha256 cbafcd7a9b12353e
SELECT
  q.`id`,
  q.`fifo_group`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 296f6a6799918faa
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g"]
-- text: 72 characters, sha256 5f9b87010e2360d8
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0]
-- text: 89 characters, sha256 2d8d89a9a16ba12f
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 239 characters, sha256 e929bbf0586733e5
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 110 characters, sha256 b54f40c995d6927c
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 144 characters, sha256 bf41b996a7673f69
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 70bfbfde319f2d56
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 197 characters, sha256 dca70d552d04742c
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 142 characters, sha256 9551db3d67c7e852
SELECT
  r.*
FROM
  `jobs` r
WHERE
  (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 100 characters, sha256 a1175075af179b79
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `locked_until` = NULL,
  `fifo_group` = ?
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;

-- the FIFO index, found on the server
-- params: [null,"jobs","fifo_group"]
-- text: 230 characters, sha256 c83645cd354885b4
SELECT
  INDEX_NAME AS `name`
FROM
  information_schema.STATISTICS
WHERE
  TABLE_SCHEMA = COALESCE(?, DATABASE ())
  AND TABLE_NAME = ?
  AND SEQ_IN_INDEX = 1
  AND COLUMN_NAME = ?
ORDER BY
  INDEX_NAME = 'sqlinbox_fifo' DESC,
  INDEX_NAME
LIMIT
  1;

-- headGuard through the FIFO index (id 7, group g)
-- params: ["g",7]
-- text: 124 characters, sha256 13075defb7a48a5d
SELECT
  s.`id`
FROM
  `jobs` s FORCE INDEX (`sqlinbox_fifo`)
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
ORDER BY
  s.`id` FOR
UPDATE;

-- FIFO claim: its window of candidates (n 10)
-- params: ["2025-01-01 00:00:00.000",64]
-- text: 217 characters, sha256 fd42395ec378a616
SELECT
  q.`id` AS sqlinbox_id,
  q.`fifo_group` AS sqlinbox_group,
  CASE
    WHEN (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    ) THEN 1
    ELSE 0
  END AS sqlinbox_due,
  0 AS sqlinbox_part
FROM
  `jobs` q
ORDER BY
  q.`id`
LIMIT
  ?;

-- FIFO claim: the candidates after the window (last 400, n 10)
-- params: [400,"2025-01-01 00:00:00.000",10,400,"2025-01-01 00:00:00.000",10]
-- text: 709 characters, sha256 e32321f8e7da1eec
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
);

-- FIFO claim: the window and the candidates after the last window (after 400, n 10)
-- params: ["2025-01-01 00:00:00.000",64,400,"2025-01-01 00:00:00.000",10,400,"2025-01-01 00:00:00.000",10]
-- text: 975 characters, sha256 4c5553bad7474f8e
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    CASE
      WHEN (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) THEN 1
      ELSE 0
    END AS sqlinbox_due,
    0 AS sqlinbox_part
  FROM
    `jobs` q
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
ORDER BY
  sqlinbox_part,
  sqlinbox_id;

-- FIFO claim: the row lock select of the candidates
-- params: ["2025-01-01 00:00:00.000",1,2,10]
-- text: 283 characters, sha256 dedc0a062c5f1d45
SELECT
  q.*
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- FIFO claim: the lease select of the candidates, tagged for their guards (UNION ALL headGuards)
-- params: ["2025-01-01 00:00:00.000",1,2,10]
-- text: 319 characters, sha256 a5dd3b5671f33b84
SELECT
  -1 AS sqlinbox_k,
  q.`id` AS sqlinbox_id
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- advisory, FIFO (table jobs, advisory form)
-- =================================================================================================
-- ddl
-- text: 309 characters, sha256 462f806c3bb0b11b
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `fifo_group` VARCHAR(255) NULL,
  `account` VARCHAR(255) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_fifo` (`fifo_group`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- candidates (n 10)
-- params: ["k-",10]
-- text: 685 characters, sha256 1e2a50b949857c3e
SELECT
  c.`id` AS `id`,
  c.sqlinbox_key AS `key`
FROM
  (
    SELECT
      q.`id`,
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      TRUE
      AND (
        q.`fifo_group` IS NULL
        OR q.`id` = (
          SELECT
            s.`id`
          FROM
            `jobs` s
          WHERE
            s.`fifo_group` = q.`fifo_group`
          ORDER BY
            s.`id`
          LIMIT
            1
        )
      )
  ) c
WHERE
  IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NULL
ORDER BY
  c.`id`
LIMIT
  ?;

-- candidates (n 10, two keys of its own)
-- params: ["k-","k1","k2",10]
-- text: 734 characters, sha256 a36a370532c1d46a
SELECT
  c.`id` AS `id`,
  c.sqlinbox_key AS `key`
FROM
  (
    SELECT
      q.`id`,
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      TRUE
      AND (
        q.`fifo_group` IS NULL
        OR q.`id` = (
          SELECT
            s.`id`
          FROM
            `jobs` s
          WHERE
            s.`fifo_group` = q.`fifo_group`
          ORDER BY
            s.`id`
          LIMIT
            1
        )
      )
  ) c
WHERE
  CAST(c.sqlinbox_key AS BINARY) NOT IN (?, ?)
  AND IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NULL
ORDER BY
  c.`id`
LIMIT
  ?;

-- lock
-- params: ["account-1","account-1","account-1"]
-- text: 324 characters, sha256 a6ff720e2f1f9a65
SELECT
  GET_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    ),
    0
  ) AS ok;

-- unlock
-- params: ["account-1","account-1","account-1"]
-- text: 325 characters, sha256 4707a4a38f1f6726
SELECT
  RELEASE_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    )
  ) AS ok;

-- take (id 7)
-- params: [7]
-- text: 168 characters, sha256 8226c53d965a8231
UPDATE `jobs` q
LEFT JOIN `jobs` s ON s.`fifo_group` = q.`fifo_group`
AND s.`id` < q.`id`
SET
  q.`attempt` = q.`attempt` + 1
WHERE
  q.`id` = ?
  AND TRUE
  AND s.`id` IS NULL;

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: [7]
-- text: 65 characters, sha256 6c4cdeb66e387e68
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","a1"]
-- text: 86 characters, sha256 98508c68f9b3e4f3
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`, `account`)
VALUES
  (?, ?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","a1","{\"n\":2}",0]
-- text: 112 characters, sha256 cb045370abb36c68
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`, `account`)
VALUES
  (?, ?, ?, ?),
  (?, ?, DEFAULT, DEFAULT);

-- stats
-- text: 127 characters, sha256 5399ff59066c3491
SELECT
  0 AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN TRUE THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["k-"]
-- text: 109 characters, sha256 553bbe5444e3f656
SELECT
  CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  TRUE;

-- lockable
-- text: 97 characters, sha256 2737c0015a9b65b1
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      TRUE FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 137 characters, sha256 17a0064d4abd0e7f
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 143 characters, sha256 b995719c40c098e2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 86 characters, sha256 a83a78b4eae7484a
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 77 characters, sha256 feb128e982683eeb
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `fifo_group` = ?
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- the FIFO index, found on the server
-- params: [null,"jobs","fifo_group"]
-- text: 230 characters, sha256 c83645cd354885b4
SELECT
  INDEX_NAME AS `name`
FROM
  information_schema.STATISTICS
WHERE
  TABLE_SCHEMA = COALESCE(?, DATABASE ())
  AND TABLE_NAME = ?
  AND SEQ_IN_INDEX = 1
  AND COLUMN_NAME = ?
ORDER BY
  INDEX_NAME = 'sqlinbox_fifo' DESC,
  INDEX_NAME
LIMIT
  1;

-- headGuard through the FIFO index (id 7, group g)
-- params: ["g",7]
-- text: 124 characters, sha256 13075defb7a48a5d
SELECT
  s.`id`
FROM
  `jobs` s FORCE INDEX (`sqlinbox_fifo`)
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
ORDER BY
  s.`id` FOR
UPDATE;

-- FIFO claim: its window of candidates (n 10)
-- params: [64]
-- text: 170 characters, sha256 2e45b4d8fa3c8027
SELECT
  q.`id` AS sqlinbox_id,
  q.`fifo_group` AS sqlinbox_group,
  CASE
    WHEN TRUE THEN 1
    ELSE 0
  END AS sqlinbox_due,
  0 AS sqlinbox_part
FROM
  `jobs` q
ORDER BY
  q.`id`
LIMIT
  ?;

-- FIFO claim: the candidates after the window (last 400, n 10)
-- params: [400,10,400,10]
-- text: 615 characters, sha256 c7e073590312206b
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    TRUE
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND TRUE
  ORDER BY
    q.`id`
  LIMIT
    ?
);

-- FIFO claim: the window and the candidates after the last window (after 400, n 10)
-- params: [64,400,10,400,10]
-- text: 834 characters, sha256 2d3718b93cf30580
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    CASE
      WHEN TRUE THEN 1
      ELSE 0
    END AS sqlinbox_due,
    0 AS sqlinbox_part
  FROM
    `jobs` q
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    TRUE
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND TRUE
  ORDER BY
    q.`id`
  LIMIT
    ?
)
ORDER BY
  sqlinbox_part,
  sqlinbox_id;

-- FIFO claim: the row lock select of the candidates
-- params: [1,2,10]
-- text: 236 characters, sha256 b6ef4757f2577404
SELECT
  q.*
FROM
  `jobs` q
WHERE
  TRUE
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- take, then: the row
-- params: [7]
-- text: 35 characters, sha256 ee953d1374eda757
SELECT
  *
FROM
  `jobs`
WHERE
  `id` = ?;

-- stats: keys in use
-- params: ["k-"]
-- text: 498 characters, sha256 dab9c10755eefffd
SELECT
  COUNT(*) AS n
FROM
  (
    SELECT
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      TRUE
  ) c
WHERE
  IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NOT NULL;


-- =================================================================================================
-- lease, priority (table jobs, lease form)
-- =================================================================================================
-- ddl
-- text: 323 characters, sha256 8b6257c583defefe
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `priority` INT NOT NULL DEFAULT 0,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_priority` (`priority` DESC, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 151 characters, sha256 34ff9617cd926568
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`priority` DESC,
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 296f6a6799918faa
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,3]
-- text: 70 characters, sha256 8f601805d02222ea
INSERT INTO
  `jobs` (`payload`, `attempt`, `priority`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,3,"{\"n\":2}",0]
-- text: 87 characters, sha256 b1cf7ad8cab5c0be
INSERT INTO
  `jobs` (`payload`, `attempt`, `priority`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 239 characters, sha256 e929bbf0586733e5
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 110 characters, sha256 b54f40c995d6927c
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 144 characters, sha256 bf41b996a7673f69
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 70bfbfde319f2d56
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 197 characters, sha256 dca70d552d04742c
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 142 characters, sha256 9551db3d67c7e852
SELECT
  r.*
FROM
  `jobs` r
WHERE
  (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 b5445cc229e01b3a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 82 characters, sha256 e4b40672c0448e32
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`priority` DESC,
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;


-- =================================================================================================
-- lease, unique key, processed_at (table jobs, lease form)
-- =================================================================================================
-- ddl
-- text: 527 characters, sha256 68b54f2533d2b13c
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `processed_at` DATETIME(3) NULL,
  `unique_key` VARCHAR(255) NULL,
  `sqlinbox_key_active` VARCHAR(255) GENERATED ALWAYS AS (IF (`processed_at` IS NULL, `unique_key`, NULL)) STORED,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_claim` (`processed_at`, `id`),
  UNIQUE INDEX `sqlinbox_unique_key` (`sqlinbox_key_active`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 161 characters, sha256 dc934dc14af65bd3
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",1,2]
-- text: 112 characters, sha256 b3aac2e1d40b71a6
UPDATE `jobs` AS t
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: ["2025-01-01 00:00:00.000",7,"2025-01-01 00:00:00.000"]
-- text: 106 characters, sha256 1ed9077d3d476069
UPDATE `jobs` AS q
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle retry
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 296f6a6799918faa
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 55 characters, sha256 e702c7f9a4f0e3fe
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 63 characters, sha256 5b42acf176c2b051
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?),
  (?, ?);

-- insertKeyed
-- params: ["{\"n\":1}",0,"k1"]
-- text: 124 characters, sha256 64b0a9d7ec66898f
INSERT INTO
  `jobs` (`payload`, `attempt`, `unique_key`)
VALUES
  (?, ?, ?)
ON DUPLICATE KEY UPDATE
  `id` = LAST_INSERT_ID(`id`);

-- keyHolder
-- params: ["k1"]
-- text: 73 characters, sha256 0e8083a65925b035
SELECT
  `id`
FROM
  `jobs`
WHERE
  `unique_key` = ?
  AND `processed_at` IS NULL;

-- insertReplacing
-- params: ["{\"n\":2}",0,"k1"]
-- text: 185 characters, sha256 a6a9a535c3f81346
INSERT INTO
  `jobs` (`payload`, `attempt`, `unique_key`)
VALUES
  (?, ?, ?)
ON DUPLICATE KEY UPDATE
  `payload` = IF (
    `attempt` < 1,
    VALUES
      (`payload`),
      `payload`
  ),
  `id` = LAST_INSERT_ID(`id`);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 297 characters, sha256 3fdd8ddf8e90b649
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 139 characters, sha256 0b3c1e0f68fec326
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 173 characters, sha256 07b4172c976667ee
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      q.`processed_at` IS NULL
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 237 characters, sha256 0074a5ef0c82f8d6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`processed_at` IS NOT NULL THEN 'done'
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 243 characters, sha256 adc40b2a9b2608e2
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`processed_at` IS NOT NULL THEN 'done'
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 171 characters, sha256 ec9b3ee8a7bc1927
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`processed_at` IS NULL
  AND (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 b5445cc229e01b3a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claimLease from an id (n 10, from 4000)
-- params: ["4000","2025-01-01 00:00:00.000",10]
-- text: 193 characters, sha256 4fef687e75713cc5
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimLease, a window of the sweep (n 10, from 2000, below 4000)
-- params: ["2000","4000","2025-01-01 00:00:00.000",10]
-- text: 224 characters, sha256 275c94679e1bb38f
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`id` < CAST(? AS SIGNED)
  AND q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 87 characters, sha256 90a98319f5b2c09d
UPDATE `jobs` AS q
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);


-- =================================================================================================
-- lease, per-key concurrency (table jobs, lease form)
-- =================================================================================================
-- ddl
-- text: 324 characters, sha256 8d86662d03afdb71
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `account` VARCHAR(255) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_concurrency` (`account`, `locked_until`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 132 characters, sha256 2ebd963972eb4a1a
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimTurn
-- params: ["sqlinbox.concurrency:jobs","sqlinbox.concurrency:jobs","sqlinbox.concurrency:jobs",10]
-- text: 324 characters, sha256 67b30f456396a45a
SELECT
  GET_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    ),
    ?
  ) AS ok;

-- claimLeaseByKey (n 10)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",2,20,2,10,"2025-01-01 00:00:00.000"]
-- text: 740 characters, sha256 69be70ed6370790e
UPDATE `jobs` AS t
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  t.`id` IN (
    SELECT
      x.`id`
    FROM
      (
        SELECT
          c.`id`,
          c.`account`,
          ROW_NUMBER() OVER (
            PARTITION BY
              c.`account`
            ORDER BY
              c.`id`
          ) AS `sqlinbox_rank`,
          (
            SELECT
              COUNT(*)
            FROM
              `jobs` w
            WHERE
              w.`account` = c.`account`
              AND w.`locked_until` > ?
          ) AS `sqlinbox_in_work`
        FROM
          (
            SELECT
              q.`id`,
              q.`account`
            FROM
              `jobs` q
            WHERE
              (
                q.`locked_until` IS NULL
                OR q.`locked_until` <= ?
              )
              AND (
                q.`account` IS NULL
                OR (
                  SELECT
                    COUNT(*)
                  FROM
                    `jobs` w
                  WHERE
                    w.`account` = q.`account`
                    AND w.`locked_until` > ?
                ) < ?
              )
            ORDER BY
              q.`id`
            LIMIT
              ?
          ) c
      ) x
    WHERE
      (
        x.`account` IS NULL
        OR x.`sqlinbox_rank` <= ? - x.`sqlinbox_in_work`
      )
    ORDER BY
      x.`id`
    LIMIT
      ?
  )
  AND (
    t.`locked_until` IS NULL
    OR t.`locked_until` <= ?
  );

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 296f6a6799918faa
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 55 characters, sha256 e702c7f9a4f0e3fe
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 63 characters, sha256 5b42acf176c2b051
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?),
  (?, ?);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 239 characters, sha256 e929bbf0586733e5
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 110 characters, sha256 b54f40c995d6927c
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 144 characters, sha256 bf41b996a7673f69
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 70bfbfde319f2d56
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 197 characters, sha256 dca70d552d04742c
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 142 characters, sha256 9551db3d67c7e852
SELECT
  r.*
FROM
  `jobs` r
WHERE
  (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 b5445cc229e01b3a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;

-- per-key concurrency: the front of the queue
-- params: ["2025-01-01 00:00:00.000",100]
-- text: 122 characters, sha256 73fbece95a538d43
SELECT
  f.`id`,
  f.`account`
FROM
  `jobs` f
WHERE
  (
    f.`locked_until` IS NULL
    OR f.`locked_until` <= ?
  )
ORDER BY
  f.`id`
LIMIT
  ?;

-- per-key concurrency: rows in work of the keys read
-- params: ["a","b","2025-01-01 00:00:00.000"]
-- text: 126 characters, sha256 c85682fe260c9d58
SELECT
  w.`account` AS k,
  COUNT(*) AS n
FROM
  `jobs` w
WHERE
  w.`account` IN (?, ?)
  AND w.`locked_until` > ?
GROUP BY
  w.`account`;

-- per-key concurrency: full keys ahead, keys to look in (the first, the next after two known, the newest rows)
-- params: ["a","b",60,60]
-- text: 324 characters, sha256 5b747f6448efd591
SELECT
  k
FROM
  (
    SELECT
      MIN(m.`account`) AS k
    FROM
      `jobs` m
    UNION
    SELECT
      MIN(m.`account`)
    FROM
      `jobs` m
    WHERE
      m.`account` > ?
    UNION
    SELECT
      MIN(m.`account`)
    FROM
      `jobs` m
    WHERE
      m.`account` > ?
    UNION
    SELECT
      r.k
    FROM
      (
        SELECT
          m.`account` AS k
        FROM
          `jobs` m
        ORDER BY
          m.`id` DESC
        LIMIT
          ?
      ) r
  ) x
WHERE
  k IS NOT NULL
ORDER BY
  k
LIMIT
  ?;

-- per-key concurrency: full keys ahead, the keys' first rows
-- params: ["a","2025-01-01 00:00:00.000",1,"b","2025-01-01 00:00:00.000",1]
-- text: 357 characters, sha256 8158b7aec783a380
(
  SELECT
    b.`id`,
    b.`account`
  FROM
    `jobs` b
  WHERE
    b.`account` = ?
    AND b.`locked_until` IS NULL
    AND (
      b.`locked_until` IS NULL
      OR b.`locked_until` <= ?
    )
  ORDER BY
    b.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    b.`id`,
    b.`account`
  FROM
    `jobs` b
  WHERE
    b.`account` = ?
    AND b.`locked_until` IS NULL
    AND (
      b.`locked_until` IS NULL
      OR b.`locked_until` <= ?
    )
  ORDER BY
    b.`id`
  LIMIT
    ?
);

-- per-key concurrency: the update of the rows still due
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000"]
-- text: 147 characters, sha256 922abeafd696c55d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?)
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- per-key concurrency: the rows it leased
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 88 characters, sha256 22c272a9896a9afc
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
  AND q.`locked_until` = ?
ORDER BY
  q.`id`;

-- per-key concurrency: the turn released
-- params: ["sqlinbox.concurrency:jobs","sqlinbox.concurrency:jobs","sqlinbox.concurrency:jobs"]
-- text: 325 characters, sha256 4707a4a38f1f6726
SELECT
  RELEASE_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    )
  ) AS ok;


-- =================================================================================================
-- lease, rate limit, schedules, control, steps (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 5
-- text: 233 characters, sha256 ffea7d92e6695f09
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 5
-- text: 145 characters, sha256 6cd3f849520f8b37
CREATE TABLE IF NOT EXISTS `sqlinbox_schedules` (
  `name` VARCHAR(255) NOT NULL,
  `tick` DATETIME(3) NOT NULL,
  PRIMARY KEY (`name`, `tick`)
);

-- ddl, 3 of 5
-- text: 260 characters, sha256 66275f8335f67ede
CREATE TABLE IF NOT EXISTS `sqlinbox_rates` (
  `name` VARCHAR(255) NOT NULL,
  `window_start` BIGINT NOT NULL DEFAULT 0,
  `used` INTEGER NOT NULL DEFAULT 0,
  `granted` INTEGER NOT NULL DEFAULT 0,
  `at_ms` BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (`name`)
);

-- ddl, 4 of 5
-- text: 259 characters, sha256 a3dae447b3a951cf
CREATE TABLE IF NOT EXISTS `sqlinbox_control` (
  `queue_name` VARCHAR(255) NOT NULL,
  `kind` VARCHAR(16) NOT NULL,
  `target` VARCHAR(255) NOT NULL,
  `reason` VARCHAR(2000),
  `requested_at` BIGINT NOT NULL,
  PRIMARY KEY (`queue_name`, `kind`, `target`)
);

-- ddl, 5 of 5
-- text: 271 characters, sha256 efd1c63433f9cdb2
CREATE TABLE IF NOT EXISTS `sqlinbox_steps` (
  `queue_name` VARCHAR(255) NOT NULL,
  `row_id` VARCHAR(255) NOT NULL,
  `step_name` VARCHAR(255) NOT NULL,
  `result` LONGTEXT NOT NULL,
  `finished_at` BIGINT NOT NULL,
  PRIMARY KEY (`queue_name`, `row_id`, `step_name`)
);

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 132 characters, sha256 2ebd963972eb4a1a
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 296f6a6799918faa
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 55 characters, sha256 e702c7f9a4f0e3fe
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 63 characters, sha256 5b42acf176c2b051
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?),
  (?, ?);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 239 characters, sha256 e929bbf0586733e5
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 110 characters, sha256 b54f40c995d6927c
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 144 characters, sha256 bf41b996a7673f69
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 70bfbfde319f2d56
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 197 characters, sha256 dca70d552d04742c
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 142 characters, sha256 9551db3d67c7e852
SELECT
  r.*
FROM
  `jobs` r
WHERE
  (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 b5445cc229e01b3a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- schedules recordTick
-- params: ["nightly","2025-01-01 00:00:00.000"]
-- text: 70 characters, sha256 e850c619b192000b
INSERT IGNORE INTO
  `sqlinbox_schedules` (`name`, `tick`)
VALUES
  (?, ?);

-- schedules lastTick
-- params: ["nightly"]
-- text: 71 characters, sha256 54d75aa4a18ba4ac
SELECT
  MAX(`tick`) AS `tick`
FROM
  `sqlinbox_schedules`
WHERE
  `name` = ?;

-- schedules pruneTicks
-- params: ["nightly","2025-01-01 00:00:00.000"]
-- text: 64 characters, sha256 6833e0e3b1a3b6e3
DELETE FROM `sqlinbox_schedules`
WHERE
  `name` = ?
  AND `tick` < ?;

-- rates rateRow
-- params: ["jobs"]
-- text: 55 characters, sha256 b801195343e9329d
INSERT IGNORE INTO
  `sqlinbox_rates` (`name`)
VALUES
  (?);

-- rates reserveRate
-- params: [50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,50,1000,1000,50,1000,1000,10,50,1000,1000,10,1000,1000,"jobs"]
-- text: 1409 characters, sha256 89983f76bace6557
UPDATE `sqlinbox_rates` AS b
SET
  `granted` = (
    CASE
      WHEN (
        ? - (
          CASE
            WHEN `window_start` = (
              (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
            ) * ? THEN `used`
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        ? - (
          CASE
            WHEN `window_start` = (
              (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
            ) * ? THEN `used`
            ELSE 0
          END
        )
      ) < ? THEN (
        ? - (
          CASE
            WHEN `window_start` = (
              (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
            ) * ? THEN `used`
            ELSE 0
          END
        )
      )
      ELSE ?
    END
  ),
  `used` = (
    CASE
      WHEN `window_start` = (
        (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
      ) * ? THEN `used`
      ELSE 0
    END
  ) + (
    CASE
      WHEN (
        ? - (
          CASE
            WHEN `window_start` = (
              (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
            ) * ? THEN `used`
            ELSE 0
          END
        )
      ) <= 0 THEN 0
      WHEN (
        ? - (
          CASE
            WHEN `window_start` = (
              (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
            ) * ? THEN `used`
            ELSE 0
          END
        )
      ) < ? THEN (
        ? - (
          CASE
            WHEN `window_start` = (
              (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
            ) * ? THEN `used`
            ELSE 0
          END
        )
      )
      ELSE ?
    END
  ),
  `window_start` = (
    (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000) DIV ?
  ) * ?,
  `at_ms` = (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000)
WHERE
  b.`name` = ?;

-- rates returnRate
-- params: [4,4,"jobs",1735689600000]
-- text: 133 characters, sha256 bc684acbec956bc9
UPDATE `sqlinbox_rates` AS b
SET
  `used` = CASE
    WHEN `used` > ? THEN `used` - ?
    ELSE 0
  END
WHERE
  b.`name` = ?
  AND b.`window_start` = ?;

-- rates rateState
-- params: ["jobs"]
-- text: 47 characters, sha256 8c3ae3aabe363434
SELECT
  *
FROM
  `sqlinbox_rates`
WHERE
  `name` = ?;

-- control readControl
-- params: ["jobs"]
-- text: 97 characters, sha256 6e3450009e000361
SELECT
  `queue_name`,
  `kind`,
  `target`,
  `reason`
FROM
  `sqlinbox_control`
WHERE
  `queue_name` IN (?);

-- control writeControl
-- params: ["jobs","pause_group","acme"]
-- text: 183 characters, sha256 d800b2ad85d76d34
INSERT IGNORE INTO
  `sqlinbox_control` (`queue_name`, `kind`, `target`, `requested_at`)
VALUES
  (
    ?,
    ?,
    ?,
    (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000)
  );

-- control writeControl cancel
-- params: ["jobs","cancel","41","withdrawn"]
-- text: 196 characters, sha256 1f33765b24bc5148
INSERT IGNORE INTO
  `sqlinbox_control` (`queue_name`, `kind`, `target`, `reason`, `requested_at`)
VALUES
  (
    ?,
    ?,
    ?,
    ?,
    (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000)
  );

-- control deleteControl
-- params: ["jobs","pause_group","acme"]
-- text: 85 characters, sha256 89bd83a0fb277409
DELETE FROM `sqlinbox_control`
WHERE
  `queue_name` = ?
  AND `kind` = ?
  AND `target` = ?;

-- control sweepCancels
-- params: ["jobs","cancel","41","41","42","42"]
-- text: 221 characters, sha256 79f3f919099cfbf5
DELETE FROM `sqlinbox_control`
WHERE
  `queue_name` = ?
  AND `kind` = ?
  AND (
    (
      `target` = ?
      AND NOT EXISTS (
        SELECT
          1
        FROM
          `jobs` x
        WHERE
          x.`id` = ?
      )
    )
    OR (
      `target` = ?
      AND NOT EXISTS (
        SELECT
          1
        FROM
          `jobs` x
        WHERE
          x.`id` = ?
      )
    )
  );

-- steps readSteps
-- params: ["jobs","41"]
-- text: 90 characters, sha256 ff85345d401e1a0f
SELECT
  `step_name`,
  `result`
FROM
  `sqlinbox_steps`
WHERE
  `queue_name` = ?
  AND `row_id` = ?;

-- steps writeStep
-- params: ["jobs","41","charge card","{\"value\":{\"charge\":\"ch_1\"}}"]
-- text: 198 characters, sha256 dd80e2ad585a22f0
INSERT IGNORE INTO
  `sqlinbox_steps` (`queue_name`, `row_id`, `step_name`, `result`, `finished_at`)
VALUES
  (
    ?,
    ?,
    ?,
    ?,
    (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000)
  );

-- steps deleteSteps
-- params: ["jobs","41","42"]
-- text: 74 characters, sha256 bf48f9ee2001700e
DELETE FROM `sqlinbox_steps`
WHERE
  `queue_name` = ?
  AND `row_id` IN (?, ?);

-- steps stepRows
-- params: ["jobs",500]
-- text: 137 characters, sha256 9989ff493d0bd9ac
SELECT
  `row_id`,
  MAX(`finished_at`) AS `last_ms`
FROM
  `sqlinbox_steps`
WHERE
  `queue_name` = ?
GROUP BY
  `row_id`
ORDER BY
  `row_id`
LIMIT
  ?;

-- steps stepRows after a cursor
-- params: ["jobs","41",500]
-- text: 154 characters, sha256 bbed47e5f7f02998
SELECT
  `row_id`,
  MAX(`finished_at`) AS `last_ms`
FROM
  `sqlinbox_steps`
WHERE
  `queue_name` = ?
  AND `row_id` > ?
GROUP BY
  `row_id`
ORDER BY
  `row_id`
LIMIT
  ?;

-- steps deleteStepsUpTo
-- params: ["jobs","41","1735689600000","42","1735689600500"]
-- text: 136 characters, sha256 fa6d44ed6d0577c3
DELETE FROM `sqlinbox_steps`
WHERE
  `queue_name` = ?
  AND (
    (
      `row_id` = ?
      AND `finished_at` <= ?
    )
    OR (
      `row_id` = ?
      AND `finished_at` <= ?
    )
  );

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claimLease from an id (n 10, from 4000)
-- params: ["4000","2025-01-01 00:00:00.000",10]
-- text: 164 characters, sha256 d2eb51ff2f0d0560
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimLease, a window of the sweep (n 10, from 2000, below 4000)
-- params: ["2000","4000","2025-01-01 00:00:00.000",10]
-- text: 195 characters, sha256 cb3a1f39438d4f17
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`id` < CAST(? AS SIGNED)
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;


-- =================================================================================================
-- lease, flows (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 7
-- text: 267 characters, sha256 011173975c3f4a07
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `retry_after` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 7
-- text: 329 characters, sha256 91b87faae08a2808
CREATE TABLE IF NOT EXISTS `sqlinbox_flow` (
  `queue_name` VARCHAR(255) NOT NULL,
  `child_id` VARCHAR(255) NOT NULL,
  `parent_id` VARCHAR(255) NOT NULL,
  `child_name` VARCHAR(255) NOT NULL,
  `state` VARCHAR(16) NOT NULL,
  `error` VARCHAR(2000),
  `settled_ms` BIGINT,
  PRIMARY KEY (`queue_name`, `child_id`, `parent_id`)
);

-- ddl, 3 of 7
-- text: 288 characters, sha256 bead2b30051e9466
CREATE TABLE IF NOT EXISTS `sqlinbox_flow_parent` (
  `queue_name` VARCHAR(255) NOT NULL,
  `parent_id` VARCHAR(255) NOT NULL,
  `pending` INTEGER NOT NULL,
  `dead` INTEGER NOT NULL,
  `policy` VARCHAR(16) NOT NULL,
  `woken` INTEGER NOT NULL,
  PRIMARY KEY (`queue_name`, `parent_id`)
);

-- ddl, 4 of 7
-- text: 275 characters, sha256 857a7b6ca2120d48
SET
  @sqlinbox_ddl = IF (
    (
      SELECT
        COUNT(*)
      FROM
        information_schema.STATISTICS
      WHERE
        TABLE_SCHEMA = DATABASE ()
        AND TABLE_NAME = 'sqlinbox_flow'
        AND INDEX_NAME = 'sqlinbox_by_parent'
    ) > 0,
    'DO 0',
    'CREATE INDEX `sqlinbox_by_parent` ON `sqlinbox_flow` (`queue_name`, `parent_id`)'
  );

-- ddl, 5 of 7
-- text: 39 characters, sha256 d9516b389e34e9f8
PREPARE sqlinbox_ddl
FROM
  @sqlinbox_ddl;

-- ddl, 6 of 7
-- text: 20 characters, sha256 368d8a58ac20a55b
EXECUTE sqlinbox_ddl;

-- ddl, 7 of 7
-- text: 31 characters, sha256 39d7dc8fba80ac34
DEALLOCATE PREPARE sqlinbox_ddl;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 186 characters, sha256 dcea7c86d5b01706
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7,"2025-01-01 00:00:00.000"]
-- text: 132 characters, sha256 30bc4067997a189d
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000"]
-- text: 73 characters, sha256 e758fdece6ba46cc
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 90 characters, sha256 fe584f03095bdfab
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 421 characters, sha256 62ca9f362d007c0d
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q.`locked_until` IS NOT NULL
          AND q.`locked_until` > ?
        )
        AND q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        )
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 175 characters, sha256 762bf4443f8edf6b
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 198 characters, sha256 40035521c1e94259
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","ready",3,50]
-- text: 231 characters, sha256 bc0a597530754d80
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 237 characters, sha256 56fd7829f036c352
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 142 characters, sha256 9551db3d67c7e852
SELECT
  r.*
FROM
  `jobs` r
WHERE
  (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 104 characters, sha256 b005f104775a6a6a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- flows insertParent
-- params: ["jobs","7",2,"dead"]
-- text: 126 characters, sha256 71c753049e952844
INSERT INTO
  `sqlinbox_flow_parent` (`queue_name`, `parent_id`, `pending`, `dead`, `policy`, `woken`)
VALUES
  (?, ?, ?, 0, ?, 0);

-- flows insertEdge
-- params: ["jobs","5","7","charge"]
-- text: 121 characters, sha256 66adb77025159d02
INSERT INTO
  `sqlinbox_flow` (`queue_name`, `child_id`, `parent_id`, `child_name`, `state`)
VALUES
  (?, ?, ?, ?, 'pending');

-- flows pendingEdges
-- params: ["jobs",500]
-- text: 173 characters, sha256 a2e3d320fd88b938
SELECT
  `parent_id`,
  `child_id`,
  `child_name`,
  `state`,
  `error`
FROM
  `sqlinbox_flow` f
WHERE
  `queue_name` = ?
  AND `state` = 'pending'
ORDER BY
  `child_id`,
  `parent_id`
LIMIT
  ?;

-- flows pendingEdges of children
-- params: ["jobs","5","6",500]
-- text: 198 characters, sha256 475326e7e7f48fe2
SELECT
  `parent_id`,
  `child_id`,
  `child_name`,
  `state`,
  `error`
FROM
  `sqlinbox_flow` f
WHERE
  `queue_name` = ?
  AND `state` = 'pending'
  AND `child_id` IN (?, ?)
ORDER BY
  `child_id`,
  `parent_id`
LIMIT
  ?;

-- flows pendingEdges after a cursor
-- params: ["jobs","42",500]
-- text: 192 characters, sha256 37294aae87b13126
SELECT
  `parent_id`,
  `child_id`,
  `child_name`,
  `state`,
  `error`
FROM
  `sqlinbox_flow` f
WHERE
  `queue_name` = ?
  AND `state` = 'pending'
  AND `child_id` > ?
ORDER BY
  `child_id`,
  `parent_id`
LIMIT
  ?;

-- flows settleEdge
-- params: ["dead","boom","jobs","5","7"]
-- text: 237 characters, sha256 dfa998863b11f7d6
UPDATE `sqlinbox_flow` AS f
SET
  `state` = ?,
  `error` = ?,
  `settled_ms` = (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000)
WHERE
  `queue_name` = ?
  AND `child_id` = ?
  AND `parent_id` = ?
  AND `state` = 'pending';

-- flows settleEdges
-- params: ["jobs","7","5","6"]
-- text: 235 characters, sha256 d26182833f886031
UPDATE `sqlinbox_flow` AS f
SET
  `state` = 'done',
  `settled_ms` = (TIMESTAMPDIFF (MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP (3)) DIV 1000)
WHERE
  `queue_name` = ?
  AND `parent_id` = ?
  AND `child_id` IN (?, ?)
  AND `state` = 'pending';

-- flows countDown
-- params: ["jobs","7"]
-- text: 128 characters, sha256 dc714a070360bd2b
UPDATE `sqlinbox_flow_parent` AS f
SET
  `pending` = `pending` - 1,
  `dead` = `dead` + 1
WHERE
  `queue_name` = ?
  AND `parent_id` = ?;

-- flows countDown by 3
-- params: [3,"jobs","7"]
-- text: 107 characters, sha256 a9e6e64056edbf2c
UPDATE `sqlinbox_flow_parent` AS f
SET
  `pending` = `pending` - ?
WHERE
  `queue_name` = ?
  AND `parent_id` = ?;

-- flows markWoken
-- params: ["jobs","7"]
-- text: 109 characters, sha256 e6bd9dbf4bfa957c
UPDATE `sqlinbox_flow_parent` AS f
SET
  `woken` = 1
WHERE
  `queue_name` = ?
  AND `parent_id` = ?
  AND `woken` = 0;

-- flows edgesBy
-- params: ["jobs","7"]
-- text: 129 characters, sha256 ff9c8f81530045d6
SELECT
  `parent_id`,
  `child_id`,
  `child_name`,
  `state`,
  `error`
FROM
  `sqlinbox_flow`
WHERE
  `queue_name` = ?
  AND `parent_id` IN (?);

-- flows parentsOf
-- params: ["jobs","7"]
-- text: 130 characters, sha256 7f5b62ee032e8397
SELECT
  `parent_id`,
  `pending`,
  `dead`,
  `policy`,
  `woken`
FROM
  `sqlinbox_flow_parent`
WHERE
  `queue_name` = ?
  AND `parent_id` IN (?);

-- flows settledEdges
-- params: ["jobs",1000]
-- text: 174 characters, sha256 9eb60b9a1df8bc45
SELECT
  `parent_id`,
  `child_id`,
  `child_name`,
  `state`,
  `error`
FROM
  `sqlinbox_flow` f
WHERE
  `queue_name` = ?
  AND `state` <> 'pending'
ORDER BY
  `child_id`,
  `parent_id`
LIMIT
  ?;

-- flows settledEdges after a cursor
-- params: ["jobs","5","5","7",1000]
-- text: 234 characters, sha256 fcc5ac5a3148e542
SELECT
  `parent_id`,
  `child_id`,
  `child_name`,
  `state`,
  `error`
FROM
  `sqlinbox_flow` f
WHERE
  `queue_name` = ?
  AND `state` <> 'pending'
  AND `child_id` >= ?
  AND (
    `child_id` > ?
    OR `parent_id` > ?
  )
ORDER BY
  `child_id`,
  `parent_id`
LIMIT
  ?;

-- flows deleteEdges
-- params: ["jobs","5","7","6","7"]
-- text: 158 characters, sha256 99b4bf78316292d0
DELETE FROM `sqlinbox_flow`
WHERE
  `queue_name` = ?
  AND `state` <> 'pending'
  AND (
    (
      `child_id` = ?
      AND `parent_id` = ?
    )
    OR (
      `child_id` = ?
      AND `parent_id` = ?
    )
  );

-- flows settledParents
-- params: ["jobs",1000]
-- text: 173 characters, sha256 d91f1e556ff9b524
SELECT
  `parent_id`,
  `pending`,
  `dead`,
  `policy`,
  `woken`
FROM
  `sqlinbox_flow_parent` f
WHERE
  `queue_name` = ?
  AND `woken` = 1
  AND `pending` <= 0
ORDER BY
  `parent_id`
LIMIT
  ?;

-- flows settledParents after a cursor
-- params: ["jobs","7",1000]
-- text: 193 characters, sha256 90d791b5511281d6
SELECT
  `parent_id`,
  `pending`,
  `dead`,
  `policy`,
  `woken`
FROM
  `sqlinbox_flow_parent` f
WHERE
  `queue_name` = ?
  AND `woken` = 1
  AND `pending` <= 0
  AND `parent_id` > ?
ORDER BY
  `parent_id`
LIMIT
  ?;

-- flows deleteParents
-- params: ["jobs","7","8"]
-- text: 118 characters, sha256 bb3bbf7d5e11140c
DELETE FROM `sqlinbox_flow_parent`
WHERE
  `queue_name` = ?
  AND `woken` = 1
  AND `pending` <= 0
  AND `parent_id` IN (?, ?);

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claimLease from an id (n 10, from 4000)
-- params: ["4000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 218 characters, sha256 42312f4411fcc21c
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimLease, a window of the sweep (n 10, from 2000, below 4000)
-- params: ["2000","4000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 249 characters, sha256 26aaf41b6ce6cb61
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`id` < CAST(? AS SIGNED)
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;


-- =================================================================================================
-- row lock, processed_at, skipped ids (a relay) (table outbox, rowlock form)
-- =================================================================================================
-- ddl
-- text: 280 characters, sha256 d3e6e2a47cc22ebd
CREATE TABLE IF NOT EXISTS `outbox` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `relayed_at` DATETIME(3) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_claim` (`relayed_at`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLocked (n 10)
-- params: ["[\"3\",\"5\",\"8\"]",10]
-- text: 161 characters, sha256 79893d603a3d7247
SELECT
  q.*
FROM
  `outbox` q
WHERE
  q.`relayed_at` IS NULL
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR)))
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- settle ack
-- params: ["2025-01-01 00:00:00.000",7]
-- text: 85 characters, sha256 38646b2a47bdf55d
UPDATE `outbox` AS q
SET
  `relayed_at` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- settle retry
-- params: [7]
-- text: 67 characters, sha256 388987e9d7c7393b
UPDATE `outbox` AS q
SET
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 57 characters, sha256 33e7f1e04646a185
INSERT INTO
  `outbox` (`payload`, `attempt`)
VALUES
  (?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 65 characters, sha256 881cc8c1d08c09b4
INSERT INTO
  `outbox` (`payload`, `attempt`)
VALUES
  (?, ?),
  (?, ?);

-- stats
-- params: ["[\"3\",\"5\",\"8\"]"]
-- text: 206 characters, sha256 af2379f60ca39200
SELECT
  0 AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`relayed_at` IS NULL
        AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR))) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `outbox` q;

-- dueRows
-- params: ["[\"3\",\"5\",\"8\"]"]
-- text: 142 characters, sha256 21522fd1ce0be076
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `outbox` q
WHERE
  q.`relayed_at` IS NULL
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR)));

-- lockable
-- params: ["[\"3\",\"5\",\"8\"]"]
-- text: 176 characters, sha256 454d123ffef1f750
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `outbox` q
    WHERE
      q.`relayed_at` IS NULL
      AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR))) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 197 characters, sha256 1d7e97d62e9caa11
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`relayed_at` IS NOT NULL THEN 'done'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `outbox` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 203 characters, sha256 ac67b4054c827889
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`relayed_at` IS NOT NULL THEN 'done'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `outbox` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 115 characters, sha256 d6f70b34eecf3e14
SELECT
  r.*
FROM
  `outbox` r
WHERE
  r.`relayed_at` IS NULL
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 61 characters, sha256 743420bb93757631
UPDATE `outbox` AS q
SET
  `attempt` = 0
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 41 characters, sha256 e470dfd212b214e1
DELETE FROM `outbox`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- stats: due rows no transaction locks
-- params: ["[\"3\",\"5\",\"8\"]"]
-- text: 140 characters, sha256 0fec0d8f7ca6530b
SELECT
  q.`id`
FROM
  `outbox` q
WHERE
  q.`relayed_at` IS NULL
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR))) FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- lease, processed_at, skipped ids (a relay) (table outbox, lease form)
-- =================================================================================================
-- ddl
-- text: 315 characters, sha256 c5b3deb180097774
CREATE TABLE IF NOT EXISTS `outbox` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `relayed_at` DATETIME(3) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_claim` (`relayed_at`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000","[\"3\",\"5\",\"8\"]",10]
-- text: 220 characters, sha256 7fdf1c779ab323ea
SELECT
  q.`id`
FROM
  `outbox` q
WHERE
  q.`relayed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR)))
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 91 characters, sha256 cc10f51e860606d3
UPDATE `outbox` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 157 characters, sha256 62075dfbcda84fb7
UPDATE `outbox` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",1,2]
-- text: 112 characters, sha256 4eacf08e4fd3d2b1
UPDATE `outbox` AS t
SET
  `relayed_at` = ?,
  `locked_until` = NULL
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 160 characters, sha256 e91cdc2a0159e612
UPDATE `outbox` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: ["2025-01-01 00:00:00.000",7,"2025-01-01 00:00:00.000"]
-- text: 106 characters, sha256 188ab17f961885c1
UPDATE `outbox` AS q
SET
  `relayed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle retry
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 115 characters, sha256 2ac3ddb08bd976b1
UPDATE `outbox` AS q
SET
  `attempt` = `attempt` + 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 115 characters, sha256 1957323a39c89645
UPDATE `outbox` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 57 characters, sha256 33e7f1e04646a185
INSERT INTO
  `outbox` (`payload`, `attempt`)
VALUES
  (?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 65 characters, sha256 881cc8c1d08c09b4
INSERT INTO
  `outbox` (`payload`, `attempt`)
VALUES
  (?, ?),
  (?, ?);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","[\"3\",\"5\",\"8\"]"]
-- text: 354 characters, sha256 7fe5c9057452e677
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`relayed_at` IS NULL
        AND q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`relayed_at` IS NULL
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        )
        AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR))) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  0 AS `dead`
FROM
  `outbox` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000","[\"3\",\"5\",\"8\"]"]
-- text: 198 characters, sha256 b9cc9048ff88c102
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `outbox` q
WHERE
  q.`relayed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR)));

-- lockable
-- params: ["2025-01-01 00:00:00.000","[\"3\",\"5\",\"8\"]"]
-- text: 232 characters, sha256 6e1fc7710d3f46b3
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `outbox` q
    WHERE
      q.`relayed_at` IS NULL
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      )
      AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR))) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 237 characters, sha256 601db7f54081d775
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`relayed_at` IS NOT NULL THEN 'done'
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `outbox` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 243 characters, sha256 4e6b42b34d01e925
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`relayed_at` IS NOT NULL THEN 'done'
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `outbox` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 171 characters, sha256 78507409505d70e3
SELECT
  r.*
FROM
  `outbox` r
WHERE
  r.`relayed_at` IS NULL
  AND (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead): none

-- admin fresh (to group g)
-- params: [4,5]
-- text: 84 characters, sha256 272e17626f52daac
UPDATE `outbox` AS q
SET
  `attempt` = 0,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 41 characters, sha256 e470dfd212b214e1
DELETE FROM `outbox`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 93 characters, sha256 201a6c95f7272e52
UPDATE `outbox` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claimLease from an id (n 10, from 4000)
-- params: ["4000","2025-01-01 00:00:00.000","[\"3\",\"5\",\"8\"]",10]
-- text: 252 characters, sha256 8af94e82fab74d06
SELECT
  q.`id`
FROM
  `outbox` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`relayed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR)))
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimLease, a window of the sweep (n 10, from 2000, below 4000)
-- params: ["2000","4000","2025-01-01 00:00:00.000","[\"3\",\"5\",\"8\"]",10]
-- text: 283 characters, sha256 df44d5dd36048623
SELECT
  q.`id`
FROM
  `outbox` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`id` < CAST(? AS SIGNED)
  AND q.`relayed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT JSON_CONTAINS(?, JSON_QUOTE(CAST(q.`id` AS CHAR)))
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 65 characters, sha256 8570a0a970524600
SELECT
  q.*
FROM
  `outbox` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 69 characters, sha256 c71203c4f2bc1b05
SELECT
  `id`
FROM
  `outbox`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 91 characters, sha256 9213a62c73fac769
SELECT
  `id`
FROM
  `outbox`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 87 characters, sha256 8db5dfa58383e532
UPDATE `outbox` AS q
SET
  `relayed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);


-- =================================================================================================
-- lease, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl
-- text: 347 characters, sha256 825453654ec292b0
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `retry_after` DATETIME(3) NULL,
  `fifo_group` VARCHAR(255) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_fifo` (`fifo_group`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10]
-- text: 366 characters, sha256 4a782f87ac1193ee
SELECT
  q.`id`,
  q.`fifo_group`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7,"2025-01-01 00:00:00.000"]
-- text: 132 characters, sha256 30bc4067997a189d
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01 00:00:00.000"]
-- text: 104 characters, sha256 ef0a4997130607c3
UPDATE `jobs` AS q
SET
  `fifo_group` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01 00:00:30.000"]
-- text: 90 characters, sha256 0d8be757d0aba185
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`, `retry_after`)
VALUES
  (?, ?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 116 characters, sha256 7520b8a6eafc30b7
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`, `retry_after`)
VALUES
  (?, ?, ?, ?),
  (?, ?, DEFAULT, DEFAULT);

-- stats
-- params: ["dead","2025-01-01 00:00:00.000","dead","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead","dead"]
-- text: 577 characters, sha256 2d358186db24ede4
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN NOT (q.`fifo_group` <=> ?)
        AND q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN NOT (q.`fifo_group` <=> ?)
        AND NOT (
          q.`locked_until` IS NOT NULL
          AND q.`locked_until` > ?
        )
        AND q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        )
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        )
        AND NOT (q.`fifo_group` <=> ?) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`fifo_group` = ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead"]
-- text: 206 characters, sha256 602d2096e8c8ee19
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?);

-- lockable
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead"]
-- text: 229 characters, sha256 55b363c0ffce45f6
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      )
      AND NOT (q.`fifo_group` <=> ?) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","ready",3,50]
-- text: 267 characters, sha256 19c8cb4649f53d6a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`fifo_group` = ? THEN 'dead'
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 273 characters, sha256 3d88e788de3e49ce
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`fifo_group` = ? THEN 'dead'
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["dead","2025-01-01 00:00:00.000",4,5]
-- text: 173 characters, sha256 99c526adbfb004b5
SELECT
  r.*
FROM
  `jobs` r
WHERE
  NOT (r.`fifo_group` <=> ?)
  AND (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- params: ["dead"]
-- text: 88 characters, sha256 b3887af45be36a37
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`fifo_group` = ?
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 122 characters, sha256 acaf8532b9ad36b2
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL,
  `locked_until` = NULL,
  `fifo_group` = ?
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;

-- the FIFO index, found on the server
-- params: [null,"jobs","fifo_group"]
-- text: 230 characters, sha256 c83645cd354885b4
SELECT
  INDEX_NAME AS `name`
FROM
  information_schema.STATISTICS
WHERE
  TABLE_SCHEMA = COALESCE(?, DATABASE ())
  AND TABLE_NAME = ?
  AND SEQ_IN_INDEX = 1
  AND COLUMN_NAME = ?
ORDER BY
  INDEX_NAME = 'sqlinbox_fifo' DESC,
  INDEX_NAME
LIMIT
  1;

-- headGuard through the FIFO index (id 7, group g)
-- params: ["g",7]
-- text: 124 characters, sha256 13075defb7a48a5d
SELECT
  s.`id`
FROM
  `jobs` s FORCE INDEX (`sqlinbox_fifo`)
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
ORDER BY
  s.`id` FOR
UPDATE;

-- FIFO claim: its window of candidates (n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",64]
-- text: 302 characters, sha256 89c611e1ed93e042
SELECT
  q.`id` AS sqlinbox_id,
  q.`fifo_group` AS sqlinbox_group,
  CASE
    WHEN (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?) THEN 1
    ELSE 0
  END AS sqlinbox_due,
  0 AS sqlinbox_part
FROM
  `jobs` q
ORDER BY
  q.`id`
LIMIT
  ?;

-- FIFO claim: the candidates after the window (last 400, n 10)
-- params: [400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10,400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10]
-- text: 879 characters, sha256 1d7bebfedca2cfb8
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
  ORDER BY
    q.`id`
  LIMIT
    ?
);

-- FIFO claim: the window and the candidates after the last window (after 400, n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",64,400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10,400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10]
-- text: 1230 characters, sha256 81d2faccebb0ea77
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    CASE
      WHEN (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      )
      AND NOT (q.`fifo_group` <=> ?) THEN 1
      ELSE 0
    END AS sqlinbox_due,
    0 AS sqlinbox_part
  FROM
    `jobs` q
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
  ORDER BY
    q.`id`
  LIMIT
    ?
)
ORDER BY
  sqlinbox_part,
  sqlinbox_id;

-- FIFO claim: the row lock select of the candidates
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",1,2,10]
-- text: 368 characters, sha256 9ea4fbeee31c7f37
SELECT
  q.*
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- FIFO claim: the lease select of the candidates, tagged for their guards (UNION ALL headGuards)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",1,2,10]
-- text: 404 characters, sha256 e66b8f9553bc5b09
SELECT
  -1 AS sqlinbox_k,
  q.`id` AS sqlinbox_id
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- row lock, dead-letter table, schema-qualified (table app.jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 322 characters, sha256 3f29a7b321c001b2
CREATE TABLE IF NOT EXISTS `app`.`jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `retry_after` DATETIME(3) NULL,
  `processed_at` DATETIME(3) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_claim` (`processed_at`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 2
-- text: 263 characters, sha256 a2a93e2b1acbefff
CREATE TABLE IF NOT EXISTS `app`.`jobs_dead` (
  `id` BIGINT NOT NULL,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `retry_after` DATETIME(3) NULL,
  `processed_at` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLocked (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 162 characters, sha256 dbcc03692d252c60
SELECT
  q.*
FROM
  `app`.`jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- settle ack
-- params: ["2025-01-01 00:00:00.000",7]
-- text: 91 characters, sha256 1a77124da7b81cd3
UPDATE `app`.`jobs` AS q
SET
  `processed_at` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7]
-- text: 90 characters, sha256 8a9fb1db8ae4d9c1
UPDATE `app`.`jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?
WHERE
  q.`id` = ?;

-- countBeforeMove
-- params: [7]
-- text: 71 characters, sha256 1813b0e4d0478861
UPDATE `app`.`jobs` AS q
SET
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- moveToDeadLetter, 1 of 2
-- params: [7]
-- text: 71 characters, sha256 a84bda198caf47a3
INSERT INTO
  `app`.`jobs_dead`
SELECT
  *
FROM
  `app`.`jobs`
WHERE
  `id` = ?;

-- moveToDeadLetter, 2 of 2
-- params: [7]
-- text: 39 characters, sha256 493c066b0ef97691
DELETE FROM `app`.`jobs`
WHERE
  `id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000"]
-- text: 79 characters, sha256 5b8b4d4325953f7c
INSERT INTO
  `app`.`jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 96 characters, sha256 c3a9ab487c9bd15a
INSERT INTO
  `app`.`jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 339 characters, sha256 bdf894da7756313a
SELECT
  0 AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  (
    SELECT
      COUNT(*)
    FROM
      `app`.`jobs_dead`
  ) AS `dead`
FROM
  `app`.`jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 154 characters, sha256 61c711de2b6e137b
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `app`.`jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 177 characters, sha256 c64b3bbc5be68c1d
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `app`.`jobs` q
    WHERE
      q.`processed_at` IS NULL
      AND (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 243 characters, sha256 b15100e266557b9e
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`processed_at` IS NOT NULL THEN 'done'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `app`.`jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 153 characters, sha256 89813d611398c4ad
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      `app`.`jobs_dead` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 121 characters, sha256 9d4dd310262a4c68
SELECT
  r.*
FROM
  `app`.`jobs` r
WHERE
  r.`processed_at` IS NULL
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- text: 74 characters, sha256 ae863c125fe075cf
SELECT
  r.*
FROM
  `app`.`jobs_dead` r
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: [4,5]
-- text: 87 characters, sha256 db8ae71ece0b3394
UPDATE `app`.`jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 77 characters, sha256 42a833f03bb6c2bc
INSERT INTO
  `app`.`jobs`
SELECT
  *
FROM
  `app`.`jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 50 characters, sha256 b840306d65951ec3
DELETE FROM `app`.`jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 45 characters, sha256 4f93a3908a0cf524
DELETE FROM `app`.`jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 69 characters, sha256 1b975a5334b12046
UPDATE `app`.`jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- stats: due rows no transaction locks
-- params: ["2025-01-01 00:00:00.000"]
-- text: 141 characters, sha256 5c58553dad6be2bf
SELECT
  q.`id`
FROM
  `app`.`jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  ) FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- lease, retention, dead-letter group (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 477 characters, sha256 25fe0106e5ac5405
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `retry_after` DATETIME(3) NULL,
  `processed_at` DATETIME(3) NULL,
  `dead_at` DATETIME(3) NULL,
  `fifo_group` VARCHAR(255) NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_claim` (`processed_at`, `id`),
  INDEX `sqlinbox_fifo` (`fifo_group`, `processed_at`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 2
-- text: 145 characters, sha256 6cd3f849520f8b37
CREATE TABLE IF NOT EXISTS `sqlinbox_schedules` (
  `name` VARCHAR(255) NOT NULL,
  `tick` DATETIME(3) NOT NULL,
  PRIMARY KEY (`name`, `tick`)
);

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10]
-- text: 424 characters, sha256 788dcf7ceffb315e
SELECT
  q.`id`,
  q.`fifo_group`
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
        AND s.`processed_at` IS NULL
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",1,2]
-- text: 112 characters, sha256 b3aac2e1d40b71a6
UPDATE `jobs` AS t
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: ["2025-01-01 00:00:00.000",7,"2025-01-01 00:00:00.000"]
-- text: 106 characters, sha256 1ed9077d3d476069
UPDATE `jobs` AS q
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7,"2025-01-01 00:00:00.000"]
-- text: 132 characters, sha256 30bc4067997a189d
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle dead letter (group)
-- params: ["dead",7,"2025-01-01 00:00:00.000"]
-- text: 104 characters, sha256 ef0a4997130607c3
UPDATE `jobs` AS q
SET
  `fifo_group` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g","2025-01-01 00:00:30.000"]
-- text: 90 characters, sha256 0d8be757d0aba185
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`, `retry_after`)
VALUES
  (?, ?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 116 characters, sha256 7520b8a6eafc30b7
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`, `retry_after`)
VALUES
  (?, ?, ?, ?),
  (?, ?, DEFAULT, DEFAULT);

-- stats
-- params: ["dead","2025-01-01 00:00:00.000","dead","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead","dead"]
-- text: 693 characters, sha256 5c79c7fa08493412
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND NOT (q.`fifo_group` <=> ?)
        AND q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND NOT (q.`fifo_group` <=> ?)
        AND NOT (
          q.`locked_until` IS NOT NULL
          AND q.`locked_until` > ?
        )
        AND q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        )
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        )
        AND NOT (q.`fifo_group` <=> ?) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`fifo_group` = ?
        AND q.`processed_at` IS NULL THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead"]
-- text: 235 characters, sha256 d909242ef7400554
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?);

-- lockable
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead"]
-- text: 258 characters, sha256 baac60ebfb8f054e
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      q.`processed_at` IS NULL
      AND (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      )
      AND NOT (q.`fifo_group` <=> ?) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","ready",3,50]
-- text: 313 characters, sha256 f0455f8d57243397
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`fifo_group` = ? THEN 'dead'
        WHEN r.`processed_at` IS NOT NULL THEN 'done'
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",4,5,50]
-- text: 319 characters, sha256 3aadd3e0d6a4318a
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`fifo_group` = ? THEN 'dead'
        WHEN r.`processed_at` IS NOT NULL THEN 'done'
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["dead","2025-01-01 00:00:00.000",4,5]
-- text: 202 characters, sha256 fb822f5defbb944e
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`processed_at` IS NULL
  AND NOT (r.`fifo_group` <=> ?)
  AND (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- params: ["dead"]
-- text: 117 characters, sha256 d5d390a21510b6f1
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`fifo_group` = ?
  AND r.`processed_at` IS NULL
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 122 characters, sha256 acaf8532b9ad36b2
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL,
  `locked_until` = NULL,
  `fifo_group` = ?
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- retention pruneProcessed
-- params: ["2025-01-01 00:00:00.000",1000]
-- text: 161 characters, sha256 6c14a8bde01d08d3
SELECT
  `id`
FROM
  `jobs`
WHERE
  `processed_at` IS NOT NULL
  AND `processed_at` < ?
  AND `locked_until` IS NULL
ORDER BY
  `processed_at`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- retention markDead
-- params: ["2025-01-01 00:00:00.000","dead"]
-- text: 114 characters, sha256 fe2eaf9ccda7b650
UPDATE `jobs` AS q
SET
  `dead_at` = ?
WHERE
  q.`fifo_group` = ?
  AND q.`locked_until` IS NULL
  AND q.`dead_at` IS NULL;

-- retention pruneDead
-- params: ["dead","2025-01-01 00:00:00.000",1000]
-- text: 141 characters, sha256 66f71ee8badf51f8
SELECT
  `id`
FROM
  `jobs`
WHERE
  `fifo_group` = ?
  AND `locked_until` IS NULL
  AND `dead_at` < ?
ORDER BY
  `dead_at`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 87 characters, sha256 90a98319f5b2c09d
UPDATE `jobs` AS q
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- the FIFO index, found on the server
-- params: [null,"jobs","fifo_group"]
-- text: 230 characters, sha256 c83645cd354885b4
SELECT
  INDEX_NAME AS `name`
FROM
  information_schema.STATISTICS
WHERE
  TABLE_SCHEMA = COALESCE(?, DATABASE ())
  AND TABLE_NAME = ?
  AND SEQ_IN_INDEX = 1
  AND COLUMN_NAME = ?
ORDER BY
  INDEX_NAME = 'sqlinbox_fifo' DESC,
  INDEX_NAME
LIMIT
  1;

-- headGuard through the FIFO index (id 7, group g)
-- params: ["g",7]
-- text: 153 characters, sha256 f13903ffb23f2e53
SELECT
  s.`id`
FROM
  `jobs` s FORCE INDEX (`sqlinbox_fifo`)
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
  AND s.`processed_at` IS NULL
ORDER BY
  s.`id` FOR
UPDATE;

-- FIFO claim: its window of candidates (n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",64]
-- text: 362 characters, sha256 1b34f9cada828c1d
SELECT
  q.`id` AS sqlinbox_id,
  q.`fifo_group` AS sqlinbox_group,
  CASE
    WHEN q.`processed_at` IS NULL
    AND (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?) THEN 1
    ELSE 0
  END AS sqlinbox_due,
  0 AS sqlinbox_part
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
ORDER BY
  q.`id`
LIMIT
  ?;

-- FIFO claim: the candidates after the window (last 400, n 10)
-- params: [400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10,400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10]
-- text: 995 characters, sha256 0c9155ad66ed4489
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
        AND x.`processed_at` IS NULL
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    q.`processed_at` IS NULL
    AND (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
          AND s.`processed_at` IS NULL
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND q.`processed_at` IS NULL
    AND (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
  ORDER BY
    q.`id`
  LIMIT
    ?
);

-- FIFO claim: the window and the candidates after the last window (after 400, n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",64,400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10,400,"2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",10]
-- text: 1406 characters, sha256 4460a25295e41c32
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    CASE
      WHEN q.`processed_at` IS NULL
      AND (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      )
      AND NOT (q.`fifo_group` <=> ?) THEN 1
      ELSE 0
    END AS sqlinbox_due,
    0 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`processed_at` IS NULL
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
        AND x.`processed_at` IS NULL
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    q.`processed_at` IS NULL
    AND (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
          AND s.`processed_at` IS NULL
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND q.`processed_at` IS NULL
    AND (
      q.`retry_after` IS NULL
      OR q.`retry_after` <= ?
    )
    AND (
      q.`locked_until` IS NULL
      OR q.`locked_until` <= ?
    )
    AND NOT (q.`fifo_group` <=> ?)
  ORDER BY
    q.`id`
  LIMIT
    ?
)
ORDER BY
  sqlinbox_part,
  sqlinbox_id;

-- FIFO claim: the row lock select of the candidates
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",1,2,10]
-- text: 426 characters, sha256 131d1ac6dd661adb
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
        AND s.`processed_at` IS NULL
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- FIFO claim: the lease select of the candidates, tagged for their guards (UNION ALL headGuards)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","dead",1,2,10]
-- text: 462 characters, sha256 7837bce36ee46dfa
SELECT
  -1 AS sqlinbox_k,
  q.`id` AS sqlinbox_id
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
  AND NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
        AND s.`processed_at` IS NULL
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- retention: the picked processed rows deleted
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 149 characters, sha256 f1d5e8b308d2feba
DELETE q
FROM
  `jobs` AS q FORCE INDEX (PRIMARY)
WHERE
  `processed_at` IS NOT NULL
  AND `processed_at` < ?
  AND `locked_until` IS NULL
  AND `id` IN (?, ?);

-- retention: the dead letters without a death stamp, locked
-- params: ["dead",1000]
-- text: 140 characters, sha256 d0772ebdcc6dafad
SELECT
  `id`
FROM
  `jobs`
WHERE
  `fifo_group` = ?
  AND `locked_until` IS NULL
  AND `dead_at` IS NULL
ORDER BY
  `id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- retention: their death stamped
-- params: ["2025-01-01 00:00:00.000","dead",1,2]
-- text: 144 characters, sha256 28e65a57991136a1
UPDATE `jobs` FORCE INDEX (PRIMARY)
SET
  `dead_at` = ?
WHERE
  `fifo_group` = ?
  AND `locked_until` IS NULL
  AND `dead_at` IS NULL
  AND `id` IN (?, ?);

-- retention: the picked dead letters deleted
-- params: ["dead","2025-01-01 00:00:00.000",1,2]
-- text: 134 characters, sha256 29b8a9285b25e9f2
DELETE q
FROM
  `jobs` AS q FORCE INDEX (PRIMARY)
WHERE
  `fifo_group` = ?
  AND `locked_until` IS NULL
  AND `dead_at` < ?
  AND `id` IN (?, ?);


-- =================================================================================================
-- row lock, retention, dead-letter table (table jobs, rowlock form)
-- =================================================================================================
-- ddl, 1 of 3
-- text: 262 characters, sha256 f09c48870af8a7fd
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `retry_after` DATETIME(3) NULL,
  `dead_at` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 3
-- text: 252 characters, sha256 bc1bf992bd5261fc
CREATE TABLE IF NOT EXISTS `jobs_dead` (
  `id` BIGINT NOT NULL,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `retry_after` DATETIME(3) NULL,
  `dead_at` DATETIME(3) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 3 of 3
-- text: 145 characters, sha256 6cd3f849520f8b37
CREATE TABLE IF NOT EXISTS `sqlinbox_schedules` (
  `name` VARCHAR(255) NOT NULL,
  `tick` DATETIME(3) NOT NULL,
  PRIMARY KEY (`name`, `tick`)
);

-- claimLocked (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 127 characters, sha256 feae595183cd3311
SELECT
  q.*
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7]
-- text: 84 characters, sha256 6001611d0fb734f1
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?
WHERE
  q.`id` = ?;

-- countBeforeMove
-- params: [7]
-- text: 65 characters, sha256 6c4cdeb66e387e68
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- moveToDeadLetter, 1 of 2
-- params: [7]
-- text: 59 characters, sha256 4c298efd16246e61
INSERT INTO
  `jobs_dead`
SELECT
  *
FROM
  `jobs`
WHERE
  `id` = ?;

-- moveToDeadLetter, 2 of 2
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000"]
-- text: 73 characters, sha256 e758fdece6ba46cc
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 90 characters, sha256 fe584f03095bdfab
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 269 characters, sha256 fdafa74e5eab80aa
SELECT
  0 AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  (
    SELECT
      COUNT(*)
    FROM
      `jobs_dead`
  ) AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 119 characters, sha256 46d3035737f7fad3
SELECT
  NULL AS `key`,
  q.`retry_after` AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 142 characters, sha256 a35493b1cfac0d31
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 191 characters, sha256 a77faf43f014d044
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 147 characters, sha256 8a5a846e69328ddc
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      `jobs_dead` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 86 characters, sha256 a83a78b4eae7484a
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- text: 68 characters, sha256 f775c79fc524e913
SELECT
  r.*
FROM
  `jobs_dead` r
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: [4,5]
-- text: 81 characters, sha256 421846f502714e62
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 65 characters, sha256 27d30e802a93331e
INSERT INTO
  `jobs`
SELECT
  *
FROM
  `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 44 characters, sha256 d49b00db016aef56
DELETE FROM `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- retention markDead
-- params: ["2025-01-01 00:00:00.000"]
-- text: 76 characters, sha256 c2e88a3158ee6099
UPDATE `jobs_dead` AS q
SET
  `dead_at` = ?
WHERE
  TRUE
  AND q.`dead_at` IS NULL;

-- retention pruneDead
-- params: ["2025-01-01 00:00:00.000",500]
-- text: 107 characters, sha256 fb1fbb83472dc18c
SELECT
  `id`
FROM
  `jobs_dead`
WHERE
  TRUE
  AND `dead_at` < ?
ORDER BY
  `dead_at`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- retention: the dead letters without a death stamp, locked
-- params: [1000]
-- text: 106 characters, sha256 ad150dcfab4a8267
SELECT
  `id`
FROM
  `jobs_dead`
WHERE
  TRUE
  AND `dead_at` IS NULL
ORDER BY
  `id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- retention: their death stamped
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 110 characters, sha256 ac98bdc4cefb3ab3
UPDATE `jobs_dead` FORCE INDEX (PRIMARY)
SET
  `dead_at` = ?
WHERE
  TRUE
  AND `dead_at` IS NULL
  AND `id` IN (?, ?);

-- retention: the picked dead letters deleted
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 100 characters, sha256 60fec2bacfa8752a
DELETE q
FROM
  `jobs_dead` AS q FORCE INDEX (PRIMARY)
WHERE
  TRUE
  AND `dead_at` < ?
  AND `id` IN (?, ?);

-- stats: due rows no transaction locks
-- params: ["2025-01-01 00:00:00.000"]
-- text: 106 characters, sha256 57f17a13f0ca94ad
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  ) FOR
UPDATE SKIP LOCKED;


-- =================================================================================================
-- advisory, dead-letter table (table jobs, advisory form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 229 characters, sha256 f54643284d20bb1c
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `account` VARCHAR(255) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 2
-- text: 219 characters, sha256 e7c2dd3029f041a0
CREATE TABLE IF NOT EXISTS `jobs_dead` (
  `id` BIGINT NOT NULL,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `account` VARCHAR(255) NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- candidates (n 10)
-- params: ["account-",10]
-- text: 552 characters, sha256 eb52c947b587cbd8
SELECT
  c.`id` AS `id`,
  c.sqlinbox_key AS `key`
FROM
  (
    SELECT
      q.`id`,
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      TRUE
  ) c
WHERE
  IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NULL
ORDER BY
  c.`id`
LIMIT
  ?;

-- candidates (n 10, two keys of its own)
-- params: ["account-","k1","k2",10]
-- text: 601 characters, sha256 10cb0dfc4e27f49a
SELECT
  c.`id` AS `id`,
  c.sqlinbox_key AS `key`
FROM
  (
    SELECT
      q.`id`,
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      TRUE
  ) c
WHERE
  CAST(c.sqlinbox_key AS BINARY) NOT IN (?, ?)
  AND IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NULL
ORDER BY
  c.`id`
LIMIT
  ?;

-- lock
-- params: ["account-1","account-1","account-1"]
-- text: 324 characters, sha256 a6ff720e2f1f9a65
SELECT
  GET_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    ),
    0
  ) AS ok;

-- unlock
-- params: ["account-1","account-1","account-1"]
-- text: 325 characters, sha256 4707a4a38f1f6726
SELECT
  RELEASE_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (? USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (? USING utf8mb4)
      )
    )
  ) AS ok;

-- take (id 7)
-- params: [7]
-- text: 75 characters, sha256 da2d66524710ee7d
UPDATE `jobs` q
SET
  q.`attempt` = q.`attempt` + 1
WHERE
  q.`id` = ?
  AND TRUE;

-- heldKeys (two keys): none

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: [7]
-- text: 65 characters, sha256 6c4cdeb66e387e68
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- moveToDeadLetter, 1 of 2
-- params: [7]
-- text: 59 characters, sha256 4c298efd16246e61
INSERT INTO
  `jobs_dead`
SELECT
  *
FROM
  `jobs`
WHERE
  `id` = ?;

-- moveToDeadLetter, 2 of 2
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"a1"]
-- text: 69 characters, sha256 3f93c5a70ced88d1
INSERT INTO
  `jobs` (`payload`, `attempt`, `account`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"a1","{\"n\":2}",0]
-- text: 86 characters, sha256 a4427c8cb27d7cec
INSERT INTO
  `jobs` (`payload`, `attempt`, `account`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- text: 160 characters, sha256 c9784ec8806a1c1b
SELECT
  0 AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN TRUE THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  (
    SELECT
      COUNT(*)
    FROM
      `jobs_dead`
  ) AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["account-"]
-- text: 109 characters, sha256 553bbe5444e3f656
SELECT
  CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  TRUE;

-- lockable
-- text: 97 characters, sha256 2737c0015a9b65b1
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      TRUE FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["ready",3,50]
-- text: 137 characters, sha256 17a0064d4abd0e7f
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'ready' AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 147 characters, sha256 8a5a846e69328ddc
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      `jobs_dead` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: [4,5]
-- text: 86 characters, sha256 a83a78b4eae7484a
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- text: 68 characters, sha256 f775c79fc524e913
SELECT
  r.*
FROM
  `jobs_dead` r
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: [4,5]
-- text: 59 characters, sha256 5f284aaaa82abf1c
UPDATE `jobs` AS q
SET
  `attempt` = 0
WHERE
  q.`id` IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 65 characters, sha256 27d30e802a93331e
INSERT INTO
  `jobs`
SELECT
  *
FROM
  `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 44 characters, sha256 d49b00db016aef56
DELETE FROM `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- take, then: the row
-- params: [7]
-- text: 35 characters, sha256 ee953d1374eda757
SELECT
  *
FROM
  `jobs`
WHERE
  `id` = ?;

-- stats: keys in use
-- params: ["account-"]
-- text: 498 characters, sha256 dab9c10755eefffd
SELECT
  COUNT(*) AS n
FROM
  (
    SELECT
      CONCAT(?, COALESCE(CAST(q.`account` AS CHAR), '')) AS sqlinbox_key
    FROM
      `jobs` q
    WHERE
      TRUE
  ) c
WHERE
  IS_USED_LOCK(
    IF (
      CHAR_LENGTH(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        )
      ) > 64,
      SHA2(
        CONCAT(
          CONVERT (LOWER(DATABASE ()) USING utf8mb4),
          _utf8mb4 '.',
          CONVERT (c.sqlinbox_key USING utf8mb4)
        ),
        256
      ),
      CONCAT(
        CONVERT (LOWER(DATABASE ()) USING utf8mb4),
        _utf8mb4 '.',
        CONVERT (c.sqlinbox_key USING utf8mb4)
      )
    )
  ) IS NOT NULL;


-- =================================================================================================
-- lease, failure record, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 422 characters, sha256 c575abbd71c2e1b3
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `retry_after` DATETIME(3) NULL,
  `last_error` TEXT NULL,
  `error_class` VARCHAR(255) NULL,
  `failed_at` DATETIME(3) NULL,
  `created_at` DATETIME(3) NULL DEFAULT CURRENT_TIMESTAMP (3),
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 2
-- text: 412 characters, sha256 a52337932c3edddd
CREATE TABLE IF NOT EXISTS `jobs_dead` (
  `id` BIGINT NOT NULL,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `retry_after` DATETIME(3) NULL,
  `last_error` TEXT NULL,
  `error_class` VARCHAR(255) NULL,
  `failed_at` DATETIME(3) NULL,
  `created_at` DATETIME(3) NULL DEFAULT CURRENT_TIMESTAMP (3),
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 186 characters, sha256 dcea7c86d5b01706
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 62 characters, sha256 87bf2fb2cd80658b
DELETE FROM `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- returnMany (failures, each its own message)
-- params: [1,"one",2,"two","TypeError","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",1,2]
-- text: 208 characters, sha256 71ad22f7dc7cc11d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL,
  `last_error` = CASE t.`id`
    WHEN ? THEN ?
    WHEN ? THEN ?
    ELSE t.`last_error`
  END,
  `error_class` = ?,
  `failed_at` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- returnMany (failures, leases held until their backoffs end)
-- params: [1,"2025-01-01 00:00:30.000",2,"2025-01-01 00:00:30.001","boom","TypeError","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",1,2]
-- text: 207 characters, sha256 a1e6d7c4b4a3306d
UPDATE `jobs` AS t
SET
  `locked_until` = CASE t.`id`
    WHEN ? THEN ?
    WHEN ? THEN ?
    ELSE t.`locked_until`
  END,
  `last_error` = ?,
  `error_class` = ?,
  `failed_at` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- settle retry (failure, lease held until the backoff ends)
-- params: ["2025-01-01 00:00:30.000","boom","TypeError","2025-01-01 00:00:00.000",7,"2025-01-01 00:00:00.000"]
-- text: 137 characters, sha256 a764315afb5bceaa
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `last_error` = ?,
  `error_class` = ?,
  `failed_at` = ?
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle ack
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- settle retry
-- params: ["2025-01-01 00:00:30.000",7,"2025-01-01 00:00:00.000"]
-- text: 132 characters, sha256 30bc4067997a189d
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `retry_after` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle retry (failure)
-- params: ["boom","TypeError","2025-01-01 00:00:00.000",7,"2025-01-01 00:00:00.000"]
-- text: 140 characters, sha256 2c954e525918b778
UPDATE `jobs` AS q
SET
  `locked_until` = NULL,
  `last_error` = ?,
  `error_class` = ?,
  `failed_at` = ?
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- moveToDeadLetter, 1 of 3
-- params: ["boom","TypeError","2025-01-01 00:00:00.000",7,"2025-01-01 00:00:00.000"]
-- text: 277 characters, sha256 c0e205ec78bb6e5e
INSERT INTO
  `jobs_dead` (
    `id`,
    `payload`,
    `attempt`,
    `locked_until`,
    `retry_after`,
    `created_at`,
    `last_error`,
    `error_class`,
    `failed_at`
  )
SELECT
  `id`,
  `payload`,
  `attempt`,
  `locked_until`,
  `retry_after`,
  `created_at`,
  ?,
  ?,
  ?
FROM
  `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- moveToDeadLetter, 2 of 3
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- moveToDeadLetter, 3 of 3
-- params: [7]
-- text: 59 characters, sha256 4da8a0b9cae3695a
UPDATE `jobs_dead`
SET
  `locked_until` = NULL
WHERE
  `id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000"]
-- text: 73 characters, sha256 e758fdece6ba46cc
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"2025-01-01 00:00:30.000","{\"n\":2}",0]
-- text: 90 characters, sha256 fe584f03095bdfab
INSERT INTO
  `jobs` (`payload`, `attempt`, `retry_after`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 454 characters, sha256 a7d62f3b72ba1531
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  COALESCE(
    SUM(
      CASE
        WHEN NOT (
          q.`locked_until` IS NOT NULL
          AND q.`locked_until` > ?
        )
        AND q.`retry_after` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN (
          q.`retry_after` IS NULL
          OR q.`retry_after` <= ?
        )
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  (
    SELECT
      COUNT(*)
    FROM
      `jobs_dead`
  ) AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 201 characters, sha256 c28f3d9d6dbfde8d
SELECT
  NULL AS `key`,
  COALESCE(q.`retry_after`, q.`created_at`) AS `due_at`
FROM
  `jobs` q
WHERE
  (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 198 characters, sha256 40035521c1e94259
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      (
        q.`retry_after` IS NULL
        OR q.`retry_after` <= ?
      )
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000","ready",3,50]
-- text: 231 characters, sha256 bc0a597530754d80
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`locked_until` > ? THEN 'inWork'
        WHEN r.`retry_after` > ? THEN 'delayed'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 147 characters, sha256 8a5a846e69328ddc
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      `jobs_dead` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 142 characters, sha256 9551db3d67c7e852
SELECT
  r.*
FROM
  `jobs` r
WHERE
  (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- text: 68 characters, sha256 f775c79fc524e913
SELECT
  r.*
FROM
  `jobs_dead` r
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: [4,5]
-- text: 104 characters, sha256 b005f104775a6a6a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `retry_after` = NULL,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 65 characters, sha256 27d30e802a93331e
INSERT INTO
  `jobs`
SELECT
  *
FROM
  `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 44 characters, sha256 d49b00db016aef56
DELETE FROM `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule
-- params: ["2025-01-01 00:00:30.000",4,5]
-- text: 63 characters, sha256 5a796a870b45e468
UPDATE `jobs` AS q
SET
  `retry_after` = ?
WHERE
  q.`id` IN (?, ?);

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claimLease from an id (n 10, from 4000)
-- params: ["4000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 218 characters, sha256 42312f4411fcc21c
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimLease, a window of the sweep (n 10, from 2000, below 4000)
-- params: ["2000","4000","2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",10]
-- text: 249 characters, sha256 26aaf41b6ce6cb61
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`id` < CAST(? AS SIGNED)
  AND (
    q.`retry_after` IS NULL
    OR q.`retry_after` <= ?
  )
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: [1,2]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- settleMany on MariaDB: the rows still held, deleted, their ids answered
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 151 characters, sha256 d030fba3e6f24c45
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?)
  AND (
    (
      `locked_until` = ?
      AND `id` IN (?)
    )
    OR (
      `locked_until` = ?
      AND `id` IN (?)
    )
  )
ORDER BY
  `id`
RETURNING
  `id`;


-- =================================================================================================
-- lease, processed_at, results, dead-letter table (table jobs, lease form)
-- =================================================================================================
-- ddl, 1 of 2
-- text: 339 characters, sha256 8e35febc91e65bf2
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `processed_at` DATETIME(3) NULL,
  `result` JSON NULL,
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_claim` (`processed_at`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- ddl, 2 of 2
-- text: 280 characters, sha256 ad2c3894aed5be74
CREATE TABLE IF NOT EXISTS `jobs_dead` (
  `id` BIGINT NOT NULL,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `locked_until` DATETIME(3) NULL,
  `processed_at` DATETIME(3) NULL,
  `result` JSON NULL,
  PRIMARY KEY (`id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLease (n 10)
-- params: ["2025-01-01 00:00:00.000",10]
-- text: 161 characters, sha256 dc934dc14af65bd3
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- extendLeases (one token)
-- params: ["2025-01-01 00:00:30.000","2025-01-01 00:00:00.000",1,2]
-- text: 89 characters, sha256 e42fc82b5e8e1b73
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- extendLeases (two tokens)
-- params: ["2025-01-01 00:00:30.000",1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 155 characters, sha256 ad24bc4c8a462f76
UPDATE `jobs` AS t
SET
  `locked_until` = ?
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settleMany
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000",1,2]
-- text: 112 characters, sha256 b3aac2e1d40b71a6
UPDATE `jobs` AS t
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  t.`locked_until` = ?
  AND t.`id` IN (?, ?);

-- returnMany (retries)
-- params: [1,2,"2025-01-01 00:00:00.000",1,"2025-01-01 00:00:30.000",2]
-- text: 158 characters, sha256 43f3367250b9e62d
UPDATE `jobs` AS t
SET
  `locked_until` = NULL
WHERE
  t.`id` IN (?, ?)
  AND (
    (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
    OR (
      t.`locked_until` = ?
      AND t.`id` IN (?)
    )
  );

-- settle ack
-- params: ["2025-01-01 00:00:00.000",7,"2025-01-01 00:00:00.000"]
-- text: 106 characters, sha256 1ed9077d3d476069
UPDATE `jobs` AS q
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle retry
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 296f6a6799918faa
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- settle release (uncount)
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 113 characters, sha256 efdbbffa2746532c
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` - 1,
  `locked_until` = NULL
WHERE
  q.`id` = ?
  AND q.`locked_until` = ?;

-- moveToDeadLetter, 1 of 3
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 82 characters, sha256 9cddc891ff2009ed
INSERT INTO
  `jobs_dead`
SELECT
  *
FROM
  `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- moveToDeadLetter, 2 of 3
-- params: [7,"2025-01-01 00:00:00.000"]
-- text: 56 characters, sha256 85d298d2c4323e3b
DELETE FROM `jobs`
WHERE
  `id` = ?
  AND `locked_until` = ?;

-- moveToDeadLetter, 3 of 3
-- params: [7]
-- text: 59 characters, sha256 4da8a0b9cae3695a
UPDATE `jobs_dead`
SET
  `locked_until` = NULL
WHERE
  `id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0]
-- text: 55 characters, sha256 e702c7f9a4f0e3fe
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"{\"n\":2}",0]
-- text: 63 characters, sha256 5b42acf176c2b051
INSERT INTO
  `jobs` (`payload`, `attempt`)
VALUES
  (?, ?),
  (?, ?);

-- stats
-- params: ["2025-01-01 00:00:00.000","2025-01-01 00:00:00.000"]
-- text: 330 characters, sha256 3a527cb7b2303543
SELECT
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND q.`locked_until` > ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`processed_at` IS NULL
        AND (
          q.`locked_until` IS NULL
          OR q.`locked_until` <= ?
        ) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  (
    SELECT
      COUNT(*)
    FROM
      `jobs_dead`
  ) AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["2025-01-01 00:00:00.000"]
-- text: 139 characters, sha256 0b3c1e0f68fec326
SELECT
  NULL AS `key`,
  NULL AS `due_at`
FROM
  `jobs` q
WHERE
  q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  );

-- lockable
-- params: ["2025-01-01 00:00:00.000"]
-- text: 173 characters, sha256 07b4172c976667ee
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      q.`processed_at` IS NULL
      AND (
        q.`locked_until` IS NULL
        OR q.`locked_until` <= ?
      ) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["2025-01-01 00:00:00.000","ready",3,50]
-- text: 237 characters, sha256 0074a5ef0c82f8d6
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`processed_at` IS NOT NULL THEN 'done'
        WHEN r.`locked_until` > ? THEN 'inWork'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead",4,5,50]
-- text: 147 characters, sha256 8a5a846e69328ddc
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      'dead' AS sqlinbox_state
    FROM
      `jobs_dead` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["2025-01-01 00:00:00.000",4,5]
-- text: 171 characters, sha256 ec9b3ee8a7bc1927
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`processed_at` IS NULL
  AND (
    r.`locked_until` IS NULL
    OR r.`locked_until` <= ?
  )
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- text: 68 characters, sha256 f775c79fc524e913
SELECT
  r.*
FROM
  `jobs_dead` r
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: [4,5]
-- text: 82 characters, sha256 b5445cc229e01b3a
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);

-- admin copyBack
-- params: [4,5]
-- text: 65 characters, sha256 27d30e802a93331e
INSERT INTO
  `jobs`
SELECT
  *
FROM
  `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove (dead)
-- params: [4,5]
-- text: 44 characters, sha256 d49b00db016aef56
DELETE FROM `jobs_dead`
WHERE
  `id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- claim, then: the update of the rows it locked
-- params: ["2025-01-01 00:00:30.000",1,2]
-- text: 91 characters, sha256 f87fcbf5fcf31d6d
UPDATE `jobs` AS q
SET
  `locked_until` = ?,
  `attempt` = `attempt` + 1
WHERE
  q.`id` IN (?, ?);

-- claimLease from an id (n 10, from 4000)
-- params: ["4000","2025-01-01 00:00:00.000",10]
-- text: 193 characters, sha256 4fef687e75713cc5
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claimLease, a window of the sweep (n 10, from 2000, below 4000)
-- params: ["2000","4000","2025-01-01 00:00:00.000",10]
-- text: 224 characters, sha256 275c94679e1bb38f
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  q.`id` >= CAST(? AS SIGNED)
  AND q.`id` < CAST(? AS SIGNED)
  AND q.`processed_at` IS NULL
  AND (
    q.`locked_until` IS NULL
    OR q.`locked_until` <= ?
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- claim, then: the rows it leased
-- params: [1,2]
-- text: 63 characters, sha256 2c4460829d9a93f2
SELECT
  q.*
FROM
  `jobs` q
WHERE
  q.`id` IN (?, ?)
ORDER BY
  q.`id`;

-- extendLeases, then: the ids it moved
-- params: [1,2,"2025-01-01 00:00:30.000"]
-- text: 67 characters, sha256 e6d9921498d7f386
SELECT
  `id`
FROM
  `jobs`
WHERE
  `id` IN (?, ?)
  AND `locked_until` = ?;

-- settleMany: the rows still held, locked
-- params: ["2025-01-01 00:00:00.000",1]
-- text: 89 characters, sha256 af4c134e168e8ef7
SELECT
  `id`
FROM
  `jobs`
WHERE
  `locked_until` = ?
  AND `id` IN (?)
ORDER BY
  `id` FOR
UPDATE;

-- settleMany: then their ack
-- params: ["2025-01-01 00:00:00.000",1,2]
-- text: 87 characters, sha256 90a98319f5b2c09d
UPDATE `jobs` AS q
SET
  `processed_at` = ?,
  `locked_until` = NULL
WHERE
  q.`id` IN (?, ?);


-- =================================================================================================
-- row lock, failure record, dead-letter group (table jobs, rowlock form)
-- =================================================================================================
-- ddl
-- text: 433 characters, sha256 9ab772d20539f870
CREATE TABLE IF NOT EXISTS `jobs` (
  `id` BIGINT NOT NULL AUTO_INCREMENT,
  `payload` JSON NOT NULL,
  `attempt` INT NOT NULL DEFAULT 0,
  `fifo_group` VARCHAR(255) NULL,
  `last_error` TEXT NULL,
  `error_class` VARCHAR(255) NULL,
  `failed_at` DATETIME(3) NULL,
  `created_at` DATETIME(3) NULL DEFAULT CURRENT_TIMESTAMP (3),
  PRIMARY KEY (`id`),
  INDEX `sqlinbox_fifo` (`fifo_group`, `id`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4;

-- claimLocked (n 10)
-- params: ["dead",10]
-- text: 237 characters, sha256 4e7a986ff375e194
SELECT
  q.*
FROM
  `jobs` q
WHERE
  NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- headGuard (id 7, group g)
-- params: ["g",7]
-- text: 94 characters, sha256 4edbab6865212419
SELECT
  s.`id`
FROM
  `jobs` s
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
ORDER BY
  s.`id` FOR
UPDATE;

-- headGuards (ids 7, 9, groups g, h)
-- params: ["g",7,"h",9]
-- text: 237 characters, sha256 caaeb5a47f435c5d
(
  SELECT
    0 AS sqlinbox_k,
    s.`id`
  FROM
    `jobs` s
  WHERE
    s.`fifo_group` = ?
    AND s.`id` < ?
  ORDER BY
    s.`id` FOR
  UPDATE
)
UNION ALL
(
  SELECT
    1 AS sqlinbox_k,
    s.`id`
  FROM
    `jobs` s
  WHERE
    s.`fifo_group` = ?
    AND s.`id` < ?
  ORDER BY
    s.`id` FOR
  UPDATE
);

-- settle ack
-- params: [7]
-- text: 33 characters, sha256 1fdedc567da36a1e
DELETE FROM `jobs`
WHERE
  `id` = ?;

-- settle retry
-- params: [7]
-- text: 65 characters, sha256 6c4cdeb66e387e68
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1
WHERE
  q.`id` = ?;

-- settle retry (failure)
-- params: ["boom","TypeError","2025-01-01 00:00:00.000",7]
-- text: 119 characters, sha256 1fceaaa77c501dd9
UPDATE `jobs` AS q
SET
  `attempt` = `attempt` + 1,
  `last_error` = ?,
  `error_class` = ?,
  `failed_at` = ?
WHERE
  q.`id` = ?;

-- settle dead letter (group)
-- params: ["dead","boom","TypeError","2025-01-01 00:00:00.000",7]
-- text: 137 characters, sha256 1de74988ebef3cf5
UPDATE `jobs` AS q
SET
  `fifo_group` = ?,
  `attempt` = `attempt` + 1,
  `last_error` = ?,
  `error_class` = ?,
  `failed_at` = ?
WHERE
  q.`id` = ?;

-- insert (one message)
-- params: ["{\"n\":1}",0,"g"]
-- text: 72 characters, sha256 5f9b87010e2360d8
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`)
VALUES
  (?, ?, ?);

-- insert (two messages, one without columns)
-- params: ["{\"n\":1}",0,"g","{\"n\":2}",0]
-- text: 89 characters, sha256 2d8d89a9a16ba12f
INSERT INTO
  `jobs` (`payload`, `attempt`, `fifo_group`)
VALUES
  (?, ?, ?),
  (?, ?, DEFAULT);

-- stats
-- params: ["dead","dead"]
-- text: 212 characters, sha256 5d35317848003cdd
SELECT
  0 AS `in_work`,
  0 AS `delayed`,
  COALESCE(
    SUM(
      CASE
        WHEN NOT (q.`fifo_group` <=> ?) THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `ready`,
  COALESCE(
    SUM(
      CASE
        WHEN q.`fifo_group` = ? THEN 1
        ELSE 0
      END
    ),
    0
  ) AS `dead`
FROM
  `jobs` q;

-- dueRows
-- params: ["dead"]
-- text: 95 characters, sha256 d946892d64d6e127
SELECT
  NULL AS `key`,
  q.`created_at` AS `due_at`
FROM
  `jobs` q
WHERE
  NOT (q.`fifo_group` <=> ?);

-- lockable
-- params: ["dead"]
-- text: 119 characters, sha256 96126cdeb7468900
SELECT
  COUNT(*) AS `n`
FROM
  (
    SELECT
      1 AS `one`
    FROM
      `jobs` q
    WHERE
      NOT (q.`fifo_group` <=> ?) FOR
    UPDATE SKIP LOCKED
  ) x;

-- admin list (ready, after 3)
-- params: ["dead","ready",3,50]
-- text: 187 characters, sha256 91f2f47e1aefda06
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`fifo_group` = ? THEN 'dead'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` > ?
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin list (dead, ids)
-- params: ["dead","dead",4,5,50]
-- text: 193 characters, sha256 2d70b0fefaa87c3f
SELECT
  x.*
FROM
  (
    SELECT
      r.*,
      CASE
        WHEN r.`fifo_group` = ? THEN 'dead'
        ELSE 'ready'
      END AS sqlinbox_state
    FROM
      `jobs` r
  ) x
WHERE
  x.sqlinbox_state = ?
  AND x.`id` IN (?, ?)
ORDER BY
  x.`id`
LIMIT
  ?;

-- admin pick (live, ids)
-- params: ["dead",4,5]
-- text: 117 characters, sha256 6bfb415910fef27d
SELECT
  r.*
FROM
  `jobs` r
WHERE
  NOT (r.`fifo_group` <=> ?)
  AND r.`id` IN (?, ?)
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin pick (dead)
-- params: ["dead"]
-- text: 88 characters, sha256 b3887af45be36a37
SELECT
  r.*
FROM
  `jobs` r
WHERE
  r.`fifo_group` = ?
ORDER BY
  r.`id` FOR
UPDATE SKIP LOCKED;

-- admin fresh (to group g)
-- params: ["g",4,5]
-- text: 77 characters, sha256 feb128e982683eeb
UPDATE `jobs` AS q
SET
  `attempt` = 0,
  `fifo_group` = ?
WHERE
  q.`id` IN (?, ?);

-- admin remove
-- params: [4,5]
-- text: 39 characters, sha256 ebeccd5b4e2144ff
DELETE FROM `jobs`
WHERE
  `id` IN (?, ?);

-- admin reschedule: none

-- the FIFO index, found on the server
-- params: [null,"jobs","fifo_group"]
-- text: 230 characters, sha256 c83645cd354885b4
SELECT
  INDEX_NAME AS `name`
FROM
  information_schema.STATISTICS
WHERE
  TABLE_SCHEMA = COALESCE(?, DATABASE ())
  AND TABLE_NAME = ?
  AND SEQ_IN_INDEX = 1
  AND COLUMN_NAME = ?
ORDER BY
  INDEX_NAME = 'sqlinbox_fifo' DESC,
  INDEX_NAME
LIMIT
  1;

-- headGuard through the FIFO index (id 7, group g)
-- params: ["g",7]
-- text: 124 characters, sha256 13075defb7a48a5d
SELECT
  s.`id`
FROM
  `jobs` s FORCE INDEX (`sqlinbox_fifo`)
WHERE
  s.`fifo_group` = ?
  AND s.`id` < ?
ORDER BY
  s.`id` FOR
UPDATE;

-- FIFO claim: its window of candidates (n 10)
-- params: ["dead",64]
-- text: 192 characters, sha256 fab02cd555f86644
SELECT
  q.`id` AS sqlinbox_id,
  q.`fifo_group` AS sqlinbox_group,
  CASE
    WHEN NOT (q.`fifo_group` <=> ?) THEN 1
    ELSE 0
  END AS sqlinbox_due,
  0 AS sqlinbox_part
FROM
  `jobs` q
ORDER BY
  q.`id`
LIMIT
  ?;

-- FIFO claim: the candidates after the window (last 400, n 10)
-- params: [400,"dead",10,400,"dead",10]
-- text: 659 characters, sha256 7d6d7c74d0c5b5d2
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    NOT (q.`fifo_group` <=> ?)
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND NOT (q.`fifo_group` <=> ?)
  ORDER BY
    q.`id`
  LIMIT
    ?
);

-- FIFO claim: the window and the candidates after the last window (after 400, n 10)
-- params: ["dead",64,400,"dead",10,400,"dead",10]
-- text: 900 characters, sha256 82f146da26783b50
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    CASE
      WHEN NOT (q.`fifo_group` <=> ?) THEN 1
      ELSE 0
    END AS sqlinbox_due,
    0 AS sqlinbox_part
  FROM
    `jobs` q
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    q.`fifo_group` AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
    JOIN (
      SELECT
        MIN(x.`id`) AS m
      FROM
        `jobs` x
      WHERE
        x.`fifo_group` IS NOT NULL
        AND x.`id` > ?
      GROUP BY
        x.`fifo_group`
    ) h ON q.`id` = h.m
  WHERE
    NOT (q.`fifo_group` <=> ?)
    AND (
      q.`fifo_group` IS NULL
      OR q.`id` = (
        SELECT
          s.`id`
        FROM
          `jobs` s
        WHERE
          s.`fifo_group` = q.`fifo_group`
        ORDER BY
          s.`id`
        LIMIT
          1
      )
    )
  ORDER BY
    q.`id`
  LIMIT
    ?
)
UNION ALL
(
  SELECT
    q.`id` AS sqlinbox_id,
    NULL AS sqlinbox_group,
    1 AS sqlinbox_due,
    1 AS sqlinbox_part
  FROM
    `jobs` q
  WHERE
    q.`fifo_group` IS NULL
    AND q.`id` > ?
    AND NOT (q.`fifo_group` <=> ?)
  ORDER BY
    q.`id`
  LIMIT
    ?
)
ORDER BY
  sqlinbox_part,
  sqlinbox_id;

-- FIFO claim: the row lock select of the candidates
-- params: ["dead",1,2,10]
-- text: 258 characters, sha256 2c0fc0d02b141df8
SELECT
  q.*
FROM
  `jobs` q
WHERE
  NOT (q.`fifo_group` <=> ?)
  AND (
    q.`fifo_group` IS NULL
    OR q.`id` = (
      SELECT
        s.`id`
      FROM
        `jobs` s
      WHERE
        s.`fifo_group` = q.`fifo_group`
      ORDER BY
        s.`id`
      LIMIT
        1
    )
  )
  AND q.`id` IN (?, ?)
ORDER BY
  q.`id`
LIMIT
  ? FOR
UPDATE SKIP LOCKED;

-- stats: due rows no transaction locks
-- params: ["dead"]
-- text: 83 characters, sha256 751215ce385d7e0b
SELECT
  q.`id`
FROM
  `jobs` q
WHERE
  NOT (q.`fifo_group` <=> ?) FOR
UPDATE SKIP LOCKED;

