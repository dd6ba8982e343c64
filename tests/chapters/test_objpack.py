"""Chapter 5's panel never raises from a slider; its figures are registered and built."""

from simcore.chapters import objpack as chapter
from simcore.figures import build_figures


def test_panel_runs_at_every_slider_end():
    panel = chapter.make_panel()
    assert panel.last_error is None and "HTTP/1.0" in panel.status.value
    defaults = panel.values()
    for name, (lo, hi, _) in chapter.SLIDER_RANGES.items():
        for v in (lo, hi):
            if name == "n_files" and v == hi:
                continue  # 200 files: covered with small files below
            panel.set(**{name: v})
            assert panel.last_error is None, (name, v, panel.last_error)
        panel.set(**{name: defaults[name]})
    panel.set(n_files=200, mean_kb=0.5, distribution="lognormal", method="multistream", compress="on")
    assert panel.last_error is None
    assert len(panel.figures[1].data) == 6 and max(panel.figures[1].data[0].y) == 200


def test_packaging_figures_registered():
    figs = build_figures("packaging")
    assert set(figs) == {"figure4_reductions", "figure5_files_sweep", "methods_1k", "files_usable_1k",
                         "space_time_one_file"}
