"""LiveFigure sends a snapshot when the page asks, then only what changed, numbers as binary buffers."""

import numpy as np
import pytest

from simcore.livefigure import LiveFigure, _pack, encode
from simcore.plotting import LivePanel, float_slider, same_value


def _connected(fig):
    sent = []
    fig.widget.send = lambda content, buffers=None: sent.append((content, buffers or []))
    fig._on_msg(None, {"type": "hello"}, [])
    return sent


def test_encode_numeric_arrays_as_little_endian_buffers_and_non_finite_as_none():
    buffers = []
    out = encode({"x": np.array([1.0, 2.5]), "y": [float("nan"), 3], "t": np.array(["a", "b"])}, buffers)
    assert out == {"x": {"__nd__": 0, "dtype": "f8"}, "y": [None, 3], "t": ["a", "b"]}
    assert buffers[0] == np.array([1.0, 2.5], "<f8").tobytes()
    long = encode(list(range(100)) + [None], buffers)  # a long numeric list travels as float64, None -> NaN
    back = np.frombuffer(buffers[long["__nd__"]], "<f8")
    assert back.size == 101 and back[99] == 99.0 and np.isnan(back[100])


def test_repeated_strings_travel_once_with_an_index_per_point():
    buffers = []
    stories = ["client 0: waited 3 s", "client 1: gave up"] * 50 + [None]
    out = encode(stories, buffers)
    assert out["__strs__"] == ["client 0: waited 3 s", "client 1: gave up", None]
    assert out["index"]["dtype"] == "i1"  # 3 distinct strings: one byte a point
    index = np.frombuffer(buffers[out["index"]["__nd__"]], "<i1")
    assert [out["__strs__"][i] for i in index] == stories
    distinct = [f"point {i}" for i in range(100)]  # nothing repeats: plain JSON
    assert encode(distinct, buffers) == distinct


def test_nothing_is_sent_before_the_page_asks_then_a_snapshot_with_names_and_styles():
    fig = LiveFigure()
    fig.add_scatter(x=[0, 1], y=[2, 3], name="closed form", line=dict(color="#000000"))
    sent = []
    fig.widget.send = lambda content, buffers=None: sent.append(content)
    fig.data[0].name = "changed before display"
    assert sent == []
    fig._on_msg(None, {"type": "hello"}, [])
    (snap,) = sent
    assert snap["type"] == "snapshot"
    assert snap["data"][0]["name"] == "changed before display" and snap["data"][0]["line"] == {"color": "#000000"}


def test_before_the_page_shows_it_the_figure_travels_in_the_widget_state():
    fig = LiveFigure()
    fig.add_scatter(x=[0, 1], y=np.array([2.0, 3.0]), name="dot")
    state = fig.widget._snapshot  # what the page draws without asking the (maybe busy) kernel
    assert state["data"][0]["name"] == "dot" and state["data"][0]["y"]["__nd__"] == np.array([2.0, 3.0]).tobytes()
    fig.data[0].name = "renamed"  # still not shown: the state follows
    assert fig.widget._snapshot["data"][0]["name"] == "renamed"
    sent = []
    fig.widget.send = lambda content, buffers=None: sent.append(content)
    fig._on_msg(None, {"type": "hello", "seq": fig.widget._snapshot["seq"]}, [])
    assert sent == []  # the page has the current state: nothing to resend
    fig.data[0].name = "after hello"
    assert sent[-1]["type"] == "patch" and sent[-1]["traces"] == {"0": {"name": "after hello"}}
    fig._on_msg(None, {"type": "hello", "seq": 1}, [])  # another page, with an old state
    assert sent[-1]["type"] == "snapshot" and sent[-1]["data"][0]["name"] == "after hello"


