"""fevga as a service: the UBGI engine protocol (`fevga ubgi`) and the HTTP JSON API
(`fevga serve`).

Both are built on the public API (`fevga.Position`, `fevga.GioulPosition`, `fevga.hint`,
`fevga.evaluate`, `fevga.batch`, `fevga.rollout_moves`, `fevga.analyse`), so that they change
only where that API does.

* `fevga.service.gnubgid`: gnubg position IDs of Fevga boards (``position gnubgid``);
* `fevga.service.engine`: one protocol-free engine session (settings, position, dice, the
  move choice for both games);
* `fevga.service.ubgi`: the UBGI v0.2 line protocol on stdin/stdout (docs/ubgi.md);
* `fevga.service.http`: the FastAPI application and its server (docs/http.md; needs the
  ``fevga[serve]`` extra);
* `fevga.service.jobs`: rollout jobs run in worker threads, with progress and cancel.
"""
