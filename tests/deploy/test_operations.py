"""docs/deploy.md's database operations, run as it writes them ("The database"): the role,
backups and restores, an upgrade's migration, the refusal of a newer schema and the
rollback by a dump.

On a REAL PostgreSQL cluster of the module's own (``tests/pgserver.py``: its roles are the
cluster's, and the role ``ligretto`` must give its password), made as the compose file's
``postgres`` service makes it at its first start (``deploy/postgres/ligretto.sql``: a role
that is no superuser and owns its database); the service is the compose file's ``app1``
(and ``app2``), REAL ``ligretto serve`` processes on 127.0.0.1 with a REAL redis-server,
logging in with the env file's ``PGPASSWORD`` (``deployfiles.py``).  The lines of the doc
that run a command in the ``postgres`` container (``pg_dump``, ``pg_restore``,
``dropdb``, ``createdb``) are read from docs/deploy.md and run here by bash as written,
``docker compose exec -T postgres`` standing for a function that gives the command pipes
for its input and output (as docker does) and the server's address in libpq's
``PGHOST`` and ``PGPORT``.

The played data (the module's fixture): five rated matches of two rounds (Ann and Bob,
with profiles, and a bot; played in process on a virtual clock into the database), a
score sheet of Ann's with two rounds and a table made on the running service; everything
the service shows of them (history, statistics, ratings, the leaderboard, every round's
replay, the sheet, both tables) is recorded, then dumped while the service runs; after
the dump a third round is entered and another table made, and the service is stopped.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis
from deployfiles import (
    DEPLOY,
    DOCS,
    Plain,
    compose,
    compose_app,
    docs_commands,
    first_start,
    in_postgres,
    server_env,
    service_env,
)

from ligretto.engine.rules import RuleSet
from ligretto.server.cluster import keys
from ligretto.server.db.database import open_database
from ligretto.server.db.migrations import MIGRATIONS, migrate, version_of
from ligretto.server.records.ratingstore import LEADERBOARD_MIN_MATCHES
from ligretto.testkit.pgserver import THROWAWAY
from ligretto.testkit.serverprocess import STARTUP_S
from pgserver import PgServer
from realserver import free_port
from redisserver import RedisServer
from storedrounds import Person, StoredRounds

ROUNDS = 2
ROLE = DATABASE = "ligretto"
WAIT_S = 10.0
PLAYERS = [
    {"name": "Ann", "back": {"colour": "red", "symbol": "sun"}},
    {"name": "Bob", "back": {"colour": "red", "symbol": "moon"}},
    {"name": "Cleo", "back": {"colour": "blue", "symbol": "star"}},
]
NEWER_STEP = (
    "CREATE TABLE newer_things (code TEXT PRIMARY KEY)",
    "ALTER TABLE tables ADD COLUMN newer TEXT",
)
"""A migration step of a newer ligretto than this one (a table and a column added)."""


def password() -> str:
    """The role's password: the apps' ``PGPASSWORD`` (their env file's, as shipped)."""
    return service_env(compose()["services"]["app1"])["PGPASSWORD"]


@dataclass
class Site:
    """The module's PostgreSQL cluster and Redis, and where the compose file's names are here."""

    folder: Path
    pg: PgServer
    redis: RedisServer
    places: dict[str, int]

    def url(self, database: str = DATABASE) -> str:
        """A database as the role logs in to it (the password in the URL: this process's)."""
        return f"postgresql://{ROLE}:{password()}@127.0.0.1:{self.pg.port}/{database}"

    def admin(self) -> psycopg.Connection[Any]:
        """A connection of the cluster's superuser."""
        return psycopg.connect(self.pg.url("postgres"), autocommit=True)

    def run(self, command: str, *, check: bool = True) -> subprocess.CompletedProcess[str]:
        """One of docs/deploy.md's commands of the ``postgres`` container, run here
        (``check``: it must succeed)."""
        return in_postgres(command, self.pg, compose()["services"]["postgres"], self.folder, check=check)

    def redis_names(self, code: str) -> bool:
        """Whether Redis counts ``code`` among the service's stored tables."""
        with redis.Redis.from_url(self.redis.url) as client:
            return bool(client.sismember(keys.TABLES, code))


@dataclass
class Played:
    """The played service and what it showed when the dump was taken."""

    site: Site
    app: Plain
    """The compose file's ``app1``: the service."""
    profiles: dict[str, tuple[str, str]]
    """Ann's and Bob's profile: its id and its secret."""
    sheet: str
    """The code of Ann's score sheet."""
    tables: list[str]
    """The tables: ``HIST`` (its fifth match over) and the one made on the service."""
    shown: dict[str, Any]
    """Every answer of :func:`shown` when the dump was taken."""
    after_dump: str
    """The code of a table made after the dump."""
    logins: set[str]
    """The roles of the service's connections to its database while it ran."""


def only(program: str) -> str:
    """docs/deploy.md's one line that runs ``program`` in the ``postgres`` container."""
    [command] = docs_commands(program)
    return command


# --- what the service shows ----------------------------------------------------------------


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def shown(app: Plain, profiles: dict[str, tuple[str, str]], sheet: str, tables: list[str]) -> dict[str, Any]:
    """Everything the service answers about the played data: each profile as its owner sees
    it, its matches (with their replays' share tokens) and statistics (with its rating),
    the leaderboard, each round's replay, the sheet and the tables (waiting for the next
    match, and made on the service)."""
    answers: dict[str, Any] = {}

    def ask(path: str, secret: str | None = None) -> Any:
        deadline = time.monotonic() + WAIT_S
        while True:
            status, body = app.http("GET", path, headers=None if secret is None else bearer(secret), timeout=WAIT_S)
            # A table whose process is gone is being taken over: 503 ``moving``, try again (docs/deploy.md).
            if status != 503 or body.get("error") != "moving" or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert status == 200, (path, status, body)
        answers[path if secret is None else f"{path} (owner)"] = body
        return body

    for profile, secret in profiles.values():
        ask("/api/profiles/me", secret)
        matches = ask(f"/api/profiles/{profile}/matches", secret)
        ask(f"/api/profiles/{profile}/stats")
        for token in (token for match in matches["matches"] for token in match["replays"]):
            ask(f"/api/replays/{token}")
    ask("/api/leaderboard?season=all")  # of all time: a version before seasons had no season's
    ask(f"/api/sheets/{sheet}")
    for code in tables:
        ask(f"/api/tables/{code}")
    return answers


def again(played: Played, app: Plain | None = None) -> dict[str, Any]:
    """What ``app`` (the module's service) shows now of what it showed at the dump."""
    return shown(app or played.app, played.profiles, played.sheet, played.tables)


@contextlib.contextmanager
def serving(*apps: Plain) -> Iterator[None]:
    """The apps started together, stopped at the end (SIGTERM), their logs free of tracebacks."""
    try:
        for app in apps:
            app.launch()
        for app in apps:
            app.wait_ready()
        yield
    finally:
        for app in apps:
            app.stopped_cleanly()


def logins(site: Site) -> set[str]:
    """The roles of the connections to the service's database now."""
    with site.admin() as admin:
        rows = admin.execute("SELECT usename FROM pg_stat_activity WHERE datname = %s", (DATABASE,)).fetchall()
    return {name for (name,) in rows}


# --- the played service --------------------------------------------------------------------


def play(url: str) -> dict[str, tuple[str, str]]:
    """Five rated matches of two rounds (enough for the leaderboard) at the table ``HIST``:
    Ann and Bob (stand-ins play for them) and a bot."""
    rules = RuleSet().replace(match_end=f"rounds:{ROUNDS}")
    with StoredRounds(url) as stored:
        ann, bob = stored.profile("Ann", "sun"), stored.profile("Bob", "moon")
        people = [Person("Ann", ann[0]), Person("Bob", bob[0])]
        table = stored.table("HIST", people, ["smart:skilled"], rules=rules, seed=5100, countdown_s=1.0, rated=True)
        for _ in range(LEADERBOARD_MIN_MATCHES):
            stored.play(table, ROUNDS)
    return {"Ann": ann, "Bob": bob}


def enter(app: Plain, sheet: str, n: int, center: list[int], stopped_by: int) -> None:
    """A round of the sheet, entered by Ann."""
    stack = [0 if seat == stopped_by else 3 for seat in range(len(center))]
    entry = {"center": center, "stack": stack, "ending": "stop", "stopped_by": stopped_by}
    status, answer = app.http(
        "PUT", f"/api/sheets/{sheet}/rounds/{n}", {"entry": entry, "base": None, "by": "Ann", "id": f"r{n}"}
    )
    assert status == 200, answer


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    """A cluster of the module's own, its role and database made as the compose file's
    ``postgres`` service makes them at its first start, and a Redis."""
    folder = tmp_path_factory.mktemp("operations")
    pg = PgServer(*THROWAWAY, passwords=(ROLE,))
    directory = RedisServer(folder)
    try:
        pg.start()
        first_start(compose()["services"]["postgres"], pg)
        directory.start()
        places = {"postgres:5432": pg.port, "redis:6379": directory.port}
        yield Site(folder, pg, directory, places | {"app1:8000": free_port(), "app2:8000": free_port()})
    finally:
        directory.stop()
        pg.stop()


@pytest.fixture(scope="module")
def played(site: Site) -> Played:
    """The played data (the module's docstring) dumped with the doc's command while the
    service ran; the service stopped."""
    profiles = play(site.url())
    app = compose_app("app1", site.places, site.folder)
    with serving(app):
        status, sheet = app.http(
            "POST", "/api/sheets", {"players": PLAYERS, "me": 0}, headers=bearer(profiles["Ann"][1])
        )
        assert status == 201, sheet
        enter(app, sheet["code"], 1, [10, 12, 9], 0)
        enter(app, sheet["code"], 2, [14, 8, 11], 1)
        tables = ["HIST", app.create_table(3)]
        answers = shown(app, profiles, sheet["code"], tables)
        connected = logins(site)
        site.run(only("pg_dump"))
        enter(app, sheet["code"], 3, [9, 9, 15], 2)
        after_dump = app.create_table(2)
    return Played(site, app, profiles, sheet["code"], tables, answers, after_dump, connected)


# --- the role --------------------------------------------------------------------------------


def test_the_service_runs_as_a_role_that_only_owns_its_database(played: Played) -> None:
    """deploy/postgres/ligretto.sql (the statements the doc shows; it refuses to run
    without the role's password), run as the postgres image runs it, made a role that is
    no superuser, may make neither databases nor roles and is a member of no other role;
    it owns the database and every table in it (it migrated the schema: the played
    matches' store); the service logged in as it, with its password, and only as it."""
    script = DEPLOY / "postgres" / "ligretto.sql"
    statements = [line for line in script.read_text().splitlines() if line.startswith("CREATE ")]
    assert len(statements) == 2 and all(f"\n{statement}" in DOCS.read_text() for statement in statements)
    site = played.site
    env = server_env(site.pg, compose()["services"]["postgres"])
    del env["PGPASSWORD"]
    psql = ["psql", "--username", "postgres", "--no-psqlrc", "--dbname", "postgres", "-f", str(script)]
    unset = subprocess.run(psql, env=env, capture_output=True, text=True, check=False)
    assert unset.returncode != 0 and "PGPASSWORD is not set" in unset.stderr, unset.stderr
    with site.admin() as admin:
        role = admin.execute(
            "SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin"
            " FROM pg_roles WHERE rolname = %s",
            (ROLE,),
        ).fetchone()
        member_of = admin.execute(
            "SELECT count(*) FROM pg_auth_members JOIN pg_roles ON member = pg_roles.oid WHERE rolname = %s", (ROLE,)
        ).fetchone()
        owner = admin.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = %s", (DATABASE,))
        assert (role, member_of, owner.fetchone()) == ((False, False, False, False, False, True), (0,), (ROLE,))
    with psycopg.connect(site.url()) as db:
        owners = db.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'").fetchall()
    assert owners == [(ROLE,)]
    assert played.logins == {ROLE}, "the service's connections"
    with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
        psycopg.connect(site.url().replace(password(), "not-the-password"))


# --- backups and restores --------------------------------------------------------------------


def test_a_dump_restored_over_a_damaged_database_brings_everything_back(played: Played) -> None:
    """The dump taken while the service ran, restored with the doc's command over the
    database, damaged meanwhile (the sheets' changes and the actions gone, the ratings
    deleted, the profiles renamed), the service stopped: started again, it shows all it
    showed at the dump; what was played after it is gone (the sheet's third round, the
    table made: Redis still names it, and the service forgets it).  Without
    ``--if-exists`` the same restore fails on the table that is gone."""
    site = played.site
    with psycopg.connect(site.url()) as db:
        db.execute("DROP TABLE sheet_changes")
        db.execute("DELETE FROM actions")
        db.execute("DELETE FROM ratings")
        db.execute("UPDATE profiles SET name = 'Nobody'")
    assert site.redis_names(played.after_dump)
    without = site.run(only("pg_restore").replace(" --if-exists", ""), check=False)
    assert without.returncode == 1 and '"public.sheet_changes" does not exist' in without.stderr, without.stderr
    site.run(only("pg_restore"))
    with serving(played.app):
        assert again(played) == played.shown
        assert played.app.http("GET", f"/api/tables/{played.after_dump}")[0] == 404
    assert not site.redis_names(played.after_dump)


# --- upgrades ----------------------------------------------------------------------------------


def new_database(site: Site, name: str) -> str:
    """A new, empty database ``name`` owned by the role (as ligretto.sql makes its own): its URL."""
    with site.admin() as admin:
        admin.execute(f'CREATE DATABASE "{name}" OWNER {ROLE} TEMPLATE template0')
    return site.url(name)


def copy_rows(source: psycopg.Connection[Any], target: psycopg.Connection[Any]) -> int:
    """Every row of ``source``'s tables into ``target``'s of the same name, in the columns
    ``target`` has (all of which ``source`` has: a step only adds); how many."""
    copied = 0
    tables = target.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        " AND table_name <> 'ligretto_schema'"
    ).fetchall()
    for (table,) in tables:
        columns = target.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public'"
            " AND table_name = %s ORDER BY ordinal_position",
            (table,),
        ).fetchall()
        names = ", ".join(name for (name,) in columns)
        with (
            source.cursor().copy(f"COPY {table} ({names}) TO STDOUT") as out,
            target.cursor().copy(f"COPY {table} ({names}) FROM STDIN") as into,
        ):
            for data in out:
                into.write(data)
        copied += target.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
    return copied


