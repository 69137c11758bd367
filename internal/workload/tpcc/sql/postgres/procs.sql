-- The five transactions as PL/pgSQL functions (--mode procs): one call, one round trip, one
-- transaction each (the call runs in the client's implicit transaction; an exception rolls all of
-- it back). Same inputs and the same database effects as the client-SQL mode (txn.go, txn.sql);
-- money parameters are integer cents. The calls are in calls.sql.
-- name: neword
CREATE OR REPLACE FUNCTION tpcc_neword(p_w int, p_d int, p_c int, p_all_local int,
  p_items int[], p_supply int[], p_qty int[]) RETURNS numeric
LANGUAGE plpgsql AS $$
DECLARE
  v_n int := cardinality(p_items);
  v_discount numeric;
  v_last varchar;
  v_credit char(2);
  v_wtax numeric;
  v_dtax numeric;
  v_oid int;
  v_found int;
  v_sum numeric;
BEGIN
  SELECT c_discount, c_last, c_credit, w_tax INTO STRICT v_discount, v_last, v_credit, v_wtax
  FROM customer, warehouse
  WHERE w_id = p_w AND c_w_id = w_id AND c_d_id = p_d AND c_id = p_c;

  UPDATE district SET d_next_o_id = d_next_o_id + 1 WHERE d_w_id = p_w AND d_id = p_d
  RETURNING d_next_o_id - 1, d_tax INTO STRICT v_oid, v_dtax;

  INSERT INTO orders (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_ol_cnt, o_all_local)
  VALUES (v_oid, p_d, p_w, p_c, LOCALTIMESTAMP, v_n, p_all_local);
  INSERT INTO new_order (no_o_id, no_d_id, no_w_id) VALUES (v_oid, p_d, p_w);

  -- Items, one row per line: an unused item number rolls the whole transaction back (2.4.2.3).
  SELECT count(i.i_id), sum(l.qty * i.i_price) INTO v_found, v_sum
  FROM unnest(p_items, p_qty) AS l(item, qty) LEFT JOIN item i ON i.i_id = l.item;
  IF v_found < v_n THEN
    RAISE EXCEPTION 'cairn: expected rollback';
  END IF;

  -- Lock the stock rows in key order (as txn.go's no_stock), so concurrent New-Orders lock alike.
  PERFORM 1 FROM unnest(p_supply, p_items) AS l(supply, item)
    JOIN stock ON s_w_id = l.supply AND s_i_id = l.item
  ORDER BY s_w_id, s_i_id FOR UPDATE OF stock;

  -- Update the stock (2.4.2.2) and insert the order lines (ol_number = array index).
  WITH l AS (
    SELECT * FROM unnest(p_items, p_supply, p_qty) WITH ORDINALITY AS l(item, supply, qty, num)
  ), s AS (
    UPDATE stock SET
      s_quantity = CASE WHEN s_quantity >= l.qty + 10 THEN s_quantity - l.qty
                        ELSE s_quantity - l.qty + 91 END,
      s_ytd = s_ytd + l.qty,
      s_order_cnt = s_order_cnt + 1,
      s_remote_cnt = s_remote_cnt + CASE WHEN l.supply <> p_w THEN 1 ELSE 0 END
    FROM l
    WHERE s_w_id = l.supply AND s_i_id = l.item
    RETURNING s_w_id, s_i_id,
      CASE p_d WHEN 1 THEN s_dist_01 WHEN 2 THEN s_dist_02 WHEN 3 THEN s_dist_03
        WHEN 4 THEN s_dist_04 WHEN 5 THEN s_dist_05 WHEN 6 THEN s_dist_06 WHEN 7 THEN s_dist_07
        WHEN 8 THEN s_dist_08 WHEN 9 THEN s_dist_09 ELSE s_dist_10 END AS dist
  )
  INSERT INTO order_line (ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id,
    ol_quantity, ol_amount, ol_dist_info)
  SELECT v_oid, p_d, p_w, l.num, l.item, l.supply, l.qty, l.qty * i.i_price, s.dist
  FROM l JOIN item i ON i.i_id = l.item JOIN s ON s.s_w_id = l.supply AND s.s_i_id = l.item;

  -- The terminal's total (2.4.2.2).
  RETURN v_sum * (1 - v_discount) * (1 + v_wtax + v_dtax);
END
$$
-- name: payment
CREATE OR REPLACE FUNCTION tpcc_payment(p_w int, p_d int, p_cw int, p_cd int, p_cid int,
  p_byname int, p_last varchar, p_amount_cents bigint) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_amount numeric := p_amount_cents::numeric / 100;
  v_wname varchar;
  v_dname varchar;
  v_cid int := p_cid;
  v_n int;
  v_balance numeric;
BEGIN
  UPDATE warehouse SET w_ytd = w_ytd + v_amount WHERE w_id = p_w
  RETURNING w_name INTO STRICT v_wname;
  UPDATE district SET d_ytd = d_ytd + v_amount WHERE d_w_id = p_w AND d_id = p_d
  RETURNING d_name INTO STRICT v_dname;

  IF p_byname = 1 THEN
    -- Position ceil(n/2) of the customers with the last name, sorted by first name (2.5.2.2).
    SELECT count(*) INTO v_n FROM customer
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last;
    IF v_n = 0 THEN
      RAISE EXCEPTION 'no customer named % in warehouse % district %', p_last, p_cw, p_cd;
    END IF;
    SELECT c_id INTO STRICT v_cid FROM customer
    WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_last = p_last
    ORDER BY c_first, c_id OFFSET (v_n - 1) / 2 LIMIT 1;
  END IF;

  -- Bad credit: prepend "C_ID C_D_ID C_W_ID D_ID W_ID H_AMOUNT " to C_DATA, keep 500 characters.
  UPDATE customer SET c_balance = c_balance - v_amount,
    c_ytd_payment = c_ytd_payment + v_amount,
    c_payment_cnt = c_payment_cnt + 1,
    c_data = CASE WHEN c_credit = 'BC' THEN
      substr(v_cid || ' ' || p_cd || ' ' || p_cw || ' ' || p_d || ' ' || p_w || ' ' ||
             v_amount::numeric(12,2)::text || ' ' || c_data, 1, 500)
      ELSE c_data END
  WHERE c_w_id = p_cw AND c_d_id = p_cd AND c_id = v_cid
  RETURNING c_balance INTO STRICT v_balance;

  INSERT INTO history (h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data)
  VALUES (v_cid, p_cd, p_cw, p_d, p_w, LOCALTIMESTAMP, v_amount, v_wname || '    ' || v_dname);
  RETURN v_cid;
END
$$
-- name: ostat
CREATE OR REPLACE FUNCTION tpcc_ostat(p_w int, p_d int, p_cid int, p_byname int, p_last varchar)
RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_cid int := p_cid;
  v_n int;
  v_balance numeric;
  v_first varchar;
  v_middle char(2);
  v_last varchar;
  v_oid int;
  v_carrier int;
  v_entry timestamp;
  v_lines int;
  v_total numeric;
  v_delivered timestamp;
BEGIN
  IF p_byname = 1 THEN
    SELECT count(*) INTO v_n FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last;
    IF v_n = 0 THEN
      RAISE EXCEPTION 'no customer named % in warehouse % district %', p_last, p_w, p_d;
    END IF;
    SELECT c_id INTO STRICT v_cid FROM customer
    WHERE c_w_id = p_w AND c_d_id = p_d AND c_last = p_last
    ORDER BY c_first, c_id OFFSET (v_n - 1) / 2 LIMIT 1;
  END IF;
  SELECT c_balance, c_first, c_middle, c_last INTO STRICT v_balance, v_first, v_middle, v_last
  FROM customer WHERE c_w_id = p_w AND c_d_id = p_d AND c_id = v_cid;

  SELECT o_id, o_carrier_id, o_entry_d INTO v_oid, v_carrier, v_entry FROM orders
  WHERE o_w_id = p_w AND o_d_id = p_d AND o_c_id = v_cid ORDER BY o_id DESC LIMIT 1;
  IF NOT FOUND THEN
    RETURN 0; -- a customer without orders has nothing to show
  END IF;
  SELECT count(*), sum(ol_amount), max(ol_delivery_d) INTO v_lines, v_total, v_delivered
  FROM order_line WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id = v_oid;
  RETURN v_oid;
END
$$
-- name: delivery
CREATE OR REPLACE FUNCTION tpcc_delivery(p_w int, p_carrier int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
  v_skipped int := 0;
  v_oid int;
  v_cid int;
  v_amount numeric;
BEGIN
  FOR v_d IN 1..10 LOOP
    -- The district's oldest undelivered order (2.7.4.2).
    DELETE FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d AND no_o_id =
      (SELECT no_o_id FROM new_order WHERE no_w_id = p_w AND no_d_id = v_d
       ORDER BY no_o_id LIMIT 1 FOR UPDATE)
    RETURNING no_o_id INTO v_oid;
    IF NOT FOUND THEN
      v_skipped := v_skipped + 1; -- no undelivered order in this district
      CONTINUE;
    END IF;
    UPDATE orders SET o_carrier_id = p_carrier WHERE o_w_id = p_w AND o_d_id = v_d AND o_id = v_oid
    RETURNING o_c_id INTO STRICT v_cid;
    WITH l AS (
      UPDATE order_line SET ol_delivery_d = LOCALTIMESTAMP
      WHERE ol_w_id = p_w AND ol_d_id = v_d AND ol_o_id = v_oid
      RETURNING ol_amount
    )
    SELECT COALESCE(sum(ol_amount), 0) INTO v_amount FROM l;
    UPDATE customer SET c_balance = c_balance + v_amount, c_delivery_cnt = c_delivery_cnt + 1
    WHERE c_w_id = p_w AND c_d_id = v_d AND c_id = v_cid;
  END LOOP;
  RETURN v_skipped;
END
$$
-- name: slev
-- The join's range depends on d_next_o_id, so the planner thinks a custom plan for each call is
-- cheaper than the cached generic one and plans the join every time (1-2% of the server's CPU in a
-- run). The generic plan is the same nested loop over order_line's primary key.
CREATE OR REPLACE FUNCTION tpcc_slev(p_w int, p_d int, p_threshold int) RETURNS int
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  v_next int;
  v_count int;
BEGIN
  SELECT d_next_o_id INTO STRICT v_next FROM district WHERE d_w_id = p_w AND d_id = p_d;
  SELECT count(DISTINCT s_i_id) INTO v_count FROM order_line, stock
  WHERE ol_w_id = p_w AND ol_d_id = p_d AND ol_o_id < v_next AND ol_o_id >= v_next - 20
    AND s_w_id = p_w AND s_i_id = ol_i_id AND s_quantity < p_threshold;
  RETURN v_count;
END
$$
