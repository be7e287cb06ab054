"""The REST API: `create_app` builds the FastAPI app that `embedstore serve` runs."""