def waiting_for_locks(site: Site) -> int:
    """How many connections to the service's database wait for an advisory lock."""
    with site.admin() as admin:
        (count,) = admin.execute(
            "SELECT count(*) FROM pg_locks JOIN pg_database ON pg_database.oid = pg_locks.database"
            " WHERE locktype = 'advisory' AND NOT granted AND datname = %s",
            (DATABASE,),
        ).fetchone()
    return int(count)


def test_two_new_processes_migrate_the_previous_version_once_and_read_its_data(played: Played) -> None:
    """The database one step behind, as the previous version left it: emptied with the
    doc's commands, every step but the last applied by the role, and the dump's rows copied
    in, in the columns that version has.  The compose file's two apps (this version) start
    at once while the step's lock (the schema's advisory lock) is held, so both reach the
    step: both wait for the lock, one applies the step, the other finds it done (applied
    twice it would fail: its column would be there already), both serve, and each shows
    everything the dump held."""
    site = played.site
    current = new_database(site, "current")
    site.run(only("pg_restore").replace(f" -d {DATABASE} ", " -d current "))
    site.run(only("dropdb"))
    site.run(only("createdb"))
    previous = open_database(site.url())
    try:
        assert migrate(previous, MIGRATIONS[:-1]) == len(MIGRATIONS) - 1
    finally:
        previous.close()
    with psycopg.connect(current, autocommit=True) as source, psycopg.connect(site.url(), autocommit=True) as target:
        assert copy_rows(source, target) > 1000
    folder = site.folder / "upgrade"
    folder.mkdir()
    directory = RedisServer(folder)  # the new service's own
    directory.start()
    apps = [compose_app(name, site.places | {"redis:6379": directory.port}, folder) for name in ("app1", "app2")]
    holder = open_database(site.url())
    try:
        with holder.transaction():
            holder.lock("schema")
            for app in apps:
                app.launch()
            deadline = time.monotonic() + STARTUP_S  # as long as a start may take
            while waiting_for_locks(site) < 2:
                assert all(app.alive for app in apps), [app.log_text() for app in apps]
                assert time.monotonic() < deadline, "the new processes did not both wait for the schema's lock"
                time.sleep(0.02)
        for app in apps:
            app.wait_ready()
        assert version_of(holder) == len(MIGRATIONS)
        for app in apps:
            assert again(played, app) == played.shown
    finally:
        holder.close()
        for app in apps:
            app.stopped_cleanly()
        directory.stop()


