"""The export page's stylesheet: a pi theme's tokens as CSS variables, then fixed rules.

pi themes name an ``export`` section (``pageBg``, ``cardBg``, ``infoBg``) for exactly this;
a theme without it gets the terminal-default colours the TUI uses.
"""

from __future__ import annotations

from pitui.core.themes import DEFAULT_COLORS, THEME_TOKENS, PiTheme

_RULES = """
*{box-sizing:border-box}
body{margin:0;background:var(--page-bg);color:var(--pi-text);
 font:15px/1.55 ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:920px;margin:0 auto;padding:24px 20px 48px}
pre,code,.plain,.thinking-text,.tool-title{font-family:ui-monospace,SFMono-Regular,Menlo,
 Consolas,"Liberation Mono",monospace;font-size:13px}
header{border-bottom:1px solid var(--pi-borderMuted);margin-bottom:20px}
h1{color:var(--pi-accent);font-size:20px;margin:0 0 8px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0 0 14px;
 color:var(--pi-muted);font-size:13px}
dt{color:var(--pi-dim)}dd{margin:0;overflow-wrap:anywhere}
section,.card,.note{margin:14px 0}
.role{color:var(--pi-muted);font-size:12px;margin-bottom:4px}
.user{background:var(--pi-userMessageBg);color:var(--pi-userMessageText);padding:10px 14px;
 border-left:3px solid var(--pi-accent);border-radius:4px}
.plain{white-space:pre-wrap;overflow-wrap:anywhere}
.reply .md{overflow-wrap:anywhere}
.md h1,.md h2,.md h3,.md h4,.md h5,.md h6{color:var(--pi-mdHeading);font-size:16px;
 margin:14px 0 6px}
.md a{color:var(--pi-mdLink)}
.md code{color:var(--pi-mdCode)}
.md pre{background:var(--card-bg);border:1px solid var(--pi-mdCodeBlockBorder);padding:10px;
 border-radius:4px;overflow-x:auto}
.md pre code{color:var(--pi-mdCodeBlock)}
.md blockquote{color:var(--pi-mdQuote);border-left:3px solid var(--pi-mdQuoteBorder);
 margin:8px 0;padding-left:12px}
.md hr{border:0;border-top:1px solid var(--pi-mdHr)}
.md li::marker{color:var(--pi-mdListBullet)}
.md table{border-collapse:collapse}.md th,.md td{border:1px solid var(--pi-borderMuted);
 padding:3px 8px}
.md-image{color:var(--pi-muted)}
details>summary{cursor:pointer;color:var(--pi-muted)}
.thinking-text{color:var(--pi-thinkingText);font-style:italic;white-space:pre-wrap;
 padding:4px 0 4px 12px;border-left:2px solid var(--pi-borderMuted)}
.tool{border-radius:4px;padding:8px 12px;margin:10px 0}
.tool.pending{background:var(--pi-toolPendingBg)}
.tool.success{background:var(--pi-toolSuccessBg)}
.tool.error{background:var(--pi-toolErrorBg)}
.tool-title{margin-bottom:4px}
.t-title{color:var(--pi-toolTitle);font-weight:bold}
.t-path,.t-accent{color:var(--pi-accent)}
.t-warning{color:var(--pi-warning)}
.t-output,.t-plain_path{color:var(--pi-toolOutput)}
.t-space{white-space:pre}
.t-muted{color:var(--pi-muted)}
.args pre{color:var(--pi-muted)}
pre{margin:4px 0;white-space:pre-wrap;overflow-wrap:anywhere}
pre.output{color:var(--pi-toolOutput)}
.tool.error pre.output{color:var(--pi-error)}
.diff-added{color:var(--pi-toolDiffAdded)}
.diff-removed{color:var(--pi-toolDiffRemoved)}
.diff-context{color:var(--pi-toolDiffContext)}
.bash{border-left:3px solid var(--pi-bashMode);padding:6px 12px;background:var(--card-bg)}
.bash.excluded{border-left-color:var(--pi-dim);opacity:.8}
.custom{background:var(--pi-customMessageBg);color:var(--pi-customMessageText);
 padding:8px 12px;border-radius:4px}
.custom .label{color:var(--pi-customMessageLabel);font-weight:bold}
.card{background:var(--info-bg);border-radius:4px;padding:8px 12px}
.card>summary{color:var(--pi-warning)}
.note{color:var(--pi-dim);font-size:12px}
.error{color:var(--pi-error)}
.muted{color:var(--pi-muted);font-size:13px}
img.attached{max-width:100%;border:1px solid var(--pi-borderMuted);margin:6px 0}
footer{margin-top:32px;color:var(--pi-dim);font-size:12px}
"""


def page_style(theme: PiTheme) -> str:
    """The stylesheet for ``theme``."""
    defaults = DEFAULT_COLORS[theme.dark]
    page = theme.export.get("pageBg") or defaults["background"]
    card = theme.export.get("cardBg") or defaults["surface"]
    info = theme.export.get("infoBg") or theme.color("selectedBg")
    text = theme.colors.get("text") or defaults["foreground"]
    tokens = ";".join(
        f"--pi-{token}:{text if token == 'text' else theme.color(token)}" for token in THEME_TOKENS
    )
    scheme = "dark" if theme.dark else "light"
    return (
        f":root{{color-scheme:{scheme};--page-bg:{page};--card-bg:{card};--info-bg:{info};"
        f"{tokens}}}{_RULES}"
    )
