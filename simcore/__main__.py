"""Command line: ``python -m simcore figures [chapter|all] [--out DIR] [--no-png]``, ``notebooks``, ``warm``,
``package pack|unpack|list``."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the process exit status (0 on success)."""
    from simcore.figures import chapters, write_figures
    from simcore.packaging.cli import add_package_parser, run_package

    parser = argparse.ArgumentParser(prog="python -m simcore", description="simcore lab utilities")
    sub = parser.add_subparsers(dest="command", required=True)
    fig = sub.add_parser("figures", help="write chapters' static figures (PNG + HTML) into a folder")
    fig.add_argument("chapter", nargs="?", default="all", choices=[*chapters(), "all"])
    fig.add_argument("--out", default="figures", help="output folder (default: figures)")
    fig.add_argument("--no-png", action="store_true", help="write HTML only (no browser needed)")
    nbs = sub.add_parser("notebooks", help="execute notebooks and store them with only checked outputs")
    nbs.add_argument("paths", nargs="+")
    sub.add_parser("warm", help="compile and cache every numba kernel")
    add_package_parser(sub)
    args = parser.parse_args(argv)
    if args.command == "figures":
        paths = write_figures(args.chapter, args.out, png=not args.no_png)
        print(f"wrote {len(paths)} files under {args.out}/")
    elif args.command == "notebooks":
        from simcore.notebooks import execute_and_store

        for path in args.paths:
            print(f"executed and stored {execute_and_store(path)}")
    elif args.command == "warm":
        from simcore.warm import warm_all

        print(f"numba kernels ready in {warm_all():.1f} s")
    elif args.command == "package":
        return run_package(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
