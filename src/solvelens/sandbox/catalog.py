"""Fixed vocabularies of the sandbox platform: the real 8 categories, LLM model names, and the words the
generator and simulator compose bot names, problem titles/descriptions and solution texts from."""

from __future__ import annotations

import random
from typing import Final, Literal, get_args

#: The real platform's 8 category slugs in its fixed order: THE one definition in the sandbox (everything else
#: derives from it: :data:`CATEGORY_SLUGS`, :data:`CATEGORIES`, the schemas' slug parameters).
CategorySlug = Literal[
    "technology",
    "science_nature",
    "health",
    "business_finance",
    "education_career",
    "society_culture",
    "philosophy_ideas",
    "lifestyle",
]
CATEGORY_SLUGS: Final[tuple[str, ...]] = get_args(CategorySlug)
#: (displayName, icon, description) of each category, in :data:`CATEGORY_SLUGS` order.
_CATEGORY_DETAILS: Final = (
    ("Technology", "💻", "Coding, software, gadgets, AI tools, tech troubleshooting, engineering."),
    ("Science & Nature", "🔬", "Physics, biology, chemistry, space, environment, animals."),
    ("Health", "🩺", "Fitness, nutrition, mental health, medical questions, sleep, wellbeing."),
    ("Business & Finance", "💼", "Startups, investing, personal finance, marketing, careers."),
    ("Education & Career", "🎓", "Learning, studying, job search, skills, teaching."),
    ("Society & Culture", "🌍", "Politics, history, culture, relationships, communities."),
    ("Philosophy & Ideas", "💭", "Ethics, thought experiments, big questions, creativity."),
    ("Lifestyle", "🏡", "Home, cooking, travel, hobbies, parenting, everyday life."),
)
#: (slug, displayName, icon, description) of the 8 categories in their fixed order.
CATEGORIES: Final[tuple[tuple[str, str, str, str], ...]] = tuple(
    (slug, *details) for slug, details in zip(CATEGORY_SLUGS, _CATEGORY_DETAILS, strict=True)
)

#: Flag categories accepted by a flag submission.
FLAG_CATEGORIES: Final[tuple[str, ...]] = (
    "sexual", "drugs", "weapons", "criminal", "ethical", "hate_speech", "harassment", "spam", "none",
)  # fmt: skip

#: (llm_model, llm_model_version) pairs bots report; lower-case as the real platform stores them.
LLM_MODELS: Final[tuple[tuple[str, str], ...]] = (
    ("claude-sonnet-4-20250514", "20250514"),
    ("claude-opus-4-1", "20250805"),
    ("claude-3-5-haiku", "20241022"),
    ("gpt-4o", "2024-08-06"),
    ("gpt-4.1-mini", "2025-04-14"),
    ("gpt-5", "2025-08-07"),
    ("gemini-2.5-pro", "2025-06"),
    ("gemini-2.5-flash", "2025-06"),
    ("llama-3.3-70b", "3.3"),
    ("mistral-large", "2411"),
    ("qwen2.5-72b", "2.5"),
    ("deepseek-v3", "0324"),
)

_NAME_ADJ = (
    "Agile", "Bright", "Clever", "Deep", "Eager", "Fuzzy", "Gentle", "Humble", "Iron", "Jolly", "Keen",
    "Lucid",
    "Mighty", "Nimble", "Odd", "Patient", "Quick", "Rapid", "Silent", "Tidy", "Ultra", "Vivid", "Wise",
    "Young",
    "Zen", "Amber", "Cosmic", "Crimson", "Golden", "Lunar", "Neon", "Polar", "Quantum", "Solar",
    "Stellar", "Turbo",
)  # fmt: skip
_NAME_NOUN = (
    "Owl", "Fox", "Falcon", "Badger", "Otter", "Lynx", "Raven", "Panda", "Heron", "Bison", "Cobra", "Dingo",
    "Eagle", "Gecko", "Hawk", "Ibis", "Koala", "Lemur", "Mole", "Newt", "Orca", "Puma", "Quail", "Robin",
    "Solver", "Thinker", "Engine", "Oracle", "Scholar", "Sage", "Pilot", "Scout", "Forge", "Spark",
    "Mind", "Bot",
)  # fmt: skip
_HUMAN_FIRST = (
    "alex",
    "sam",
    "kim",
    "noa",
    "lee",
    "ravi",
    "mia",
    "tom",
    "ana",
    "jo",
    "li",
    "omar",
    "eva",
    "max",
)
_HUMAN_LAST = ("smith", "garcia", "chen", "muller", "rossi", "kumar", "silva", "novak", "ito", "berg", "ward")

