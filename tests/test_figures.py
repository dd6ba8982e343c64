import os
import shutil

import pytest

from simcore import figures
from simcore.__main__ import main


def test_registry_lists_start_here_and_rejects_unknown():
    assert "start_here" in figures.chapters()
    with pytest.raises(ValueError, match="chapter='nope'"):
        figures.build_figures("nope")


def test_cli_writes_html_for_a_chapter(tmp_path):
    assert main(["figures", "start_here", "--out", str(tmp_path), "--no-png"]) == 0
    html = sorted(p.name for p in (tmp_path / "start_here").glob("*.html"))
    assert html == ["delay_vs_intensity_deterministic.html", "delay_vs_intensity_exponential.html"]
    assert (tmp_path / "plotly.min.js").stat().st_size > 1_000_000  # offline: plotly.js is beside them
    assert "../plotly.min.js" in (tmp_path / "start_here" / html[0]).read_text()


def test_png_export_when_a_browser_is_present(tmp_path):
    if not (shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")):
        if os.environ.get("CI") == "true":
            pytest.fail("no Chromium under CI: `make test` installs it")
        pytest.skip("PNG export needs Chromium (kaleido)")
    paths = figures.write_figures("start_here", tmp_path, progress=False)
    pngs = [p for p in paths if p.suffix == ".png"]
    assert len(pngs) == 2 and all(p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)


def test_png_export_overrunning_its_time_limit_is_killed_and_reported(tmp_path):
    import plotly.graph_objects as go

    from simcore._png_export import export_pngs

    with pytest.raises(RuntimeError, match="did not finish within"):
        export_pngs({tmp_path / "x.png": go.Figure()}, timeout_s=0.05, attempts=2)
    assert not (tmp_path / "x.png").exists()


def test_html_is_identical_when_regenerated(tmp_path):
    main(["figures", "start_here", "--out", str(tmp_path / "a"), "--no-png"])
    main(["figures", "start_here", "--out", str(tmp_path / "b"), "--no-png"])
    for path in (tmp_path / "a" / "start_here").glob("*.html"):
        assert path.read_bytes() == (tmp_path / "b" / "start_here" / path.name).read_bytes()
