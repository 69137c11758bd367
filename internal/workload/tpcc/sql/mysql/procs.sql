-- The five transactions as MySQL/MariaDB stored procedures (--mode procs): one CALL, one round
-- trip, and one explicit transaction each (START TRANSACTION … COMMIT, so the server's Com_commit
-- counts it). Same inputs and the same database effects as the client-SQL mode (txn.go, txn.sql);
-- money parameters are integer cents. New-Order's lines come as comma-separated lists, as MySQL
-- has no array parameters. The procedures return no result sets (SELECT … INTO local variables).
-- Any error rolls the transaction back and is re-raised with its own code (a deadlock stays
-- 1213); the requested New-Order rollback is SQLSTATE 45000 with the text of target.RollbackMarker.
-- Each CREATE is sent as one statement (no DELIMITER); cleanup.sql drops them. Text parameters and
-- variables are latin1, like the tables (schema.sql), so no comparison converts a column.
-- name: neword
CREATE PROCEDURE tpcc_neword(p_w INT, p_d INT, p_c INT, p_all_local INT, p_n INT,
  p_items VARCHAR(200) CHARACTER SET latin1, p_supply VARCHAR(200) CHARACTER SET latin1,
  p_qty VARCHAR(200) CHARACTER SET latin1)
BEGIN
  DECLARE v_discount DECIMAL(4,4);
  DECLARE v_last VARCHAR(16) CHARACTER SET latin1;
  DECLARE v_credit CHAR(2) CHARACTER SET latin1;
  DECLARE v_wtax, v_dtax DECIMAL(4,4);
  DECLARE v_oid, v_found INT;
  DECLARE v_sum DECIMAL(12,2);
  DECLARE v_total DECIMAL(16,4);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION;
  SELECT c_discount, c_last, c_credit, w_tax INTO v_discount, v_last, v_credit, v_wtax
  FROM customer, warehouse
  WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;
  IF v_credit IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'new_order customer: no such customer';
  END IF;
  SELECT d_next_o_id, d_tax INTO v_oid, v_dtax FROM district
  WHERE d_w_id = p_w AND d_id = p_d FOR UPDATE;
  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d;
  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
  VALUES (v_oid, p_d, p_w, p_c, NOW(), p_n, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_oid, p_d, p_w);

  -- The lines are handled as sets, one statement each, as the client-SQL mode does: the lists are
  -- split by joining them with the numbers 1..p_n. Item ids are distinct within an order. The
  -- split is written out in each of the three statements: a procedure has no table-valued
  -- variable to hold it, and a temporary table would cost a CREATE and a DROP per New-Order.
  SELECT COUNT(*), SUM(l.qty * i_price) INTO v_found, v_sum
  FROM (SELECT k,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_items, ',', k), ',', -1) AS SIGNED) AS item,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', k), ',', -1) AS SIGNED) AS supply,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', k), ',', -1) AS SIGNED) AS qty
    FROM (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5
      UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10
      UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14
      UNION ALL SELECT 15) AS seq
    WHERE k <= p_n) AS l JOIN item ON i_id = l.item;
  IF v_found < p_n THEN
    -- An unused item number: the requested rollback (2.4.2.3). The handler rolls back.
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cairn: expected rollback';
  END IF;
  -- Stock rows are locked as the sorted line list is read, in (s_w_id, s_i_id) order, as txn.go's
  -- no_stock locks them, so concurrent New-Orders take them in the same order.
  UPDATE stock JOIN (SELECT * FROM (SELECT k,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_items, ',', k), ',', -1) AS SIGNED) AS item,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', k), ',', -1) AS SIGNED) AS supply,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', k), ',', -1) AS SIGNED) AS qty
    FROM (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5
      UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10
      UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14
      UNION ALL SELECT 15) AS seq
    WHERE k <= p_n) AS l0 ORDER BY supply, item LIMIT 15) AS l
    ON s_w_id = l.supply AND s_i_id = l.item
  SET s_quantity = IF(s_quantity >= l.qty + 10, s_quantity - l.qty, s_quantity - l.qty + 91),
    s_ytd = s_ytd + l.qty, s_order_cnt = s_order_cnt + 1,
    s_remote_cnt = s_remote_cnt + IF(l.supply <> p_w, 1, 0);
  IF ROW_COUNT() <> p_n THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'new_order: no stock row';
  END IF;
  INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
    ol_quantity, ol_amount, ol_dist_info)
  SELECT v_oid, p_d, p_w, l.k, l.item, l.supply, l.qty, l.qty * i_price,
    ELT(p_d, s_dist_01, s_dist_02, s_dist_03, s_dist_04, s_dist_05, s_dist_06, s_dist_07,
      s_dist_08, s_dist_09, s_dist_10)
  FROM (SELECT k,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_items, ',', k), ',', -1) AS SIGNED) AS item,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_supply, ',', k), ',', -1) AS SIGNED) AS supply,
      CAST(SUBSTRING_INDEX(SUBSTRING_INDEX(p_qty, ',', k), ',', -1) AS SIGNED) AS qty
    FROM (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 UNION ALL SELECT 5
      UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10
      UNION ALL SELECT 11 UNION ALL SELECT 12 UNION ALL SELECT 13 UNION ALL SELECT 14
      UNION ALL SELECT 15) AS seq
    WHERE k <= p_n) AS l JOIN item ON i_id = l.item JOIN stock ON s_w_id = l.supply AND s_i_id = l.item;
  -- The terminal's total (2.4.2.2), displayed nowhere.
  SET v_total = v_sum * (1 - v_discount) * (1 + v_wtax + v_dtax);
  COMMIT;
