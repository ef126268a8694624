"""The store's schema, as an ordered list of migration steps, the same for SQLite and
PostgreSQL (each statement as SQLite reads it; ``database.Dialect.schema`` gives
PostgreSQL its types and its spelling of the ``{name}`` fields).

The database's version (an SQLite file's ``PRAGMA user_version``, PostgreSQL's one-row
table ``ligretto_schema``: ``Database.version``) says how many steps it has had; opening
it applies the missing ones, in order, each once and in a transaction of its own (with its
new version number, so a step is applied entirely or not at all: PostgreSQL's schema
changes are transactional too).  Several processes may open one PostgreSQL database at
once: each step is taken under a lock, and skipped if another process applied it
meanwhile.  Step 1 is the schema of the files written before versions existed (their
version is 0 and they already hold its three tables: its ``IF NOT EXISTS`` keeps what
they hold).  A database of a newer version than this code knows is refused
(:class:`SchemaTooNew`): its tables may mean something this code would get wrong.
"""

from __future__ import annotations

from ligretto.server.db.database import Database

__all__ = ["MIGRATIONS", "SchemaTooNew", "migrate", "version_of"]

_TODAY = (
    """CREATE TABLE IF NOT EXISTS tables (
        code TEXT PRIMARY KEY,
        config TEXT NOT NULL,
        updated REAL NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS rounds (
        code TEXT NOT NULL,
        match INTEGER NOT NULL,
        number INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        started REAL NOT NULL,
        PRIMARY KEY (code, match, number)
    )""",
    """CREATE TABLE IF NOT EXISTS actions (
        code TEXT NOT NULL,
        match INTEGER NOT NULL,
        round INTEGER NOT NULL,
        idx INTEGER NOT NULL,
        action TEXT NOT NULL,
        PRIMARY KEY (code, match, round, idx)
    )""",
)

_ACTION_TIMES = (
    # The table's clock when the action took effect (NULL: stored before times were).
    "ALTER TABLE actions ADD COLUMN at REAL",
)

_PROFILES = (
    """CREATE TABLE profiles (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        symbol TEXT NOT NULL,
        created REAL NOT NULL,
        deleted REAL
    )""",
    # One secret per device the profile is on (a one-time code gives another device its
    # own); only their SHA-256 is kept.
    """CREATE TABLE profile_secrets (
        hash TEXT PRIMARY KEY,
        profile TEXT NOT NULL,
        created REAL NOT NULL
    )""",
    "CREATE INDEX profile_secrets_by_profile ON profile_secrets (profile)",
    """CREATE TABLE profile_links (
        code TEXT PRIMARY KEY,
        profile TEXT NOT NULL,
        expires REAL NOT NULL,
        used INTEGER NOT NULL DEFAULT 0
    )""",
)

_HISTORY = (
    """CREATE TABLE matches (
        code TEXT NOT NULL,
        match INTEGER NOT NULL,
        rules TEXT NOT NULL,
        preset TEXT,
        size INTEGER NOT NULL,
        rated INTEGER NOT NULL,
        started REAL NOT NULL,
        ended REAL,
        sheet TEXT NOT NULL,
        places TEXT,
        PRIMARY KEY (code, match)
    )""",
    """CREATE TABLE match_players (
        code TEXT NOT NULL,
        match INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        name TEXT NOT NULL,
        profile TEXT,
        bot TEXT,
        PRIMARY KEY (code, match, seat)
    )""",
    "CREATE INDEX match_players_by_profile ON match_players (profile)",
)

_RATINGS = (
    """CREATE TABLE ratings (
        profile TEXT NOT NULL,
        players INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        matches INTEGER NOT NULL,
        PRIMARY KEY (profile, players)
    )""",
)

_ROUND_FIGURES = (
    # Each seat's figures of a scored round, from its replay (``server.stats``): a scored
    # round never changes, so it is replayed once.
    """CREATE TABLE round_figures (
        code TEXT NOT NULL,
        match INTEGER NOT NULL,
        round INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        races_won INTEGER NOT NULL,
        races_lost INTEGER NOT NULL,
        reactions TEXT NOT NULL,
        PRIMARY KEY (code, match, round, seat)
    )""",
)

_REPLAY_TOKENS = (
    # Each round's share token (``server.replayaccess``): the rounds stored before tokens
    # were get one here, 128 random bits as hex (a new round's is URL-safe base64).
    "ALTER TABLE rounds ADD COLUMN share TEXT",
    "UPDATE rounds SET share = {random_hex_16} WHERE share IS NULL",
    "CREATE UNIQUE INDEX rounds_by_share ON rounds (share)",
)

_MATCH_REPLAYS = (
    # Who might watch a match's replays, as it was when the match started: the table's
    # setting (``replayaccess.Replays``) and each seat's token, as a SHA-256 (NULL: filed
    # before they were kept; the table's setting and seats now stand in for them).
    "ALTER TABLE matches ADD COLUMN replays TEXT",
    "ALTER TABLE match_players ADD COLUMN token TEXT",
)

