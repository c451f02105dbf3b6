"""Profile questions (ADR 0084): whom they ask about and the topic's slot family; value questions are none."""

from __future__ import annotations

import pytest

from hlmem.domain.profile_intent import ProfileAsk, profile_ask


@pytest.mark.parametrize(("question", "subject", "family"), [
    ("what do you know about Bob?", "Bob", None),
    ("What else do we know about Alice Chen", "Alice Chen", None),
    ("tell me about my sister", "user's sister", None),
    ("Can you tell me everything about Tom?", "Tom", None),
    ("what do you know about me?", "user", None),
    ("What is Bob like?", "Bob", None),
    ("give me an overview of Dana", "Dana", None),
    ("describe my preferences", "user", "preferences"),
    ("What are my eating habits?", "user", "health"),
    ("tell me about Bob's hobbies", "Bob", "preferences"),
    ("what do you know about my work?", "user", "work"),
    ("用户的饮食习惯", "user", "health"),
    ("说说我的工作情况", "user", "work"),
    ("说说小明的爱好", "小明", "preferences"),
    ("讲讲张伟的情况", "张伟", None),
    ("关于小明你知道什么？", "小明", None),
    ("你对我了解多少？", "user", None),
    ("介绍一下张伟", "张伟", None),
    ("小明是个什么样的人？", "小明", None),
    ("聊聊我的饮食习惯吧", "user", "health"),
    ("Tell me about my brother.", "user's brother", None),
    ("Who is Bob?", "Bob", None),
    ("who's Alice Chen?", "Alice Chen", None),
    ("What's my sister like?", "user's sister", None),
    ("Summarize what you know about Alice's health", "Alice", "health"),
    ("Anything I should know about Bob?", "Bob", None),
    ("Give me the rundown on Bob", "Bob", None),
    ("What can you tell me about Alice?", "Alice", None),
    ("小明这个人怎么样？", "小明", None),
    ("关于我你都记得啥", "user", None),
    ("What are Bob's hobbies?", "Bob", "preferences"),
    # a request wrapped around the ask (ADR 0098): 帮我/给我 before it, a tag after it
    ("帮我回忆下Bob的情况", "Bob", None),
    ("麻烦给我梳理一下小明的情况", "小明", None),
    ("jog my memory about Alice", "Alice", None),
    ("refresh my memory on Bob, would you?", "Bob", None),
    ("what do you know about Bob, please?", "Bob", None),
    ("说说小明，好吗", "小明", None),
])
def test_profile_questions(question: str, subject: str, family: str | None) -> None:
    assert profile_ask(question) == ProfileAsk(subject, family)


@pytest.mark.parametrize("question", [
    "where does Bob work now?", "我现在住哪？", "what is my favorite color?", "用户的工作是什么？",
    "Tell me about the time we went to Paris", "What did I say yesterday?", "Tell me about it", "说说你的看法",
    "how do I deploy the app?", "", "?" * 300, "Who is my manager?", "最近怎么样", "有几个人具有硕士及以上的教育背景？",
    "北京智汇星德科技有限公司的那个人，他的教育背景是什么呀？", "where does Bob live, would you?", "帮我回忆下我住哪",
])
def test_value_questions_are_not_profile_questions(question: str) -> None:
    assert profile_ask(question) is None
