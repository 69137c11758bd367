-- The five transactions as client-side prepared statements (--mode sql). Every dialect's file has
-- the same statement names with the same parameters in the same order; a statement whose name ends
-- in _sel exists only where the database lacks UPDATE/DELETE … RETURNING (MySQL), and the code then
-- reads before it writes. Money parameters are integer cents. "{{row …}}" is repeated once per
-- order line, with ? numbered on from the statement's last $n.
-- name: no_wc
SELECT c_discount::float8, c_last, c_credit, w_tax::float8 FROM customer, warehouse
WHERE w_id = $1 AND c_w_id = w_id AND c_d_id = $2 AND c_id = $3
-- name: no_dist
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = $1 AND d_id = $2
RETURNING d_next_o_id - 1, d_tax::float8
-- name: no_ins_order
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
VALUES ($1, $2, $3, $4, LOCALTIMESTAMP, $5, $6)
-- name: no_ins_new
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES ($1, $2, $3)
-- name: no_items
SELECT i_id, (i_price * 100)::int8, i_name, i_data FROM item WHERE i_id IN ({{row ?}})
-- name: no_stock
SELECT s_i_id, s_w_id, s_quantity, s_data,
  CASE $1::int WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
  WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
  WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
FROM stock WHERE (s_w_id, s_i_id) IN ({{row (?::int, ?::int)}}) ORDER BY s_w_id, s_i_id FOR UPDATE
-- name: no_stock_upd
UPDATE stock SET s_quantity = CASE s_i_id {{each WHEN ?::int THEN ?::int}} END,
  s_ytd = s_ytd + CASE s_i_id {{each WHEN ?::int THEN ?::int}} END,
  s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (s_w_id <> ?::int)::int
WHERE (s_w_id, s_i_id) IN ({{row (?::int, ?::int)}})
-- name: no_ins_lines
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
VALUES {{row (?::int, ?::int, ?::int, ?::int, ?::int, ?::int, ?::int, ?::numeric / 100, ?::text)}}
-- name: pay_wh
UPDATE warehouse SET w_ytd = w_ytd + $1::numeric / 100 WHERE w_id = $2
RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip
-- name: pay_dist
UPDATE district SET d_ytd = d_ytd + $1::numeric / 100 WHERE d_w_id = $2 AND d_id = $3
RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip
-- name: cust_by_name
SELECT c_id FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_last = $3 ORDER BY c_first, c_id
-- name: pay_cust
UPDATE customer SET c_balance = c_balance - $1::numeric / 100, c_ytd_payment = c_ytd_payment + $2::numeric / 100,
  c_payment_cnt = c_payment_cnt + 1,
  c_data = CASE WHEN c_credit = 'BC' THEN substr($3::text || c_data, 1, 500) ELSE c_data END
WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = $6
RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
  c_since, c_credit, c_credit_lim::text, c_discount::text, c_balance::text
-- name: pay_hist
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES ($1, $2, $3, $4, $5, LOCALTIMESTAMP, $6::numeric / 100, $7)
-- name: os_cust
SELECT c_balance::text, c_first, c_middle, c_last FROM customer WHERE c_w_id = $1 AND c_d_id = $2 AND c_id = $3
-- name: os_order
SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = $1 AND o_d_id = $2 AND o_c_id = $3
ORDER BY o_id DESC LIMIT 1
-- name: os_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount::text, ol_delivery_d FROM order_line
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3
-- name: dl_new
DELETE FROM new_order WHERE no_w_id = $1 AND no_d_id = $2 AND no_o_id =
  (SELECT no_o_id FROM new_order WHERE no_w_id = $3 AND no_d_id = $4 ORDER BY no_o_id LIMIT 1 FOR UPDATE)
RETURNING no_o_id
-- name: dl_order
UPDATE orders SET o_carrier_id = $1 WHERE o_w_id = $2 AND o_d_id = $3 AND o_id = $4 RETURNING o_c_id
-- name: dl_lines
UPDATE order_line SET ol_delivery_d = LOCALTIMESTAMP WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3
-- name: dl_cust
UPDATE customer SET c_balance = c_balance + (SELECT COALESCE(SUM(ol_amount), 0) FROM order_line
  WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id = $3), c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = $4 AND c_d_id = $5 AND c_id = $6
-- name: sl_next
SELECT d_next_o_id FROM district WHERE d_w_id = $1 AND d_id = $2
-- name: sl_count
SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock
WHERE ol_w_id = $1 AND ol_d_id = $2 AND ol_o_id < $3 AND ol_o_id >= $4
  AND s_w_id = $5 AND s_i_id = ol_i_id AND s_quantity < $6
