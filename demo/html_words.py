"""The localised boilerplate words of the demo's HTML pages, in eight languages.

A site's menu entries, teaser headlines, footer links, cookie banner, search box and share
buttons are written in the page's language (``VOCAB``; any other language falls back to
``ENGLISH``), so that a main-content extractor meets real boilerplate in the language of the
article, as on real sites. ``demo.html_site`` builds the site templates from them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENGLISH", "LANGUAGES", "VOCAB", "Words"]


@dataclass(frozen=True)
class Words:
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


ENGLISH = Words(
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

_DE = Words(
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

_FR = Words(
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

_RU = Words(
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

_JA = Words(
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

_ZH = Words(
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

_PT = Words(
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

_ES = Words(
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

VOCAB: dict[str, Words] = {
    "en": ENGLISH,
    "de": _DE,
    "fr": _FR,
    "ru": _RU,
    "ja": _JA,
    "zh": _ZH,
    "pt": _PT,
    "es": _ES,
}

#: Languages with a localised boilerplate vocabulary; any other ``lang`` falls back to English.
LANGUAGES: tuple[str, ...] = tuple(VOCAB)
