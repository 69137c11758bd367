-- The five transactions for SQLite (see the PostgreSQL file for the conventions). Money columns
-- are integer cents, so money parameters go in unchanged. Write transactions start with
-- BEGIN IMMEDIATE, which already excludes other writers, so there is no FOR UPDATE.
-- name: no_wc
SELECT c_discount, c_last, c_credit, w_tax FROM customer, warehouse
WHERE w_id = ? AND c_w_id = w_id AND c_d_id = ? AND c_id = ?
-- name: no_dist
UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = ? AND d_id = ?
RETURNING d_next_o_id - 1, d_tax
-- name: no_ins_order
INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
VALUES (?, ?, ?, ?, datetime('now'), ?, ?)
-- name: no_ins_new
INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (?, ?, ?)
-- name: no_items
SELECT i_id, i_price, i_name, i_data FROM item WHERE i_id IN ({{row ?}})
-- name: no_stock
SELECT s_i_id, s_w_id, s_quantity, s_data,
  CASE ? WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03 WHEN 4 THEN s_dist_04
  WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07 WHEN 8 THEN s_dist_08
  WHEN 9 THEN s_dist_09 ELSE s_dist_10 END
FROM stock WHERE (s_w_id, s_i_id) IN (VALUES {{row (?, ?)}}) ORDER BY s_w_id, s_i_id
-- name: no_stock_upd
UPDATE stock SET s_quantity = CASE s_i_id {{each WHEN ? THEN ?}} END,
  s_ytd = s_ytd + CASE s_i_id {{each WHEN ? THEN ?}} END,
  s_order_cnt = s_order_cnt + 1, s_remote_cnt = s_remote_cnt + (s_w_id <> ?)
WHERE (s_w_id, s_i_id) IN (VALUES {{row (?, ?)}})
-- name: no_ins_lines
INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info)
VALUES {{row (?, ?, ?, ?, ?, ?, ?, ?, ?)}}
-- name: pay_wh
UPDATE warehouse SET w_ytd = w_ytd + ? WHERE w_id = ?
RETURNING w_name, w_street_1, w_street_2, w_city, w_state, w_zip
-- name: pay_dist
UPDATE district SET d_ytd = d_ytd + ? WHERE d_w_id = ? AND d_id = ?
RETURNING d_name, d_street_1, d_street_2, d_city, d_state, d_zip
-- name: cust_by_name
SELECT c_id FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_last = ? ORDER BY c_first, c_id
-- name: pay_cust
UPDATE customer SET c_balance = c_balance - ?, c_ytd_payment = c_ytd_payment + ?,
  c_payment_cnt = c_payment_cnt + 1,
  c_data = CASE WHEN c_credit = 'BC' THEN substr(? || c_data, 1, 500) ELSE c_data END
WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?
RETURNING c_first, c_middle, c_last, c_street_1, c_street_2, c_city, c_state, c_zip, c_phone,
  c_since, c_credit, c_credit_lim, c_discount, c_balance
-- name: pay_hist
INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
VALUES (?, ?, ?, ?, ?, datetime('now'), ?, ?)
-- name: os_cust
SELECT c_balance, c_first, c_middle, c_last FROM customer WHERE c_w_id = ? AND c_d_id = ? AND c_id = ?
-- name: os_order
SELECT o_id, o_carrier_id, o_entry_d FROM orders WHERE o_w_id = ? AND o_d_id = ? AND o_c_id = ?
ORDER BY o_id DESC LIMIT 1
-- name: os_lines
SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_delivery_d FROM order_line
WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?
-- name: dl_new
DELETE FROM new_order WHERE no_w_id = ? AND no_d_id = ? AND no_o_id =
  (SELECT no_o_id FROM new_order WHERE no_w_id = ? AND no_d_id = ? ORDER BY no_o_id LIMIT 1)
RETURNING no_o_id
-- name: dl_order
UPDATE orders SET o_carrier_id = ? WHERE o_w_id = ? AND o_d_id = ? AND o_id = ? RETURNING o_c_id
-- name: dl_lines
UPDATE order_line SET ol_delivery_d = datetime('now') WHERE ol_w_id = ? AND ol_d_id = ? AND ol_o_id = ?
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