_SHEETS = (
    # The score keeper's sheets (``server.sheetstore``): a match played with real cards,
    # its rules and players, and every change of its rounds in order (the rounds are what
    # the changes make them).  A sheet's match, once over, is filed in the history as
    # ``kind = 'table'``, never rated.
    """CREATE TABLE sheets (
        code TEXT PRIMARY KEY,
        rules TEXT NOT NULL,
        players TEXT NOT NULL,
        created REAL NOT NULL
    )""",
    """CREATE TABLE sheet_changes (
        code TEXT NOT NULL,
        n INTEGER NOT NULL,
        round INTEGER NOT NULL,
        kind TEXT NOT NULL,
        author TEXT NOT NULL,
        at REAL NOT NULL,
        entry_before TEXT,
        entry_after TEXT,
        undoes INTEGER,
        client_id TEXT NOT NULL,
        PRIMARY KEY (code, n)
    )""",
    "ALTER TABLE matches ADD COLUMN kind TEXT NOT NULL DEFAULT 'online'",
)
_FENCES = (
    # The fencing token of each table (``Store.take_over``): bumped by every process that
    # takes the table over; a process writes a table only while the number it holds is
    # the stored one, so one that stalled past its lease cannot overwrite the new owner's.
    "ALTER TABLE tables ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0",
)

_SHEET_LINKS = (
    # A sheet's players link their own profiles to their seats (``keeper.Sheet.link``):
    # each link or unlink is a change of the sheet with its seat and profile (the sheet's
    # creator is the one profile its players had when it was made: ``Sheet.creator``).
    "ALTER TABLE sheet_changes ADD COLUMN seat INTEGER",
    "ALTER TABLE sheet_changes ADD COLUMN profile TEXT",
)

_ACTION_RANKS = (
    # When each action was ranked: its compensated time (fair judging; by arrival, its
    # arrival), the table's clock; NULL: stored before ranks were.  Races are told by it.
    "ALTER TABLE actions ADD COLUMN ranked REAL",
)

_SEASONS = (
    # Each season's ratings (``ratingstore``: a season is a quarter, ``ratings.season_of``);
    # ``ratings`` keeps the ones of all time.  A past season's rows are its final standings.
    """CREATE TABLE season_ratings (
        season TEXT NOT NULL,
        profile TEXT NOT NULL,
        players INTEGER NOT NULL,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        matches INTEGER NOT NULL,
        PRIMARY KEY (season, profile, players)
    )""",
    "CREATE INDEX season_ratings_by_profile ON season_ratings (profile, players, season)",
)

_TOURNAMENTS = (
    # Tournaments of duplicate deals (``records.tournaments``; the pairing and standings are
    # ``ligretto.tournament``'s, rebuilt from these rows): the settings (``pairing``: swiss
    # or mixed) and seed, the host's
    # secret as a SHA-256; the entrants in the order they joined (a person's secret as a
    # SHA-256, a bot's spec); each stage's tables, each a real table (``code``) whose one
    # match (``matches`` row ``(code, 1)``) is the tournament's, the entrant in each seat
    # (JSON, ``null`` a bye's bot) and its rounds' scores per seat once it is over (NULL before).
    """CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        host TEXT NOT NULL,
        rules TEXT NOT NULL,
        table_size INTEGER NOT NULL,
        stages INTEGER NOT NULL,
        pairing TEXT NOT NULL,
        seed INTEGER NOT NULL,
        created REAL NOT NULL,
        started REAL,
        ended REAL
    )""",
    """CREATE TABLE tournament_entrants (
        tournament TEXT NOT NULL,
        entrant INTEGER NOT NULL,
        name TEXT NOT NULL,
        profile TEXT,
        bot TEXT,
        secret TEXT,
        PRIMARY KEY (tournament, entrant)
    )""",
    """CREATE TABLE tournament_tables (
        tournament TEXT NOT NULL,
        stage INTEGER NOT NULL,
        number INTEGER NOT NULL,
        code TEXT NOT NULL,
        seats TEXT NOT NULL,
        rounds TEXT,
        PRIMARY KEY (tournament, stage, number)
    )""",
    "CREATE UNIQUE INDEX tournament_tables_by_code ON tournament_tables (code)",
)

MIGRATIONS: tuple[tuple[str, ...], ...] = (
    _TODAY,
    _ACTION_TIMES,
    _PROFILES,
    _HISTORY,
    _RATINGS,
    _ROUND_FIGURES,
    _REPLAY_TOKENS,
    _MATCH_REPLAYS,
    _SHEETS,
    _FENCES,
    _SHEET_LINKS,
    _ACTION_RANKS,
    _SEASONS,
    _TOURNAMENTS,
)
"""Step ``n`` (1-based) brings a file from version ``n - 1`` to ``n``."""


class SchemaTooNew(RuntimeError):
    """The database was written by a newer version of ligretto than this one."""


def version_of(db: Database) -> int:
    return db.version()


def _too_new(version: int, known: int) -> SchemaTooNew:
    return SchemaTooNew(
        f"the store's schema is version {version}, this ligretto knows versions up to {known}: "
        "use a newer ligretto, or another database"
    )


def migrate(db: Database, steps: tuple[tuple[str, ...], ...] = MIGRATIONS) -> int:
    """Apply to ``db`` the steps it has not had; returns the version it has now.  Raises
    :class:`SchemaTooNew` for a database of a later version."""
    version = db.version()
    if version > len(steps):
        raise _too_new(version, len(steps))
    for number in range(version + 1, len(steps) + 1):
        with db.transaction(immediate=True):
            db.lock("schema")
            now = db.version()  # another process may have migrated meanwhile
            if now > len(steps):
                raise _too_new(now, len(steps))
            if now >= number:
                continue
            for statement in steps[number - 1]:
                db.execute(db.dialect.schema(statement))
            db.set_version(number)
    return len(steps)
