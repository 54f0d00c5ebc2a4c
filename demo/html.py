"""Render synthetic but realistic HTML5 pages for the demo crawl.

The demo generator decides what a page *says* (title, paragraphs, language); this module decides
what the page *looks like*: the boilerplate a real site wraps around its text. Every page gets a
``<head>`` with a charset declaration, a ``<style>`` block and analytics ``<script>`` blocks, a site
header with a localised ``<nav>`` menu, an optional sidebar, the article in ``<main><article>``,
a footer and a cookie banner. The article paragraphs are by far the largest block of visible
text, so a main-content extractor (resiliparse ``extract_plain_text(..., main_content=True)``)
returns mostly the paragraphs.

The *site* chrome (layout, colours, CSS, menu, site name, analytics id; ``demo.html_site``, with
the localised words of ``demo.html_words``) is a pure function of the host name, so all pages of
one host share a template as on a real site, while hosts differ. The *page* details (date,
tags, related links, cookie-banner variant) are drawn from the caller's
``numpy.random.Generator``. Same arguments and same generator state give the same string.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

import numpy as np

from demo.html_site import json_str, site_chrome
from demo.html_words import LANGUAGES

# LANGUAGES: the languages render_page localises the boilerplate of (others get English).
__all__ = ["LANGUAGES", "render_page"]


def render_page(
    *,
    title: str,
    paragraphs: Sequence[str],
    lang: str,
    host: str,
    rng: np.random.Generator,
    charset: str = "utf-8",
    declare_charset: bool = True,
) -> str:
    """Render one realistic HTML5 page around the given article text.

    The returned page has a ``<head>`` (charset declaration, title, description, stylesheet,
    analytics and JSON-LD scripts), a site header with a localised ``<nav>`` of 5-12 links, an
    optional sidebar of related links, ``<main><article>`` with an ``<h1>`` and one ``<p>`` per
    paragraph, a footer with copyright, privacy and contact links, and a (hidden until
    JavaScript runs) cookie-consent banner. Text is HTML-escaped; only ASCII markup plus the
    localised words of ``lang`` is added, so the page can be encoded in any charset that can
    represent the language (use ``errors="xmlcharrefreplace"`` when it might not).

    The site template (layout, CSS, menu, footer, charset-declaration style) depends only on
    ``host`` and ``lang``; per-page details (date, tags, related links, banner variant) take one
    draw from ``rng``.

    Args:
        title: Article title, used in ``<title>``, the description meta tag and ``<h1>``.
        paragraphs: Article paragraphs (plain text, not escaped).
        lang: ISO 639-1 code for ``<html lang>`` and the boilerplate words (see ``LANGUAGES``;
            other codes get English boilerplate).
        host: Host name of the page; selects the site template and site name.
        rng: Source of per-page variation.
        charset: Charset named in the ``<meta>`` declaration; the caller encodes the returned
            string with it.
        declare_charset: When False, the page has no charset declaration at all.

    Returns:
        The page as a string.
    """
    c = site_chrome(host, lang)
    # One vectorised draw: month, day, year offset, related count, banner, 8 slugs, 3 tags,
    # 8 sort keys for the related headlines.
    r = rng.integers(0, 1 << 30, size=24).tolist()
    month = 1 + r[0] % 12
    day = 1 + r[1] % 28
    date = f"{c.year + r[2] % 3}-{month:02d}-{day:02d}"
    n_related = min(3 + r[3] % 6, c.max_related)
    banner = c.banners[r[4] % 3]
    n_head = len(c.headlines)
    related = sorted(range(n_head), key=lambda k: r[16 + k % 8])[:n_related]
    e_title = escape(title, quote=False)

    if not declare_charset:
        meta = ""
    elif c.meta_style == 0:
        meta = f'<meta charset="{escape(charset)}">\n'
    else:
        meta = f'<meta http-equiv="Content-Type" content="text/html; charset={escape(charset)}">\n'
    out = [
        f'<!DOCTYPE html>\n<html lang="{escape(lang)}">\n<head>\n{meta}',
        f"<title>{e_title} | {c.site_name}</title>\n",
        f'<meta name="description" content="{escape(title)}">\n',
        c.head_static,
        '<script type="application/ld+json">{"@context":"https://schema.org","@type":"Article",'
        f'"headline":{json_str(title)},"datePublished":"{date}"}}</script>\n</head>\n',
        c.body_top,
        c.main_open,
        f'<h1 class="entry-title">{e_title}</h1>\n'
        f'<div class="meta"><time datetime="{date}">{date}</time></div>\n'
        f'<div class="{c.body_cls}">\n',
    ]
    out.extend(f"<p>{escape(p, quote=False)}</p>\n" for p in paragraphs)
    out.append("</div>\n")
    if c.with_tags:
        n_tags = len(c.tag_words) - 1
        tags = dict.fromkeys(1 + r[13 + k] % n_tags for k in range(3))
        out.append('<div class="tags">' + " ".join(c.tag_words[t] for t in tags) + "</div>\n")
    out.append(c.article_close)
    out.append(c.aside_open)
    item = c.related_item
    out.extend(
        item.format(section=c.section, slug=f"p-{r[5 + k] % 90000 + 1000}", text=c.headlines[h])
        for k, h in enumerate(related)
    )
    out.append(c.aside_close)
    out.append(c.footer)
    out.append(banner)
    return "".join(out)
