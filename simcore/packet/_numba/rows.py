"""Numba: whole-row copies and 8-byte word access for ``@njit`` kernels on record arrays (``kernel/slot.py``).

numba lowers a record assignment ``a[i] = b[j]`` field by field (a load and a store per field, with their
conversions: ~3.7k lines of IR for a connection's three rows, compiled again into each caller), and
``a.view(np.int64)`` compiles numba's view implementation once per record type. These intrinsics emit the few
instructions the copy needs: ``copy_row(a, i, b, j)`` copies row ``j`` of ``b`` into row ``i`` of ``a`` (one
``memcpy`` of the row's bytes; same record type), ``word(a, i, w)`` reads the ``w``-th 8-byte word of row ``i``
as an int64 and ``set_word(a, i, w, v)`` writes it (on records whose fields are all 8 bytes, as ``HALF`` and
``HALF_OUT``, which ``kernel.slot`` checks at import: a word is then a field, its bits copied exactly, floats included;
``SEG`` has int32 fields and is never copied by words). No bounds checks: callers index rows they own. (This file's
"njit" makes ``simcore._cache_guard`` drop the kernels' caches when it changes: the kernels inline it.)
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_I64 = ir.IntType(64)


def _row_ptr(context, builder, aryty, ary, i):
    """Return an i8* to row ``i`` of the 1-D array ``ary``."""
    arr = context.make_array(aryty)(context, builder, ary)
    ptr = cgutils.get_item_pointer(context, builder, aryty, arr, [i], wraparound=False)
    return builder.bitcast(ptr, ir.IntType(8).as_pointer())


def _records(*arrs) -> bool:
    return all(isinstance(a, types.Array) and a.ndim == 1 and isinstance(a.dtype, types.Record) for a in arrs)


@intrinsic
def copy_row(typingctx, dst, i, src, j):
    """``dst[i] = src[j]`` as one copy of the row's bytes (``dst`` and ``src`` of the same record type)."""
    if not _records(dst, src) or dst.dtype != src.dtype:
        return None

    def codegen(context, builder, signature, args):
        aty, _, bty, _ = signature.args
        d = _row_ptr(context, builder, aty, args[0], args[1])
        s = _row_ptr(context, builder, bty, args[2], args[3])
        size = context.get_abi_sizeof(context.get_data_type(aty.dtype))
        cgutils.raw_memcpy(builder, d, s, ir.Constant(_I64, size), 1)
        return context.get_dummy_value()

    return types.void(dst, i, src, j), codegen


def _word_ptr(context, builder, aryty, ary, i, w):
    base = _row_ptr(context, builder, aryty, ary, i)
    p = builder.gep(base, [builder.mul(w, ir.Constant(_I64, 8))])
    return builder.bitcast(p, _I64.as_pointer())


@intrinsic
def word(typingctx, arr, i, w):
    """Return the ``w``-th 8-byte word of row ``i`` of the record array ``arr``, as an int64."""
    if not _records(arr) or not isinstance(w, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        w64 = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.load(_word_ptr(context, builder, signature.args[0], args[0], args[1], w64))

    return types.int64(arr, i, w), codegen


@intrinsic
def set_word(typingctx, arr, i, w, v):
    """Write the int64 ``v`` as the ``w``-th 8-byte word of row ``i`` of the record array ``arr``."""
    if not _records(arr) or not isinstance(w, types.Integer) or not isinstance(v, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        w64 = context.cast(builder, args[2], signature.args[2], types.int64)
        v64 = context.cast(builder, args[3], signature.args[3], types.int64)
        builder.store(v64, _word_ptr(context, builder, signature.args[0], args[0], args[1], w64))
        return context.get_dummy_value()

    return types.void(arr, i, w, v), codegen
