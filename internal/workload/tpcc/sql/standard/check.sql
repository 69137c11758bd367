-- TPC-C consistency conditions (clause 3.3.2.1-12), as every dialect runs them unless its folder's
-- check.sql has a statement of the same name (internal/sqlfile). Each statement returns the keys
-- that break its condition, key columns first, in key order: no rows means the condition holds.
-- Comparisons use IS DISTINCT FROM so a NULL on either side counts as a mismatch; a missing
-- aggregate (no rows on one side) counts as a sum or count of zero. Conditions 10 and 12 sum the
-- delivered lines per order before joining ORDER: PostgreSQL's planner then hashes instead of
-- probing the ORDER-LINE index once per order (faster at 4 warehouses: 0.7 s against 1.0-1.5 s).
-- name: c1
SELECT w.w_id
FROM warehouse w
LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE w.w_ytd IS DISTINCT FROM COALESCE(d.s, 0)
ORDER BY 1
-- name: c2
SELECT d.d_w_id, d.d_id
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n
  ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE d.d_next_o_id - 1 IS DISTINCT FROM COALESCE(o.m, 0)
   OR (n.m IS NOT NULL AND n.m IS DISTINCT FROM d.d_next_o_id - 1)
ORDER BY 1, 2
-- name: c3
SELECT no_w_id, no_d_id
FROM new_order
GROUP BY no_w_id, no_d_id
HAVING MAX(no_o_id) - MIN(no_o_id) + 1 <> COUNT(*)
ORDER BY 1, 2
-- name: c4
-- Both sides in one grouping: a district missing on either side compares against zero.
SELECT w_id, d_id
FROM (SELECT o_w_id AS w_id, o_d_id AS d_id, SUM(o_ol_cnt) AS line_sum, 0 AS line_cnt
        FROM orders GROUP BY o_w_id, o_d_id
      UNION ALL
      SELECT ol_w_id, ol_d_id, 0, COUNT(*) FROM order_line GROUP BY ol_w_id, ol_d_id) x
GROUP BY w_id, d_id
HAVING SUM(line_sum) IS DISTINCT FROM SUM(line_cnt)
ORDER BY 1, 2
-- name: c5
SELECT o.o_w_id, o.o_d_id, o.o_id
FROM orders o
LEFT JOIN new_order n ON n.no_w_id = o.o_w_id AND n.no_d_id = o.o_d_id AND n.no_o_id = o.o_id
WHERE (o.o_carrier_id IS NULL) <> (n.no_o_id IS NOT NULL)
ORDER BY 1, 2, 3
-- name: c5b
SELECT n.no_w_id, n.no_d_id, n.no_o_id
FROM new_order n
LEFT JOIN orders o ON o.o_w_id = n.no_w_id AND o.o_d_id = n.no_d_id AND o.o_id = n.no_o_id
WHERE o.o_id IS NULL
ORDER BY 1, 2, 3
-- name: c6
SELECT o.o_w_id, o.o_d_id, o.o_id
FROM orders o
LEFT JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, COUNT(*) AS c FROM order_line
           GROUP BY ol_w_id, ol_d_id, ol_o_id) l
  ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
WHERE o.o_ol_cnt IS DISTINCT FROM COALESCE(l.c, 0)
ORDER BY 1, 2, 3
-- name: c6b
-- ORDER-LINE rows without their ORDER, one row per missing order.
SELECT l.ol_w_id, l.ol_d_id, l.ol_o_id
FROM (SELECT ol_w_id, ol_d_id, ol_o_id FROM order_line GROUP BY ol_w_id, ol_d_id, ol_o_id) l
LEFT JOIN orders o ON o.o_w_id = l.ol_w_id AND o.o_d_id = l.ol_d_id AND o.o_id = l.ol_o_id
WHERE o.o_id IS NULL
ORDER BY 1, 2, 3
-- name: c7
SELECT ol.ol_w_id, ol.ol_d_id, ol.ol_o_id, ol.ol_number
FROM orders o
JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
WHERE (ol.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)
ORDER BY 1, 2, 3, 4
-- name: c8
SELECT w.w_id
FROM warehouse w
LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE w.w_ytd IS DISTINCT FROM COALESCE(h.s, 0)
ORDER BY 1
-- name: c9
SELECT d.d_w_id, d.d_id
FROM district d
LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
  ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE d.d_ytd IS DISTINCT FROM COALESCE(h.s, 0)
ORDER BY 1, 2
-- name: c10
SELECT c.c_w_id, c.c_d_id, c.c_id
FROM customer c
LEFT JOIN (SELECT o.o_w_id, o.o_d_id, o.o_c_id, SUM(l.s) AS s
             FROM orders o
             JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, SUM(ol_amount) AS s FROM order_line
                    WHERE ol_delivery_d IS NOT NULL GROUP BY ol_w_id, ol_d_id, ol_o_id) l
               ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
            GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) d
  ON d.o_w_id = c.c_w_id AND d.o_d_id = c.c_d_id AND d.o_c_id = c.c_id
LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) AS s FROM history
            GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
  ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id
WHERE c.c_balance IS DISTINCT FROM COALESCE(d.s, 0) - COALESCE(h.s, 0)
ORDER BY 1, 2, 3
-- name: c11
SELECT d.d_w_id, d.d_id
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, COUNT(*) AS c FROM orders GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, COUNT(*) AS c FROM new_order GROUP BY no_w_id, no_d_id) n
  ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE COALESCE(o.c, 0) - COALESCE(n.c, 0) <> 2100
ORDER BY 1, 2
-- name: c12
SELECT c.c_w_id, c.c_d_id, c.c_id
FROM customer c
LEFT JOIN (SELECT o.o_w_id, o.o_d_id, o.o_c_id, SUM(l.s) AS s
             FROM orders o
             JOIN (SELECT ol_w_id, ol_d_id, ol_o_id, SUM(ol_amount) AS s FROM order_line
                    WHERE ol_delivery_d IS NOT NULL GROUP BY ol_w_id, ol_d_id, ol_o_id) l
               ON l.ol_w_id = o.o_w_id AND l.ol_d_id = o.o_d_id AND l.ol_o_id = o.o_id
            GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) d
  ON d.o_w_id = c.c_w_id AND d.o_d_id = c.c_d_id AND d.o_c_id = c.c_id
WHERE c.c_balance + c.c_ytd_payment IS DISTINCT FROM COALESCE(d.s, 0)
ORDER BY 1, 2, 3
