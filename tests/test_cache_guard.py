import importlib

import simcore._cache_guard as guard


def test_stale_cache_files_are_removed_when_a_kernel_source_changes(tmp_path, monkeypatch):
    pkg = tmp_path / "simcore"
    (pkg / "__pycache__").mkdir(parents=True)
    kernel = pkg / "k.py"
    kernel.write_text("from numba import njit\n")
    cached = pkg / "__pycache__" / "k.f-1.py311.nbi"
    cached.write_bytes(b"x")
    cache_dir = tmp_path / "numba_cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(cache_dir))
    monkeypatch.setattr(guard, "_PACKAGE", pkg)
    mirrored = cache_dir / guard.numba_cache_subdir(pkg) / "k.f-1.py311.nbc"
    mirrored.parent.mkdir(parents=True)
    mirrored.write_bytes(b"y")

    assert guard.check_kernel_cache() is True  # no stamp yet: unknown provenance, dropped
    assert not cached.exists() and not mirrored.exists()
    cached.write_bytes(b"x")
    assert guard.check_kernel_cache() is False and cached.exists()  # unchanged sources: kept
    kernel.write_text("from numba import njit\nX = 1\n")
    assert guard.check_kernel_cache() is True and not cached.exists()  # edited: dropped


def test_missing_package_folder_is_left_alone_and_import_runs_the_guard(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(guard, "_PACKAGE", tmp_path / "gone")
    assert guard.check_kernel_cache() is False
    assert not (tmp_path / "gone").exists()
    monkeypatch.undo()
    importlib.reload(importlib.import_module("simcore"))


def test_subdir_name_matches_numbas_own_locator():
    from numba.core.caching import _CacheLocator

    source = guard._PACKAGE / "engine.py"
    assert guard.numba_cache_subdir(source.parent) == _CacheLocator.get_suitable_cache_subpath(str(source))


def test_switching_numba_internals_off_or_on_drops_the_cache(tmp_path, monkeypatch):
    """Kernels compiled with simcore.packet._numba's internals code on must not be loaded with it off (numba keys
    its cache on the kernel's own source file only), nor the other way round."""
    pkg = tmp_path / "simcore"
    (pkg / "__pycache__").mkdir(parents=True)
    (pkg / "k.py").write_text("from numba import njit\n")
    cached = pkg / "__pycache__" / "k.f-1.py311.nbi"
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.delenv("SIMCORE_NUMBA_INTERNALS", raising=False)
    monkeypatch.setattr(guard, "_PACKAGE", pkg)
    guard.check_kernel_cache()
    cached.write_bytes(b"x")
    assert guard.check_kernel_cache() is False and cached.exists()
    monkeypatch.setenv("SIMCORE_NUMBA_INTERNALS", "off")
    assert guard.check_kernel_cache() is True and not cached.exists()  # switched off: dropped
    cached.write_bytes(b"x")
    assert guard.check_kernel_cache() is False and cached.exists()  # still off: kept
    monkeypatch.setenv("SIMCORE_NUMBA_INTERNALS", "")
    assert guard.check_kernel_cache() is True and not cached.exists()  # back on: dropped


def test_the_guard_names_the_switch_selfcheck_reads():
    from simcore.packet._numba import selfcheck

    assert guard._INTERNALS_SWITCH == selfcheck.ENV_SWITCH
