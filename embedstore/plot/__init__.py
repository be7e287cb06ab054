"""`embedstore plot`: a 2-D map of a collection's units, as interactive HTML, PNG or JSON."""

# Here rather than in plot.build (numpy, the store): `embedstore plot`'s options
# show them, and every command's options are declared at start-up.
DEFAULT_LIMIT = 20_000
DEFAULT_K = 5
