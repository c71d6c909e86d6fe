"""`tilewise serve`: the language server over stdio or websockets."""

from __future__ import annotations

import argparse
import os
import sys

from tilewise.cli.common import err


def cmd_serve(args: argparse.Namespace) -> int:
    import logging

    from tilewise.lsp.server import create_server

    if args.stdio and args.ws is not None:
        err.print("error: --stdio and --ws: pick one transport; pass --stdio (the default) or --ws PORT", markup=False)
        return 2
    transport = "ws" if args.ws is not None else "stdio"
    # TILEWISE_LOG_FILE: the server's log at INFO in a file, for an editor that does not show the server's stderr
    log_file = os.environ.get("TILEWISE_LOG_FILE")
    logging.basicConfig(
        level=logging.INFO if args.verbose or log_file else logging.WARNING,
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
        **({"filename": log_file} if log_file else {"stream": sys.stderr}),
    )
    server = create_server()
    # Garbage collection: the server collects after publishing each analysis, off the latency path (see
    # TilewiseServer.collect_garbage). Automatic collections stay on as a safety net, rarely, and never rescan what
    # startup loaded.
    import gc

    gc.freeze()
    gc.set_threshold(200_000, 20, 50)
    if transport == "ws":
        server.start_ws("127.0.0.1", args.ws)
    else:
        server.start_io()
    return 0
