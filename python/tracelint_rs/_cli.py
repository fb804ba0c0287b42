"""The ``tracelint`` command this package installs: the Rust command line, run in-process."""

from __future__ import annotations

import signal
import sys


def main() -> None:
    """Run ``tracelint`` with this process's arguments and exit with its code."""
    from ._native import main as run

    # Ctrl-C ends the command as it ends the standalone binary (Python would otherwise hold the
    # signal until the Rust code returned).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.stdout.flush()
    sys.exit(run(["tracelint", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
