"""English frame rules for work: leaving a job, retiring, what one does and where.

Part of the life-change table (:mod:`.frames_en_life`), tried before the base table: "I quit Target"
is an employer left (polarity false), "I'm a barista at Blue Bottle" a job and its employer.
"""

from __future__ import annotations

from hlmem.application.extraction.frames import Rule, rx
from hlmem.application.extraction.frames_en_words import BE, CAP, END, TAIL, A

_PERFECT = r"(?:'ve|'s|'d|\s+(?:have|has|had|just|recently|finally|officially|already))*"
_ORG = r"(?:the\s+|a\s+|an\s+)?(?-i:[A-Z][\w.&'\-]*(?:\s+(?:[A-Z][\w.&'\-]*|of|de|&))*)"
_JOB = r"[a-z][\w\-]*(?:\s+[a-z][\w\-]*){0,3}?"
_WHERE = rf"(?:\s+(?:at|for|with)\s+(?P<org>{_ORG}|(?:a|an|the)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?))?"
_SCHOOL = r"(?-i:[A-Z][\w.&'\-]*(?:\s+(?:[A-Z][\w.&'\-]*|of|de)){0,5})"


def _r(name: str, slot: str, what: str, example: str, pattern: str, **kw: object) -> Rule:
    return Rule(name=name, lang="en", slot=slot, what=what, example=example, regex=rx(pattern), **kw)  # type: ignore[arg-type]


