-- Built after the load: one pass over sorted data is far cheaper than maintaining the index per row.
-- name: warehouse
ALTER TABLE warehouse ADD PRIMARY KEY (w_id)
-- name: district
ALTER TABLE district ADD PRIMARY KEY (d_w_id, d_id)
-- name: customer
ALTER TABLE customer ADD PRIMARY KEY (c_w_id, c_d_id, c_id)
-- name: customer_last
CREATE INDEX customer_last ON customer (c_w_id, c_d_id, c_last, c_first)
-- name: new_order
ALTER TABLE new_order ADD PRIMARY KEY (no_w_id, no_d_id, no_o_id)
-- name: orders
ALTER TABLE orders ADD PRIMARY KEY (o_w_id, o_d_id, o_id)
-- name: orders_customer
CREATE INDEX orders_customer ON orders (o_w_id, o_d_id, o_c_id, o_id)
-- name: order_line
ALTER TABLE order_line ADD PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
-- name: item
ALTER TABLE item ADD PRIMARY KEY (i_id)
-- name: stock
ALTER TABLE stock ADD PRIMARY KEY (s_w_id, s_i_id)