# --- the invariant that lets the old processes play on over a migrated schema -------------------

STATEMENTS = (
    re.compile(r"CREATE TABLE (IF NOT EXISTS )?\w+ \(.*\)"),
    re.compile(r"CREATE (UNIQUE )?INDEX \w+ ON \w+ \([\w, ]+\)"),
    re.compile(r"ALTER TABLE \w+ ADD COLUMN \w+ .*"),
    re.compile(r"UPDATE (?P<table>\w+) SET (?P<column>\w+) = .*"),
)
"""What a step may say: make a table or an index, add a column, fill one."""


def catalog(db: psycopg.Connection[Any]) -> dict[str, dict[tuple[str, str], tuple[Any, ...]]]:
    """The schema as PostgreSQL has it, by (table, name): each column's type, nullability
    and default; each index's and constraint's definition, whether it refuses rows (a
    unique index; every constraint) and the columns it is over."""
    columns = db.execute(
        "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns"
        " WHERE table_schema = 'public' AND table_name <> 'ligretto_schema'"
    )
    over = "ARRAY(SELECT attname FROM pg_attribute WHERE attrelid = {table} AND attnum = ANY({keys}) ORDER BY attname)"
    indexes = db.execute(
        "SELECT t.relname, i.relname, pg_get_indexdef(i.oid), x.indisunique, "
        + over.format(table="t.oid", keys="x.indkey")
        + " FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid"
        " WHERE t.relnamespace = 'public'::regnamespace AND t.relname <> 'ligretto_schema'"
    )
    constraints = db.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid), true, "
        + over.format(table="conrelid", keys="conkey")
        + " FROM pg_constraint WHERE connamespace = 'public'::regnamespace"
        " AND conrelid::regclass::text <> 'ligretto_schema'"
    )
    return {
        kind: {
            (table, name): tuple(tuple(v) if isinstance(v, list) else v for v in rest) for table, name, *rest in rows
        }
        for kind, rows in (("columns", columns), ("indexes", indexes), ("constraints", constraints))
    }


