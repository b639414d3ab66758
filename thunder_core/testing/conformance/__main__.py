"""``python -m thunder_core.testing.conformance NAME [PATTERNS] [--target cpu|cuda|h100]``: which
symbols executor NAME claims (alone, or inside regions), without running any test. NAME is an
installed executor's name or ``module:attr`` / ``file.py:attr``; PATTERNS as --thunder-ops."""

import argparse
import warnings


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m thunder_core.testing.conformance",
                                     description="List the symbols an executor claims.")
    parser.add_argument("executor")
    parser.add_argument("ops", nargs="?", default=None, help="comma-separated fnmatch patterns (default: all)")
    parser.add_argument("--target", default="cpu")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    from . import targets
    from .discovery import discover, select
    from .executors import resolve

    targets.use(args.target)
    claims = discover(resolve(args.executor), select(args.ops, args.target), args.target)
    print(claims.report())
    for sid, why in sorted(claims.not_probed.items()):
        print(f"  not probed: {sid}: {why.splitlines()[0]}")


if __name__ == "__main__":
    main()
