"""The site templates of the demo's HTML pages: a pure function of the host name.

``site_chrome(host, lang)`` builds the parts of a page every page of a host shares: the layout
(class and id vocabulary), fonts and one of ``_N_THEMES`` stylesheets, the ``<head>`` with its
analytics scripts, the site header and its localised ``<nav>`` (and mega-menu), the optional
sidebar, the footer and three cookie-banner variants. It is seeded from a hash of the host name,
independent of any caller state, so all pages of one host share a template, as on a real site,
while hosts differ. ``demo.html.render_page`` puts a page's own details and text into it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache
from html import escape

import numpy as np

from demo.html_words import ENGLISH, VOCAB, Words

__all__ = ["Chrome", "json_str", "site_chrome"]

# URL slugs of the 12 menu entries (language independent, as on most multilingual CMSs).
_MENU_SLUGS = (
    "",
    "news",
    "about",
    "products",
    "services",
    "blog",
    "events",
    "shop",
    "support",
    "gallery",
    "careers",
    "contact",
)
_SECTIONS = ("news", "blog", "articles", "stories", "magazine", "guides")
_SOCIAL = ("facebook.com", "twitter.com", "instagram.com", "linkedin.com", "youtube.com")
_FONTS = (
    "Helvetica, Arial, sans-serif",
    "Georgia, 'Times New Roman', serif",
    "'Open Sans', 'Segoe UI', Roboto, sans-serif",
    "Verdana, Geneva, sans-serif",
    "'Noto Sans', 'Hiragino Sans', 'Microsoft YaHei', sans-serif",
    "Lato, 'Helvetica Neue', Arial, sans-serif",
)
_ANALYTICS_HOSTS = (
    "stats.metricbeacon.net",
    "cdn.pageinsight.io",
    "t.visitcount.org",
    "collect.trafficlens.com",
)

# Class / id vocabularies of the layouts: (header, nav, main, article, content, aside, footer).
_LAYOUTS: tuple[tuple[str, str, str, str, str, str, str], ...] = (
    (
        "site-header",
        "main-navigation",
        "site-main",
        "post",
        "entry-content",
        "sidebar",
        "site-footer",
    ),
    ("masthead", "primary-menu", "content", "article", "article-body", "widget-area", "colophon"),
    ("top", "menu", "main", "story", "story-text", "rail", "bottom"),
    ("header", "navbar", "page", "blog-post", "post-body", "aside", "footer"),
    ("hdr", "nav-main", "wrapper", "node", "field-body", "region-sidebar", "ftr"),
)

_CSS_PROPS = (
    "margin:0 auto",
    "padding:{p}px {q}px",
    "color:{fg}",
    "background:{bg}",
    "border-bottom:1px solid {ac}",
    "font-size:{fs}px",
    "line-height:1.{lh}",
    "display:flex",
    "flex-wrap:wrap",
    "gap:{p}px",
    "text-decoration:none",
    "border-radius:{r}px",
    "max-width:{w}px",
    "font-weight:{fw}",
    "list-style:none",
    "box-shadow:0 1px {r}px rgba(0,0,0,.{lh})",
    "transition:color .2s ease-in-out",
    "letter-spacing:.0{r}em",
    "text-transform:uppercase",
    "position:relative",
)
_CSS_SELECTORS = (
    "body",
    "a",
    "a:hover",
    "h1",
    "h2",
    "h3",
    "p",
    "ul",
    "li",
    "img",
    "button",
    "input",
    ".container",
    ".row",
    ".col",
    ".btn",
    ".btn-primary",
    ".logo",
    ".search",
    ".search input",
    ".breadcrumb",
    ".breadcrumb li",
    ".meta",
    ".tags",
    ".tags a",
    ".widget",
    ".widget h3",
    ".widget ul li",
    ".social",
    ".social a",
    ".copyright",
    ".cookie-banner",
    ".cookie-banner button",
    ".skip-link",
    ".skip-link:focus",
    ".menu-item",
    ".menu-item a",
    ".card",
    ".card-title",
    ".card-body",
    ".newsletter",
    ".newsletter input",
    ".pagination",
    ".pagination a",
    ".badge",
    ".hero",
    ".hero h1",
    ".grid",
    ".grid-item",
    ".footer-links",
    ".footer-links a",
    ".icon",
    ".visually-hidden",
    ".share",
    ".share a",
    ".author",
)


_N_THEMES = 96


@dataclass(frozen=True)
class Chrome:
    """Pre-rendered, per (host, language) pieces of the page template."""

    meta_style: int  # 0: <meta charset>, 1: http-equiv Content-Type
    site_name: str  # escaped
    head_static: str  # viewport ... analytics script, before the JSON-LD block
    body_top: str  # <body> ... breadcrumb, up to (excluding) <main>
    main_open: str
    body_cls: str
    with_tags: bool
    tag_words: tuple[str, ...]  # escaped tag links, index = menu entry
    article_close: str  # share buttons, </article></main>
    aside_open: str  # "" when the site has no sidebar
    aside_close: str
    related_item: str  # format string with {slug} and {text}
    max_related: int  # 8 in a sidebar, 4 in a teaser strip
    headlines: tuple[str, ...]  # escaped
    section: str
    footer: str
    banners: tuple[str, ...]  # three cookie-banner variants + closing scripts
    year: int


def _site_name(host: str) -> str:
    """Human-readable site name from a host name (``www.red-fox.co.uk`` -> ``Red Fox``)."""
    labels = [label for label in host.lower().split(".") if label]
    if labels and labels[0] == "www":
        labels = labels[1:]
    if len(labels) >= 3 and labels[-2] in {"co", "com", "org", "net", "ac", "gov", "edu", "ne"}:
        core = labels[-3]
    elif len(labels) >= 2:
        core = labels[-2]
    else:
        core = labels[0] if labels else "site"
    words = core.replace("_", "-").split("-")
    return " ".join(word.capitalize() for word in words if word) or core


@lru_cache(maxsize=_N_THEMES)
def _stylesheet(theme: int) -> str:
    """Build stylesheet number ``theme`` (of ``_N_THEMES``): 30-140 rules and a colour scheme.

    Sites share a limited pool of stylesheets, as real sites share CMS themes; building one
    takes about a millisecond, so the pool is cached.

    Args:
        theme: Theme number; seeds the generator.

    Returns:
        The stylesheet text (without the ``<style>`` tag).
    """
    g = np.random.Generator(np.random.PCG64(0x5EED_C55 + theme))
    n_rules = int(g.integers(30, 140))
    fg, bg, ac = (
        f"#{int(v):06x}" for v in g.integers([0, 0xDDDDDD, 0], [0x555555, 0x1000000, 0x1000000])
    )
    n_sel = len(_CSS_SELECTORS)
    n_prop = len(_CSS_PROPS)
    order = np.argsort(g.random((n_rules, n_prop)), axis=1)
    n_props = g.integers(2, 7, size=n_rules)
    # Columns: p, q, fs, lh, r, w, fw, media breakpoint.
    nums = g.integers(
        [2, 4, 11, 2, 2, 60, 3, 48], [40, 60, 34, 8, 9, 140, 8, 120], size=(n_rules, 8)
    ).tolist()
    lines = [
        f":root{{--fg:{fg};--bg:{bg};--accent:{ac}}}",
        "*,*::before,*::after{box-sizing:border-box}",
    ]
    for i in range(n_rules):
        sel = _CSS_SELECTORS[i % n_sel]
        if i >= n_sel:
            sel = f"{sel}.v{i // n_sel}"
        p, q, fs, lh, r, w, fw, bp = nums[i]
        body = ";".join(_CSS_PROPS[j] for j in order[i, : n_props[i]].tolist()).format(
            p=p, q=q, fg=fg, bg=bg, ac=ac, fs=fs, lh=lh, r=r, w=w * 10, fw=fw * 100
        )
        lines.append(f"{sel}{{{body}}}")
        if i % 23 == 22:
            lines.append(f"@media (max-width:{bp * 10}px){{{sel}{{display:block;padding:0 8px}}}}")
    return "\n".join(lines)


def json_str(text: str) -> str:
    """JSON string literal that is safe inside a ``<script>`` element."""
    return json.dumps(text, ensure_ascii=False).replace("</", "<\\/")


@lru_cache(maxsize=4096)
def site_chrome(host: str, lang: str) -> Chrome:
    """Build the template of ``host`` in language ``lang``.

    A pure function of its arguments (seeded from a hash of the host name, independent of any
    caller state), so every page of a host shares layout, colours, menu and footer.
    """
    seed = int.from_bytes(hashlib.blake2b(host.encode("utf-8"), digest_size=8).digest(), "big")
    g = np.random.Generator(np.random.PCG64(seed))
    (layout, font, nav_count, theme, an_num, an_sub, an_host, section, year) = g.integers(
        [0, 0, 5, 0, 100000, 1, 0, 0, 2012],
        [
            len(_LAYOUTS),
            len(_FONTS),
            13,
            _N_THEMES,
            999999,
            9,
            len(_ANALYTICS_HOSTS),
            len(_SECTIONS),
            2023,
        ],
    ).tolist()
    has_sidebar, meta_http_equiv = (g.random(2) < [0.6, 0.25]).tolist()
    css = _stylesheet(theme)

    words = VOCAB.get(lang, ENGLISH)
    hdr, nav_cls, main_cls, art_cls, body_cls, aside_cls, ftr = _LAYOUTS[layout]
    name = _site_name(host)
    e_name = escape(name)
    e_host = escape(host)
    e_lang = escape(lang)
    an_id = f"SA-{an_num}-{an_sub}"
    an_host_name = _ANALYTICS_HOSTS[an_host]
    sect = _SECTIONS[section]

    head_static = (
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta property="og:site_name" content="{e_name}">\n'
        f'<link rel="icon" href="/favicon.ico">\n'
        f"<style>\nbody{{font-family:{_FONTS[font]}}}\n{css}\n</style>\n"
        "<script>\n"
        "window.siteAnalytics = window.siteAnalytics || [];\n"
        "function track() { window.siteAnalytics.push(arguments); }\n"
        f"track('init', '{an_id}', {{ anonymizeIp: true }});\n"
        "track('pageview', location.pathname, document.referrer);\n"
        "(function (d) {\n"
        "  var s = d.createElement('script'); s.async = true;\n"
        f"  s.src = 'https://{an_host_name}/beacon.js?id={an_id}';\n"
        "  d.head.appendChild(s);\n"
        "  console.log('analytics beacon loaded, tracking consent pending');\n"
        "})(document);\n"
        "</script>\n"
    )
    nav_items = "".join(
        f'<li class="menu-item"><a href="/{_MENU_SLUGS[i]}">{escape(words.menu[i])}</a></li>\n'
        for i in range(nav_count)
    )
    breadcrumb = (
        (
            '<nav class="breadcrumb" aria-label="Breadcrumb"><ol>'
            f'<li><a href="/">{escape(words.menu[0])}</a></li>'
            f'<li><a href="/{sect}/">{escape(words.menu[1])}</a></li>'
            "</ol></nav>\n"
        )
        if layout in (1, 3)
        else ""
    )
    body_top = (
        f'<body class="{art_cls}-template lang-{e_lang}">\n'
        f'<a class="skip-link" href="#{main_cls}">{escape(words.skip)}</a>\n'
        f'<header id="{hdr}" class="{hdr}">\n<div class="container">\n'
        f'<a class="logo" href="/">{e_name}</a>\n'
        f'<nav class="{nav_cls}" aria-label="Main">\n<ul>\n{nav_items}</ul>\n</nav>\n'
        '<form class="search" action="/search" method="get" role="search">'
        f'<input type="search" name="q" placeholder="{escape(words.search)}">'
        f'<button type="submit">{escape(words.search)}</button></form>\n'
        f"</div>\n</header>\n{breadcrumb}"
        '<div class="container row">\n'
    )
    share = "".join(
        f'<a href="https://{s}/share?u=https://{e_host}/" class="icon icon-{s.split(".")[0]}" '
        f'aria-label="{s}"></a>'
        for s in _SOCIAL[:3]
    )
    article_close = f'<div class="share">{share}</div>\n</article>\n</main>\n'
    if has_sidebar:
        aside_open = (
            f'<aside id="{aside_cls}" class="{aside_cls} widget-area">\n'
            f'<section class="widget related"><h3>{escape(words.related)}</h3>\n<ul>\n'
        )
        aside_close = "</ul>\n</section>\n"
        if layout in (2, 4):
            aside_close += (
                f'<section class="widget newsletter"><h3>{escape(words.popular)}</h3>'
                '<form action="/newsletter" method="post">'
                '<input type="email" name="email" placeholder="email@example.com">'
                f"<button>{escape(words.newsletter)}</button></form></section>\n"
            )
        aside_close += "</aside>\n"
        related_item = '<li><a href="/{section}/{slug}.html">{text}</a></li>\n'
    else:
        # No sidebar: a short teaser strip below the article instead.
        aside_open = f'<div class="{aside_cls} related-strip"><ul>'
        aside_close = "</ul></div>\n"
        related_item = '<li class="card"><a href="/{section}/{slug}.html">{text}</a></li>'
    handle = escape(name.replace(" ", "").lower())
    social = " ".join(
        f'<a href="https://www.{s}/{handle}" rel="noopener">{s.split(".")[0]}</a>' for s in _SOCIAL
    )
    footer = (
        "</div>\n"
        f'<footer id="{ftr}" class="{ftr} site-footer">\n<div class="container">\n'
        '<ul class="footer-links">'
        f'<li><a href="/privacy">{escape(words.privacy)}</a></li>'
        f'<li><a href="/terms">{escape(words.terms)}</a></li>'
        f'<li><a href="/contact">{escape(words.contact)}</a></li>'
        f'<li><a href="/legal">{escape(words.legal)}</a></li>'
        f'<li><a href="/sitemap.xml">{escape(words.sitemap)}</a></li>'
        "</ul>\n"
        f'<div class="social">{social}</div>\n'
        f'<p class="copyright">&copy; {year}-{year + 2} {e_name}. {escape(words.rights)}</p>\n'
        "</div>\n</footer>\n"
    )
    banners = tuple(
        f'<div id="{banner_id}" class="cookie-banner" role="dialog" aria-live="polite" '
        'style="display:none">\n'
        f'<p>{escape(words.cookie)} <a href="/privacy">{escape(words.privacy)}</a></p>\n'
        f'<button class="btn btn-primary" data-consent="all">{escape(words.accept)}</button>\n'
        f'<button class="btn" data-consent="settings">{escape(words.settings)}</button>\n'
        "</div>\n"
        "<script>\n"
        "document.addEventListener('DOMContentLoaded', function () {\n"
        f"  var b = document.getElementById('{banner_id}');\n"
        "  if (!document.cookie.match(/consent=/)) { b.style.display = 'block'; }\n"
        "  b.addEventListener('click', function (e) {\n"
        "    document.cookie = 'consent=' + e.target.dataset.consent\n"
        "      + ';path=/;max-age=31536000';\n"
        "    b.style.display = 'none'; track('consent', e.target.dataset.consent);\n"
        "  });\n"
        "});\n"
        "</script>\n"
        f'<noscript><img src="https://{an_host_name}/pixel.gif?id={an_id}" alt="" width="1" '
        'height="1"></noscript>\n'
        "</body>\n</html>\n"
        for banner_id in ("cookie-banner", "cookie-consent", "gdpr-notice")
    )
    # Real pages carry far more than their article: mega-menus, footer sitemaps, icon sprites
    # and serialised app state (Common Crawl responses run 8-108 KB). Drawn last, from the same
    # host-seeded stream, so everything above is unchanged.
    head_static += _app_state(g)
    body_top = _svg_sprite(g) + body_top + _mega_menu(g, words, "mega-menu")
    footer = _mega_menu(g, words, "footer-sitemap") + footer
    return Chrome(
        meta_style=int(meta_http_equiv),
        site_name=e_name,
        head_static=head_static,
        body_top=body_top,
        main_open=f'<main id="{main_cls}" class="{main_cls}">\n<article class="{art_cls}">\n',
        body_cls=body_cls,
        with_tags=layout in (0, 2, 3),
        tag_words=tuple(
            f'<a href="/tag/{_MENU_SLUGS[i]}" rel="tag">{escape(words.menu[i])}</a>'
            for i in range(len(words.menu))
        ),
        article_close=article_close,
        aside_open=aside_open,
        aside_close=aside_close,
        related_item=related_item,
        max_related=8 if has_sidebar else 4,
        headlines=tuple(escape(h) for h in words.headlines),
        section=sect,
        footer=footer,
        banners=banners,
        year=year,
    )


def _mega_menu(g: np.random.Generator, words: Words, cls: str) -> str:
    """A navigation block of 4-8 columns of 6-13 localised links (in ``<nav>``, out of the text)."""
    columns = int(g.integers(4, 9))
    out = [f'<nav class="{cls}" aria-label="{escape(words.sitemap)}">\n']
    for column in range(columns):
        head = escape(words.menu[column % len(words.menu)])
        slug = _MENU_SLUGS[column % len(_MENU_SLUGS)]
        out.append(f'<div class="{cls}-col"><span class="{cls}-head">{head}</span>\n<ul>\n')
        for link in range(int(g.integers(6, 14))):
            text = escape(words.menu[(column + link) % len(words.menu)])
            out.append(
                f'<li class="{cls}-item"><a href="/{slug}/{link + 1}" data-track="{cls}-{column}-'
                f'{link}"><span class="label">{text} {link + 1}</span></a></li>\n'
            )
        out.append("</ul></div>\n")
    out.append("</nav>\n")
    return "".join(out)


def _svg_sprite(g: np.random.Generator) -> str:
    """An inline SVG icon sprite, hidden, as many sites embed (12-23 symbols)."""
    symbols = []
    for index in range(int(g.integers(12, 24))):
        points = g.integers(0, 24, 16).tolist()
        path = "M" + " L".join(f"{points[i]} {points[i + 1]}" for i in range(0, 16, 2)) + " Z"
        symbols.append(f'<symbol id="icon-{index}" viewBox="0 0 24 24"><path d="{path}"/></symbol>')
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" style="display:none">'
        + "".join(symbols)
        + "</svg>\n"
    )


def _app_state(g: np.random.Generator) -> str:
    """Serialised front-end state (``__NEXT_DATA__``-style JSON), 100-300 entries."""
    count = int(g.integers(100, 300))
    keys = g.integers(0, 1 << 40, count).tolist()
    values = g.integers(0, 100000, count).tolist()
    body = ",".join(
        f'"k{key:x}":{{"id":{value},"v":"{key ^ value:x}","on":{str(value % 2 == 0).lower()}}}'
        for key, value in zip(keys, values, strict=True)
    )
    return f'<script id="__APP_STATE__" type="application/json">{{{body}}}</script>\n'