def not_only_adding(url: str, steps: tuple[tuple[str, ...], ...]) -> list[str]:
    """Applies ``steps`` one by one to the empty database ``url`` and names what each does
    but add: a column, index or constraint dropped, renamed or changed; a column added to a
    table that was there, NOT NULL without a default; a unique index or a constraint put on
    such a table but over the step's new columns only; a statement of another kind, or an
    ``UPDATE`` of a column the step did not add."""
    found: list[str] = []
    database = open_database(url)
    with psycopg.connect(url, autocommit=True) as db:
        before = catalog(db)
        for number, step in enumerate(steps, 1):
            migrate(database, steps[:number])
            after = catalog(db)
            for kind, items in before.items():
                changed = [key for key, was in items.items() if after[kind].get(key) != was]
                found += [f"step {number}: {kind} {key} changed" for key in changed]
            tables = {table for table, _ in before["columns"]}
            added = {key for key in after["columns"].keys() - before["columns"].keys() if key[0] in tables}
            strict = [key for key in added if after["columns"][key][1:] == ("NO", None)]
            found += [f"step {number}: {key} is NOT NULL without a default" for key in strict]
            for kind in ("indexes", "constraints"):
                for (table, name), (_, refuses, columns) in after[kind].items() - before[kind].items():
                    if table in tables and refuses and not all((table, column) in added for column in columns):
                        found.append(f"step {number}: {name} refuses rows {table} took")
            for statement in (" ".join(text.split()) for text in step):
                match = next((m for pattern in STATEMENTS if (m := pattern.fullmatch(statement))), None)
                if match is None:
                    found.append(f"step {number}: {statement!r} is not an addition")
                elif "column" in match.groupdict() and (match["table"], match["column"]) not in added:
                    found.append(f"step {number}: {statement!r} changes a column it did not add")
            before = after
    database.close()
    return found


