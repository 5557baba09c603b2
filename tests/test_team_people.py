"""One person is one person, and no one loses a colleague's data: attacks tried with a
member's own credentials and with an admin's URL, on a real PostgreSQL (pgserver, 16)
set up by `learn team init`.

- a member cannot write as the team role: SET ROLE and `options=-c role=...` are
  refused (16+), and where a server lets a member SET ROLE (every server before
  16 grants that with membership; simulated here by granting it), what they
  share still carries their login role: a team run counts one person;
- `learn share`, `learn share --forget` and `learn run --team` with the admin's
  URL (a superuser, or a schema owner who is not one) are refused in one line
  naming the URL to use, and the database itself refuses to let that role add
  or delete anyone's rows;
- a member reading every catalog and every table they may read finds no other
  member's name, and each other member only as an opaque role;
- a server logging every statement logs no password during `team init`,
  `add-member`, or a member's `learn team password`;
- a full pg_dump of the team database after team runs from two clones on two
  machines holds no path of either machine.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from _store_backends import admin_url, with_database
from _team_db import printed_urls, roles, team_members
from click.testing import CliRunner, Result

from learn.cli import cli
from learn.config import Config, config_path
from learn.reduce.team import run_team
from learn.store import FeedbackStore, open_store
from learn.store.pg_team import TeamAccessError, team_role
from learn.store.postgres import connect
from learn.store.runs import default_store_path
from learn.store.scan_tables import CandidateRow, ScanTables
from learn.store.team import SharedCandidate, session_hash

REPO = "github.com/acme/webshop"
STAGING = "run the migrations against the staging database, never prod"


def _pg(url: str, **kw: Any) -> Any:
    """A psycopg connection taking `$n` placeholders, as learn's own do."""
    import psycopg

    return psycopg.connect(url, cursor_factory=psycopg.RawCursor, **kw)


def _team_role(url: str) -> str:
    conn = connect(url)
    try:
        return team_role(conn)
    finally:
        conn.close()


def _row(author: str, session: str, quote: str = STAGING, *, show: bool = False) -> SharedCandidate:
    return SharedCandidate(author=author, session_hash=session_hash(session, author),
                           kind="directive", label=None, quote=quote,
                           occurred_at="2026-11-02T09:00:00+00:00", project_remote=REPO,
                           show_name=show)


def _share(url: str, *rows: SharedCandidate) -> int:
    with open_store(url) as store:
        return store.team.share(rows)


def _count(url: str, sql: str = "SELECT COUNT(*) FROM team_candidates") -> int:

    with _pg(url) as conn:
        row = conn.execute(sql).fetchone()
        assert row is not None
        return int(row[0])


def _with_options(url: str, options: str) -> str:
    from urllib.parse import quote

    return f"{url}{'&' if '?' in url else '?'}options={quote(options)}"


def _team_run(url: str, root: Path, **team: Any) -> list[tuple[str, int | None, int]]:
    config = Config()
    config.team.database_url = url
    for k, v in team.items():
        setattr(config.team, k, v)
    result = run_team(root, REPO, config, backend=None, embedder="tfidf")
    return [(p.text, p.people, p.sessions) for p in result.proposals]


def _clone(path: Path, remote: str) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


def _machine(home: Path, clone: Path, remote: str, url: str, said: list[str],
             monkeypatch: pytest.MonkeyPatch) -> Path:
    """A person's machine: HOME, a clone, a local store of what they said, a config."""
    monkeypatch.setenv("HOME", str(home))
    app = _clone(clone, remote)
    with FeedbackStore.open(default_store_path()) as s:
        t = ScanTables(s)
        for i, text in enumerate(said):
            sid = f"{home.name}-session-{i}"
            t.replace_session_candidates(sid, [CandidateRow(
                sid, "directive", text, project=str(app),
                occurred_at=f"2026-11-0{i + 1}T09:00:00+00:00")])
    _configure(url, app)
    return app


def _configure(url: str, app: Path) -> None:
    cfg = config_path()
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'[team]\ndatabase_url = "{url}"\nprojects = ["{app}"]\n')


def _learn(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args))


