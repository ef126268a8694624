-- ligretto's role and database (docs/deploy.md, "The database"), made once by
-- PostgreSQL's superuser.  The compose file's postgres image runs this file at its first
-- start (from /docker-entrypoint-initdb.d); without containers, as root:
--   (set -a; . /etc/ligretto/ligretto.env; runuser -u postgres -- psql < deploy/postgres/ligretto.sql)
-- The role's password is the processes' PGPASSWORD (ligretto.env), which psql (15 or
-- later) reads from the environment: it is on no command line.
--
-- The role is no superuser and may make neither databases nor roles: owning its database
-- is all it needs.  The owner may create tables in the database's schema public (since
-- PostgreSQL 15 no other role may unless granted it), which the first process does at its
-- start and each upgrade (the migration); it owns those tables, and takes only advisory
-- locks.
\set ON_ERROR_STOP on
\getenv password PGPASSWORD
\if :{?password}
\else
  DO $$ BEGIN RAISE EXCEPTION 'PGPASSWORD is not set: it is the ligretto role''s password'; END $$;
\endif
CREATE ROLE ligretto LOGIN PASSWORD :'password';
CREATE DATABASE ligretto OWNER ligretto;
