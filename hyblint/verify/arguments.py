"""The `hyblint verify` command line, apart from the command, so that building the parser for
`hyblint check` does not import the verification machinery."""
from __future__ import annotations

import argparse
import math

HELP = """Import the modules on hyblint's MXNet-compatible runtime and run every HybridBlock that
can be built, eagerly and then hybridized, on random inputs. Reports blocks that fail once
hybridized, that silently give a different result, or that could not be built. With --fix,
hyblint's fixes are applied in memory and each fixed block is run hybridized against the
original's eager result. This EXECUTES the code in the given files (each module in a subprocess
with a time limit): run it only on code you trust."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=[],
                        help="files or directories (default: . unless --factory is given)")
    parser.add_argument("--shapes", action="append", default=[], metavar="NAME=SHAPE[,SHAPE]",
                        help="input shapes of a block (by class or factory name), e.g. Net=2x16 or "
                             "Net=(2,3),(1,3); repeatable")
    parser.add_argument("--factory", action="append", default=[], metavar="MODULE:FUNC",
                        help="a function of no arguments that returns a block, or (name, block) pairs")
    parser.add_argument("--discover", action="store_true",
                        help="also build blocks with the modules' model functions, e.g. resnet18(pretrained=False): "
                             "every public function callable without arguments (it is called)")
    parser.add_argument("--repro-dir", default=None, metavar="DIR",
                        help="write a standalone script per failing or diverging block to DIR, that runs "
                             "on MXNet 1.9.1 (or on hyblint's runtime with --runtime) and fails the same way")
    parser.add_argument("--fix", action="store_true", help="prove hyblint's fixes by running them")
    parser.add_argument("--unsafe-fixes", action="store_true", help="with --fix, include unsafe fixes")
    parser.add_argument("--extend-select", default="", metavar="CODES",
                        help="also judge the diagnostics of these rules (e.g. HYB012), and with --fix apply "
                             "their fixes")
    parser.add_argument("--write", action="store_true",
                        help="with --fix, write the fixed modules whose fixes were all proved")
    parser.add_argument("--format", choices=("text", "json", "sarif"), default="text",
                        help="json: the blocks, each with the diagnostics it ran and their verdicts; sarif: "
                             "the diagnostics, each with its verdict in its properties")
    parser.add_argument("--timeout", type=positive_seconds, default=None, help="seconds per module (default 120)")
    parser.add_argument("--jobs", "-j", type=positive_count, default=None, metavar="N",
                        help="modules verified at once, each in its own process (default: one per core, "
                             "at most 8)")
    parser.add_argument("--no-cache", action="store_true",
                        help="verify every module again (by default an unchanged module's answer is reused)")
    parser.add_argument("--cache-dir", default=None, metavar="DIR", help="where answers are kept (as for check)")
    parser.add_argument("--python", default=None,
                        help="run the blocks with this interpreter's real `mxnet` instead of the runtime")


def positive_seconds(text: str) -> float:
    """A time limit: a finite number of seconds above zero."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text) from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError("%r: the time limit must be a positive number of seconds" % text)
    return value


def positive_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a whole number" % text) from None
    if value < 1:
        raise argparse.ArgumentTypeError("%r: at least 1" % text)
    return value