RULES: tuple[Rule, ...] = (
    # -- work: leaving, retiring, what one does and where -------------------------------------
    _r("en.left_job", "employer", "quit / resigned from / left my job at / was laid off from X (employer, negated)",
       "I quit Target in March",
       rf"{A}{_PERFECT}\s+(?:quit|resigned\s+from|left(?:\s+my\s+(?:job|position|role)\s+(?:at|with))?|"
       rf"quit\s+my\s+(?:job|position)\s+(?:at|with)|(?:was|got)\s+laid\s+off\s+(?:from|by)|got\s+fired\s+from|"
       rf"was\s+let\s+go\s+from|stopped\s+working\s+(?:at|for)|retired\s+from)\s+(?P<v>{_ORG})(?!\s+(?:to|and)\s+(?:join|start|work))"
       rf"{TAIL}{END}",
       polarity=False, change=True),
    _r("en.no_longer_works", "employer", "no longer works at / doesn't work at X anymore (employer, negated)",
       "My sister no longer works at Google",
       rf"{A}(?:\s+no\s+longer|\s+(?:don't|doesn't|do\s+not|does\s+not))\s+work(?:s)?\s+(?:at|for)\s+(?P<v>{_ORG}){TAIL}{END}",
       polarity=False, change=True),
    _r("en.lost_job", "job_title", "quit my job / got laid off / lost my job (no job now: no employer either)",
       "I got laid off last month",
       rf"{A}{_PERFECT}\s+(?P<v>quit\s+my\s+job|lost\s+my\s+job|got\s+laid\s+off|was\s+laid\s+off|got\s+fired|was\s+fired|"
       rf"got\s+let\s+go|resigned|(?:am|'m|is|'s)\s+(?:currently\s+|still\s+)?(?:unemployed|between\s+jobs|out\s+of\s+work|"
       rf"job\s+hunting|looking\s+for\s+work)){TAIL}(?:\s*,\s*[^.!?]*)?{END}",
       change=True, check="habit", also=("employer",)),
    _r("en.left_field", "job_title", "left nursing / teaching (the job is over)", "I left nursing last year",
       rf"{A}{_PERFECT}\s+(?:left|quit|got\s+out\s+of)\s+(?P<v>nursing|teaching|law|medicine|academia|tech|finance|retail|"
       rf"the\s+army|the\s+military|consulting|journalism|banking){TAIL}{END}", polarity=False, change=True, check="habit"),
    _r("en.teaching", "job_title", "am teaching X now (an X teacher)", "now I'm teaching high school biology",
       rf"{A}{BE}\s+(?:now\s+)?(?P<v>teaching\s+[a-z][\w\-]*(?:\s+(?!full|part|now|again|classes|lol)[a-z][\w\-]*){{0,2}}?)"
       rf"(?:\s+(?:classes|full[\s\-]time|part[\s\-]time|now|again|lol|haha))*{TAIL}{END}", change=True, check="habit",
       clean=lambda v: f"{v.split(None, 1)[1]} teacher" if " " in v else "teacher"),
    _r("en.serves", "employer", "is in the army / navy / police (an employer)", "My brother is in the army",
       rf"{A}{BE}\s+(?:now\s+)?in\s+the\s+(?P<v>army|navy|air\s+force|marines|military|police|coast\s+guard|national\s+guard|"
       rf"reserves|peace\s+corps){TAIL}{END}", check="habit"),
    _r("en.retired", "job_title", "is retired / retired (the job is now retired)", "My dad is retired",
       rf"{A}(?:{BE}|{_PERFECT})\s+(?:now\s+|recently\s+|happily\s+|semi-|finally\s+)?(?P<v>retired)(?:\s+(?:last|this|in|from)\b[^.!?]*)?"
       rf"{TAIL}{END}", change=True, check="habit", also=("employer",)),
    _r("en.works_as_job", "job_title", "works / is freelancing as a Y (at Z)", "My sister works as a paralegal at a law firm",
       rf"{A}(?:(?:\s+|(?='))(?:work|works|worked|am\s+working|'m\s+working|is\s+working|'s\s+working|'ve\s+been\s+working|"
       rf"have\s+been\s+working|working)|{BE}\s+(?:freelancing|freelance|working|contracting|temping|volunteering))"
       rf"(?:\s+(?:from\s+home|remotely|full-time|part-time|full\s+time|part\s+time|nights|weekends))?"
       rf"(?:\s+(?:in|at)\s+(?:a|an|the)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?)?\s+as\s+"
       rf"(?:a|an|the)?\s*(?P<v>{_JOB}){_WHERE}(?:\s+(?:in|downtown|nearby)\b[^.!?]*)?{END}", change=True),
    _r("en.student_at", "education", "am a junior/student at X, study (Y) at X (where one studies)",
       "I'm a junior at Ohio State studying nursing",
       rf"{A}(?:{BE}\s+(?:a|an)\s+(?:(?:freshman|sophomore|junior|senior|first-year|second-year|third-year|final-year|"
       rf"grad|graduate|phd|master's|college|university|high\s+school|nursing|law|med|medical|undergrad|undergraduate|"
       rf"exchange|international|part-time|full-time)\s+)*(?:student\s+)?(?:at|in)|\s+(?:study|studies|am\s+studying|"
       rf"'m\s+studying|is\s+studying)\s+(?:[\w\s\-]{{1,24}}?\s+)?(?:at|in)|\s+(?:go|goes|attend|attends)\s+(?:to\s+)?)\s+"
       rf"(?P<v>{_SCHOOL})(?:\s+(?:studying|majoring\s+in|doing|in)\s+(?P<v2>(?!a\b|an\b|the\b|my\b|it\b)[a-z]+(?:\s+[a-z]+){{0,2}}?)"
       rf"(?=\s*(?:,|$|[.!]|\s+(?:and|but|so|if|at|with)\b)))?(?:\s+(?:studying|majoring|doing|for|as|and|if)\b[^.!?]*)?"
       rf"(?:\s*,\s*[^.!?]*)?{END}"),
    _r("en.shift_at", "employer", "just got off / finished a (twelve-hour) shift at X (where one works)",
       "I just got off a twelve-hour night at St. Vincent's",
       rf"{A}{_PERFECT}\s+(?:got\s+off|finished|worked|pulled|did|came\s+off|coming\s+off|am\s+on|'m\s+on|started)\s+"
       rf"(?:a|an|my|another|the)\s+(?:[\w\-]+\s+){{0,2}}?(?:shift|night|nights|double|overnight|overnights|graveyard)\s+"
       rf"(?:at|for)\s+(?P<v>{_ORG}){TAIL}{END}"),
    _r("en.was_before_retiring", "job_title", "was a Y (for N years) before retiring (a retired Y)",
       "My dad was an accountant for forty years before he retired",
       rf"{A}(?:\s+was|\s+were|'d\s+been|\s+had\s+been)\s+(?:a|an)\s+(?P<v>{_JOB})(?:\s+(?:at|for|with)\s+[^.!?]*?)?"
       rf"\s+(?:before\s+(?:he|she|I|they|we)\s+retired|until\s+(?:he|she|I|they|we)\s+retired|before\s+retiring|until\s+retiring)"
       rf"{TAIL}{END}", change=True, check="habit", clean=lambda v: f"retired {v}"),
    _r("en.contract_in", "works_in", "am on a (13-week) contract in X (where one works for now)",
       "I'm on a 13-week contract in Phoenix",
       rf"{A}(?:{BE})?\s+on\s+(?:a|an)\s+(?:[\w\-]+\s+){{0,2}}?(?:contract|assignment|placement|rotation|secondment)\s+in\s+"
       rf"(?P<v>{CAP}){TAIL}{END}"),
    _r("en.job_at", "job_title", "is a Y at Z (a job word, and the employer)", "I'm a barista at Blue Bottle",
       rf"{A}{BE}(?P<neg>\s+not|\s+no\s+longer)?\s+(?:now\s+)?(?:a|an)\s+(?P<v>{_JOB})\s+(?:at|for|with)\s+"
       rf"(?P<org>{_ORG}|(?:a|an|the)\s+[a-z][\w\-]*(?:\s+[a-z][\w\-]*){{0,2}}?)(?:\s+in\s+(?P<place>{CAP}))?{TAIL}{END}"),
    _r("en.teaches", "job_title", "teaches X at Y (a teacher, and the school)", "I teach third grade at Lincoln Elementary",
       rf"{A}\s+(?P<v>teach|teaches)\s+[\w\s\-]{{1,24}}?\s+(?:at|in)\s+(?P<org>{_ORG}|(?:a|an|the)\s+[a-z][\w\-]*"
       rf"(?:\s+[a-z][\w\-]*){{0,2}}?){TAIL}{END}",
       clean=lambda v: "teacher", check="habit"),
    _r("en.teaches_subject", "job_title", "teach high school chemistry / third grade (a teacher)", "I teach high school chemistry",
       rf"{A}\s+(?P<v>teach|teaches)\s+(?:high\s+school|middle\s+school|elementary|college|kindergarten|preschool|\w+\s+grade|"
       rf"(?-i:[A-Z]\w+)|[a-z]+)(?:\s+[a-z]+)?(?:\s+(?:and|at|in|for|to)\b[^.!?]*)?{END}", clean=lambda v: "teacher", check="habit"),
)
