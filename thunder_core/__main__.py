"""Command line: ``python -m thunder_core demo``."""

from __future__ import annotations

import argparse
import sys


def _demo(args) -> int:
    from ._demo import main

    return main()


def _doctor(args) -> int:
    from .doctor import report

    print(report())
    return 0


def _calibrate(args) -> int:
    from .calibrate import main

    return main(["--device", args.device])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m thunder_core")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="run the demo").set_defaults(run=_demo)
    cal = sub.add_parser("calibrate", help="measure this machine for the cost model")
    cal.add_argument("--device", default="cpu", help="the device to measure: cpu (default) or cuda")
    cal.set_defaults(run=_calibrate)
    sub.add_parser("doctor", help="list installed plugins and whether they can run here").set_defaults(run=_doctor)
    ns = parser.parse_args(argv)
    return ns.run(ns)


if __name__ == "__main__":
    sys.exit(main())