#: Problem topics of each category, in :data:`CATEGORY_SLUGS` order.
_TOPIC_LISTS: Final[tuple[tuple[str, ...], ...]] = (
    (  # technology
        "a flaky CI pipeline",
        "slow database queries",
        "a memory leak in a Python service",
        "legacy PHP code",
        "home Wi-Fi dead zones",
        "an overheating laptop",
        "a monolith that needs splitting",
        "password sharing in a team",
        "a Raspberry Pi home server",
        "unreliable backups",
        "an LLM chatbot for customer support",
        "log noise",
    ),
    (  # science_nature
        "light pollution in cities",
        "a dying backyard lawn",
        "microplastics in tap water",
        "invasive garden snails",
        "measuring air quality at home",
        "teaching kids about black holes",
        "bird collisions with windows",
        "a compost heap that smells",
        "coral bleaching",
        "seed saving",
        "a cloudy aquarium",
        "urban heat islands",
    ),
    (  # health
        "poor sleep after night shifts",
        "back pain from desk work",
        "meal prep on a budget",
        "running knee pain",
        "screen-time headaches",
        "staying active while travelling",
        "stress before exams",
        "low iron on a vegan diet",
        "sugar cravings",
        "posture while gaming",
        "hydration in hot weather",
        "a sedentary office team",
    ),
    (  # business_finance
        "a small bakery losing customers",
        "pricing a freelance service",
        "an emergency fund on a low income",
        "a startup with high churn",
        "late-paying clients",
        "choosing index funds",
        "a cash-flow gap in winter",
        "marketing a local gym",
        "splitting equity among founders",
        "a subscription nobody renews",
        "inventory waste in a cafe",
        "negotiating a commercial lease",
    ),
    (  # education_career
        "learning a language after 40",
        "switching from teaching to tech",
        "remembering what I read",
        "a gap year on a CV",
        "motivating remote students",
        "preparing for a system design interview",
        "procrastination during a thesis",
        "mentoring junior developers",
        "choosing between two job offers",
        "teaching fractions",
        "public speaking anxiety",
        "burnout in a first job",
    ),
    (  # society_culture
        "loneliness in a new city",
        "a neighbourhood without a meeting place",
        "polarised family dinners",
        "volunteer drop-off in a club",
        "welcoming refugees in a small town",
        "preserving a local dialect",
        "noise conflicts between neighbours",
        "low turnout at local elections",
        "digital exclusion of the elderly",
        "keeping a book club alive",
        "intergenerational housing",
        "misinformation in group chats",
    ),
    (  # philosophy_ideas
        "whether AI can be creative",
        "the ethics of eating meat",
        "free will and responsibility",
        "the value of boredom",
        "what makes a life meaningful",
        "lying to protect someone",
        "the trolley problem for self-driving cars",
        "personal identity after memory loss",
        "obligations to future generations",
        "fairness in lotteries",
        "the paradox of tolerance",
        "happiness versus achievement",
    ),
    (  # lifestyle
        "a cluttered small apartment",
        "cooking for picky kids",
        "travelling with a dog",
        "a balcony vegetable garden",
        "planning a wedding on a budget",
        "keeping houseplants alive",
        "a morning routine that sticks",
        "sharing chores with flatmates",
        "a hobby that fits a busy week",
        "reducing food waste",
        "moving to a new country",
        "a quiet weekend without screens",
    ),
)
_TOPICS: Final[dict[str, tuple[str, ...]]] = dict(zip(CATEGORY_SLUGS, _TOPIC_LISTS, strict=True))
_TITLE_FORMS = (
    "How can I fix {t}?",
    "What is the best way to deal with {t}?",
    "Practical plan for {t}",
    "How would you approach {t}?",
    "Cheap ways to handle {t}",
    "Step-by-step help with {t}",
    "What are we getting wrong about {t}?",
    "Long-term solution for {t}",
    "Ideas wanted: {t}",
    "Where do I start with {t}?",
)
_DESC_CONTEXT = (
    "I have tried the obvious things and nothing has stuck so far.",
    "Budget is tight, so low-cost options are preferred.",
    "This has been going on for several months and is getting worse.",
    "I would like something I can start this week.",
    "Several people are affected, so the answer should scale beyond one person.",
    "I am a beginner here, so please explain the reasoning.",
    "There is a deadline in about a month.",
    "Previous advice was too generic to act on.",
)
_SOL_OPEN = (
    "Start by measuring the problem for a week so you know its real size.",
    "Break the problem into the part you control and the part you do not.",
    "The root cause is usually a missing feedback loop, so add one first.",
    "Begin with the cheapest reversible change and observe the effect.",
    "Write down the constraints explicitly before picking a tactic.",
    "Talk to the people affected and collect three concrete examples.",
)
_SOL_STEP = (
    "Set a small daily routine and track it on a visible checklist.",
    "Automate the repetitive step so it cannot be skipped.",
    "Replace the biggest single source of friction with a simpler default.",
    "Run a two-week experiment and compare against a baseline.",
    "Ask an expert for one hour of review rather than a long engagement.",
    "Batch similar tasks together to cut context switching.",
    "Add a buffer of time or money for the unexpected cases.",
    "Document the decision so the next person does not repeat the work.",
    "Remove one commitment before adding a new one.",
    "Use a shared calendar so everyone sees the plan.",
)
_SOL_CLOSE = (
    "Review the result after a month and keep only what worked.",
    "If nothing changes after two iterations, revisit the constraints.",
    "Celebrate small wins; momentum matters more than perfection.",
    "Expect a dip before things improve and plan for it.",
    "Share what you learn so others can build on it.",
)


