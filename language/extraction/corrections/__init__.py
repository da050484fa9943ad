"""Changes of mind and corrections, read as operations on what was said before.

- A reversal of taste ("I've gone off coffee", "can't stand running anymore", "tiktok is
  rotting my brain, i hate it now", "I've come round on olives, I actually like them now")
  states the new preference; the check ends the opposite one the agent holds
  (facts/findings.py), so a like and a dislike of one thing never stand together.
- A correction replaces the value it corrects: inside one message ("I live in Graz. sorry,
  Linz", "data analyst, scratch that, data engineer") the corrected statement is dropped; of a
  value said earlier ("Slovak not Czech", "correction: it's Bergen, not Oslo") the new value is
  stated with the old one as ``ended``, so in a multi-valued slot the old item ends rather than
  a second one being added.
- An addition to a multi-valued slot ("add olives to the list of things I hate", "I know SQL
  too", "and Arabic, a bit") adds an item and ends nothing.

reversals.py reads the first; corrected.py the second, with values.py (what a value said
alone is); added.py the third, and a change said with both its ends ("left Grab and joined
Gojek").
"""

from language.extraction.corrections.added import additions, also, left_and_joined
from language.extraction.corrections.corrected import Read, contrast, correction, said_before
from language.extraction.corrections.reversals import subject_of, tastes

__all__ = [
    "Read",
    "additions",
    "also",
    "contrast",
    "correction",
    "left_and_joined",
    "said_before",
    "subject_of",
    "tastes",
]
