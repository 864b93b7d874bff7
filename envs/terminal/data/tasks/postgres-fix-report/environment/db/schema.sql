CREATE TABLE customers (
    id integer PRIMARY KEY,
    name text NOT NULL,
    country char(2) NOT NULL
);
CREATE TABLE orders (
    id integer PRIMARY KEY,
    customer_id integer NOT NULL REFERENCES customers (id),
    status text NOT NULL CHECK (status IN ('paid', 'refunded', 'pending')),
    placed_at timestamp NOT NULL
);
CREATE TABLE order_items (
    order_id integer NOT NULL REFERENCES orders (id),
    sku text NOT NULL,
    qty integer NOT NULL,
    unit_price numeric(10,2) NOT NULL
);
