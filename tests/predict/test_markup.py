from simcore.predict.markup import to_html


def test_math_is_kept_whole_and_written_with_the_delimiters_both_mathjax_setups_read():
    out = to_html("Here $W_q = \\rho/(1-\\rho)$ and $$a < b * c$$ and \\(x\\).")
    assert out == "<p>Here \\(W_q = \\rho/(1-\\rho)\\) and \\[a &lt; b * c\\] and \\(x\\).</p>"


def test_emphasis_code_links_paragraphs_and_lists():
    out = to_html("**bold** and *it* and `c*d`\n\n* one\n* two [K&R](https://x.org)")
    assert out == ("<p><b>bold</b> and <i>it</i> and <code>c*d</code></p>\n<ul><li>one</li>"
                   '<li>two <a href="https://x.org" target="_blank" rel="noopener">K&R</a></li></ul>')


def test_a_dollar_amount_escaped_is_not_math_and_inline_mode_has_no_paragraph():
    assert to_html("costs \\$5 and *more*", inline=True) == "costs \\$5 and <i>more</i>"
    assert to_html("2 * 3 = 6", inline=True) == "2 * 3 = 6"