def test_hover_text_two_traces_share_travels_once_per_message():
    fig = LiveFigure()
    fig.add_scatter(x=[0], y=[0], name="waiting")
    fig.add_scatter(x=[0], y=[0], name="connected")
    sent = _connected(fig)
    stories = [f"client {c}" for c in range(40)]
    a = [stories[c] for c in range(0, 40, 2) for _ in range(6)]  # 120 points, 20 clients
    b = [stories[c] for c in range(40) for _ in range(3)]  # 120 points, all 40 clients
    with fig.batch_update():
        fig.data[0].hovertext = a
        fig.data[1].hovertext = b
    content, buffers = sent[-1]
    table = content["strings"]
    assert len(table) == 40 and sorted(table) == sorted(stories)  # each story once in the message
    for i, want in (("0", a), ("1", b)):
        ref = content["traces"][i]["hovertext"]["__stri__"]
        assert ref["dtype"] == "i1"
        assert [table[k] for k in np.frombuffer(buffers[ref["__nd__"]], "<i1")] == want


def test_a_panel_sends_its_figures_updates_together_all_but_the_last_flagged_more():
    figs = [LiveFigure(), LiveFigure()]
    sent = []
    for fig in figs:
        fig.add_scatter(x=[0], y=[0], name="dot")
        fig.widget.send = lambda content, buffers=None, fig=fig: sent.append((fig, content))
        fig._on_msg(None, {"type": "hello"}, [])
    slider = float_slider("x", 1.0, 0.0, 10.0, 1.0)

    def update(values):
        for fig in figs:
            fig.data[0].x = [values["x"]]
        assert sent == []  # held until every figure is done

    LivePanel({"x": slider}, update, figs)
    sent.clear()
    slider.value = 4.0
    assert [fig for fig, _ in sent] == figs
    assert sent[0][1]["more"] is True and "more" not in sent[1][1]


def test_a_batch_sends_only_the_changed_properties_once():
    fig = LiveFigure()
    fig.add_scatter(x=[0, 1], y=[2, 3], name="a")
    fig.add_scatter(x=[0, 1], y=[5, 6], name="b")
    sent = _connected(fig)
    with fig.batch_update():
        fig.data[1].y = np.array([7.0, 8.0])
        fig.data[0].name = "a"  # unchanged: not sent
        fig.update_yaxes(range=[0, 9])
    content, buffers = sent[-1]
    assert len(sent) == 2 and content["type"] == "patch"
    assert content["traces"] == {"1": {"y": {"__nd__": 0, "dtype": "f8"}}}
    assert content["layout"] == {"yaxis": {"range": [0, 9]}}
    assert np.frombuffer(buffers[0], "<f8").tolist() == [7.0, 8.0]
    with fig.batch_update():
        fig.data[1].y = np.array([7.0, 8.0])  # same values again: nothing to send
    assert len(sent) == 2


def test_panel_reports_the_redraw_time_after_the_page_acknowledges():
    fig = LiveFigure()
    fig.add_scatter(x=[0], y=[0], name="dot")
    sent = _connected(fig)
    slider = float_slider("x", 1.0, 0.0, 10.0, 1.0)

    def update(values):
        fig.data[0].x = [values["x"]]
        return "ok"

    panel = LivePanel({"x": slider}, update, [fig],
                      idle=lambda v: {"x": "demo reason"} if v["x"] > 5 else {}, redraw_ack=True)
    assert fig.widget._ack_drawn  # asked for: the page will acknowledge every redraw
    slider.value = 7.0
    assert panel.last_redraw_ms is None and "Python" in panel.status.value
    assert slider.disabled and "demo reason" in panel.status.value
    fig._on_msg(None, {"type": "drawn", "seq": sent[-1][0]["seq"]}, [])
    assert panel.last_redraw_ms is not None and "redrawn" in panel.status.value


def test_a_panel_does_not_ask_the_page_to_acknowledge_redraws_by_default():
    fig = LiveFigure()
    fig.add_scatter(x=[0], y=[0], name="dot")
    sent = _connected(fig)
    slider = float_slider("x", 1.0, 0.0, 10.0, 1.0)
    panel = LivePanel({"x": slider}, lambda v: fig.data[0].update(x=[v["x"]]) and None, [fig])
    slider.value = 3.0
    assert sent[-1][0]["type"] == "patch"  # the move reached the page
    # nothing would come back to wake the kernel after the redraw; the page writes the wait itself
    assert not fig.widget._ack_drawn and "simcore-wait" in panel.wait_note._dom_classes
    assert panel.wait_note in panel.widget.children


