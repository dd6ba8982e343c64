"""``import simcore`` in a kernel sends plotly.js's library widget before anything heavy is imported.

The page evaluates plotly.js when that widget reaches it, and holds every later message of the kernel meanwhile;
sent before numba (0.2-0.3 s to import) it overlaps the kernel's imports instead of following them.
"""

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          check=True, timeout=120).stdout.strip()


def test_the_library_widget_is_made_before_numba_is_imported_in_a_kernel():
    # a stand-in for a kernel's shell (preload checks ``get_ipython().kernel``); ipywidgets without a kernel
    # makes its comms as dummies, so the widget is made just as in a kernel
    out = _run("""
        import sys, IPython
        class Shell:
            kernel = object()
        IPython.get_ipython = lambda: Shell()
        seen = []
        class Watch:
            def find_spec(self, name, path=None, target=None):
                if name == "numba" and not seen:
                    lib = sys.modules.get("simcore._page_plotly")
                    seen.append(bool(lib and lib._LIBRARY))
                return None
        sys.meta_path.insert(0, Watch())
        import simcore.chapters
        from simcore import _page_plotly
        print(seen, len(_page_plotly._LIBRARY), bool(_page_plotly._LIBRARY[0].version),
              len(_page_plotly._LIBRARY[0].bundle_gz) > 100_000)
    """)
    assert out == "[True] 1 True True", out


def test_nothing_is_sent_outside_a_kernel_or_in_a_book_build():
    out = _run("""
        import os, IPython
        class Shell:
            kernel = object()
        IPython.get_ipython = lambda: Shell()
        os.environ["SIMCORE_STATIC"] = "1"
        import simcore
        from simcore import _page_plotly
        print(len(_page_plotly._LIBRARY))
    """)
    assert out == "0"
    assert _run("import simcore.chapters; from simcore import _page_plotly; print(len(_page_plotly._LIBRARY))") == "0"


def test_a_script_importing_simcore_imports_neither_ipython_nor_anywidget():
    assert _run("import sys, simcore; print('IPython' in sys.modules, 'anywidget' in sys.modules)") == "False False"
