"""How errdex splits text into words, once for the two places that must agree: the key
index the store writes at index time and the near-miss lookup the matcher runs on a
paste (a word one of them saw and the other did not would never be found).
"""

from __future__ import annotations

import re
from typing import Final

WORD: Final = re.compile(r"[A-Za-z][A-Za-z0-9_]+")