def test_a_member_cannot_write_as_the_team_role_and_counts_as_one_person(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import psycopg
    from psycopg import errors

    made = team_members(pg_url, "ana", "bo")
    (ana, ana_url), (bo, bo_url) = made["ana"], made["bo"]
    with _pg(pg_url) as conn:
        team = _team_role(pg_url)
        # PostgreSQL 16: the membership gives the team's privileges, not its identity
        assert conn.execute(
            "SELECT a.inherit_option, a.set_option FROM pg_auth_members a WHERE "
            "a.roleid = $1::regrole AND a.member = $2::regrole", (team, ana)).fetchall() == [
            (True, False)]
    with (_pg(ana_url, autocommit=True) as conn,
          pytest.raises(errors.InsufficientPrivilege, match="permission denied to set role")):
        conn.execute(f"SET ROLE {team}")
    with pytest.raises(psycopg.OperationalError, match="permission denied to set role"):
        psycopg.connect(_with_options(ana_url, f"-c role={team}")).close()

    # A server that lets a member SET ROLE (before 16, every membership does): the
    # database still writes her login role, and refuses another name.
    with _pg(pg_url, autocommit=True) as conn:
        conn.execute(f"GRANT {team} TO {ana} WITH SET TRUE")
    as_team = _with_options(ana_url, f"-c role={team}")
    with _pg(as_team, autocommit=True) as conn:
        assert conn.execute("SELECT session_user, current_user").fetchone() == (ana, team)
        for author in (team, bo, "someone"):
            with pytest.raises(errors.InsufficientPrivilege):
                conn.execute(
                    "INSERT INTO team_candidates (author, session_hash, kind, quote, text_hash, "
                    "project_remote, shared_at) VALUES ($1, 'h', 'directive', $2, 'x', $3, 't')",
                    (author, STAGING, REPO))
        conn.execute("INSERT INTO team_candidates (session_hash, kind, quote, text_hash, "
                     "project_remote, shared_at) VALUES ('h2', 'directive', $1, 'x2', $2, 't')",
                     (STAGING, REPO))
        assert conn.execute("SELECT DISTINCT author FROM team_candidates").fetchall() == [(ana,)]
    # ...and `learn share` through that URL shares as ana, not as a second person.
    home = tmp_path / "ana"
    app = _machine(home, home / "src" / "webshop", f"git@github.com:{REPO[11:]}.git", as_team,
                   [STAGING], monkeypatch)
    shared = _learn("share", "--project", str(app))
    assert shared.exit_code == 0 and f"shared 1 candidates of {REPO} as ana" in shared.output
    _share(ana_url, _row(ana, "a-3"))
    assert _count(pg_url, "SELECT COUNT(DISTINCT author) FROM team_candidates") == 1

    # The team run (bo runs it) counts one person: nothing reaches two people.
    assert _team_run(bo_url, app) == []
    assert _team_run(bo_url, app, min_people=1) == [(STAGING, 1, 3)]
    _share(bo_url, _row(bo, "b-1"))
    assert _team_run(bo_url, app) == [(STAGING, 2, 4)]


@pytest.fixture
def owned_database() -> Iterator[tuple[str, str]]:
    """A database owned by an admin who is not a superuser (a managed server's
    usual setup): (the admin's URL, the superuser's URL of the same database)."""

    n = os.getpid()
    admin, db = f"learn_admin_{n}", f"learn_owned_{n}"
    root = admin_url()
    with _pg(root, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", (admin,)).fetchone() is None:
            conn.execute(f"CREATE ROLE {admin} LOGIN CREATEROLE")
        conn.execute(f"CREATE DATABASE {db} OWNER {admin} TEMPLATE learn_test_template")
    url = with_database(root, db).replace("postgres:@", f"{admin}:@", 1)
    try:
        yield url, with_database(root, db)
    finally:
        with _pg(root, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")


def test_the_admins_url_is_refused_and_removes_no_ones_rows(
    tmp_path: Path, owned_database: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the admin's URL in a config (the owner, then the server's superuser)
    share, forget and team run each say in one line which URL to use; nobody's
    row is removed, through learn or through SQL as those roles."""
    from psycopg import errors

    owner_url, super_url = owned_database
    init = _learn("team", "init", "--admin-url", owner_url, "--member", "ana", "--member", "bo")
    assert init.exit_code == 0, init.output
    urls = printed_urls(init.output)
    role = roles(super_url)
    _share(urls["ana"], _row(role["ana"], "a1"), _row(role["ana"], "a2"))
    _share(urls["bo"], _row(role["bo"], "b1"))
    before = _count(super_url, "SELECT COUNT(*) FROM team_candidates")
    assert before == 3

    home = tmp_path / "admin"
    app = _machine(home, home / "webshop", f"https://github.com/{REPO[11:]}", owner_url,
                   [STAGING], monkeypatch)
    for url, who in ((owner_url, "owns the team database"), (super_url, "is a superuser")):
        _configure(url, app)
        for args, prefix in ((("share", "--project", str(app)), "learn share: "),
                             (("share", "--forget"), "learn share: "),
                             (("run", "--team", "--offline", "--quiet", "--embedder", "tfidf",
                               "--project", str(app)), "learn run: ")):
            got = _learn(*args)
            lines = got.output.strip().splitlines()
            assert got.exit_code == 2, (args, got.output)
            assert len(lines) == 1 and lines[0].startswith(prefix), (args, got.output)
            assert who in lines[0] and "your own member URL" in lines[0], lines[0]
        assert _count(super_url) == before

    # Below learn's check, the database: neither role may delete a member's row or
    # add one of its own, whatever statement is sent.
    for url in (owner_url, super_url):
        with open_store(url) as store:
            with pytest.raises(errors.InsufficientPrivilege, match="only its own shared rows"):
                store.team.forget(role["ana"])
            assert store.team.forget(url.split("//")[1].split(":")[0]) == 0  # its own: none
            with pytest.raises(errors.InsufficientPrivilege, match="not a member of this team"):
                store.team.share([_row("postgres", "p1")])
        with _pg(url, autocommit=True) as conn:
            with pytest.raises(errors.InsufficientPrivilege):
                conn.execute("DELETE FROM team_candidates")
            with pytest.raises(errors.InsufficientPrivilege):
                conn.execute("UPDATE team_candidates SET author = 'postgres'")
    assert _count(super_url) == before

    # A login role given the team role's privileges without `learn team init` making
    # it a member (by hand, or by a member allowed to create roles on an old server)
    # is refused by learn and by the database.
    stray = f"learn_stray_{os.getpid()}"
    with _pg(super_url, autocommit=True) as conn:
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = $1", (stray,)).fetchone() is None:
            conn.execute(f"CREATE ROLE {stray} LOGIN")
        conn.execute(f"GRANT {_team_role(super_url)} TO {stray}")
    with open_store(super_url.replace("postgres:@", f"{stray}:@", 1)) as store:
        with pytest.raises(TeamAccessError, match=f"{stray} is not a member set up by"):
            store.team.member(None)
        with pytest.raises(errors.InsufficientPrivilege, match="not a member of this team"):
            store.team.share([_row(stray, "x1")])
    assert _count(super_url) == before
    # The owner (no superuser) removes a person on purpose: that, and only that, works.
    removed = _learn("team", "remove-member", "--admin-url", owner_url, "bo")
    assert "2 shared" not in removed.output and "1 shared candidates deleted; their role is " \
        "dropped" in removed.output, removed.output
    assert _count(super_url) == before - 1


def test_an_old_setup_where_everyone_shared_as_postgres_loses_nothing(
    tmp_path: Path, pg_url: str
) -> None:
    """The previous release's mistake: every person shared with the admin URL, so every
    row is postgres's. After `learn team init` those rows count as no one (not one
    person who said everything), no member's --forget and no admin's forget deletes
    them, and the admin removes them on purpose with `learn team remove-member`."""
    with open_store(pg_url) as store:  # before init: no roles, no trigger
        store.team.share([_row("postgres", f"s{i}", f"rule number {i % 5}") for i in range(15)])
    made = team_members(pg_url, "ana", "bo")
    listed = _learn("team", "members", "--admin-url", pg_url)
    assert listed.exit_code == 0
    assert "(not a member)\tpostgres\t15 shared, counted as no one" in listed.output
    assert f"ana\t{made['ana'][0]}\t0 shared" in listed.output
    assert _team_run(made["ana"][1], tmp_path, min_people=1, min_sessions=1) == []
    with open_store(made["ana"][1]) as store:
        assert store.team.forget(made["ana"][0]) == 0
    with open_store(pg_url) as store:
        with pytest.raises(TeamAccessError, match="postgres is a superuser"):
            store.team.member(None)
        # the rows are postgres's own, but postgres is no member: its forget deletes none
        with pytest.raises(Exception, match="only its own shared rows"):
            store.team.forget("postgres")
    assert _count(pg_url) == 15
    removed = _learn("team", "remove-member", "--admin-url", pg_url, "postgres")
    assert removed.exit_code == 0, removed.output
    assert "removed role postgres: 15 shared candidates deleted" in removed.output
    assert _count(pg_url) == 0


def test_a_team_set_up_by_the_previous_release_is_brought_up_to_date(
    tmp_path: Path, pg_url: str
) -> None:
    """As the previous release left a team: roles named after their people, granted
    the team role with SET ROLE, reading every new table by default privilege, rows
    authored by role name. `learn team init` again: the members keep their rows and
    their names, lose SET ROLE, and cannot read who the members are."""
    import psycopg
    from psycopg import errors

    from learn.store.schema import STEP_NAMES, StoreSchema, migrate

    conn = connect(pg_url)
    try:
        migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0016_session_index_derived") + 1)
        team = team_role(conn)
        ana, bo = f"ana_{os.getpid()}", f"bo_{os.getpid()}"
        conn.execute(f"""
            CREATE ROLE {team} NOLOGIN;
            GRANT SELECT ON ALL TABLES IN SCHEMA public TO {team};
            ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO {team};
            GRANT INSERT ON team_candidates TO {team};
            GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO {team};
            CREATE ROLE {ana} LOGIN; CREATE ROLE {bo} LOGIN;
            GRANT {team} TO {ana}; GRANT {team} TO {bo};
        """)
    finally:
        conn.close()
    old = {n: pg_url.replace("postgres:@", f"{n}:@", 1) for n in (ana, bo)}
    for name, url in old.items():
        with _pg(url, autocommit=True) as c:
            c.execute("INSERT INTO team_candidates (author, session_hash, kind, quote, text_hash, "
                      "project_remote, shared_at) VALUES (current_user, $1, 'directive', $2, "
                      "'t', $3, 'now')", (session_hash("s", name), STAGING, REPO))

    # The admin's newer learn migrates first: the members table is not the team's to
    # read even before init has run again (whatever the default privileges say).
    FeedbackStore.open(pg_url).close()
    with _pg(old[ana], autocommit=True) as c, pytest.raises(errors.InsufficientPrivilege):
        c.execute("SELECT * FROM team_members")
    init = _learn("team", "init", "--admin-url", pg_url)
    assert init.exit_code == 0, init.output
    assert f"keep their role names, which every member can see: {ana}, {bo}" in init.output
    assert roles(pg_url) == {ana: ana, bo: bo}
    with _pg(old[ana], autocommit=True) as c:
        assert c.execute("SELECT name FROM team_me").fetchone() == (ana,)
        for sql in ("SELECT * FROM team_members", f"SET ROLE {team}"):
            with pytest.raises(errors.InsufficientPrivilege):
                c.execute(sql)
    with pytest.raises(psycopg.OperationalError, match="permission denied to set role"):
        psycopg.connect(_with_options(old[ana], f"-c role={team}")).close()
    assert _team_run(old[bo], tmp_path) == [(STAGING, 2, 2)]


def test_remove_member_takes_a_person_out_with_what_they_shared(pg_url: str) -> None:
    import psycopg

    made = team_members(pg_url, "ana", "bo")
    _share(made["ana"][1], _row(made["ana"][0], "a1"))
    _share(made["bo"][1], _row(made["bo"][0], "b1"), _row(made["bo"][0], "b2"))
    removed = _learn("team", "remove-member", "--admin-url", pg_url, "bo")
    assert removed.exit_code == 0, removed.output
    assert (f"removed bo (role {made['bo'][0]}): 2 shared candidates deleted; their role is "
            "dropped") in removed.output
    assert roles(pg_url) == {"ana": made["ana"][0]}
    assert _count(pg_url, "SELECT COUNT(*) FROM team_candidates") == 1
    with pytest.raises(psycopg.OperationalError, match=f'role "{made["bo"][0]}" does not exist'):
        psycopg.connect(made["bo"][1]).close()
    unknown = _learn("team", "remove-member", "--admin-url", pg_url, "cy")
    assert unknown.exit_code == 2 and "not a member of this team" in unknown.output


def _readable(url: str) -> dict[str, str]:
    """Every relation of pg_catalog, information_schema and public the connected role
    may SELECT, each as the text of all its rows."""
    import psycopg

    out: dict[str, str] = {}
    with _pg(url, autocommit=True) as conn:
        rels = conn.execute(
            "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n "
            "ON n.oid = c.relnamespace WHERE n.nspname IN ('pg_catalog', 'information_schema', "
            "'public') AND c.relkind IN ('r', 'v', 'm', 'p', 'f') "
            "AND has_table_privilege(c.oid, 'SELECT') ORDER BY 1, 2").fetchall()
        for nsp, rel in rels:
            try:
                rows = conn.execute(f'SELECT t::text FROM "{nsp}"."{rel}" t').fetchall()
            except psycopg.Error as exc:  # a few views call what only a superuser may
                out[f"{nsp}.{rel}"] = f"<{type(exc).__name__}>"
                continue
            out[f"{nsp}.{rel}"] = "\n".join(str(r[0]) for r in rows)
    return out


def test_members_cannot_find_each_other_in_the_catalogs(tmp_path: Path, pg_url: str) -> None:

    names = ("ana_lindqvist", "bo_okafor", "cy_moreau")
    made = team_members(pg_url, *names)
    ana, bo, cy = (made[n] for n in names)
    _share(ana[1], _row(ana[0], "a1"), _row(ana[0], "a2"))
    _share(bo[1], _row(bo[0], "b1"))
    _share(cy[1], _row(cy[0], "c1", show=True))  # cy chose to be named
    assert _team_run(bo[1], tmp_path)  # a stored team run, naming cy
    with _pg(pg_url, autocommit=True) as conn:
        conn.execute("ANALYZE")  # column statistics of every table, for pg_stats
    with _pg(bo[1]):  # bo is connected while ana looks
        seen = _readable(ana[1])
        with _pg(ana[1]) as conn:  # his session: its role, nothing of what it does
            assert conn.execute("SELECT query, backend_start, client_addr FROM "
                                "pg_stat_activity WHERE usename = $1", (bo[0],)).fetchall() == [
                ("<insufficient privilege>", None, None)]
    assert len(seen) > 150, len(seen)  # the whole catalog, not a sample
    where = {who: sorted(rel for rel, text in seen.items() if who in text)
             for who in (*names, ana[0], bo[0], cy[0])}
    assert where["bo_okafor"] == []
    assert where["cy_moreau"] == ["public.runs", "public.team_shared"]  # by her choice
    assert where["ana_lindqvist"] == ["public.team_me"]
    # Another member is a role with a random name, in the catalogs every role reads
    # (the team's size and when a role is connected cannot be hidden there), and in
    # none of the team's tables: nothing links the role to a person or to rows.
    for role, _ in (bo, cy):
        assert re.fullmatch(r"learn_m_[0-9a-f]{12}", role)
        assert set(where[role]) <= {"pg_catalog.pg_roles", "pg_catalog.pg_user",
                                    "pg_catalog.pg_stat_activity",
                                    "information_schema.applicable_roles",
                                    "information_schema.enabled_roles"}, where[role]
    assert "pg_catalog.pg_stat_activity" in where[bo[0]]
    # column statistics of the tables a member may not read whole are not shown
    assert "(public,team_shared," not in seen["pg_catalog.pg_stats"]  # a view: no statistics
    for table in ("team_candidates", "team_members", "team_settings"):
        assert f"(public,{table}," not in seen["pg_catalog.pg_stats"], table
    assert "(public,runs," in seen["pg_catalog.pg_stats"]  # what they may read, they may
    # The salt that keys the person column, the members' names: the admin's alone.
    for table in ("team_members", "team_settings"):
        assert f"public.{table}" not in seen


def test_a_server_logging_every_statement_logs_no_password(tmp_path: Path) -> None:
    """A server of its own, password (SCRAM) authentication for everyone but its
    superuser, `log_statement = 'all'`: team init, add-member, a new password and a
    member choosing their own leave no password in its log; each URL logs in."""
    import psycopg
    from _store_backends import own_server

    with own_server(log_statement="all") as (root, log):
        with _pg(root, autocommit=True) as conn:
            conn.execute("CREATE DATABASE team")
        url = with_database(root, "team")
        init = _learn("team", "init", "--admin-url", url, "--member", "ana")
        assert init.exit_code == 0, init.output
        added = _learn("team", "add-member", "--admin-url", url, "bo")
        again = _learn("team", "add-member", "--admin-url", url, "--new-password", "ana")
        urls = [*printed_urls(init.output).values(), *printed_urls(added.output).values(),
                *printed_urls(again.output).values()]
        assert len(urls) == 3
        _configure(urls[2], tmp_path)
        own = _learn("team", "password")
        assert own.exit_code == 0, own.output
        (mine,) = re.findall(r'^database_url = "([^"]+)"$', own.output, re.MULTILINE)
        urls.append(mine)
        passwords = [unquote(u.split("//", 1)[1].split("@", 1)[0].split(":", 1)[1]) for u in urls]
        with _pg(mine) as conn:  # password authentication, the new password
            assert conn.execute("SELECT name FROM team_me").fetchone() == ("ana",)
        for old in (urls[0], urls[2]):  # ana's earlier passwords no longer log in
            with pytest.raises(psycopg.OperationalError, match="password authentication failed"):
                psycopg.connect(old).close()
        with _pg(urls[1]) as conn:
            assert conn.execute("SELECT name FROM team_me").fetchone() == ("bo",)
        text = log.read_text(errors="replace")
    # Everything was logged (the roles were made in SQL the log holds)...
    assert "statement: CREATE ROLE learn_m_" in text and "SCRAM-SHA-256$4096:" in text
    assert "statement: ALTER ROLE learn_m_" in text
    # ...and no password, in any form a URL or SQL would carry it.
    for password in passwords:
        for form in (password, password[:12], password.replace("-", "%2D")):
            assert form not in text


def test_a_full_dump_after_team_runs_from_two_clones_holds_no_path(
    tmp_path: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pgserver._commands import POSTGRES_BIN_PATH

    urls = {n: url for n, (_, url) in team_members(pg_url, "ana", "bo").items()}
    clones = {"ana": tmp_path / "ana-laptop" / "work" / "webshop-ana-checkout",
              "bo": tmp_path / "bo-desktop" / "src" / "webshop-bo-checkout"}
    remotes = {"ana": "git@github.com:acme/webshop.git",
               "bo": "https://github.com/Acme/WebShop.git/"}
    apps = {n: _machine(tmp_path / f"{n}-home", clones[n], remotes[n], urls[n],
                        [STAGING, STAGING + " please"], monkeypatch) for n in urls}
    for name, app in apps.items():
        monkeypatch.setenv("HOME", str(tmp_path / f"{name}-home"))
        assert _learn("share", "--project", str(app)).exit_code == 0
    for name, app in apps.items():  # each runs the team run from inside their clone
        monkeypatch.setenv("HOME", str(tmp_path / f"{name}-home"))
        (app / "sub").mkdir()
        monkeypatch.chdir(app / "sub")
        got = _learn("run", "--team", "--offline", "--quiet", "--json", "--embedder", "tfidf",
                     "--project", str(app))
        assert got.exit_code == 0, got.output
        assert '"people": 2' in got.output
    dump = subprocess.run([str(POSTGRES_BIN_PATH / "pg_dump"), "--no-owner", pg_url],
                          capture_output=True, text=True, check=True).stdout
    assert f'"projects": ["{REPO}"]' in dump.replace('\\"', '"')
    assert STAGING in dump
    for machine in (str(tmp_path), *map(str, clones.values()), "webshop-ana-checkout",
                    "webshop-bo-checkout", "ana-laptop", "bo-desktop", os.getcwd(),
                    str(Path.home())):
        assert machine not in dump, machine


def test_a_server_older_than_13_is_refused_before_anything_is_created(pg_url: str) -> None:
    """PostgreSQL 12 cannot run a team (gen_random_uuid, the trigger syntax): `team
    init` says so in one line. No such server is at hand: its answer is stood in for."""
    from learn.store.pg_team import require_server

    class Twelve:
        def execute(self, sql: str, params: Any = ()) -> Any:
            assert "server_version_num" in sql
            return type("R", (), {"fetchone": lambda self: ("120016",)})()

    with pytest.raises(TeamAccessError, match=r"needs PostgreSQL 13 or newer \(this server is 12\.16\)"):
        require_server(Twelve())  # type: ignore[arg-type]
    conn = connect(pg_url)
    try:
        require_server(conn)  # the real one (16) passes
    finally:
        conn.close()