END
-- name: payment
CREATE PROCEDURE tpcc_payment(p_w INT, p_d INT, p_cw INT, p_cd INT, p_cid INT, p_byname INT,
  p_last VARCHAR(16) CHARACTER SET latin1, p_amount_cents BIGINT)
BEGIN
  DECLARE v_amount DECIMAL(12,2);
  DECLARE v_wname, v_dname VARCHAR(10) CHARACTER SET latin1;
  DECLARE v_cid INT DEFAULT p_cid;
  DECLARE v_n, v_off INT;
  DECLARE v_credit CHAR(2) CHARACTER SET latin1;
  DECLARE v_balance DECIMAL(12,2);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  SET v_amount = p_amount_cents / 100;
  START TRANSACTION;
  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w;
  SELECT w_name INTO v_wname FROM warehouse WHERE w_id = p_w;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d;
  SELECT d_name INTO v_dname FROM district WHERE d_w_id = p_w AND d_id = p_d;

  IF p_byname = 1 THEN
    -- Position ceil(n/2) of the customers with the last name, sorted by first name (2.5.2.2).
    SELECT COUNT(*) INTO v_n FROM customer
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'payment: no customer with that last name';
    END IF;
    SET v_off = (v_n - 1) DIV 2;
    SELECT c_id INTO v_cid FROM customer
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last
    ORDER BY c_first, c_id LIMIT v_off, 1;
  END IF;

  SELECT c_credit, c_balance INTO v_credit, v_balance FROM customer
  WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid FOR UPDATE;
  IF v_credit IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'payment: no such customer';
  END IF;
  -- Bad credit: prepend "C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT " to C_DATA, keep 500 characters.
  UPDATE customer SET c_balance = c_balance - v_amount,
    c_ytd_payment = c_ytd_payment + v_amount,
    c_payment_cnt = c_payment_cnt + 1,
    c_data = IF(c_credit = 'BC',
      SUBSTRING(CONCAT(v_cid, ' ', p_cd, ' ', p_cw, ' ', p_d, ' ', p_w, ' ', v_amount, ' ', c_data), 1, 500),
      c_data)
  WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid;

  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  VALUES (v_cid, p_cd, p_cw, p_d, p_w, NOW(), v_amount, CONCAT(v_wname, '    ', v_dname));
  COMMIT;
END
-- name: ostat
CREATE PROCEDURE tpcc_ostat(p_w INT, p_d INT, p_cid INT, p_byname INT, p_last VARCHAR(16) CHARACTER SET latin1)
BEGIN
  DECLARE v_cid INT DEFAULT p_cid;
  DECLARE v_n, v_off INT;
  DECLARE v_balance DECIMAL(12,2);
  DECLARE v_first VARCHAR(16) CHARACTER SET latin1;
  DECLARE v_middle CHAR(2) CHARACTER SET latin1;
  DECLARE v_last VARCHAR(16) CHARACTER SET latin1;
  DECLARE v_oid, v_carrier INT;
  DECLARE v_entry, v_delivered DATETIME;
  DECLARE v_lines INT;
  DECLARE v_total DECIMAL(12,2);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION READ ONLY;
  IF p_byname = 1 THEN
    SELECT COUNT(*) INTO v_n FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF v_n = 0 THEN
      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'order_status: no customer with that last name';
    END IF;
    SET v_off = (v_n - 1) DIV 2;
    SELECT c_id INTO v_cid FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last
    ORDER BY c_first, c_id LIMIT v_off, 1;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO v_balance, v_first, v_middle, v_last
  FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_cid;
  IF v_first IS NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'order_status customer: no such customer';
  END IF;
  SELECT o_id, o_carrier_id, o_entry_d INTO v_oid, v_carrier, v_entry FROM orders
  WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_cid ORDER BY o_id DESC LIMIT 1;
  IF v_oid IS NOT NULL THEN
    SELECT COUNT(*), SUM(ol_amount), MAX(ol_delivery_d) INTO v_lines, v_total, v_delivered
    FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_oid;
  END IF;
  COMMIT;
END
-- name: delivery
CREATE PROCEDURE tpcc_delivery(p_w INT, p_carrier INT)
BEGIN
  DECLARE v_d INT DEFAULT 1;
  DECLARE v_skipped INT DEFAULT 0;
  DECLARE v_oid, v_cid INT;
  DECLARE v_amount DECIMAL(12,2);
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION;
  WHILE v_d <= 10 DO
    -- The district's oldest undelivered order (2.7.4.2).
    SET v_oid = NULL;
    SELECT no_o_id INTO v_oid FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
    ORDER BY no_o_id LIMIT 1 FOR UPDATE;
    IF v_oid IS NULL THEN
      SET v_skipped = v_skipped + 1; -- no undelivered order in this district
    ELSE
      DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id = v_oid;
      SET v_cid = NULL;
      SELECT o_c_id INTO v_cid FROM orders
      WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_oid FOR UPDATE;
      IF v_cid IS NULL THEN
        SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'delivery order: no such order';
      END IF;
      UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_oid;
      UPDATE order_line SET ol_delivery_d = NOW()
      WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_oid;
      SELECT COALESCE(SUM(ol_amount), 0) INTO v_amount FROM order_line
      WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_oid;
      UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
      WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_cid;
    END IF;
    SET v_d = v_d + 1;
  END WHILE;
  COMMIT;
END
-- name: slev
CREATE PROCEDURE tpcc_slev(p_w INT, p_d INT, p_threshold INT)
BEGIN
  DECLARE v_next, v_count INT;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN ROLLBACK; RESIGNAL; END;

  START TRANSACTION READ ONLY;
  SELECT d_next_o_id INTO v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT COUNT(DISTINCT s_i_id) INTO v_count FROM order_line, stock
  WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
    AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
  COMMIT;
END
