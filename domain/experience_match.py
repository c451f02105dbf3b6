"""Whether a how-to task asks for the same task as a stored situation (pure; ADR 0067).

Embedding similarity says two texts are about the same thing; it does not say they ask for the
same *task*: "delete the docs site" is closer to "deploy the docs site" than "push the documentation
website live" is (multilingual-e5-small: 0.91 against 0.85), and "导入" is closer to "导出" than
"导成" is. So matching reads two kinds of evidence:

- **similarity**: the cosine of the task's and the situation's embeddings (through the Embedder
  port, ``application/experience_match.py``), which carries paraphrase, abbreviation and the other
  language;
- **contrast**: words that cannot stand for each other in a task. :func:`contrasts` finds, in the
  two texts, actions of different kinds (deploy against delete, 导入 against 导出, book against
  cancel) and members of one closed set that differ (Ubuntu against macOS, 年假 against 病假, CPU
  against memory, production against staging). Either one makes a different task, however similar
  the texts are.

:func:`decide` matches when the similarity reaches the floor and nothing contrasts. The word lists
are short and general (the actions of operations and office work, platforms, environments,
resources): a word they do not know never contrasts, so an unknown task falls back on similarity.
"""

from __future__ import annotations

import re
import unicodedata
#: Kinds of action, each with its words in English (stems, matched at a word's start) and Chinese.
ACTIONS: dict[str, tuple[str, ...]] = {
    "create": ("add ", "creat", "set up", "setup", "configur", "enable", "turn on", "install", "build", "make",
               "write", "generat", "建", "加", "添加", "新建", "创建", "配置", "设置", "开启", "启用", "安装", "装",
               "搭", "生成", "出一份", "配", "开具", "开专票", "开票"),
    "remove": ("delet", "remov", "drop", "uninstall", "disable", "turn off", "revok", "cancel", "offboard",
               "deactivat", "purge", "删", "删除", "移除", "卸载", "禁用", "关闭", "注销", "吊销", "作废", "取消", "退",
               "离职"),
    "deploy": ("deploy", "releas", "ship", "push", "go live", "roll out", "rollout", "publish", "部署", "上线",
               "发布", "发版", "推送"),
    "revert": ("roll back", "rollback", "revert", "undo", "downgrad", "回滚", "撤销", "回退", "降级"),
    "upgrade": ("upgrad", "updat", "bump", "move up", "increment", "升级", "更新", "扩容", "加大", "grow", "resiz"),
    "fix": ("fix", "repair", "debug", "troubleshoot", "track down", "get it green", "修", "修复", "排查", "定位"),
    "import": ("import", "load into", "导入"),
    "export": ("export", "dump", "导出", "导成"),
    "backup": ("back up", "backup", "snapshot", "备份"),
    "restore": ("restor", "recover", "bring back", "back to", "恢复", "找回", "还原"),
    "migrate": ("migrat", "move", "convert", "transfer", "迁移", "转移"),
    "clean": ("clean", "prune", "purge", "free", "清理", "清除"),
    "review": ("approv", "review", "审批", "审阅", "审核"),
    "request": ("request ", "apply", "file ", "submit", "order ", "ask for", "book ", "reserve", "schedul", "申请",
                "报销", "提交", "预订", "订", "借", "开通", "交", "请"),
    "return": ("return", "give back", "归还", "还"),
    "rotate": ("rotat", "logrotate", "replace", "renew", "refresh", "轮换", "更换", "续"),
    "speed": ("speed up", "optimi", "accelerat", "加速", "优化"),
    "merge": ("merge", "合并"),
    "reopen": ("reopen", "重新打开"),
    "reset": ("reset", "flush", "重置"),
    "onboard": ("onboard", "add a new hire", "入职", "报到"),
}
#: Pairs of kinds that can stand for each other ("move Postgres up to 15" upgrades; 续 an SSL
#: certificate updates it; deleting unused images cleans them up).
RELATED = frozenset({frozenset(("upgrade", "migrate")), frozenset(("upgrade", "rotate")), frozenset(("clean", "remove")),
                     frozenset(("request", "create"))})
#: Kinds of action that undo or oppose each other: a task that adds one of them to the other asks
#: for something else ("cancel the booking" against "book").
OPPOSITE = frozenset({frozenset(p) for p in (
    ("create", "remove"), ("deploy", "revert"), ("upgrade", "revert"), ("import", "export"), ("backup", "restore"),
    ("request", "remove"), ("request", "review"), ("request", "return"), ("onboard", "remove"), ("merge", "remove"),
    ("create", "revert"), ("deploy", "remove"))})
