-- The TPC-C consistency conditions whose PostgreSQL text differs from sql/standard/check.sql: c5b
-- only by a comment, c7 only by the order of its join. They stay so that PostgreSQL keeps being sent
-- the text its timings and plans were measured with.
-- name: c5b
-- NEW-ORDER rows without their ORDER.
SELECT n.no_w_id, n.no_d_id, n.no_o_id
FROM new_order n
LEFT JOIN orders o ON o.o_w_id = n.no_w_id AND o.o_d_id = n.no_d_id AND o.o_id = n.no_o_id
WHERE o.o_id IS NULL
ORDER BY 1, 2, 3
-- name: c7
SELECT ol.ol_w_id, ol.ol_d_id, ol.ol_o_id, ol.ol_number
FROM order_line ol
JOIN orders o ON o.o_w_id = ol.ol_w_id AND o.o_d_id = ol.ol_d_id AND o.o_id = ol.ol_o_id
WHERE (ol.ol_delivery_d IS NULL) <> (o.o_carrier_id IS NULL)
ORDER BY 1, 2, 3, 4
