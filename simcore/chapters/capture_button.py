"""A "save this run as a capture" button for the chapters' live panels (a widget row added under a panel).

``CaptureButton(result_of, name_of, points)`` writes the panel's current run (a traced ``PacketResult``) as
a pcapng file in ``captures/`` beside the notebook and shows its path as a download link, to open in
Wireshark. ``points`` lets the student pick where the capture is taken (a link and its sender or receiver
side). Like the panels, it never raises into the kernel: a failure is shown in red.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Sequence
from pathlib import Path

import ipywidgets as widgets
from IPython.display import HTML

from simcore.packet import PacketResult

__all__ = ["CaptureButton", "CLIENT_HOST", "attach"]

CLIENT_HOST = ("at flow 1's sender (its own interface)", (None, "sender"))
FOLDER = Path("captures")


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "run"


class CaptureButton:
    """Button + capture-point choice + a message (``message``, shown in ``output``); ``save()`` does what a
    click does and returns the path.

    result_of: returns the run to save (None if there is none yet).
    name_of: returns the file's stem for the current settings (made filesystem-safe here).
    points: (label, (link or None, 'sender' | 'receiver')) choices of where the capture is taken.
    """

    def __init__(self, result_of: Callable[[], PacketResult | None], name_of: Callable[[], str],
                 points: Sequence[tuple[str, tuple[int | None, str]]] = (CLIENT_HOST,), folder: Path = FOLDER):
        self.result_of = result_of
        self.name_of = name_of
        self.folder = Path(folder)
        # one capture point offers no choice: shown (so the student sees where the capture is taken), greyed
        self.point = widgets.Dropdown(options=list(points), value=points[0][1], description="capture",
                                      style={"description_width": "initial"}, disabled=len(points) < 2,
                                      layout=widgets.Layout(width="420px"))
        self.button = widgets.Button(description="Save this run as a capture", icon="download",
                                     tooltip="Write the run as a pcapng file that Wireshark opens",
                                     layout=widgets.Layout(width="240px"))
        # an Output (not an HTML widget): the notebook renders it, so a relative link resolves to the file
        # beside the notebook and, with ``download``, is fetched rather than opened in the lab
        self.output = widgets.Output()
        self.message = ""
        self.last_error: Exception | None = None
        self.button.on_click(lambda _b: self.save())
        self.widget = widgets.VBox([widgets.HBox([self.button, self.point]), self.output])

    def _show(self, message: str) -> None:
        self.message = message
        self.output.outputs = ()
        self.output.append_display_data(HTML(message))

    def save(self) -> Path | None:
        """Write the current run's capture; show and return its path (None, with the reason shown, if not)."""
        try:
            res = self.result_of()
            if res is None:
                raise ValueError("no run yet: move a slider first")
            link, side = self.point.value
            self.folder.mkdir(parents=True, exist_ok=True)
            suffix = "" if link is None else f"_link{link}_{side}"
            path = res.to_pcap(self.folder / f"{_safe(self.name_of())}{suffix}.pcapng", link=link,
                               capture_point=side, format="pcapng")
        except Exception as exc:  # a button must never crash the kernel: show, keep, go on
            self.last_error = exc
            self._show(f"<span style='color:#b00020'>Cannot save: {html.escape(str(exc))}</span>")
            return None
        self.last_error = None
        rel = html.escape(path.as_posix())
        self._show(f"Saved <a href='{rel}' download>{rel}</a> ({path.stat().st_size / 1024:.0f} kB). "
                   "Open it in Wireshark: Statistics &gt; TCP Stream Graphs &gt; Stevens shows the time-sequence "
                   "plot; Analyze &gt; Expert Information lists the retransmissions.")
        return path


def attach(panel, button: CaptureButton) -> CaptureButton:
    """Add ``button``'s row at the bottom of ``panel`` (a ``LivePanel``) and keep it as ``panel.capture``."""
    panel.widget.children = (*panel.widget.children, button.widget)
    panel.capture = button
    return button
