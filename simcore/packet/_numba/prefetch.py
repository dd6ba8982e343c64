"""Numba: a cache hint for ``@njit`` kernels. ``prefetch(a, i)`` asks the processor to start loading row ``i`` of the
1-D array ``a`` (every cache line of it; ``prefetch2`` / ``prefetch5`` its first 2 / 5 lines) and returns at once; it
changes no value, so results cannot depend on it. (This file's "njit" makes ``simcore._cache_guard`` drop the
kernels' caches when it changes: the kernels inline it.)

At chapter 2's scale the event loop mostly waits on memory: a packet's row, its connection's rows and its
next link's row were last touched a round trip ago (0.64 s of simulated time, thousands of connections
earlier) and each read misses the caches, one after the other. The loop prefetches the rows the next
events will read while it handles the current one (``kernel.loop.run``).
"""

from __future__ import annotations

from llvmlite import binding, ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_LINE = 64  # bytes per cache line
# the intrinsic's name carries its pointer type: opaque pointers (LLVM 16 on, llvmlite 0.45 on) or i8*
_NAME = "llvm.prefetch.p0" if binding.llvm_version_info[0] >= 16 else "llvm.prefetch.p0i8"


def _prefetcher(n_lines: int):
    """Return an intrinsic ``f(a, i)`` that prefetches the first ``n_lines`` cache lines of row ``i`` of the 1-D
    array ``a`` (0: the whole row; no bounds check: a hint on any address is harmless)."""

    @intrinsic
    def prefetch_row(typingctx, arr, i):
        if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(i, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
            i8p = ir.IntType(8).as_pointer()
            base = builder.bitcast(ptr, i8p)
            fnty = ir.FunctionType(ir.VoidType(), [i8p, ir.IntType(32), ir.IntType(32), ir.IntType(32)])
            fn = cgutils.get_or_insert_function(builder.module, fnty, _NAME)
            size = context.get_abi_sizeof(context.get_data_type(aryty.dtype))
            end = size if n_lines == 0 else min(size, n_lines * _LINE)
            i32 = ir.IntType(32)
            for off in [*range(0, end, _LINE), end - 1]:  # the lines [0, end) touches; read, keep, data cache
                builder.call(fn, [builder.gep(base, [ir.Constant(ir.IntType(64), off)]), i32(0), i32(3), i32(1)])
            return context.get_dummy_value()

        return types.void(arr, i), codegen

    return prefetch_row


prefetch = _prefetcher(0)  # the whole row
prefetch2 = _prefetcher(2)  # its first two lines (128 bytes)
prefetch5 = _prefetcher(5)  # its first five lines (320 bytes)