def test_every_migration_step_only_adds(played: Played) -> None:
    """The documented reason why a process of the previous version plays on over a schema a
    new process migrated: each step, applied one by one on PostgreSQL as the role, keeps
    every column (its type, nullability, default), index and constraint as it was, and adds
    columns that may be left out of an INSERT, indexes and constraints that bind only what
    it adds, and fills only what it adds.  The same check finds each kind of step that
    would break the old processes' queries, one after the other on tables of their own."""
    site = played.site
    assert not_only_adding(new_database(site, "steps"), MIGRATIONS) == []
    breaking = (
        "ALTER TABLE {t} DROP COLUMN y",
        "ALTER TABLE {t} RENAME COLUMN y TO z",
        "ALTER TABLE {t} ALTER COLUMN y TYPE BIGINT",
        "ALTER TABLE {t} ADD COLUMN w TEXT NOT NULL",
        "CREATE UNIQUE INDEX {t}_by_x ON {t} (x)",
        "ALTER TABLE {t} ADD COLUMN v TEXT DEFAULT '', ADD CONSTRAINT {t}_x CHECK (x <> '')",
        "UPDATE {t} SET x = 'x'",
    )
    tables = [f"a{n}" for n in range(len(breaking))]
    steps = (tuple(f"CREATE TABLE {t} (x TEXT, y INTEGER)" for t in tables),)
    steps += tuple((statement.format(t=t),) for statement, t in zip(breaking, tables, strict=True))
    found = not_only_adding(new_database(site, "breaking"), steps)
    assert sorted({int(problem.split(":")[0].removeprefix("step ")) for problem in found}) == [
        number for number, _ in enumerate(steps, 1) if number > 1
    ], found