#: Verbs that mostly introduce the real action ("set up log rotation"): not the main action when another follows.
LIGHT = ("set up", "setup", "configur", "make", "配置", "设置", "办理")
#: Closed sets whose members name different things (platforms, environments, resources, …).
SETS: dict[str, tuple[tuple[str, ...], ...]] = {
    "platform": (("windows",), ("mac", "macos", "os x"), ("linux",), ("ubuntu", "jammy"), ("debian",),
                 ("centos", "rhel")),
    "environment": (("production", "prod", "生产", "线上"), ("staging", "预发"), ("test", "测试")),
    "resource": (("cpu",), ("memory", "ram", "内存", "leak", "泄漏"), ("disk", "磁盘", "硬盘")),
    "leave": (("annual", "vacation", "年假", "年休"), ("sick", "病假"), ("parental", "maternity", "产假"),
              ("婚假",)),
    "proxy": (("caddy",), ("traefik",), ("nginx",), ("haproxy",)),
    "ci": (("jenkins",), ("github actions",), ("gitlab ci",)),
    "host": (("github",), ("gitlab",), ("bitbucket",), ("svn", "subversion")),
    "docker": (("image", "镜像"), ("volume", "卷")),
    "document": (("minutes", "notes"), ("agenda",), ("slides",)),
    "python environment": (("venv", "virtualenv", "virtual environment", "虚拟环境"), ("conda",)),
    "compensation": (("调休", "换休"), ("加班费",)),
    "signing": (("打印", "盖章", "纸质"), ("电子签",)),
    "topic": (("certificate", "cert", "tls", "ssl", "https", "证书"), ("reverse proxy", "反向代理", "反代"),
              ("documentation", "docs", "文档"), ("auth", "鉴权", "认证", "login", "登录"),
              ("hook", "钩子", "pre-commit"), ("ci job", "pipeline", "流水线"), ("sql", "queries", "查询"),
              ("frontend", "page load", "前端", "页面")),
}

_CJK = re.compile(r"[\u3400-\u9fff]")


def _norm(text: str) -> str:
    return " " + re.sub(r"[^\w\u3400-\u9fff]+", " ", unicodedata.normalize("NFKC", text or "").casefold()) + " "


def _has(text: str, word: str) -> bool:
    """Whether ``word`` occurs in the normalised ``text``: anywhere for Chinese, at a word's start for
    English (its stem: "deploy" finds "deploying")."""
    return word in text if _CJK.search(word) else f" {word}" in text


def _positions(text: str) -> dict[str, int]:
    """Per kind of action (:data:`ACTIONS`) ``text`` names, where it first does (light verbs last)."""
    norm = _norm(text)
    out: dict[str, int] = {}
    for kind, words in ACTIONS.items():
        found = [norm.find(w if _CJK.search(w) else f" {w}") for w in words if _has(norm, w)]
        if found:
            light = all(any(norm.find(l if _CJK.search(l) else f" {l}") == at for l in LIGHT if _has(norm, l))
                        for at in found)
            out[kind] = min(found) + (10_000 if light else 0)
    return out


def actions(text: str) -> frozenset[str]:
    """The kinds of action ``text`` names (:data:`ACTIONS`)."""
    return frozenset(_positions(text))


def main_action(text: str) -> str | None:
    """The kind of the first action ``text`` names, a light verb ("set up …") only when nothing else is named."""
    found = _positions(text)
    return min(found, key=lambda k: (found[k], k)) if found else None


def members(text: str) -> dict[str, frozenset[int]]:
    """Per closed set (:data:`SETS`), which of its members ``text`` names."""
    norm = _norm(text)
    out = {}
    for name, groups in SETS.items():
        found = frozenset(i for i, words in enumerate(groups) if any(_has(norm, w) for w in words))
        if found:
            out[name] = found
    return out


def _related(kind: str, kinds: frozenset[str]) -> bool:
    return kind in kinds or any(frozenset((kind, k)) in RELATED for k in kinds)


def contrasts(situation: str, task: str) -> list[str]:
    """Why ``task`` asks for another task than ``situation`` (empty when nothing contrasts): the
    situation's main action missing from a task that names actions, an action added that opposes
    one of the situation's (or the reverse), or different members of one closed set."""
    out = []
    a, b = actions(situation), actions(task)
    main = main_action(situation)
    if main is not None and b and not _related(main, b):
        out.append(f"action {main} against {'/'.join(sorted(b))}")
    elif any(frozenset((x, y)) in OPPOSITE for x in a for y in b - a) or any(
            frozenset((x, y)) in OPPOSITE for x in a - b for y in b):
        out.append(f"opposed actions {'/'.join(sorted(a))} against {'/'.join(sorted(b))}")
    ma, mb = members(situation), members(task)
    for name in sorted(set(ma) & set(mb)):
        if not ma[name] & mb[name]:
            out.append(f"{name} differs")
    return out


def decide(similarity: float, situation: str, task: str, floor: float) -> tuple[bool, list[str]]:
    """Whether ``task`` matches ``situation`` given their embedding similarity: at least ``floor`` and
    nothing contrasting; with the contrasts found."""
    found = contrasts(situation, task)
    return similarity >= floor and not found, found

