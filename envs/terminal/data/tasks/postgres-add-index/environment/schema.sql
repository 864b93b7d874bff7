CREATE TABLE samples (
    host text NOT NULL,
    ts timestamptz NOT NULL,
    value double precision NOT NULL
);