# --- rollback --------------------------------------------------------------------------------


def test_a_newer_schema_is_refused_and_rolled_back_by_the_dump_taken_before(played: Played) -> None:
    """A newer ligretto's step applied to the database (as the role): this version's app
    refuses it at its start, exit status 1 and one line.  Restored with ``--clean`` over
    it, the dump would keep the step's table, which the next upgrade's step would make
    again, and fail; so the doc's rollback restores it into an empty database: this
    version serves it, showing everything it held, and the newer version migrates it
    again."""
    site = played.site
    newer = (*MIGRATIONS, NEWER_STEP)
    database = open_database(site.url())
    try:
        assert migrate(database, newer) == len(MIGRATIONS) + 1
        database.execute("INSERT INTO newer_things (code) VALUES ('HIST')")
    finally:
        database.close()
    folder = site.folder / "newer"
    folder.mkdir()
    refused = compose_app("app1", site.places, folder)
    refused.launch()
    assert refused.process is not None and refused.process.wait(STARTUP_S) == 1
    assert refused.log_text() == (
        f"ligretto serve: the store's schema is version {len(MIGRATIONS) + 1}, this ligretto knows versions up to "
        f"{len(MIGRATIONS)}: use a newer ligretto, or another database\n"
    )
    site.run(only("pg_restore"))
    database = open_database(site.url())
    try:
        assert version_of(database) == len(MIGRATIONS)
        assert database.execute("SELECT to_regclass('newer_things')").fetchone() == ("newer_things",)
        with pytest.raises(psycopg.errors.DuplicateTable):
            migrate(database, newer)
    finally:
        database.close()
    site.run(only("dropdb"))
    site.run(only("createdb"))
    site.run(only("pg_restore"))
    with serving(played.app):
        assert again(played) == played.shown
    database = open_database(site.url())
    try:
        assert database.execute("SELECT to_regclass('newer_things')").fetchone() == (None,)
        assert migrate(database, newer) == len(MIGRATIONS) + 1
    finally:
        database.close()
