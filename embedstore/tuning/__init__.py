"""`embedstore tune`: fine-tune a sentence-transformers encoder on the user's own code."""
