"""Numba: ``outline(f, (S, ...))`` calls the ``@njit`` function ``f`` as a real, out-of-line call that LLVM
may not inline (a ``noinline`` call-site attribute), whatever ``f``'s size.

Why: LLVM's inliner inlines callees of up to a few hundred instructions at every call site (while numba
passed the state ``S`` by value, as its arrays' ~285 flattened fields, it credited each as saved work;
``_numba.stateref`` now passes a pointer). Calls of the packet kernels cascade (a send path inlines the link, its
fluid background, loss and traces), so without this the event loop's module held 63 inlined copies of
``send_packet`` and hundreds of copies of the link code and of the trace recorders; every copy is
optimised and turned into machine code again in every library that links it (``kernel/layout.py``). A call
through ``outline`` keeps one copy per module. Use it for calls that are off the per-packet hot path (or
cost little against the work behind them); with ``S`` by reference a call costs a few ns.

``@one_signature`` (above ``@njit``) compiles a kernel once, for its arguments' plain types, when call sites
pass constants: numba otherwise compiles a separate copy per literal value (``push(S, t, L.EV_RTO, a)`` and
``push(S, t, L.EV_DELACK, a)`` were two compiles of ``push``, ``trace_tcp`` had five), and each copy of a
function taking ``S`` costs a fraction of a second to compile. Constants still reach LLVM as constants
where the callee is inlined.

Both rely on numba's internals (its calling convention; a dispatcher's ``get_call_template``) and check
themselves on import (``selfcheck``): on a numba they were not validated on, ``outline`` is ``plain_call``, an
ordinary call that LLVM may inline, and ``one_signature`` leaves the dispatcher as it is (``OUTLINE_OFF`` and
``ONE_SIGNATURE_OFF`` say why; None when on). The kernels compute the same either way; they compile slower.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

from .selfcheck import cause

OUTLINE_OFF = cause("outline")
ONE_SIGNATURE_OFF = cause("one_signature")


def one_signature(dispatcher):
    """Make the ``@njit`` ``dispatcher`` compile for non-literal argument types only (see the module's doc);
    the dispatcher unchanged when ``ONE_SIGNATURE_OFF``."""
    if ONE_SIGNATURE_OFF is not None:
        return dispatcher
    get_call_template = dispatcher.get_call_template

    def unliteral_call_template(args, kws):
        return get_call_template(tuple(types.unliteral(a) for a in args),
                                 {k: types.unliteral(v) for k, v in kws.items()})

    dispatcher.get_call_template = unliteral_call_template
    return dispatcher


@intrinsic
def outline_call(typingctx, fn, args):
    """``outline_call(f, (a, b, ...))`` is ``f(a, b, ...)``, compiled as a call LLVM does not inline."""
    if not isinstance(fn, types.Dispatcher) or not isinstance(args, types.BaseTuple):
        return None
    argtys = tuple(types.unliteral(a) for a in args.types)
    fnsig = typingctx.resolve_function_type(fn, argtys, {})
    if fnsig is None:
        return None
    sig = fnsig.return_type(fn, args)

    def codegen(context, builder, signature, llargs):
        disp = fn.dispatcher
        cres = disp.overloads[tuple(fnsig.args)]
        context.add_linking_libs([cres.library])
        callee = context.declare_function(builder.module, cres.fndesc)
        vals = [context.cast(builder, v, a, b) for v, a, b in
                zip(cgutils.unpack_tuple(builder, llargs[1], len(argtys)), args.types, fnsig.args, strict=True)]
        status, res = context.call_conv.call_function(builder, callee, fnsig.return_type, fnsig.args, vals,
                                                      attrs=("noinline",))
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        return res

    return sig, codegen


def plain_call(fn, args):
    """``plain_call(f, (a, b, ...))`` is ``f(a, b, ...)``, an ordinary call (in ``@njit`` code only): ``outline`` when
    it is off. An overload (numba's extension API, no internals) that calls ``f`` as a global, so that its callers
    stay cacheable (an ``@njit`` function taking ``f`` as an argument calls it through a pointer numba will not
    cache). Not ``inline="always"``: inlined, it changed the kernels' results (the golden check: at a call site
    passing the constant 1 the callee ran as if passed the 0 of another site); as a call, they are identical."""
    raise TypeError("plain_call is for @njit code")


@overload(plain_call, jit_options=dict(_nrt=False, error_model="numpy", no_cpython_wrapper=True,
                                      no_cfunc_wrapper=True))
def _plain_call(fn, args):
    if not isinstance(fn, types.Dispatcher) or not isinstance(args, types.BaseTuple):
        return None
    f = fn.dispatcher

    def impl(fn, args):
        return f(*args)

    return impl


outline = outline_call if OUTLINE_OFF is None else plain_call
