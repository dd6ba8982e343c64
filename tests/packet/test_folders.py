"""The packet level's folders keep the import rules their ``__init__.py`` docstrings state.

Read from the source with ``ast`` (every import, also those inside functions), resolved to absolute module
names, and held against the rules written here from those docstrings: a rule broken names the file and the
import. The rules are what keeps the kernel's layers apart (the transports meet only at ``kernel.transport``;
TCP and SCTP never import each other; the numba machinery imports nothing of simcore; a capture reads a
result and never runs a kernel).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import simcore.packet

PKG = Path(simcore.packet.__file__).resolve().parent
P = "simcore.packet"
FOLDERS = ("kernel", "tcp", "tcp/cc", "sctp", "capture", "_numba")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PKG).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join([P, *parts])


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in ``path``; ``from X import y`` gives X.y when X.y is a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module
            for a in node.names:
                sub = f"{mod}.{a.name}"
                is_module = (PKG.parent.parent / (sub.replace(".", "/") + ".py")).is_file() or (
                    PKG.parent.parent / sub.replace(".", "/") / "__init__.py").is_file()
                out.append((node.lineno, sub if is_module else mod))
    return out


def _files(folder: str) -> list[Path]:
    return sorted((PKG / folder).glob("*.py"))


def _simcore_imports(path: Path) -> list[tuple[int, str]]:
    return [(ln, m) for ln, m in _imports(path) if m == "simcore" or m.startswith("simcore.")]


def _under(mod: str, *prefixes: str) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in prefixes)


ALLOWED = {
    # folder: packages (and modules) of simcore it may import, besides itself
    "_numba": (),
    "kernel": (f"{P}._numba", "simcore.engine"),
    "tcp": (f"{P}.kernel", f"{P}._numba"),
    # congestion control: the sender calls its hooks, never the reverse (so not the rest of tcp/)
    "tcp/cc": (f"{P}.kernel", f"{P}._numba"),
    "sctp": (f"{P}.kernel", f"{P}._numba", "simcore._validate"),
    "capture": (f"{P}.results", f"{P}.sctp.wire", "simcore._validate"),
}


@pytest.mark.parametrize("folder", FOLDERS)
def test_every_folder_says_what_lives_there_and_what_it_may_import(folder):
    doc = ast.get_docstring(ast.parse((PKG / folder / "__init__.py").read_text(encoding="utf-8")))
    assert doc and "Import rules" in doc and len(doc.split()) > 40, f"{folder}/__init__.py needs its docstring"
    for f in _files(folder):
        assert ast.get_docstring(ast.parse(f.read_text(encoding="utf-8"))), f"{folder}/{f.name} has no docstring"


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_folder_imports_only_what_its_rules_allow(folder):
    own = f"{P}.{folder.replace('/', '.')}"
    broken = []
    for f in _files(folder):
        extra = ()
        if folder == "kernel" and f.name == "transport.py":
            extra = (f"{P}.tcp", f"{P}.sctp")  # the seam: the one module that knows the transports
        for ln, mod in _simcore_imports(f):
            if not _under(mod, own, *ALLOWED[folder], *extra):
                broken.append(f"{folder}/{f.name}:{ln} imports {mod}")
    assert not broken, "\n".join(broken)


@pytest.mark.parametrize("folder", ("kernel", "tcp", "tcp/cc", "sctp", "_numba"))
def test_a_kernel_folder_imports_nothing_when_the_folder_itself_is_imported(folder):
    """Their ``__init__.py`` files hold a docstring only: importing one folder's module loads no other kernel."""
    assert _imports(PKG / folder / "__init__.py") == [], f"{folder}/__init__.py imports something"


def test_the_import_cycle_through_the_application_stays_module_qualified():
    """kernel.app -> kernel.transport -> the transports' events -> kernel.app: each back edge of the cycle imports a
    module, never names from it (numba resolves ``T.send_available`` and ``A.deliver`` when it compiles; a
    ``from .transport import send_available`` would fail on the half-initialised module)."""
    src = {f: (PKG / f).read_text(encoding="utf-8") for f in ("kernel/app.py", "tcp/events.py", "sctp/events.py")}
    assert "from . import transport as T" in src["kernel/app.py"]
    assert "from .transport import" not in src["kernel/app.py"]
    for f in ("tcp/events.py", "sctp/events.py"):
        assert "from ..kernel import app as A" in src[f], f
        assert "from ..kernel.app import" not in src[f], f


def test_tcp_and_sctp_never_import_each_other():
    pairs = [(a, b) for a in ("tcp", "sctp") for b in ("tcp", "sctp") if a != b]
    for a, b in pairs:
        for f in _files(a):
            assert not [m for _, m in _imports(f) if _under(m, f"{P}.{b}")], f"{a}/{f.name} imports {b}"


def test_the_public_modules_keep_their_import_paths():
    import importlib

    for mod, names in {
        "simcore.packet": ("simulate", "TcpParams", "SctpParams", "sctp_chunk_bounds", "sctp_message_wire_bytes"),
        "simcore.packet.capture": ("write_capture", "capture_frames", "host_ip", "window_scale", "tcp_timestamps",
                                   "CAPTURE_POINTS", "FORMATS", "SERVER_PORT"),
        "simcore.packet.plots": (), "simcore.packet.presets": ("PRESETS",), "simcore.packet.bulk": ("BulkScenario",),
        "simcore.packet.metrics": ("jain_index",), "simcore.packet.sctp_params": ("SctpParams",),
        "simcore.packet.simulate": ("simulate", "run_to_end"), "simcore.packet.results": ("PacketResult",),
    }.items():
        m = importlib.import_module(mod)
        for n in names:
            assert hasattr(m, n), f"{mod}.{n}"
