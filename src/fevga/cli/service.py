"""`fevga ubgi` (the UBGI engine protocol on stdin/stdout) and `fevga serve` (the HTTP API)."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ubgi and serve sub-commands."""
    ubgi = subparsers.add_parser("ubgi", help="speak UBGI v0.2 on stdin/stdout (docs/ubgi.md)")
    ubgi.set_defaults(run=_run_ubgi)
    serve = subparsers.add_parser("serve", help="serve the HTTP JSON API (docs/http.md; needs fevga[serve])")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to bind (default: %(default)s, this machine only)")
    serve.add_argument("--port", type=int, default=8765, help="TCP port (default: %(default)s; 0 picks a free one)")
    serve.add_argument("--workers", type=int, default=None, metavar="N",
                       help="worker threads for core work (default: every core)")
    serve.add_argument("--max-jobs", type=int, default=None, metavar="N",
                       help="rollout jobs running or queued at once (default: 4)")
    serve.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                       help="longest a request may take (waiting included) before it answers 408 (default: 30)")
    serve.set_defaults(run=_run_serve)


def _run_ubgi(args: argparse.Namespace) -> int:
    from fevga.service.ubgi import run

    return run()


def _run_serve(args: argparse.Namespace) -> int:
    from fevga.service.http import Limits, serve

    limits = Limits.default()
    limits = limits.with_overrides(workers=args.workers, jobs=args.max_jobs, seconds=args.timeout)
    return serve(args.host, args.port, limits)
