"""The one table of numbers written in words, read the same way in a claim and in a page.

Which words are numbers, and which uses of them are not, is decided here and nowhere else
(quantities.py reads figures with it, the prompts' figure rule names its forms, and the tests
read each entry both ways: the word gives its value, and the value is grounded by the word).

- counts: "zero" to "nineteen", the tens, and their hyphenated compounds ("twenty-five");
- magnitudes: "hundred" to "trillion", and "dozen" (12) and "score" (20), which count only after
  a number word, or "dozen" after "a" ("a dozen", "two dozen", "four score"), or "score" after "a"
  before "of" and a word ("a score of seats"; "dozens of", "a score of 9.8" and "a credit score"
  state no figure);
- multiples: "-fold" after a number word ("tenfold", "ten-fold": a multiplier), and the multiple
  words ("double", "twice", "triple", "thrice", "quadruple"; `MULTIPLES`);
- fractions: a count word and a denominator word ("a tenth", "two fifths", "three quarters"), read
  as the share they are (a tenth is 10%), and "half"; a singular one ("a fifth") only where a share
  reads, so "a fifth vendor" stays an ordinal (quantities._read_shares);
- counted things: a count word before what it counts ("two free plans", "one week", "one TB"), and
  "a" or "an" before a unit of time or size ("a year", "an hour"; not in a rate: "$10 a month",
  "twice a year"); "and a half" adds a half ("one and a half hours", "an hour and a half"), and
  "half" before a unit is half of it ("a half-hour", "half a day").

Not numbers (the rules of quantities.py, each tested beside its number): "one of", "two of the
vendors" (a partitive), "all three vendors" and "the two plans" (a set the report names), "one
vendor page" (the run's own sources), "group one" and "Formula One" (labels), "in one unit", "One
reason is" (idioms: "one" counts only after a verb or adverb), "one another", "no one", "the
cheaper one", "one day, ..." (a time), "a few", "a couple of", "two-factor", "one-time",
"double" as a type or a noun ("C doubles", "a double", "IEEE 754 double"), "double-check". "zero"
is a figure alone ("zero free plans"), not in a compound that names a kind of thing ("zero trust",
"zero-day": `ZERO_COMPOUNDS`). A units word then a tens word ("two-fifty") reads as 2.50 or as
250: no page figure, and a claim that writes it is refused and asked to use digits.
"""
from __future__ import annotations

from decimal import Decimal

UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen".split())}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
        if w != "_"}
MAGNITUDES = {"hundred": Decimal(100), "thousand": Decimal(1000), "million": Decimal(10) ** 6,
              "billion": Decimal(10) ** 9, "trillion": Decimal(10) ** 12}
# Counted by the group: a figure only after a number word ("two dozen", "four score"), and
# "dozen" after "a" or "half a" too ("a score of 9.8" is a rating).
GROUPS = {"dozen": Decimal(12), "score": Decimal(20)}
GROUPS_AFTER_A = ("dozen",)
# ... and "score" after "a" only before "of" and a word ("a score of seats" is 20 of them; "a score
# of 9.8" and "a credit score" state no figure).
GROUPS_AFTER_A_OF = ("score",)
# "zero" is a figure ("zero free plans") but in these compounds, which name a kind of thing.
ZERO_COMPOUNDS = frozenset({"trust", "day", "days", "copy", "knowledge", "touch", "shot", "sum", "width", "point"})
# Denominators of a fraction in words (singular and plural); "half" and "quarter" too.
DENOMINATORS = {
    **dict.fromkeys(("half", "halves"), 2), **dict.fromkeys(("third", "thirds"), 3),
    **dict.fromkeys(("quarter", "quarters", "fourth", "fourths"), 4), **dict.fromkeys(("fifth", "fifths"), 5),
    **dict.fromkeys(("sixth", "sixths"), 6), **dict.fromkeys(("seventh", "sevenths"), 7),
    **dict.fromkeys(("eighth", "eighths"), 8), **dict.fromkeys(("ninth", "ninths"), 9),
    **dict.fromkeys(("tenth", "tenths"), 10), **dict.fromkeys(("twentieth", "twentieths"), 20),
    **dict.fromkeys(("hundredth", "hundredths"), 100), **dict.fromkeys(("thousandth", "thousandths"), 1000),
}
# Numerators of a fraction in words ("a tenth", "two fifths").
NUMERATORS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
              "eight": 8, "nine": 9}
MULTIPLES = {**dict.fromkeys(("double", "doubled", "doubles", "doubling", "twice"), 2),
             **dict.fromkeys(("triple", "tripled", "triples", "tripling", "thrice"), 3),
             **dict.fromkeys(("quadruple", "quadrupled", "quadruples", "quadrupling"), 4)}