def bot_names(rng: random.Random, count: int, taken: set[str] | None = None) -> list[str]:
    """``count`` unique bot names such as ``QuantumOwl`` or ``QuantumOwl7`` (case-insensitively unique, also
    against ``taken`` (lower-case names already in use), which is updated)."""
    used = taken if taken is not None else set()
    names: list[str] = []
    while len(names) < count:
        name = rng.choice(_NAME_ADJ) + rng.choice(_NAME_NOUN)
        if name.lower() in used:
            name = f"{name}{rng.randrange(2, 10_000)}"
        if name.lower() in used:
            continue
        used.add(name.lower())
        names.append(name)
    return names


def human_usernames(count: int) -> list[str]:
    """``count`` unique human usernames such as ``alex_smith`` or ``alex_smith_3``."""
    out: list[str] = []
    i = 0
    while len(out) < count:
        first = _HUMAN_FIRST[i % len(_HUMAN_FIRST)]
        last = _HUMAN_LAST[(i // len(_HUMAN_FIRST)) % len(_HUMAN_LAST)]
        rnd = i // (len(_HUMAN_FIRST) * len(_HUMAN_LAST))
        out.append(f"{first}_{last}" + (f"_{rnd}" if rnd else ""))
        i += 1
    return out


def bot_description(rng: random.Random) -> str:
    """A one-line bot description."""
    return rng.choice(
        (
            "A problem-solving bot",
            "Careful step-by-step solver",
            "Fast answers, fewer words",
            "Specialist in practical plans",
            "Experimental research bot",
            "Votes thoughtfully, solves pragmatically",
        )
    )


def problem_text(rng: random.Random, category: str) -> tuple[str, str]:
    """A (title, description) pair for a problem of ``category`` (title 5-200 chars, description 20-1000)."""
    topic = rng.choice(_TOPICS[category])
    title = rng.choice(_TITLE_FORMS).format(t=topic)
    title = title[0].upper() + title[1:]
    desc = f"The situation: {topic}. " + " ".join(rng.sample(_DESC_CONTEXT, 2))
    return title, desc


def solution_text(rng: random.Random) -> str:
    """A solution text of roughly 150-250 characters (always >= 50)."""
    a, b = rng.sample(_SOL_STEP, 2)
    return f"{rng.choice(_SOL_OPEN)} {a} {b} {rng.choice(_SOL_CLOSE)}"
