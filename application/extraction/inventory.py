"""The rule inventory: every rule of the rule extractor with its language, what it matches, slot and example.

docs/extraction.md holds :func:`rule_table` verbatim (a test keeps them equal, and checks that
every example makes a claim of its rule's slot); regenerate it with
``python -m hlmem.application.extraction.inventory``.

Two kinds of rule, tried in this order for each clause: the *frame* rules of
:mod:`.frames_zh` / :mod:`.frames_en` (personal facts, after subject resolution), then the
*patterns* of :mod:`.patterns_zh` / :mod:`.patterns_en` (configuration and state of things, and
the speaker's preferences), which also catch what no frame read.
"""

from __future__ import annotations

from hlmem.application.extraction import frames_en, frames_zh
from hlmem.application.extraction.frames import inventory

#: The patterns: (name, language, what it matches, slot, example).
PATTERNS: tuple[tuple[str, str, str, str, str], ...] = (
    ("zh.pattern.version_ba", "zh", "把 X 升级/回滚到 V", "version", "把 payments 回滚到 v1.0"),
    ("zh.pattern.version_key", "zh", "X 的(当前)版本是 V", "version", "component-00 当前版本是 v1.2"),
    ("zh.pattern.version_change", "zh", "X 升级/回滚/部署到 V", "version", "X 回滚到 v1.0"),
    ("zh.pattern.version_run", "zh", "X (现在)运行 V", "version", "component-04 现在运行 release v1.2"),
    ("zh.pattern.version_obj", "zh", "(我)在用/装了 X V", "version", "我在用 Python 3.12"),
    ("zh.pattern.port_key", "zh", "X 的端口是/改成 N", "port", "nginx 的端口改成了 9090"),
    ("zh.pattern.port_verb", "zh", "X 监听/跑在 N 端口", "port", "服务 A 监听 3000 端口"),
    ("zh.pattern.model_key", "zh", "X 的模型是 M", "model", "客服机器人的模型是 qwen-max"),
    ("zh.pattern.model_verb", "zh", "X 用/换成 M 模型", "model", "客服机器人现在用 qwen-max 模型"),
    ("zh.pattern.path_key", "zh", "X 的(数据)目录/路径是 P", "path", "hlmem 的数据目录是 ~/.local/share/hlmem"),
    ("zh.pattern.path_verb", "zh", "X 装在/放在 P", "path", "hlmem 装在 /opt/hlmem"),
    ("zh.pattern.status_key", "zh", "X 的(当前)状态是 S", "status", "service-04 的 API 服务 当前状态为 healthy"),
    ("zh.pattern.status_kind", "zh", "X 服务/进程 当前 S", "status", "worker 进程 当前 running"),
    ("zh.pattern.status_in", "zh", "X (不)处于/在 S 状态", "status", "api-gateway 处于 维护 状态"),
    ("zh.pattern.rel_is", "zh", "我的 <关系> 叫/是 <名字>", "by relation word", "我老婆是李娜"),
    ("zh.pattern.is_rel", "zh", "<名字> 是我的 <关系>", "by relation word", "张三是我的朋友"),
    ("zh.pattern.name", "zh", "我叫/名叫 X", "name", "我叫张伟"),
    ("zh.pattern.moved", "zh", "(我)搬到/搬去 X (the speaker)", "lives_in", "搬去深圳了"),
    ("zh.pattern.lives", "zh", "(我)住在 X (the speaker)", "lives_in", "住在北京"),
    ("zh.pattern.works_as", "zh", "我在 X 当/做 Y (employer or place, and job)", "employer", "我在腾讯当工程师"),
    ("zh.pattern.works", "zh", "我在 X 工作/上班", "works_in", "在上海上班"),
    ("zh.pattern.joined", "zh", "我入职/加入/跳槽到 X (an organisation)", "employer", "我跳槽到字节跳动了"),
    ("zh.pattern.job", "zh", "我是/当了 (一名) X (a job word)", "job_title", "我是一名软件工程师"),
    ("zh.pattern.age", "zh", "我今年 N 岁", "age", "我今年25岁"),
    ("zh.pattern.hometown", "zh", "我的老家/家乡是/在 X", "hometown", "我老家在湖南"),
    ("zh.pattern.native", "zh", "我是 X 人", "hometown", "我是北京人"),
    ("zh.pattern.theme_set", "zh", "把主题改成/设为 X", "preferred_ui_theme", "把主题改成暗色"),
    ("zh.pattern.pref", "zh", "(我)用/换成/开启 X (a theme, language or product)", "preferred_ui_theme", "我现在主要用深色模式"),
    ("zh.pattern.like", "zh", "我(不)喜欢/讨厌 X", "likes", "我讨厌香菜"),
    ("zh.pattern.of_is", "zh", "X 的 Y 是 Z (Y a catalogue label, or X a named thing)", "by key word", "control-01 的角色是维护者"),
    ("zh.plan", "zh", "计划/打算/要 + an action (a plan, never the current state)", "plan", "我计划下周去上海"),
    ("zh.dated_plan", "zh", "a clause dated in the future with no other reading", "plan", "下周三开会"),
    ("en.pattern.version_of", "en", "the version of X is V", "version", "The version of hlmem is 0.3.1"),
    ("en.pattern.version_move", "en", "(we) upgraded/rolled back X to V", "version", "We upgraded postgres to 16.2"),
    ("en.pattern.version_passive", "en", "X was upgraded/rolled back to V", "version", "api-gateway was rolled back to v1.0"),
    ("en.pattern.version_deploy", "en", "(we) deployed/installed X V", "version", "We deployed billing 2.4.1"),
    ("en.pattern.version_use", "en", "I use/run X V", "version", "I use Python 3.12"),
    ("en.pattern.version_key", "en", "X's (current) version is V", "version", "component-03's version is v2.1"),
    ("en.pattern.version_run", "en", "X is running/runs V", "version", "component-04 is running v1.2"),
    ("en.pattern.port_on", "en", "X runs/listens on port N", "port", "nginx listens on port 8080"),
    ("en.pattern.port_key", "en", "X's port is N", "port", "nginx's port is 8080"),
    ("en.pattern.model_key", "en", "X's (default) model is M", "model", "the bot's model is gpt-4o"),
    ("en.pattern.model_use", "en", "X uses the M model", "model", "the bot uses the qwen-max model"),
    ("en.pattern.path_key", "en", "X's (data) directory/path is P", "path", "hlmem's data directory is ~/.local/share/hlmem"),
    ("en.pattern.path_at", "en", "X is installed/stored at P", "path", "hlmem is installed at /opt/hlmem"),
    ("en.pattern.status_key", "en", "X's status is S", "status", "billing's status is degraded"),
    ("en.pattern.status_is", "en", "X is (not) running/down/healthy…", "status", "api-gateway is down"),
    ("en.pattern.rel_is", "en", "my <relation> is (called) <Name>", "by relation word", "My boss is Alice Chen"),
    ("en.pattern.is_rel", "en", "<Name> is my <relation>", "by relation word", "Bob is my neighbour"),
    ("en.pattern.name", "en", "my name is / call me X", "name", "My name is Ada Lovelace"),
    ("en.pattern.moved", "en", "I moved/relocated to X (the speaker)", "lives_in", "I relocated back to Madrid"),
    ("en.pattern.lives", "en", "I live/am based in X (the speaker)", "lives_in", "I'm living in Lisbon"),
    ("en.pattern.work_at", "en", "I work at/for X (as a Y)", "employer", "I work for Acme Corp"),
    ("en.pattern.work_in", "en", "I work in X", "works_in", "I work in Seattle"),
    ("en.pattern.joined", "en", "I joined/started at X", "employer", "I joined Globex as an analyst"),
    ("en.pattern.job", "en", "I'm a/an X (a job word) (at Y)", "job_title", "I'm a data scientist at Initech"),
    ("en.pattern.work_as", "en", "I work as a X (at Y)", "job_title", "I work as a nurse"),
    ("en.pattern.promoted", "en", "I was promoted to / became X", "job_title", "I became a team lead"),
    ("en.pattern.age", "en", "I'm N (years old)", "age", "I'm 34"),
    ("en.pattern.from", "en", "I'm (originally) from X", "hometown", "I'm originally from Cork"),
    ("en.pattern.theme_set", "en", "I switched/set the theme to X", "preferred_ui_theme", "I set the theme to dark"),
    ("en.pattern.pref", "en", "I use/prefer/switched to X (a theme, language or product)", "preferred_ui_theme",
     "I switched to dark mode"),
    ("en.pattern.like", "en", "I (don't) like/love/hate X", "likes", "I really enjoy hiking"),
    ("en.pattern.my_is", "en", "my Y is Z (Y a catalogue label or a free noun)", "by key word", "My birthday is May 3"),
    ("en.pattern.of_is", "en", "<Name>'s Y is Z", "by key word", "Alice's birthday is May 3"),
    ("en.plan", "en", "I'll / I'm going to + an action (a plan)", "plan", "I'm going to visit Rome next month"),
)

