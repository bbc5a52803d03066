"""Stage 5, the page: every section written from the facts, deterministically, with an
optional checked LLM writer."""
