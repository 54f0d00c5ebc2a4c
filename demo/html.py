"""Render synthetic but realistic HTML5 pages for the demo crawl.

The demo generator decides what a page *says* (title, paragraphs, language); this module decides
what the page *looks like*: the boilerplate a real site wraps around its text. Every page gets a
``<head>`` with a charset declaration, a ``<style>`` block and analytics ``<script>`` blocks, a site
header with a localised ``<nav>`` menu, an optional sidebar, the article in ``<main><article>``,
a footer and a cookie banner. The article paragraphs are by far the largest block of visible
text, so a main-content extractor (resiliparse ``extract_plain_text(..., main_content=True)``)
returns mostly the paragraphs.

The *site* chrome (layout, colours, CSS, menu, site name, analytics id) is a pure function of the
host name, so all pages of one host share a template as on a real site, while hosts differ. The
*page* details (date, tags, related links, cookie-banner variant) are drawn from the caller's
``numpy.random.Generator``. Same arguments and same generator state give the same string.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from html import escape

import numpy as np

__all__ = ["LANGUAGES", "render_page"]


@dataclass(frozen=True)
class _Words:
    """Localised boilerplate vocabulary of one language."""

    menu: tuple[str, ...]  # 12 menu entries; the first is "home"
    headlines: tuple[str, ...]  # generic teaser titles for "related" links
    privacy: str
    terms: str
    contact: str
    legal: str
    sitemap: str
    search: str
    related: str
    read_more: str
    cookie: str
    accept: str
    settings: str
    rights: str
    skip: str
    published: str
    popular: str
    newsletter: str
    tags: str


_EN = _Words(
    menu=(
        "Home",
        "News",
        "About us",
        "Products",
        "Services",
        "Blog",
        "Events",
        "Shop",
        "Support",
        "Gallery",
        "Careers",
        "Contact",
    ),
    headlines=(
        "Latest updates from our team",
        "How to get started",
        "Ten tips for beginners",
        "Customer stories",
        "Our annual report",
        "Frequently asked questions",
        "Behind the scenes",
        "What is new this month",
    ),
    privacy="Privacy policy",
    terms="Terms of use",
    contact="Contact",
    legal="Legal notice",
    sitemap="Sitemap",
    search="Search",
    related="Related articles",
    read_more="Read more",
    cookie="We use cookies to improve your experience on our website. "
    "By continuing to browse, you agree to our use of cookies.",
    accept="Accept",
    settings="Cookie settings",
    rights="All rights reserved.",
    skip="Skip to content",
    published="Published",
    popular="Popular",
    newsletter="Subscribe to our newsletter",
    tags="Tags",
)

_DE = _Words(
    menu=(
        "Startseite",
        "Aktuelles",
        "Über uns",
        "Produkte",
        "Leistungen",
        "Blog",
        "Veranstaltungen",
        "Shop",
        "Hilfe",
        "Galerie",
        "Karriere",
        "Kontakt",
    ),
    headlines=(
        "Neuigkeiten aus unserem Team",
        "So gelingt der Einstieg",
        "Zehn Tipps für Anfänger",
        "Erfahrungen unserer Kunden",
        "Unser Jahresbericht",
        "Häufig gestellte Fragen",
        "Ein Blick hinter die Kulissen",
        "Was gibt es Neues in diesem Monat",
    ),
    privacy="Datenschutz",
    terms="Nutzungsbedingungen",
    contact="Kontakt",
    legal="Impressum",
    sitemap="Sitemap",
    search="Suche",
    related="Ähnliche Artikel",
    read_more="Weiterlesen",
    cookie="Wir verwenden Cookies, um Ihnen die bestmögliche Nutzung unserer Website "
    "zu ermöglichen.",
    accept="Akzeptieren",
    settings="Einstellungen",
    rights="Alle Rechte vorbehalten.",
    skip="Zum Inhalt springen",
    published="Veröffentlicht",
    popular="Beliebt",
    newsletter="Newsletter abonnieren",
    tags="Schlagwörter",
)

_FR = _Words(
    menu=(
        "Accueil",
        "Actualités",
        "À propos",
        "Produits",
        "Services",
        "Blog",
        "Événements",
        "Boutique",
        "Assistance",
        "Galerie",
        "Carrières",
        "Contact",
    ),
    headlines=(
        "Les dernières nouvelles de notre équipe",
        "Comment bien démarrer",
        "Dix conseils pour débutants",
        "Témoignages de clients",
        "Notre rapport annuel",
        "Questions fréquentes",
        "Dans les coulisses",
        "Les nouveautés du mois",
    ),
    privacy="Politique de confidentialité",
    terms="Conditions d'utilisation",
    contact="Contact",
    legal="Mentions légales",
    sitemap="Plan du site",
    search="Rechercher",
    related="Articles similaires",
    read_more="Lire la suite",
    cookie="Nous utilisons des cookies pour améliorer votre expérience sur notre site.",
    accept="Accepter",
    settings="Paramètres",
    rights="Tous droits réservés.",
    skip="Aller au contenu",
    published="Publié le",
    popular="Populaire",
    newsletter="Abonnez-vous à notre lettre d'information",
    tags="Mots-clés",
)

_RU = _Words(
    menu=(
        "Главная",
        "Новости",
        "О нас",
        "Продукты",
        "Услуги",
        "Блог",
        "События",
        "Магазин",
        "Поддержка",
        "Галерея",
        "Вакансии",
        "Контакты",
    ),
    headlines=(
        "Последние новости нашей команды",
        "С чего начать",
        "Десять советов для начинающих",
        "Истории наших клиентов",
        "Годовой отчёт",
        "Часто задаваемые вопросы",
        "За кулисами",
        "Что нового в этом месяце",
    ),
    privacy="Политика конфиденциальности",
    terms="Условия использования",
    contact="Контакты",
    legal="Правовая информация",
    sitemap="Карта сайта",
    search="Поиск",
    related="Похожие статьи",
    read_more="Читать далее",
    cookie="Мы используем файлы cookie, чтобы сделать сайт удобнее для вас.",
    accept="Принять",
    settings="Настройки",
    rights="Все права защищены.",
    skip="Перейти к содержанию",
    published="Опубликовано",
    popular="Популярное",
    newsletter="Подписаться на рассылку",
    tags="Метки",
)

_JA = _Words(
    menu=(
        "ホーム",
        "ニュース",
        "会社概要",
        "製品情報",
        "サービス",
        "ブログ",
        "イベント",
        "ショップ",
        "サポート",
        "ギャラリー",
        "採用情報",
        "お問い合わせ",
    ),
    headlines=(
        "チームからの最新情報",
        "はじめての方へ",
        "初心者のための十のヒント",
        "お客様の声",
        "年次報告書",
        "よくある質問",
        "舞台裏のご紹介",
        "今月の新着情報",
    ),
    privacy="プライバシーポリシー",
    terms="利用規約",
    contact="お問い合わせ",
    legal="特定商取引法に基づく表記",
    sitemap="サイトマップ",
    search="検索",
    related="関連記事",
    read_more="続きを読む",
    cookie="当サイトでは、利便性向上のためにクッキーを使用しています。",
    accept="同意する",
    settings="設定",
    rights="無断転載を禁じます。",
    skip="本文へスキップ",
    published="公開日",
    popular="人気記事",
    newsletter="メールマガジン登録",
    tags="タグ",
)

_ZH = _Words(
    menu=(
        "首页",
        "新闻",
        "关于我们",
        "产品",
        "服务",
        "博客",
        "活动",
        "商城",
        "帮助",
        "图库",
        "招聘",
        "联系我们",
    ),
    headlines=(
        "团队最新动态",
        "如何开始",
        "新手十大技巧",
        "客户故事",
        "年度报告",
        "常见问题",
        "幕后花絮",
        "本月新内容",
    ),
    privacy="隐私政策",
    terms="使用条款",
    contact="联系我们",
    legal="法律声明",
    sitemap="网站地图",
    search="搜索",
    related="相关文章",
    read_more="阅读更多",
    cookie="本网站使用Cookie来改善您的浏览体验。",
    accept="接受",
    settings="设置",
    rights="版权所有。",
    skip="跳到主要内容",
    published="发布时间",
    popular="热门",
    newsletter="订阅我们的新闻",
    tags="标签",
)

_PT = _Words(
    menu=(
        "Início",
        "Notícias",
        "Sobre nós",
        "Produtos",
        "Serviços",
        "Blog",
        "Eventos",
        "Loja",
        "Suporte",
        "Galeria",
        "Carreiras",
        "Contato",
    ),
    headlines=(
        "Novidades da nossa equipe",
        "Como começar",
        "Dez dicas para iniciantes",
        "Histórias de clientes",
        "Nosso relatório anual",
        "Perguntas frequentes",
        "Nos bastidores",
        "O que há de novo este mês",
    ),
    privacy="Política de privacidade",
    terms="Termos de uso",
    contact="Contato",
    legal="Aviso legal",
    sitemap="Mapa do site",
    search="Pesquisar",
    related="Artigos relacionados",
    read_more="Leia mais",
    cookie="Utilizamos cookies para melhorar a sua experiência no nosso site.",
    accept="Aceitar",
    settings="Configurações",
    rights="Todos os direitos reservados.",
    skip="Pular para o conteúdo",
    published="Publicado em",
    popular="Mais lidos",
    newsletter="Assine nossa newsletter",
    tags="Etiquetas",
)

_ES = _Words(
    menu=(
        "Inicio",
        "Noticias",
        "Quiénes somos",
        "Productos",
        "Servicios",
        "Blog",
        "Eventos",
        "Tienda",
        "Ayuda",
        "Galería",
        "Empleo",
        "Contacto",
    ),
    headlines=(
        "Las últimas novedades de nuestro equipo",
        "Cómo empezar",
        "Diez consejos para principiantes",
        "Historias de clientes",
        "Nuestro informe anual",
        "Preguntas frecuentes",
        "Entre bastidores",
        "Novedades de este mes",
    ),
    privacy="Política de privacidad",
    terms="Términos de uso",
    contact="Contacto",
    legal="Aviso legal",
    sitemap="Mapa del sitio",
    search="Buscar",
    related="Artículos relacionados",
    read_more="Leer más",
    cookie="Utilizamos cookies para mejorar su experiencia en nuestro sitio web.",
    accept="Aceptar",
    settings="Configuración",
    rights="Todos los derechos reservados.",
    skip="Saltar al contenido",
    published="Publicado el",
    popular="Lo más leído",
    newsletter="Suscríbete a nuestro boletín",
    tags="Etiquetas",
)

_VOCAB: dict[str, _Words] = {
    "en": _EN,
    "de": _DE,
    "fr": _FR,
    "ru": _RU,
    "ja": _JA,
    "zh": _ZH,
    "pt": _PT,
    "es": _ES,
}

#: Languages with a localised boilerplate vocabulary; any other ``lang`` falls back to English.
LANGUAGES: tuple[str, ...] = tuple(_VOCAB)

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
class _Chrome:
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


def _json_str(text: str) -> str:
    """JSON string literal that is safe inside a ``<script>`` element."""
    return json.dumps(text, ensure_ascii=False).replace("</", "<\\/")


@lru_cache(maxsize=4096)
def _chrome(host: str, lang: str) -> _Chrome:
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

    words = _VOCAB.get(lang, _EN)
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
    return _Chrome(
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


def _mega_menu(g: np.random.Generator, words: _Words, cls: str) -> str:
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
    c = _chrome(host, lang)
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
        f'"headline":{_json_str(title)},"datePublished":"{date}"}}</script>\n</head>\n',
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