#: Rules made outside the tables (subject phrases).
EXTRA: tuple[tuple[str, str, str, str, str], ...] = (
    ("en.habit_lead", "en", "Every Sunday / On weekends, I + an activity", "habit", "Every Sunday I call my mom"),
    ("en.kin_apposition", "en", "my <relation> <Name> … (the relation the subject phrase states)", "by relation word",
     "My coworker Tom is vegan"),
    ("zh.kin_apposition", "zh", "我(的)<关系><名字>… (the relation the subject phrase states)", "by relation word",
     "我邻居王阿姨在医院上班"),
    ("en.pet_apposition", "en", "my <pet> <Name> … (the user owns the pet; the clause is about it)", "owns",
     "Our dog Biscuit is 12"),
    ("zh.pet_called", "zh", "我家(那只)<宠物>叫 Y (later clauses are about Y)", "owns", "我家那只橘猫叫年糕"),
    ("en.pet_called", "en", "my <pet> is called / 's name is Y", "owns", "My dog is called Rex"),
    ("zh.pet_names", "zh", "…养了一只 X，叫 Y (names for the pet the last clause introduced)", "owns",
     "我养了一只守宫，叫豆包"),
    ("en.pet_names", "en", "…two cats, Miso and Tofu (names for the pets the last clause introduced)", "owns",
     "We have two cats, Miso and Tofu"),
    ("zh.kin_names", "zh", "有两个孩子，老大叫 X，老二叫 Y (names for the kin the last clause introduced)",
     "by relation word", "我有两个孩子，老大叫乐乐，老二叫安安"),
    ("en.kin_names", "en", "…two kids, Emma and Noah (names for the kin the last clause introduced)", "by relation word",
     "I have two kids, Emma and Noah"),
    ("en.pet_gone", "en", "<Name> / my <pet> passed away, died, ran away (the pet is no longer the user's)", "owns",
     "Sadly Luna passed away last week"),
    ("zh.pet_gone", "zh", "我家<宠物> 走了/丢了 (the pet is no longer the user's)", "owns", "我家狗狗走了"),
    ("zh.amount_after", "zh", "…涨工资了，现在一个月 N (an amount for the quantity the last clause named)", "by key word",
     "涨工资了，现在一个月一万八"),
    ("en.amount_after", "en", "…raised the rent, it's N now (an amount for the quantity the last clause named)",
     "by key word", "They raised the rent, it's $1,650 now"),
    ("en.teammate_mention", "en", "<Name> from my team / work anywhere in a clause (a colleague)", "colleague",
     "Kevin from my team set up the pipeline"),
    ("en.home_mention", "en", "my apartment / flat in X anywhere in a clause (where the user lives)", "lives_in",
     "my flat in Leith has no heating again"),
    ("zh.device_mention", "zh", "我这个 iPhone 13 / 我的红米K60 anywhere in a clause (a device the user has)", "owns",
     "我这个iPhone 13用了快三年"),
    ("en.device_mention", "en", "my Pixel 6 / my Galaxy S21 anywhere in a clause (a device the user has)", "owns",
     "my Pixel 6 is acting up again"),
)


def rows() -> list[tuple[str, str, str, str, str]]:
    """Every rule, frames first (the order they are tried in), then the patterns."""
    return [*inventory((frames_zh.RULES, frames_en.RULES)), *EXTRA, *PATTERNS]


def rule_table() -> str:
    """The markdown table of :func:`rows` (docs/extraction.md)."""
    lines = ["| rule | lang | matches | slot | example |", "| --- | --- | --- | --- | --- |"]
    for name, lang, what, slot, example in rows():
        cells = (f"`{name}`", lang, what, f"`{slot}`" if slot.isidentifier() else slot, example)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(rule_table())