@pytest.mark.parametrize(("a", "b", "same"), [(20.0, 19.999999999999996, True), (20.0, 21.0, False),
                                              (3, 3, True), ("HTTP", "FTP", False)])
def test_same_value_tolerates_a_slider_round_trip(a, b, same):
    assert same_value(a, b) is same


def test_inside_an_event_loop_the_state_is_stored_once_when_the_running_code_is_done():
    import asyncio

    async def build():
        fig = LiveFigure()
        for i in range(5):
            fig.add_scatter(x=[i], y=[i], name=f"t{i}")
        assert fig.widget._snapshot == {}  # nothing yet: the cell is still running
        await asyncio.sleep(0)
        return fig

    fig = asyncio.run(build())
    assert [t["name"] for t in fig.widget._snapshot["data"]] == [f"t{i}" for i in range(5)]
    assert fig.widget._snapshot["seq"] == 1  # one snapshot for five traces


def test_integers_travel_in_the_narrowest_type_that_holds_them_exactly():
    buffers = []
    cases = [([-3, 100], "i1"), ([0, 255], "u1"), ([-1, 300], "i2"), ([0, 60000], "u2"), ([-1, 70000], "i4")]
    for values, code in cases:
        out = encode(np.array(values, np.int64), buffers)
        assert out["dtype"] == code
        assert np.frombuffer(buffers[out["__nd__"]], "<" + code).tolist() == values
    assert encode(np.array([1, 2], np.int8), buffers)["dtype"] == "i1"
    assert encode(np.array([0.5, 2.0], np.float32), buffers)["dtype"] == "f4"  # floats as they are


def _unpack(msg, buffers):
    """What the page does with a packed message (simcore/_livefigure.js: unpack): inflate, cut, parse."""
    import json
    import zlib

    if msg["type"] != "packed":
        return msg, buffers
    (blob,) = buffers
    data, parts, offset = zlib.decompress(blob), [], 0
    for n in msg["sizes"]:
        parts.append(data[offset:offset + n])
        offset += n
    assert offset == len(data)
    return json.loads(parts[0]), parts[1:]


def test_a_large_message_travels_deflated_and_unpacks_to_the_same_message():
    fig = LiveFigure()
    fig.add_scatter(x=[0], y=[0], name="waiting")
    sent = _connected(fig)
    stories = [f"client {c}: arrived at {c * 1.5:.1f} s, waited a while<br>then connected" for c in range(300)]
    with fig.batch_update():
        fig.data[0].x = np.arange(3000, dtype=np.float32) / 3
        fig.data[0].y = np.repeat(np.arange(300), 10)
        fig.data[0].hovertext = [stories[c] for c in range(300) for _ in range(10)]
    msg, buffers = sent[-1]
    assert msg["type"] == "packed" and len(buffers) == 1
    raw = sum(msg["sizes"])
    assert len(buffers[0]) < raw / 2  # stories, client numbers and indices shrink
    content, parts = _unpack(msg, buffers)
    assert content["type"] == "patch"
    trace = content["traces"]["0"]
    x, y, ref = trace["x"], trace["y"], trace["hovertext"]["__stri__"]
    assert np.frombuffer(parts[x["__nd__"]], "<f4").tolist() == (np.arange(3000, dtype=np.float32) / 3).tolist()
    assert np.frombuffer(parts[y["__nd__"]], "<" + y["dtype"]).tolist() == np.repeat(np.arange(300), 10).tolist()
    index = np.frombuffer(parts[ref["__nd__"]], "<" + ref["dtype"])
    assert [content["strings"][k] for k in index[::10]] == stories
    small = ({"type": "patch", "traces": {"0": {"name": "a"}}}, [])
    assert _pack(*small) == small  # a small message as it is
