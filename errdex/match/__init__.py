"""Pasted text -> the records it contains, with the values it puts in their holes.

Stage 6 of the pipeline (see DESIGN.md): a Matcher is compiled once from a store's match
entries and never changes; matching reads it. This package never writes to a store and
never prints. Its modules, each one concern:

- `matcher`: the Matcher, which runs the steps below on one text; `entry`: what it is
  built from; `compiled`: what it keeps of each template; `found`: what a match call finds.
- `index`: anchors in one automaton; `verify`: literals in order around an anchor, holes
  bound; `variants`: records found by a Debug variant or an exception type; `approximate`:
  near misses for the messages nothing else explains; `rank`: best first, once per record.
- `prefilter`: the keys and the cheap test a log scan uses before the matcher.
- `paste`, `prefixes`, `rust_debug`: reading the pasted text (messages, tracebacks, log
  prefixes, Rust Debug values); `evidence`: what a traceback says about its library;
  `holes`: what a template's hole may hold.
- `near` (with its C twin `_nearc.c`): the nearest records for a message no template fits.
- `scan`: every known error in a whole log, in bounded memory.
- `load`: a Matcher from a store.
"""

from errdex.match.found import MatchStats
from errdex.match.load import load_matcher
from errdex.match.matcher import Matcher
from errdex.models import MatchEntry

__all__ = ["MatchEntry", "MatchStats", "Matcher", "load_matcher"]
