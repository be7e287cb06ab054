"""`embedstore plot`: a 2-D map of a collection's units, as interactive HTML, PNG or JSON."""
