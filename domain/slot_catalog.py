"""The built-in slot catalogue: common predicates of personal and project memory, as data."""

from __future__ import annotations

from hlmem.domain.events import Cardinality
from hlmem.domain.slots import SlotRegistry, SlotSpec

S, M = Cardinality.SINGLE, Cardinality.MULTI

_SPECS = (
    SlotSpec("preferred_ui_theme", S, ("preferred UI theme", "界面主题", "主题偏好", "深色/浅色模式")),
    SlotSpec("preferred_language", S, ("preferred language", "偏好语言")),
    SlotSpec("lives_in", S, ("lives in", "location", "住在", "居住地")),
    SlotSpec("works_in", S, ("works in", "work city", "在…工作", "工作地点", "工作城市")),
    # How people ask about work (ADR 0098): the employer is whom one works for ("who do I work for",
    # 东家, 高就, 工作单位, 在哪上班), the job title what one is there ("my role at work", position, 岗位, 职务).
    SlotSpec("employer", S, ("employer", "works at", "company", "公司", "雇主", "任职", "work for", "东家", "高就", "工作单位",
                             "上班")),
    SlotSpec("job_title", S, ("job title", "occupation", "职位", "职业", "工作", "role at work", "position", "岗位", "职务")),
    SlotSpec("name", S, ("name", "名字", "姓名")),
    SlotSpec("age", S, ("age", "年龄")),
    SlotSpec("birthday", S, ("birthday", "生日")),
    SlotSpec("hometown", S, ("hometown", "家乡", "老家")),
    SlotSpec("relationship_status", S, ("relationship status", "婚恋状况")),
    SlotSpec("version", S, ("version", "版本"), frozenset({"component"})),
    SlotSpec("port", S, ("port", "端口"), frozenset({"service"})),
    SlotSpec("model", S, ("model", "模型"), frozenset({"service"})),
    SlotSpec("path", S, ("path", "路径"), frozenset({"target"})),
    SlotSpec("likes", M, ("likes", "喜欢", "爱好")),
    SlotSpec("dislikes", M, ("dislikes", "不喜欢", "讨厌")),
    SlotSpec("visited", M, ("visited", "去过")),
    SlotSpec("owns", M, ("owns", "拥有", "有")),
    SlotSpec("speaks", M, ("speaks", "会说")),
    SlotSpec("knows", M, ("knows", "认识")),
    SlotSpec("hobby", M, ("hobby", "爱好", "兴趣")),
    SlotSpec("allergy", M, ("allergy", "过敏")),
    SlotSpec("plan", M, ("plan", "计划", "安排")),
    SlotSpec("uses", M, ("uses", "使用", "在用")),
    SlotSpec("status", S, ("status", "状态")),
    # Health, habits, diet and quantities of a person (the rule extractor's frames, docs/extraction.md).
    SlotSpec("health_condition", M, ("health condition", "健康状况", "病史")),
    SlotSpec("habit", M, ("habit", "习惯", "日常")),
    SlotSpec("diet", M, ("diet", "饮食", "忌口")),
    SlotSpec("education", S, ("education", "school", "university", "学历", "教育背景", "教育程度", "学校", "就读学校")),
    SlotSpec("height", S, ("height", "身高")),
    SlotSpec("weight", S, ("weight", "体重")),
    SlotSpec("budget", S, ("budget", "预算")),
    SlotSpec("salary", S, ("salary", "income", "月薪", "工资", "薪水", "收入")),
    SlotSpec("rent", S, ("rent", "房租", "租金")),
    SlotSpec("shoe_size", S, ("shoe size", "鞋码")),
    SlotSpec("phone", S, ("phone number", "联系电话", "电话", "电话号码", "电话号", "手机号")),
    SlotSpec("email", S, ("email", "邮箱", "邮箱地址", "电子邮箱")),
    SlotSpec("neighborhood", S, ("neighborhood", "小区", "住的小区")),
    # Relations between people: who is whose boss, spouse… (single) or friend, colleague… (multi).
    SlotSpec("boss", S, ("boss", "manager", "上司", "老板", "领导")),
    SlotSpec("spouse", S, ("spouse", "wife", "husband", "配偶", "妻子", "丈夫", "老婆", "老公")),
    SlotSpec("partner", S, ("partner", "对象", "伴侣")),
    SlotSpec("father", S, ("father", "dad", "父亲", "爸爸")),
    SlotSpec("mother", S, ("mother", "mom", "母亲", "妈妈")),
    SlotSpec("advisor", S, ("advisor", "导师")),
    SlotSpec("colleague", M, ("colleague", "coworker", "同事")),
    SlotSpec("friend", M, ("friend", "朋友")),
    SlotSpec("sibling", M, ("sibling", "brother", "sister", "兄弟姐妹", "哥哥", "姐姐", "弟弟", "妹妹")),
    SlotSpec("child", M, ("child", "son", "daughter", "孩子", "儿子", "女儿")),
    SlotSpec("roommate", M, ("roommate", "室友")),
    SlotSpec("classmate", M, ("classmate", "同学")),
    SlotSpec("neighbor", M, ("neighbor", "邻居")),
    SlotSpec("collaborator", M, ("collaborator", "合作者")),
    SlotSpec("cousin", M, ("cousin", "表哥", "表姐", "表弟", "表妹", "堂兄弟姐妹")),
    SlotSpec("uncle", M, ("uncle", "叔叔", "舅舅", "伯伯")),
    SlotSpec("aunt", M, ("aunt", "阿姨", "姑姑", "姨妈", "舅妈")),
    SlotSpec("grandparent", M, ("grandparent", "爷爷", "奶奶", "外公", "外婆")),
    SlotSpec("grandchild", M, ("grandchild", "孙子", "孙女")),
    SlotSpec("niece", M, ("niece", "侄女", "外甥女")),
    SlotSpec("nephew", M, ("nephew", "侄子", "外甥")),
    SlotSpec("sister_in_law", M, ("sister-in-law", "嫂子", "弟媳")),
    SlotSpec("brother_in_law", M, ("brother-in-law", "姐夫", "妹夫")),
    SlotSpec("mother_in_law", S, ("mother-in-law", "岳母", "婆婆")),
    SlotSpec("subordinate", M, ("subordinate", "下属", "部下")),
    SlotSpec("father_in_law", S, ("father-in-law", "岳父", "公公")),
)

_ALIASES = {
    "ui_theme": "preferred_ui_theme",
    "theme": "preferred_ui_theme",
    "界面主题": "preferred_ui_theme",
    "location": "lives_in",
    "city": "lives_in",
    "居住地": "lives_in",
    "work_city": "works_in",
    "works_at": "employer",
    "company": "employer",
    "occupation": "job_title",
    "like": "likes",
    "loves": "likes",
    "hobbies": "hobby",
}

DEFAULT_REGISTRY = SlotRegistry.of(_SPECS, _ALIASES)
