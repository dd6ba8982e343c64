"""Compiler machinery for the packet kernels: code that extends numba or relies on its internals.

What lives here: ``outline`` (a call LLVM may not inline; ``one_signature``), ``stateref`` (the state ``S`` passed
by reference), ``rows`` (whole-row copies and 8-byte words of record arrays), ``prefetch`` (cache hints), ``fixes``
(two fixes of numba's compile-time waste) and ``lazylink`` (each kernel compiled to machine code once, in the event
loop's library), both in force only while the kernels compile. None of them changes a result: each either emits the
instructions numba would, or returns what numba's own code returns (``lazylink``: the same functions from the same
IR, optimised as one module). They depend on numba's version (``pyproject.toml`` bounds it; CONTRIBUTING.md says
what to do on an upgrade), and those that lean on numba's internals check themselves on import (``selfcheck``: on a
numba they were not validated on they switch off, slower, never different; ``python -m simcore.packet._numba``
reports).

Import rules (``tests/packet/test_folders.py`` checks them): numba, llvmlite and the standard library only;
nothing of ``simcore``, so every other folder may import this one.
"""
