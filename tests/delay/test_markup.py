"""The report's <<url>> markup: parser, generator, tree reader."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.delay.markup import generate_tree, parse_references, tree_shape


def test_report_example():
    text = "data data data data data data data data\n<<home/cA11.txt>>\n"
    assert parse_references(text) == ["home/cA11.txt"]
    assert parse_references("Hi.\nI am cA11.txt\n") == []
    assert parse_references("<<a>><<b>> x <<c.txt>>") == ["a", "b", "c.txt"]
    assert parse_references("a < b and c > d, x<y>z") == []  # single angle brackets are text


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("data >> more", "'>>' at offset 5 has no opening"),
        ("x <<a.txt>> y >> z", "'>>' at offset 14 has no opening"),
        ("data <<a.txt", "'<<' at offset 5 is never closed"),
        ("<<a<<b>>", "inside the reference opened at 0"),
        ("<<>>", "empty reference"),
        ("<<a b.txt>>", "contains ' '"),
        ("<<a\nb>>", "contains '\\\\n'"),
        ("<<a>b>>", "contains '>'"),
        ("caf\u00e9 <<a>>", "not ASCII"),
    ],
)
def test_malformed_markup_is_rejected(text, message):
    with pytest.raises(ValueError, match=message):
        parse_references(text)


def test_non_string_rejected():
    with pytest.raises(ValueError, match="must be a str"):
        parse_references(b"<<a>>")


@settings(max_examples=50, deadline=None)
@given(P=st.integers(1, 30), C=st.integers(0, 12), body=st.integers(0, 400))
def test_generated_tree_reads_back(P, C, body):
    files, roots = generate_tree(P, C, body_bytes=body)
    assert len(files) == P * (1 + C)
    shape = tree_shape(files, roots)
    assert shape["n_parents"] == P and shape["n_children"] == C
    assert all(s == body for s in shape["child_sizes_bytes"])
    assert len(set(roots)) == P  # distinct names, also beyond 26 parents (AA, AB, ...)
    for r in roots:
        assert all(ref.startswith("home/c") for ref in parse_references(files[r]))


def test_report_names():
    files, roots = generate_tree(2, 2)
    assert roots == ["home/pA2.txt", "home/pB2.txt"]
    assert parse_references(files["home/pA2.txt"]) == ["home/cA2_1.txt", "home/cA2_2.txt"]


def test_tree_errors():
    files, roots = generate_tree(2, 1)
    with pytest.raises(ValueError, match="not among the files"):
        tree_shape({k: v for k, v in files.items() if "cB" not in k}, roots)
    with pytest.raises(ValueError, match="root 'nope' is not among"):
        tree_shape(files, ["nope"])
    deep = dict(files)
    deep["home/cA1_1.txt"] = "I embed <<home/cB1_1.txt>>"
    with pytest.raises(ValueError, match="two levels"):
        tree_shape(deep, roots)
    uneven = dict(files)
    uneven["home/pA1.txt"] = "no children here"
    with pytest.raises(ValueError, match="different numbers of children"):
        tree_shape(uneven, roots)
    with pytest.raises(ValueError, match="at least one parent"):
        tree_shape(files, [])
    with pytest.raises(ValueError, match="n_children=-1"):
        generate_tree(2, -1)
    with pytest.raises(ValueError, match="prefix"):
        generate_tree(2, 1, prefix="my dir/")
