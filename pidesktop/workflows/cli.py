"""``pi-workflows``: the Pi Workflows state command line.

    pi-workflows state init   [--db PATH]
    pi-workflows state status [--db PATH] [--json]
    pi-workflows state verify [--db PATH] [--json]
    pi-workflows state backup /absolute/path [--db PATH] [--json]

Exit codes: 0 success; 1 a check failed (verify found problems, a backup did
not verify); 2 usage error (including a relative backup path); 3 no database
at the path (nothing was created); 4 incompatible database (left untouched);
5 older live state present where a database would be created; 6 storage error
(cannot open, read or write; a backup destination already exists).
"""

from __future__ import annotations

import argparse
import sys

import orjson

from pidesktop.workflows.errors import StateError

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_USAGE = 2
EXIT_MISSING = 3
EXIT_INCOMPATIBLE = 4
EXIT_OLDER_STATE = 5
EXIT_STORAGE = 6


def build_parser() -> argparse.ArgumentParser:
    db_option = argparse.ArgumentParser(add_help=False)
    db_option.add_argument(
        "--db", metavar="PATH", default=argparse.SUPPRESS, help="use this database file instead of the default"
    )
    json_option = argparse.ArgumentParser(add_help=False)
    json_option.add_argument("--json", action="store_true", help="print the report as JSON")

    parser = argparse.ArgumentParser(
        prog="pi-workflows",
        parents=[db_option],
        description="Inspect and maintain the Pi Workflows state database "
        "($PI_CODING_AGENT_DIR/workflows/state.sqlite, default ~/.pi/agent/workflows/state.sqlite).",
    )
    sub = parser.add_subparsers(dest="command")
    state = sub.add_parser("state", help="state database tools")
    actions = state.add_subparsers(dest="action", required=True)
    actions.add_parser("init", parents=[db_option], help="create the database (idempotent)")
    actions.add_parser("status", parents=[db_option, json_option], help="safe counts, sizes, leases and effects")
    actions.add_parser(
        "verify", parents=[db_option, json_option], help="integrity_check, foreign_key_check and the schema shape"
    )
    backup = actions.add_parser(
        "backup", parents=[db_option, json_option], help="a verified copy made with the SQLite backup API"
    )
    backup.add_argument("destination", help="absolute path of the new backup file")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    db_path = getattr(args, "db", None)
    try:
        if args.action == "init":
            return _init(db_path)
        if args.action == "status":
            return _status(db_path, args.json)
        if args.action == "verify":
            return _verify(db_path, args.json)
        return _backup(db_path, args.destination, args.json)
    except StateError as exc:
        print(f"pi-workflows: {exc}", file=sys.stderr)
        return exc.exit_code


def _init(db_path: str | None) -> int:
    from pidesktop.workflows import db, paths

    target = paths.resolve(db_path)
    existed = target.exists()
    store = db.open_writer(target, create=True)
    store.close()
    print(f"{target} {'is ready (it already existed)' if existed else 'was created'}.")
    for path in (target.parent, target):
        if path.stat().st_mode & 0o077:
            print(
                f"note: {path} is open to other users ({paths.describe_mode(path)}); Pi Workflows does not "
                f"change the mode of what it did not create (private is 0700 for the folder, 0600 for the file).",
                file=sys.stderr,
            )
    return EXIT_OK


def _status(db_path: str | None, as_json: bool) -> int:
    from pidesktop.workflows.status import summary

    report = summary(db_path)
    if as_json:
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    else:
        print("\n".join(_status_lines(report)))
    return {"ok": EXIT_OK, "missing": EXIT_MISSING, "incompatible": EXIT_INCOMPATIBLE}[report["state"]]


def _status_lines(report: dict) -> list[str]:
    lines = [f"Pi Workflows state: {report['path']}"]
    if report["state"] == "missing":
        lines.append("  no database here (nothing was created; `pi-workflows state init` creates it)")
        if report["olderLiveState"]:
            lines.append(f"  older live state beside it: {', '.join(report['olderLiveState'])}")
        return lines
    lines.append(f"  file size: {report['fileBytes']} bytes (WAL {report['walBytes']} bytes)")
    if report["state"] == "incompatible":
        lines.append(
            f"  incompatible schema ({report['problemCount']} problems; `pi-workflows state verify` "
            f"lists them); nothing was changed"
        )
        lines.append(f"  {report['instruction']}")
        return lines
    lines.append(
        f"  schema: ok (application id {report['schema']['applicationId']}, "
        f"user version {report['schema']['userVersion']})"
    )
    lines.append(f"  runs: {_breakdown(report['runs'])}")
    lines.append(f"  run queue: {_breakdown(report['runQueue'])}")
    lines.append(f"  decisions: {_breakdown(report['decisions'])}")
    leases = report["leases"]
    lines.append(f"  active leases: {leases['active']} (stale {leases['stale']})")
    for lease in leases["current"]:
        lines.append(
            f"    {lease['kind']}: generation {lease['generation']}, "
            f"expires in {max(lease['expiresInMs'], 0) / 1000:.1f} s"
        )
    effects = dict(report["unsettledEffects"])
    total = effects.pop("total")
    lines.append(f"  unsettled effects: {total}" + (f" ({_breakdown(effects)})" if effects else ""))
    lines.append("  rows: " + ", ".join(f"{name} {n}" for name, n in report["counts"].items() if n))
    return lines


def _breakdown(counts: dict) -> str:
    total = sum(n for key, n in counts.items() if key != "settlementPending")
    parts = [f"{key} {n}" for key, n in sorted(counts.items()) if n]
    return f"{total}" + (f" ({', '.join(parts)})" if parts else "")


def _verify(db_path: str | None, as_json: bool) -> int:
    from pidesktop.workflows.status import verify

    report = verify(db_path)
    if as_json:
        print(orjson.dumps(report, option=orjson.OPT_INDENT_2).decode())
    else:
        print(f"Pi Workflows state: {report['path']}")
        print("  integrity_check: " + ("; ".join(report["integrity"]) or "not run"))
        problems = len(report["foreignKeys"])
        print(f"  foreign_key_check: {f'{problems} problems' if problems else 'ok'}")
        for problem in report["foreignKeys"][:20]:
            print(f"    {problem['table']} row {problem['rowid']} -> {problem['parent']}")
        print("  schema: " + ("ok" if report["schemaOk"] else "incompatible"))
        for problem in report["schemaProblems"]:
            print(f"    {problem}")
        print("verified: ok" if report["ok"] else "verified: PROBLEMS FOUND")
        if "instruction" in report:
            print(f"Nothing was changed. {report['instruction']}")
    if report["ok"]:
        return EXIT_OK
    return EXIT_CHECK_FAILED if report["schemaOk"] else EXIT_INCOMPATIBLE


def _backup(db_path: str | None, destination: str, as_json: bool) -> int:
    from pidesktop.workflows.backup import backup

    result = backup(db_path, destination)
    if as_json:
        print(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())
    else:
        print(
            f"Backed up {result['source']} to {result['destination']} ({result['bytes']} bytes); "
            f"verified read-only: integrity ok, foreign keys ok, schema ok."
        )
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
