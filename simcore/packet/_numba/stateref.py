"""Numba: the kernel state ``S`` passed by reference, one pointer per call instead of ~285 scalars.

numba passes a named tuple of arrays to a compiled function as its flattened fields (each array's
pointer, shape, strides ...: some 285 scalars for ``kernel.layout.State``), so every call of a kernel passed
~285 arguments, every kernel's prologue received them, and every call site and prologue was optimised
and turned into machine code in every library that linked it: most of the packet kernels' cold compile,
and a few hundred stores per real call at run time. ``kernel.loop.run`` therefore stores the tuple once in
its own stack frame (``by_ref(S)``) and hands a ``StateRef`` (a pointer to it) to everything it calls;
``S.half``, ``S.pkt`` ... read the field from there. Every kernel runs inside ``run``'s call, so the
pointer never outlives the tuple, and the tuple never changes during the run (the arrays' *contents*
do): the loads are marked invariant, so LLVM may reuse or hoist them freely.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.core.datamodel import models
from numba.core.imputils import impl_ret_borrowed
from numba.core.typing.templates import AttributeTemplate
from numba.extending import infer_getattr, intrinsic, lower_getattr_generic, register_model


class StateRef(types.Type):
    """The type of a pointer to a named tuple ``state`` held by a caller's frame."""

    def __init__(self, state: types.BaseTuple):
        self.state = state
        super().__init__(name=f"StateRef({state})")


@register_model(StateRef)
class _StateRefModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, dmm.lookup(fe_type.state).get_value_type().as_pointer())


@infer_getattr
class _StateRefAttributes(AttributeTemplate):
    key = StateRef

    def generic_resolve(self, typ, attr):
        if attr in typ.state.fields:
            return typ.state.types[typ.state.fields.index(attr)]
        return None


@lower_getattr_generic(StateRef)
def _stateref_getattr(context, builder, typ, value, attr):
    i = typ.state.fields.index(attr)
    v = builder.load(cgutils.gep_inbounds(builder, value, 0, i))
    v.set_metadata("invariant.load", builder.module.add_metadata([]))
    return impl_ret_borrowed(context, builder, typ.state.types[i], v)


@intrinsic
def by_ref(typingctx, state):
    """``by_ref(S)``: a ``StateRef`` to the named tuple ``S``, valid until the calling function returns."""
    if not isinstance(state, types.BaseTuple) or not hasattr(state, "fields"):
        return None

    def codegen(context, builder, signature, args):
        slot = cgutils.alloca_once(builder, args[0].type)
        builder.store(args[0], slot)
        return slot

    return StateRef(state)(state), codegen
