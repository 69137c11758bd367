-- The five transactions as client-side prepared statements for MySQL and MariaDB (see the
-- PostgreSQL file for the conventions). No UPDATE … RETURNING here: the *_sel statements read and
-- lock first. Money parameters are integer cents.
-- name: no_wc
SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse
WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?
-- name: no_dist_sel
SELECT d_next_o_id, d_tax FROM district WHERE d_w_id = ? AND d_id = ? FOR UPDATE
-- name: no_dist
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?
-- name: no_ins_order
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
VALUES (?, ?, ?, ?, NOW(), ?, ?)
-- name: no_ins_new
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)
-- name: no_items
SELECT i_id, CAST(i_price * 100 AS SIGNED), i_name, i_data FROM item WHERE i_id IN ({{row ?}})
-- name: no_stock
SELECT s_i_id, s_w_id, s_quantity, s_data,
  ELT(?, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10)
FROM stock WHERE (s_w_id, s_i_id) IN ({{row (?, ?)}}) ORDER BY s_w_id, s_i_id FOR UPDATE
-- name: no_stock_upd
UPDATE stock SET s_quantity = CASE s_i_id {{each WHEN ? THEN ?}} END,
  s_ytd = s_ytd + CASE s_i_id {{each WHEN ? THEN ?}} END,
  s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (s_w_id <> ?)
WHERE (s_w_id, s_i_id) IN ({{row (?, ?)}})
-- name: no_ins_lines
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
VALUES {{row (?, ?, ?, ?, ?, ?, ?, ? / 100, ?)}}
-- name: pay_wh
UPDATE warehouse SET w_ytd = w_ytd + ? / 100 WHERE w_id = ?
-- name: pay_wh_sel
SELECT w_name, w_street_1, w_street_2, w_city, w_state, w_zip FROM warehouse WHERE w_id = ?
-- name: pay_dist
UPDATE district SET d_ytd = d_ytd + ? / 100 WHERE d_w_id = ? AND d_id = ?
-- name: pay_dist_sel
SELECT d_name, d_street_1, d_street_2, d_city, d_state, d_zip FROM district WHERE d_w_id = ? AND d_id = ?
-- name: cust_by_name
SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first, c_id
-- name: pay_cust_sel
SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
  c_since, c_credit, c_credit_lim, c_discount, c_balance
FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ? FOR UPDATE
-- name: pay_cust
-- The parameter is converted to the table's latin1: MySQL 8 types a parameter in the connection's
-- utf8mb4 when it prepares the statement and refuses to CONCAT it with a latin1 column.
UPDATE customer SET c_balance = c_balance - ? / 100, c_ytd_payment = c_ytd_payment + ? / 100,
  c_payment_cnt = c_payment_cnt + 1,
  c_data = IF(c_credit = 'BC', SUBSTRING(CONCAT(CONVERT(? USING latin1), c_data), 1, 500), c_data)
WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?
-- name: pay_hist
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES (?, ?, ?, ?, ?, NOW(), ? / 100, ?)
-- name: os_cust
SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?
-- name: os_order
SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?
ORDER BY o_id DESC LIMIT 1
-- name: os_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?
-- name: dl_new_sel
SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1 FOR UPDATE
-- name: dl_new
DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id = ?
-- name: dl_order_sel
SELECT o_c_id FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_id = ? FOR UPDATE
-- name: dl_order
UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ?
-- name: dl_lines
UPDATE order_line SET ol_delivery_d = NOW() WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?
-- name: dl_cust
UPDATE customer SET c_balance = c_balance + (SELECT COALESCE(SUM(ol_amount), 0) FROM order_line
  WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?), c_delivery_cnt = c_delivery_cnt + 1
WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?
-- name: sl_next
SELECT d_next_o_id FROM district WHERE d_w_id = ? AND d_id = ?
-- name: sl_count
SELECT COUNT(DISTINCT s_i_id) FROM order_line, stock
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id < ? AND ol_o_id >= ?
  AND s_w_id = ? AND s_i_id = ol_i_id AND s_quantity < ?
