-- The TPC-C consistency conditions whose MySQL and MariaDB text differs from sql/standard/check.sql.
-- NOT (a <=> b) is the null-safe inequality (there is no IS DISTINCT FROM), so a NULL on either side
-- counts as a mismatch. Conditions 6, 10 and 12 join ORDER-LINE directly.
-- name: c1
SELECT w.w_id
FROM warehouse w
LEFT JOIN (SELECT d_w_id, SUM(d_ytd) AS s FROM district GROUP BY d_w_id) d ON d.d_w_id = w.w_id
WHERE NOT (w.w_ytd <=> COALESCE(d.s, 0))
ORDER BY 1
-- name: c2
SELECT d.d_w_id, d.d_id
FROM district d
LEFT JOIN (SELECT o_w_id, o_d_id, MAX(o_id) AS m FROM orders GROUP BY o_w_id, o_d_id) o
  ON o.o_w_id = d.d_w_id AND o.o_d_id = d.d_id
LEFT JOIN (SELECT no_w_id, no_d_id, MAX(no_o_id) AS m FROM new_order GROUP BY no_w_id, no_d_id) n
  ON n.no_w_id = d.d_w_id AND n.no_d_id = d.d_id
WHERE NOT (d.d_next_o_id - 1 <=> COALESCE(o.m, 0))
   OR (n.m IS NOT NULL AND NOT (n.m <=> d.d_next_o_id - 1))
ORDER BY 1, 2
-- name: c4
SELECT w_id, d_id
FROM (SELECT o_w_id AS w_id, o_d_id AS d_id, SUM(o_ol_cnt) AS line_sum, 0 AS line_cnt
        FROM orders GROUP BY o_w_id, o_d_id
      UNION ALL
      SELECT ol_w_id, ol_d_id, 0, COUNT(*) FROM order_line GROUP BY ol_w_id, ol_d_id) x
GROUP BY w_id, d_id
HAVING NOT (SUM(line_sum) <=> SUM(line_cnt))
ORDER BY 1, 2
-- name: c6
SELECT o.o_w_id, o.o_d_id, o.o_id
FROM orders o
LEFT JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
GROUP BY o.o_w_id, o.o_d_id, o.o_id
HAVING NOT (MAX(o.o_ol_cnt) <=> COUNT(ol.ol_o_id))
ORDER BY 1, 2, 3
-- name: c8
SELECT w.w_id
FROM warehouse w
LEFT JOIN (SELECT h_w_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id) h ON h.h_w_id = w.w_id
WHERE NOT (w.w_ytd <=> COALESCE(h.s, 0))
ORDER BY 1
-- name: c9
SELECT d.d_w_id, d.d_id
FROM district d
LEFT JOIN (SELECT h_w_id, h_d_id, SUM(h_amount) AS s FROM history GROUP BY h_w_id, h_d_id) h
  ON h.h_w_id = d.d_w_id AND h.h_d_id = d.d_id
WHERE NOT (d.d_ytd <=> COALESCE(h.s, 0))
ORDER BY 1, 2
-- name: c10
SELECT c.c_w_id, c.c_d_id, c.c_id
FROM customer c
LEFT JOIN (SELECT o.o_w_id, o.o_d_id, o.o_c_id, SUM(ol.ol_amount) AS s
             FROM orders o
             JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
            WHERE ol.ol_delivery_d IS NOT NULL
            GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) d
  ON d.o_w_id = c.c_w_id AND d.o_d_id = c.c_d_id AND d.o_c_id = c.c_id
LEFT JOIN (SELECT h_c_w_id, h_c_d_id, h_c_id, SUM(h_amount) AS s FROM history
            GROUP BY h_c_w_id, h_c_d_id, h_c_id) h
  ON h.h_c_w_id = c.c_w_id AND h.h_c_d_id = c.c_d_id AND h.h_c_id = c.c_id
WHERE NOT (c.c_balance <=> COALESCE(d.s, 0) - COALESCE(h.s, 0))
ORDER BY 1, 2, 3
-- name: c12
SELECT c.c_w_id, c.c_d_id, c.c_id
FROM customer c
LEFT JOIN (SELECT o.o_w_id, o.o_d_id, o.o_c_id, SUM(ol.ol_amount) AS s
             FROM orders o
             JOIN order_line ol ON ol.ol_w_id = o.o_w_id AND ol.ol_d_id = o.o_d_id AND ol.ol_o_id = o.o_id
            WHERE ol.ol_delivery_d IS NOT NULL
            GROUP BY o.o_w_id, o.o_d_id, o.o_c_id) d
  ON d.o_w_id = c.c_w_id AND d.o_d_id = c.c_d_id AND d.o_c_id = c.c_id
WHERE NOT (c.c_balance + c.c_ytd_payment <=> COALESCE(d.s, 0))
ORDER BY 1, 2, 3