# A multiple word that is also a noun or a type. Its plural ("doubles") is a figure only before
# what it multiplies ("doubles its fee", "triples in size"), never as "C doubles"; its singular is
# one ("double the price", "a triple discount") except before these words, right after a number
# ("IEEE 754 double", "64-bit double", "2 double rooms"), or closing a clause after "a", "the" or
# a type name ("a double", "C double").
PLURAL_MULTIPLES = frozenset({"doubles", "triples", "quadruples"})
SINGULAR_MULTIPLES = frozenset({"double", "triple", "quadruple"})
MULTIPLIED_AFTER = frozenset("""the its their his her our your my that this these those what a an every each in by
from to""".split())
NOT_MULTIPLIED_BEFORE = frozenset("""is are was were has have can will may must should would type types value values
precision variable variables field fields column columns array arrays quote quotes click clicks space spaced spacing
room rooms bed beds pointer pointers or and""".split())
TYPE_CONTEXT = frozenset({"a", "an", "the", "c", "float", "int", "long", "java", "python"})
FOLD = "fold"  # "tenfold", "ten-fold", "a hundredfold"


def in_words(value: int) -> str | None:
    """The words for a whole number from 0 to 99 ("twenty-five"): the table read the other way."""
    if not 0 <= value < 100:
        return None
    if value < 20:
        return next(w for w, v in UNITS.items() if v == value)
    tens = next(w for w, v in TENS.items() if v == value - value % 10)
    return tens if value % 10 == 0 else f"{tens}-{in_words(value % 10)}"


def number_words() -> list[str]:
    """Every word that is a count or a magnitude on its own (longest first, for a pattern)."""
    return sorted((*UNITS, *TENS, *MAGNITUDES), key=len, reverse=True)


def ambiguous_compound(words: list[str]) -> bool:
    """Whether hyphenated number words are a units word then a tens word ("two-fifty"), which
    reads as 2.50 or as 250: no figure on a page, and refused in a claim."""
    return len(words) == 2 and words[0] in UNITS and 0 < UNITS[words[0]] < 10 and words[1] in TENS


# After a count word, words that make it no count of a thing ("one of", "two or three", "one can").
NOT_COUNTED_AFTER = frozenset("""of another or and to by after in on at for from with as than is are was were be been
has have had it its this that which who can could should would will may might must shall do does did
per each every here there only more less""".split())
# Before "one", words that make it a pronoun ("the cheaper one", "no one", "which one").
PRONOUN_ONE_AFTER = frozenset("the this that any no each every which another some someone".split())
# Before "one", words that make it an idiom, as does the start of a sentence ("in one unit", "at
# one point", "One reason is..."): "one" counts only after a verb or an adverb ("has one free plan").
IDIOM_ONE_AFTER = frozenset("in at on for from with by to into under over of per as".split())
# Before "one", a verb of being makes it "a" ("Acme is one company that..."), but after "there"
# it counts ("there is one free plan").
BEING_BEFORE = frozenset("is are was were be been being remains remained becomes became".split())
# Before a count, words that make it name a set the text already has ("all three vendors", "the
# two plans", "these four regions"): the report's own sources, not a figure a page states.
SET_BEFORE = frozenset("all the these those both its their our your his her".split())
# Before a count word, words that make it a label ("vendor group one", "phase two", "day one"), as
# does a name with a capital ("Formula One", "Group Two").
LABEL_BEFORE = frozenset("""group groups phase tier step option level stage part chapter section version release type
class category zone round wave item case scenario day number no track stream batch cohort team""".split())
# Counted, these are the run's own sources, which a report counts and no page states ("rests on one
# vendor page", "seven vendors charge per host", "two independent sources"): no figure.
SOURCE_NOUNS = frozenset("""source sources page pages site sites vendor vendors provider providers article articles post
posts study studies report reports document documents excerpt excerpts passage passages reference references citation
citations researcher researchers subtopic subtopics bullet bullets finding findings run runs""".split())
# After "one day", words that make it a time, not a duration ("One day, ...", "one day the price...").
ONE_DAY_TIME_BEFORE = frozenset("the it we you they he she i a an this someone soon later".split())
# Units "a" or "an" counts one of ("a year", "an hour", "a terabyte"); not "second" ("a second vendor").
UNITS_AFTER_A = ("millisecond", "minute", "hour", "day", "week", "fortnight", "month", "year", "decade", "byte", "kilobyte", "megabyte",
                 "gigabyte", "terabyte", "petabyte", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib")
# Before "a <unit>", words that make it a rate ("twice a year", "$10 a month", "5 times a day").
RATE_BEFORE = frozenset("once twice thrice times per every".split())
# Before "a <unit>", words that make it a duration even after a figure in its clause ("5 plans, each
# for a year"); after a figure and any other word it is a rate ("5 GB of logs a day").
DURATION_BEFORE = frozenset("""for within in after over under than about around nearly almost only just least most
lasts last lasted takes take took is are was were be of until till past""".split())
AND_A_HALF = "and a half"

