-- Runs once, when the postgres service initialises an empty data volume. POSTGRES_DB creates
-- arena_license; each other service gets a database of its own.
CREATE DATABASE arena_stats;
CREATE DATABASE arena_gateway;
